import CLua
import CLuaBridge

/// The arguments of a call from Lua into a Swift function, and the place its results go.
///
/// Every read here is one that cannot raise a Lua error: a wrong argument throws a
/// ``LuaError`` in Swift, which the trampoline raises in Lua once the Swift frames are gone.
///
/// ```swift
/// lua.register("greet", in: "demo") { call in
///     let name = try call.string(at: 1)
///     call.push("hello, \(name)")
///     return 1
/// }
/// ```
public struct LuaCall {
    let L: OpaquePointer
    /// The function's name, for argument errors (`bad argument #1 to 'greet'`).
    let function: String

    init(L: OpaquePointer, function: String = "?") {
        self.L = L
        self.function = function
    }

    /// How deep ``value(at:)`` reads nested tables.
    public static let maximumDepth = 100

    // MARK: - Arguments

    /// How many arguments the call has.
    public var count: Int32 { lua_gettop(L) }

    /// Whether the argument at `index` is missing or nil.
    public func isNil(at index: Int32) -> Bool {
        lua_type(L, index) <= LUA_TNIL
    }

    /// The Lua type name of the value at `index` (`string`, `table`, `no value`, …).
    public func typeName(at index: Int32) -> String {
        String(cString: lua_typename(L, lua_type(L, index)))
    }

    /// The string (or number, as Lua writes it) at `index`.
    public func string(at index: Int32) throws(LuaError) -> String {
        guard let string = optionalString(at: index) else { throw argumentError(index, expected: "string") }
        return string
    }

    /// The string at `index`, or `nil` when it is missing or nil; anything else is an error.
    public func optionalString(at index: Int32) -> String? {
        let type = lua_type(L, index)
        guard type == LUA_TSTRING || type == LUA_TNUMBER else { return nil }
        if type == LUA_TNUMBER {
            // lua_tolstring would turn the number into a string in place: copy it first.
            lua_pushvalue(L, index)
            defer { lua_settop(L, -2) }
            return String(cString: strata_lua_tolstring(L, -1, nil))
        }
        var length = 0
        guard let bytes = strata_lua_tolstring(L, index, &length) else { return nil }
        return String(decoding: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self)
    }

    /// The integer at `index` (a float with an integral value counts).
    public func integer(at index: Int32) throws(LuaError) -> Int64 {
        var isInteger: Int32 = 0
        let value = lua_tointegerx(L, index, &isInteger)
        guard isInteger != 0, lua_type(L, index) == LUA_TNUMBER else { throw argumentError(index, expected: "integer") }
        return value
    }

    /// The integer at `index`, or `nil` when it is missing or nil.
    public func optionalInteger(at index: Int32) throws(LuaError) -> Int64? {
        isNil(at: index) ? nil : try integer(at: index)
    }

    /// The number at `index`.
    public func number(at index: Int32) throws(LuaError) -> Double {
        var isNumber: Int32 = 0
        let value = lua_tonumberx(L, index, &isNumber)
        guard isNumber != 0, lua_type(L, index) == LUA_TNUMBER else { throw argumentError(index, expected: "number") }
        return value
    }

    /// The truth of the value at `index`, as Lua sees it (only nil and false are false).
    public func boolean(at index: Int32) -> Bool {
        lua_toboolean(L, index) != 0
    }

    /// The error for a wrong argument, as Lua's own functions word it.
    public func argumentError(_ index: Int32, expected: String) -> LuaError {
        LuaError(code: "argument", message: "bad argument #\(index) to '\(function)' (\(expected) expected, got \(typeName(at: index)))")
    }

    /// The value at `index`, tables read in full (to ``maximumDepth``, a table met again
    /// reading as ``LuaValue/other(_:)``).
    public func value(at index: Int32) -> LuaValue {
        var open: Set<UnsafeRawPointer> = []
        return value(at: lua_absindex(L, index), depth: 0, open: &open)
    }

    private func value(at index: Int32, depth: Int, open: inout Set<UnsafeRawPointer>) -> LuaValue {
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return .nil
        case LUA_TBOOLEAN: return .boolean(lua_toboolean(L, index) != 0)
        case LUA_TNUMBER:
            return strata_lua_isinteger(L, index) != 0 ? .integer(lua_tointegerx(L, index, nil)) : .number(lua_tonumberx(L, index, nil))
        case LUA_TSTRING: return .string(optionalString(at: index) ?? "")
        case LUA_TTABLE:
            guard depth < Self.maximumDepth, hasStackRoom(), let pointer = lua_topointer(L, index), open.insert(pointer).inserted else { return .other("table") }
            defer { open.remove(pointer) }
            var entries: [LuaValue: LuaValue] = [:]
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                // Only keys that are already strings are read as text, so lua_next's key stays as it was.
                let key = value(at: lua_absindex(L, -2), depth: depth + 1, open: &open)
                entries[key] = value(at: lua_absindex(L, -1), depth: depth + 1, open: &open)
                lua_settop(L, -2)
            }
            return .table(entries)
        default:
            return .other(typeName(at: index))
        }
    }

    // MARK: - Results

    /// Pushes `value` (a table as a new table).
    public func push(_ value: LuaValue) {
        switch value {
        case .nil, .other: lua_pushnil(L)
        case .boolean(let bool): lua_pushboolean(L, bool ? 1 : 0)
        case .integer(let integer): lua_pushinteger(L, integer)
        case .number(let number): lua_pushnumber(L, number)
        case .string(let string): push(string)
        case .table(let entries):
            guard hasStackRoom() else { return lua_pushnil(L) }
            lua_createtable(L, 0, Int32(clamping: entries.count))
            for (key, value) in entries {
                push(key)
                push(value)
                lua_rawset(L, -3)
            }
        }
    }

    /// Whether Lua's stack has room for one more level of a nested table (the table, a key and
    /// a value), growing it when needed. A C function is promised only `LUA_MINSTACK` (20)
    /// slots, so every level of a recursive read or push asks for its own; pushing past the
    /// stack's end overwrites Lua's memory. `false` only past Lua's own limit of a million slots.
    func hasStackRoom() -> Bool {
        lua_checkstack(L, 3) != 0
    }

    /// Pushes a string (any bytes, zeros included).
    public func push(_ string: String) {
        var string = string
        string.withUTF8 { bytes in _ = lua_pushlstring(L, bytes.baseAddress, bytes.count) }
    }

    public func push(_ integer: Int64) { lua_pushinteger(L, integer) }
    public func push(_ number: Double) { lua_pushnumber(L, number) }
    public func push(_ bool: Bool) { lua_pushboolean(L, bool ? 1 : 0) }
    public func pushNil() { lua_pushnil(L) }

    // MARK: - Errors

    /// The error value at `index`, as the message handler of a protected call left it.
    func error(at index: Int32) -> LuaError {
        var code: UnsafePointer<CChar>?, message: UnsafePointer<CChar>?
        guard strata_lua_is_error(L, index, &code, &message) != 0 else {
            return LuaError(code: "lua", message: optionalString(at: index) ?? "(error object is a \(typeName(at: index)) value)")
        }
        let entry = value(at: index)
        var traceback: String?
        if case .string(let text)? = entry["traceback"] { traceback = text }
        return LuaError(code: code.map { String(cString: $0) } ?? "lua", message: message.map { String(cString: $0) } ?? "error", traceback: traceback)
    }
}
