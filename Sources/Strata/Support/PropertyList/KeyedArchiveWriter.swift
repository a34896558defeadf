import Foundation

/// Builds an `NSKeyedArchiver` archive: the `$objects` array (`$null` first, then each object,
/// referred to by a UID) that ``data(root:)`` wraps with `$archiver`, `$version` and `$top` in a
/// binary property list.
///
/// Equal strings, numbers, booleans and data are written once, and so is each class
/// description (`$classname`, `$classes`): Apple's archiver does the same for the objects it
/// meets again, and on real stores (Final Cut Pro's `dictionaryData`) a `true` or a class that
/// several objects share is one entry.
struct KeyedArchiveWriter {
    /// The objects so far, `$null` first.
    private(set) var objects: [PropertyListValue] = [.string("$null")]
    /// Plain values and class descriptions already written, by value.
    private var shared: [PropertyListValue: UInt64] = [:]

    /// The reference to `$null`, which an archive writes for a missing object (an `NSURL`
    /// without a base).
    static let null = PropertyListValue.uid(0)

    /// A reference to a plain value (a string, number, boolean or data), written once.
    mutating func plain(_ value: PropertyListValue) -> PropertyListValue {
        if let known = shared[value] { return .uid(known) }
        let index = UInt64(objects.count)
        objects.append(value)
        shared[value] = index
        return .uid(index)
    }

    /// Reserves the next place in `$objects` for an object whose contents are encoded before it
    /// is filled in: Apple's archiver gives an object its number before its contents theirs.
    mutating func reserve() -> Int {
        objects.append(.string("$null"))
        return objects.count - 1
    }

    /// Fills the place `index` with an object of class `className` (whose superclasses, up to
    /// `NSObject`, are `superclasses`) holding `fields`.
    mutating func fill(_ index: Int, className: String, superclasses: [String] = [], fields: [String: PropertyListValue]) {
        var object = fields
        object["$class"] = classReference(className, superclasses: superclasses)
        objects[index] = .dictionary(object)
    }

    /// The reference to the description of class `name`, written once.
    mutating func classReference(_ name: String, superclasses: [String] = []) -> PropertyListValue {
        let classes = ([name] + superclasses + ["NSObject"]).map(PropertyListValue.string)
        return plain(.dictionary(["$classname": .string(name), "$classes": .array(classes)]))
    }

    /// Copies the object at `index` of `archive`, with every object it refers to, and returns
    /// the reference to the copy. A reference outside the archive becomes `$null`.
    mutating func copy(from archive: KeyedArchive, index: Int) -> PropertyListValue {
        var mapping: [Int: Int] = [0: 0]
        var pending: [Int] = []
        // Numbers the object at `old` in this archive: plain values and class descriptions are
        // shared with those written already, others take a new place, filled below.
        func number(_ old: Int) -> Int {
            if let known = mapping[old] { return known }
            guard old >= 0, old < archive.objects.count else { return 0 }
            let object = archive.objects[old]
            let isObject = object.dictionaryValue.map { $0["$classname"] == nil } ?? false
            let new: Int
            if isObject {
                new = objects.count
                objects.append(.string("$null"))
                pending.append(old)
            } else {
                guard case .uid(let shared) = plain(object) else { return 0 }
                new = Int(shared)
            }
            mapping[old] = new
            return new
        }
        func remapped(_ value: PropertyListValue) -> PropertyListValue {
            switch value {
            case .uid(let old): .uid(UInt64(number(old > UInt64(Int.max) ? -1 : Int(old))))
            case .array(let values): .array(values.map(remapped))
            case .dictionary(let fields):
                // Fields in a fixed order, `$class` last as Apple's archiver numbers it, so that
                // an object copied twice gets the same numbers.
                .dictionary(Dictionary(uniqueKeysWithValues: fields.keys.sorted { ($0 == "$class" ? 1 : 0, $0) < ($1 == "$class" ? 1 : 0, $1) }
                    .map { ($0, remapped(fields[$0]!)) }))
            default: value
            }
        }
        let root = number(index)
        // A worklist rather than recursion: an object graph may be a chain of any length.
        while let old = pending.popLast() {
            objects[mapping[old]!] = remapped(archive.objects[old])
        }
        return .uid(UInt64(root))
    }

    /// The archive whose root object is `root`, as a binary property list.
    func data(root: PropertyListValue) -> Data {
        BinaryPropertyListWriter.data(for: .dictionary([
            "$archiver": .string("NSKeyedArchiver"),
            "$version": .integer(100_000),
            "$top": .dictionary(["root": root]),
            "$objects": .array(objects),
        ]))
    }
}

extension KeyedArchive {
    /// A keyed archive of its own whose root is the object at `index` of this one, with every
    /// object it refers to: how a part of an archive that cannot be read as a value is kept.
    func subarchive(rootedAt index: Int) -> Data {
        var writer = KeyedArchiveWriter()
        let root = writer.copy(from: self, index: index)
        return writer.data(root: root)
    }
}
