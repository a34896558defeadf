/// A property's name as a typed property of a ``ManagedObject`` subclass keeps it: the address
/// of the name's UTF-8 bytes, NUL-terminated, that live as long as the program. Eight bytes
/// where a `String` takes sixteen, in every object, for each typed attribute its class
/// declares: a benchmark `Person` of five attributes took a malloc block of 192 bytes with
/// `String` names and takes one of 160 with these (BENCHMARKS.md, the stop after 7b52a90).
///
/// A name written as a literal (`@Attribute("title")`) is kept as the literal's own bytes,
/// with nothing to look up when the object is made; any other `String` is interned, once per
/// distinct name for the life of the program. ``PropertySlots/number(of:)-(PropertyName)``
/// finds a name's slot by that address.
///
/// A name holds no NUL: a model's names cannot (they come from XML attributes, or from
/// identifiers), so the bytes up to the first NUL are the whole name. A name given with a NUL
/// would be read as its part before it: interning one stops the program, as reading a property
/// the entity lacks through a typed property does, and debug builds check literals too.
@usableFromInline
struct PropertyName: @unchecked Sendable {
    // Sendable: the bytes are never written or freed.

    /// The name's first byte; a NUL follows its last.
    @usableFromInline let utf8Start: UnsafePointer<UInt8>

    /// The literal's own bytes. A string literal's bytes are in the program's image and end
    /// with a NUL; a literal of one Unicode scalar, which a `StaticString` may hold without
    /// bytes, is interned.
    @inlinable
    init(_ literal: StaticString) {
        assert(!literal.hasPointerRepresentation || literal.withUTF8Buffer { !$0.contains(0) }, "a property name holds no NUL")
        utf8Start = literal.hasPointerRepresentation ? literal.utf8Start : Self.intern(String(literal.unicodeScalar))
    }

    /// The bytes of `name`, kept once for each distinct name for the life of the program.
    @usableFromInline
    init(interning name: String) {
        utf8Start = Self.intern(name)
    }

    @usableFromInline
    static func intern(_ name: String) -> UnsafePointer<UInt8> {
        precondition(!name.utf8.contains(0), "a property name holds no NUL: \(name.debugDescription)")
        return interned.withLock { table in
            if let bytes = table[name] { return bytes }
            let bytes = UnsafeMutablePointer<UInt8>.allocate(capacity: name.utf8.count + 1)
            bytes.initialize(from: Array(name.utf8) + [0], count: name.utf8.count + 1)
            table[name] = UnsafePointer(bytes)
            return UnsafePointer(bytes)
        }
    }

    private static let interned = Locked<[String: UnsafePointer<UInt8>]>([:])

    /// The name as a `String`.
    @usableFromInline
    var string: String { String(cString: utf8Start) }
}
