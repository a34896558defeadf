/// The properties of an entity, inherited ones first, numbered once for all its objects: an
/// object keeps its values in an array by these numbers rather than in a hash table of its own.
final class PropertySlots: Sendable {
    /// The property names, by number.
    let names: [String]
    /// Each property's number, by name.
    let numbers: [String: Int]

    /// The names as the two machine words a `String` is made of. A short name (up to 15 bytes
    /// of UTF-8) is held in those words themselves, the same for equal names; a longer one
    /// points at its storage, the same for copies of one string.
    private let nameWords: [(UInt64, UInt64)]

    /// The numbers of the names typed properties keep (``PropertyName``), by address. A
    /// reader that takes the slots from an object copies this out of them and probes the copy
    /// (`number(at:)`): probing through a method of the slots retained and released them
    /// around the probe, on each read of an object.
    let numbersByAddress: NumbersByAddress

    /// The type of each attribute, by number (`nil` for a relationship).
    private let attributeTypes: [AttributeType?]
    /// The derived attributes and their expressions, by name: their values come from the
    /// store, never from a setter.
    let derivations: [String: String]

    /// The slots of `attributes` then `relationships`; a name met again keeps its first number.
    init(attributes: [AttributeDescription], relationships: [RelationshipDescription]) {
        var unique: [String] = []
        var types: [AttributeType?] = []
        var numbers: [String: Int] = [:]
        for (name, type) in attributes.map({ ($0.name, Optional($0.type)) }) + relationships.map({ ($0.name, nil) }) where numbers[name] == nil {
            numbers[name] = unique.count
            unique.append(name)
            types.append(type)
        }
        (self.names, self.numbers, attributeTypes) = (unique, numbers, types)
        derivations = Dictionary(attributes.filter(\.isDerived).map { ($0.name, $0.derivationExpression ?? "") }, uniquingKeysWith: { first, _ in first })
        nameWords = unique.map(Self.words)
        numbersByAddress = NumbersByAddress(names: unique.count)
    }

    deinit {
        numbersByAddress.deallocate()
    }

    /// The number of the property `name`. Accessors name properties with literals, whose
    /// words equal those of the model's names: comparing words finds them without hashing the
    /// name, and any other spelling of a name is found by hashing.
    @inline(__always)
    func number(of name: String) -> Int? {
        let words = Self.words(of: name)
        for number in nameWords.indices where nameWords[number] == words { return number }
        return numbers[name]
    }

    /// The number of the property `name`, found by the address of its bytes: the first time
    /// an address is met its name is read and looked up, and the answer kept for the address.
    func number(of name: PropertyName) -> Int? {
        if let known = numbersByAddress.number(at: name.utf8Start) { return known }
        let number = number(of: name.string)
        numbersByAddress.remember(number, at: name.utf8Start)
        return number
    }

    /// The type of the attribute `name`; `nil` for a relationship or an unknown name.
    func attributeType(named name: String) -> AttributeType? {
        number(of: name).flatMap { attributeTypes[$0] }
    }

    /// The type of the attribute numbered `number`; `nil` for a relationship.
    func attributeType(at number: Int) -> AttributeType? {
        attributeTypes[number]
    }

    @inline(__always)
    private static func words(of name: String) -> (UInt64, UInt64) {
        withUnsafeBytes(of: name) { $0.loadUnaligned(as: (UInt64, UInt64).self) }
    }

    /// Slots for an entity description no model holds: values go by name only.
    static let none = PropertySlots(attributes: [], relationships: [])
}

/// The stored attributes and to-one relationships of an entity with their numbers in its
/// ``PropertySlots``: what a row read from the store fills.
struct StoredSlots: Sendable {
    var attributes: [(slot: Int, type: AttributeType)]
    var toOnes: [(slot: Int, name: String)]
}
