import Foundation
import Strata
import StrataFuzzSupport

// libFuzzer target: the input is a predicate format string. Parsing it may fail (any thrown
// error is fine); a predicate that parses must print as text that parses back to an equal
// predicate (what `ObjectPredicate.description` promises), and must compile to SQL, fetch, count
// and evaluate in memory on a small filled store without trapping.

// MARK: - Fixed inputs

/// What the placeholders of a fuzzed format take, in order: `%K` a key path, `%@` a value of
/// each kind (string, number, bool, nil, array, date), so that every placeholder path runs.
private let arguments: [PredicateArgument] = [
    "name", "Tolkien", 3, 2.5, true, nil, .array(["a", 1, 2.5]), .date(Date(timeIntervalSinceReferenceDate: 0)),
    "books.title", "The Hobbit",
]

/// Values for `$VARIABLE`s, so that substituted predicates reach the store too.
private let variables: [String: PredicateValue] = [
    "NAME": "Tolkien", "N": 3, "X": 2.5, "TITLES": ["Dune", "Mort"], "FLAG": true, "NOTHING": .null,
]

/// A store filled once: three authors (one with every attribute set, one with none), books,
/// an e-book, tags and pages; and each entity's objects, for evaluation in memory.
private nonisolated(unsafe) let library = FuzzLibrary()

// MARK: - Entry point

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPredicate(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let format = FuzzModel.text(data, size)
    let predicate: ObjectPredicate
    do {
        predicate = try ObjectPredicate(format: format, arguments: arguments)
    } catch {
        return 0
    }
    checkDescriptionRoundTrip(of: predicate, format: format)
    library.exercise(predicate)
    if let bound = try? predicate.substituting(variables), bound != predicate {
        library.exercise(bound)
    }
    return 0
}

/// Traps unless `predicate.description` parses to an equal predicate.
private func checkDescriptionRoundTrip(of predicate: ObjectPredicate, format: String) {
    let text = predicate.description
    let reparsed: ObjectPredicate
    do {
        reparsed = try ObjectPredicate(format: text)
    } catch {
        fatalError("the description of a parsed predicate does not parse\n  input: \(format)\n  description: \(text)\n  error: \(error)")
    }
    guard reparsed == predicate else {
        fatalError("the description of a parsed predicate parses to another predicate\n  input: \(format)\n  description: \(text)\n  reparsed: \(reparsed.description)\n  first: \(predicate)\n  then: \(reparsed)")
    }
}

// MARK: - Library

/// The filled store a fuzzed predicate runs against.
private final class FuzzLibrary {
    let stack: DataStack
    let context: ObjectContext
    var objects: [String: [ManagedObject]] = [:]

    init() {
        (stack, context) = FuzzModel.newStack()
        do {
            try context.performAndWait { try fill() }
        } catch {
            fatalError("cannot fill the fuzz library: \(error)")
        }
    }

    private func fill() throws {
        let full = try context.insert("Author")
        try full.setValue(Int64(1), forKey: "remoteID")
        try full.setValue("Tolkien", forKey: "name")
        try full.setValue(Int16(81), forKey: "age")
        try full.setValue(Int32(3), forKey: "count")
        try full.setValue(Decimal(string: "12.50"), forKey: "price")
        try full.setValue(2.5, forKey: "score")
        try full.setValue(Float(0.25), forKey: "ratio")
        try full.setValue(true, forKey: "active")
        try full.setValue(Date(timeIntervalSinceReferenceDate: -900_000_000), forKey: "born")
        try full.setValue(Data([0, 1, 2, 255]), forKey: "photo")
        try full.setValue(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F"), forKey: "token")
        try full.setValue(URL(string: "https://example.com/tolkien"), forKey: "site")
        let other = try context.insert("Author")
        try other.setValue(Int64(2), forKey: "remoteID")
        try other.setValue("Lèvi", forKey: "name")
        try other.setValue(false, forKey: "active")
        try other.setValue(full, forKey: "mentor")
        _ = try context.insert("Author")

        let tags = try ["Fantasy", "Classic", "Sci-Fi"].map { name in
            let tag = try context.insert("Tag")
            try tag.setValue(name, forKey: "name")
            return tag
        }
        let titles = ["The Hobbit", "the hobbit", "Dune", "Élan Vital", ""]
        for (index, title) in titles.enumerated() {
            let book = try context.insert(index == 2 ? "EBook" : "Book")
            try book.setValue(Int64(index + 1), forKey: "bookID")
            try book.setValue(title, forKey: "title")
            if index != 3 { try book.setValue(Double(index) / 2, forKey: "rating") }
            try book.setValue(Date(timeIntervalSinceReferenceDate: Double(index) * 1e8), forKey: "published")
            if index < 3 { try book.setValue(index == 1 ? other : full, forKey: "author") }
            for tag in tags.prefix(index) { try book.add(tag, toKey: "tags") }
            for number in 0..<(index % 3) {
                let page = try context.insert("Page")
                try page.setValue(Int32(number + 1), forKey: "number")
                if number == 0 { try page.setValue("Once upon", forKey: "text") }
                try book.add(page, toKey: "pages")
            }
            if index == 2 {
                try book.setValue("epub", forKey: "format")
                try book.setValue(Int64(1024), forKey: "fileSize")
            }
        }
        try context.save()
        for entity in FuzzModel.entityNames {
            objects[entity] = try context.fetch(FetchRequest(entityName: entity))
        }
    }

    /// Checks the predicate's keys, compiles and runs it in SQL for every entity, and
    /// evaluates it on every object: errors are answers, only traps are bugs.
    func exercise(_ predicate: ObjectPredicate) {
        context.performAndWait {
            for entity in FuzzModel.entityNames {
                if let description = FuzzModel.model.entity(named: entity) {
                    try? predicate.checkKeys(for: description, in: FuzzModel.model)
                }
                _ = try? context.fetch(FetchRequest(entityName: entity, predicate: predicate))
                _ = try? stack.store.count(of: entity, matching: predicate)
                for object in objects[entity] ?? [] {
                    _ = try? predicate.evaluate(with: object)
                }
            }
        }
    }
}
