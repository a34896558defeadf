/// A Lua value as Swift sees it: what a chunk returns, or a global read from Swift.
///
/// ```swift
/// try lua.run("return 1, 'a', {x = true}", name: "values")
/// // [.integer(1), .string("a"), .table([.string("x"): .boolean(true)])]
/// ```
public enum LuaValue: Sendable, Hashable {
    case `nil`
    case boolean(Bool)
    case integer(Int64)
    case number(Double)
    case string(String)
    /// A table's entries, by key; tables nested deeper than ``LuaCall/maximumDepth`` read as
    /// ``other(_:)``.
    case table([LuaValue: LuaValue])
    /// A function, userdata or thread, by its type name (and what `__name` calls it).
    case other(String)

    /// The value of a sequence's `i`th element (from 1), when this is a table.
    public subscript(index: Int) -> LuaValue? {
        guard case .table(let entries) = self else { return nil }
        return entries[.integer(Int64(index))]
    }

    /// The value at `key`, when this is a table.
    public subscript(key: String) -> LuaValue? {
        guard case .table(let entries) = self else { return nil }
        return entries[.string(key)]
    }
}

extension LuaValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .number(value) }
    public init(booleanLiteral value: Bool) { self = .boolean(value) }
}
