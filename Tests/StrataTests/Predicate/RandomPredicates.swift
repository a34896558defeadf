import Foundation
@testable import Strata

/// Random predicate format strings over the Library model, with their `%` arguments: comparisons
/// of key paths of Book, EBook and Author (and, inside SUBQUERY, of Tag and Page) against values
/// drawn from ``RandomLibrary``'s domains, so that most of them split the rows; quantifiers,
/// aggregates, SUBQUERY, key paths on both sides, and AND/OR/NOT nested up to depth 3.
struct RandomPredicates {
    private var random: SplitMix
    private var arguments: [PredicateArgument] = []
    private var variables = 0

    init(seed: UInt64) {
        random = SplitMix(state: seed &* 0x2545_F491_4F6C_DD1D)
    }

    /// A predicate for `entity` (Book, EBook or Author) and the arguments its placeholders take.
    mutating func next(for entity: String) -> (format: String, arguments: [PredicateArgument]) {
        arguments = []
        variables = 0
        let format = node(Self.shapes[entity]!, prefix: "", depth: 3)
        return (format, arguments)
    }

    // MARK: - The model, as the generator sees it

    enum Domain {
        case string([String])
        case integer(ClosedRange<Int>)
        case rating
        case date
    }

    /// The key paths of one entity: single values, to-manies' values, to-manies themselves
    /// (for @count and SUBQUERY) and what their members' numbers can be aggregated over.
    struct Shape {
        var scalars: [(path: String, domain: Domain, optional: Bool)]
        var manyValues: [(path: String, domain: Domain)]
        var toManies: [(path: String, member: String)]
        var aggregates: [(path: String, domain: Domain)]
        var objects: [String]
        /// Predicates the compiler refuses by design, for the test to skip and count.
        var limits: [String] = []
    }

    static let isbns = (0..<RandomLibrary.bookCount).map { String(format: "978%010d", $0) }

    static let shapes: [String: Shape] = {
        let titles = Domain.string(RandomLibrary.titles), names = Domain.string(RandomLibrary.authorNames)
        let tags = Domain.string(RandomLibrary.tagNames), texts = Domain.string(RandomLibrary.pageTexts)
        let book = Shape(
            scalars: [
                ("title", titles, false), ("isbn", .string(isbns), false), ("rating", .rating, true), ("published", .date, true),
                ("author.name", names, true), ("author.remoteID", .integer(0...11), true), ("author.born", .date, true),
            ],
            manyValues: [
                ("tags.name", tags), ("pages.number", .integer(0...4)), ("pages.text", texts), ("author.books.rating", .rating),
                ("author.books.title", titles), ("tags.books.rating", .rating), ("tags.books.author.name", names),
                ("pages.book.title", titles), ("author.books.published", .date),
            ],
            toManies: [("tags", "Tag"), ("pages", "Page"), ("author.books", "Book")],
            aggregates: [("pages.@sum.number", .integer(0...6)), ("pages.@avg.number", .rating), ("pages.@min.number", .integer(0...3)),
                ("pages.@max.number", .integer(0...4)), ("author.books.@avg.rating", .rating), ("author.books.@sum.rating", .integer(0...30)),
                ("author.books.@max.published", .date), ("author.books.@min.rating", .rating)],
            objects: ["author.books", "pages.book", "tags.books"],
            limits: ["tags.books.@count > 2", "ANY rating > 1", "author.books.tags.@count > 1", "ALL title == 'Dune'"])
        var ebook = book
        ebook.scalars += [("format", .string(RandomLibrary.formats), false), ("fileSize", .integer(0...300), true)]
        let author = Shape(
            scalars: [("name", names, false), ("remoteID", .integer(0...11), false), ("born", .date, true)],
            manyValues: [
                ("books.rating", .rating), ("books.title", titles), ("books.published", .date), ("books.tags.name", tags),
                ("books.pages.number", .integer(0...4)), ("books.pages.text", texts), ("books.author.name", names),
            ],
            toManies: [("books", "Book")],
            aggregates: [("books.@avg.rating", .rating), ("books.@sum.rating", .integer(0...30)), ("books.@max.published", .date),
                ("books.@min.rating", .rating), ("books.@max.rating", .rating)],
            objects: ["books.author"], limits: ["books.tags.@count > 1", "ANY name == 'Tolkien'", "books.pages.@sum.number > 2"])
        let tag = Shape(
            scalars: [("name", tags, false)], manyValues: [("books.rating", .rating), ("books.title", titles)], toManies: [("books", "Book")],
            aggregates: [("books.@avg.rating", .rating)], objects: [])
        let page = Shape(
            scalars: [("number", .integer(0...4), false), ("text", texts, true), ("book.title", titles, false), ("book.rating", .rating, true)],
            manyValues: [("book.tags.name", tags)], toManies: [("book.pages", "Page")], aggregates: [("book.pages.@max.number", .integer(0...4))],
            objects: [])
        return ["Book": book, "EBook": ebook, "Author": author, "Tag": tag, "Page": page]
    }()

    // MARK: - Logic

    private mutating func node(_ shape: Shape, prefix: String, depth: Int) -> String {
        if depth == 0 || random.chance(2, in: 5) { return leaf(shape, prefix: prefix, depth: depth) }
        switch random.next(5) {
        case 0, 1, 2:
            let connective = random.pick(random.chance(1, in: 2) ? [" AND ", " && "] : [" OR ", " || "])
            var terms: [String] = []
            for _ in 0..<(random.chance(1, in: 4) ? 3 : 2) { terms.append(grouped(node(shape, prefix: prefix, depth: depth - 1))) }
            return terms.joined(separator: connective)
        default:
            return random.pick(["NOT ", "!"]) + grouped(node(shape, prefix: prefix, depth: depth - 1))
        }
    }

    /// Parentheses most of the time; without them, precedence decides, which both evaluators
    /// must read alike too.
    private mutating func grouped(_ text: String) -> String {
        random.chance(4, in: 5) ? "(\(text))" : text
    }

    private mutating func leaf(_ shape: Shape, prefix: String, depth: Int) -> String {
        switch random.next(40) {
        case 0..<12:
            let scalar = random.pick(shape.scalars)
            if scalar.optional, random.chance(1, in: 6) { return "\(key(prefix + scalar.path)) \(random.pick(["==", "!=", "<", ">="])) \(random.pick(["nil", "NIL", "NULL"]))" }
            return comparison(key(prefix + scalar.path), scalar.domain)
        case 12..<20:
            let many = random.pick(shape.manyValues)
            let quantifier = self.quantifier(many.path, ["ANY ", "SOME ", "ALL ", "NONE ", "", "ANY "])
            if quantifier.isEmpty {
                // A to-many CONTAINS a value when one of its members equals it; so does IN.
                let value = self.value(many.domain)
                return random.chance(1, in: 2) ? "\(prefix + many.path) CONTAINS\(options(many.domain)) \(value)" : "\(value) IN \(prefix + many.path)"
            }
            return quantifier + comparison(prefix + many.path, many.domain)
        case 20..<25:
            if random.chance(1, in: 2) {
                let toMany = random.pick(shape.toManies)
                return "\(prefix + toMany.path).@count \(numberOperator()) \(random.next(5))"
            }
            let aggregate = random.pick(shape.aggregates)
            if random.chance(1, in: 8) { return "\(prefix + aggregate.path) \(random.pick(["==", "!="])) nil" }
            return comparison(prefix + aggregate.path, aggregate.domain)
        case 25..<29 where depth > 0 && variables < 2:
            let toMany = random.pick(shape.toManies)
            variables += 1
            let variable = "$v\(variables)"
            let inner = node(Self.shapes[toMany.member]!, prefix: variable + ".", depth: min(depth - 1, 1))
            return "SUBQUERY(\(prefix + toMany.path), \(variable), \(inner)).@count \(numberOperator()) \(random.next(3))"
        case 29..<33:
            return pathAgainstPath(shape, prefix: prefix)
        case 33..<35 where prefix.isEmpty && !shape.objects.isEmpty:
            let path = random.pick(shape.objects)
            return random.pick(["ANY \(path) == SELF", "SELF IN \(path)", "NONE \(path) == SELF", "ALL \(path) == SELF", "\(path) CONTAINS SELF"])
        case 35:
            return random.pick(["TRUEPREDICATE", "FALSEPREDICATE"])
        // Rare, since one such leaf makes the whole predicate fail to compile.
        case 36 where prefix.isEmpty && !shape.limits.isEmpty && random.chance(1, in: 4):
            return random.pick(shape.limits)
        default:
            let scalar = random.pick(shape.scalars)
            return comparison(key(prefix + scalar.path), scalar.domain)
        }
    }

    /// A quantifier for a to-many value path; none asks for CONTAINS or IN, which alone take a
    /// to-many without one.
    private mutating func quantifier(_ path: String, _ choices: [String]) -> String {
        random.pick(choices)
    }

    /// A key path, sometimes passed as a `%K` argument.
    private mutating func key(_ path: String) -> String {
        guard !path.hasPrefix("$"), random.chance(1, in: 10) else { return path }
        arguments.append(PredicateArgument(stringLiteral: path))
        return "%K"
    }

    /// Comparisons whose both sides are key paths of the evaluated object.
    private mutating func pathAgainstPath(_ shape: Shape, prefix: String) -> String {
        let numbers = shape.scalars.filter { if case .rating = $0.domain { true } else if case .integer = $0.domain { true } else { false } }
        let counts = shape.toManies.map { "\(prefix + $0.path).@count" }
        let left = random.pick(numbers.map { prefix + $0.path } + counts)
        switch random.next(3) {
        case 0:
            let right = random.pick(shape.aggregates.filter { if case .date = $0.domain { false } else { true } }.map { prefix + $0.path } + counts)
            return "\(left) \(numberOperator()) \(right)"
        case 1:
            let numeric = shape.manyValues.filter { if case .rating = $0.domain { true } else if case .integer = $0.domain { true } else { false } }
            guard !numeric.isEmpty else { return "\(left) == \(left)" }
            let many = random.pick(numeric)
            return "\(quantifier(many.path, ["ANY ", "ALL ", "NONE "]))\(prefix + many.path) \(numberOperator()) \(left)"
        default:
            let strings = shape.scalars.filter { if case .string = $0.domain { true } else { false } }
            let manyStrings = shape.manyValues.filter { if case .string = $0.domain { true } else { false } }
            guard let one = strings.isEmpty ? nil : random.pick(strings), !manyStrings.isEmpty else { return "\(left) == \(left)" }
            return "\(random.pick(["ANY ", "ALL ", "NONE "]))\(prefix + random.pick(manyStrings).path) \(random.pick(["==", "!=", "<", "BEGINSWITH"]))\(options(one.domain)) \(prefix + one.path)"
        }
    }

    // MARK: - Comparisons of values

    private mutating func comparison(_ path: String, _ domain: Domain) -> String {
        guard case .string(let strings) = domain else {
            switch random.next(8) {
            case 0: return "\(path) BETWEEN \(betweenBounds(domain))"
            case 1: return "\(path) IN \(list(domain))"
            default: return "\(path) \(numberOperator()) \(value(domain))"
            }
        }
        let op = random.pick(["==", "=", "!=", "<>", "<", "<=", ">", ">=", "BEGINSWITH", "ENDSWITH", "CONTAINS", "LIKE", "LIKE", "MATCHES", "MATCHES", "IN", "BETWEEN"])
        let options = self.options(domain)
        switch op {
        case "LIKE": return "\(path) LIKE\(options) \(literal(.string(likePattern(random.pick(strings)))))"
        case "MATCHES": return "\(path) MATCHES\(options) \(literal(.string(regularExpression(strings))))"
        case "IN": return "\(path) IN\(options) \(list(domain))"
        case "BETWEEN": return "\(path) BETWEEN\(options) \(betweenBounds(domain))"
        default: return "\(path) \(op)\(options) \(value(domain))"
        }
    }

    private mutating func numberOperator() -> String {
        random.pick(["==", "=", "!=", "<>", "<", "<=", "=<", ">", ">=", "=>"])
    }

    private mutating func options(_ domain: Domain) -> String {
        guard case .string = domain else { return "" }
        return random.pick(["", "", "", "[c]", "[d]", "[cd]"])
    }

    /// A constant of `domain`, as a literal or a `%@`-family argument.
    private mutating func value(_ domain: Domain) -> String {
        literal(constant(domain))
    }

    private mutating func constant(_ domain: Domain) -> PredicateValue {
        switch domain {
        case .string(let strings): return .string(stringValue(strings))
        case .integer(let range): return .integer(Int64(range.lowerBound + random.next(range.count)))
        case .rating: return random.chance(1, in: 3) ? .integer(Int64(random.next(6))) : .double(Double(random.next(11)) / 2)
        case .date: return .date(Date(timeIntervalSinceReferenceDate: RandomLibrary.published(random.next(400))))
        }
    }

    private mutating func literal(_ value: PredicateValue) -> String {
        if random.chance(1, in: 6) {
            switch value {
            case .integer(let number):
                let letters = random.pick(["%@", "%d", "%i", "%ld"])
                arguments.append(PredicateArgument(.integer(number)))
                return letters
            case .double(let number):
                arguments.append(PredicateArgument(.double(number)))
                return random.pick(["%@", "%f"])
            default:
                arguments.append(PredicateArgument(value))
                return "%@"
            }
        }
        switch value {
        case .integer(let number) where number == 0 || number == 1: return random.chance(1, in: 4) ? random.pick(number == 1 ? ["YES", "TRUE"] : ["NO", "FALSE"]) : String(number)
        case .date(let date): return "CAST(\(Int64(date.timeIntervalSinceReferenceDate)), \"NSDate\")"
        default: return value.description
        }
    }

    private mutating func list(_ domain: Domain) -> String {
        if case .date = domain { return dateList(count: random.next(4)) }
        if random.chance(1, in: 5) {
            arguments.append(.array((0..<random.next(4)).map { _ in constant(domain) }))
            return "%@"
        }
        var members: [String] = []
        for _ in 0..<random.next(4) { members.append(constant(domain).description) }
        if random.chance(1, in: 8) { members.append("nil") }
        return "{" + members.joined(separator: ", ") + "}"
    }

    private mutating func betweenBounds(_ domain: Domain) -> String {
        if case .date = domain { return dateList(count: 2) }
        let low = constant(domain), high = constant(domain)
        if random.chance(1, in: 5) {
            arguments.append(.array([low, high]))
            return "%@"
        }
        return "{\(low.description), \(high.description)}"
    }

    /// Dates go in lists as arguments: an array literal holds constants, and CAST is not one.
    private mutating func dateList(count: Int) -> String {
        arguments.append(.array((0..<count).map { _ in constant(.date) }))
        return "%@"
    }

    // MARK: - Strings

    /// A string near the domain: a value, folded or cut, so that [c], [d] and substrings matter.
    private mutating func stringValue(_ strings: [String]) -> String {
        let value = random.pick(strings)
        switch random.next(10) {
        case 0: return value.lowercased()
        case 1: return value.uppercased()
        case 2: return value.folding(options: .diacriticInsensitive, locale: nil)
        case 3: return String(value.prefix(1 + random.next(max(1, value.count))))
        case 4: return String(value.suffix(1 + random.next(max(1, value.count))))
        case 5: return random.pick(["", "e", "o", "The", "É", "x", "i"])
        default: return value
        }
    }

    private mutating func likePattern(_ value: String) -> String {
        var pattern = random.chance(1, in: 4) ? "*" : ""
        for character in stringValue([value]) {
            switch random.next(10) {
            case 0: pattern += "?"
            case 1: if !pattern.hasSuffix("*") { pattern += "*" }
            default: pattern.append(character)
            }
        }
        return pattern + (random.chance(1, in: 4) ? "*" : "")
    }

    private mutating func regularExpression(_ strings: [String]) -> String {
        let value = stringValue(strings), escaped = NSRegularExpression.escapedPattern(for: value)
        switch random.next(5) {
        case 0: return NSRegularExpression.escapedPattern(for: String(value.prefix(2))) + ".*"
        case 1: return ".*" + NSRegularExpression.escapedPattern(for: String(value.suffix(2)))
        case 2: return "(" + escaped + "|" + NSRegularExpression.escapedPattern(for: random.pick(strings)) + ")"
        case 3: return "[A-Za-z]" + ".{\(max(0, value.count - 1))}"
        default: return escaped
        }
    }
}

