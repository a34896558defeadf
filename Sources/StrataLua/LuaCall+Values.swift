import CLua
import CLuaBridge
import Foundation
import Strata

// Strata's values in Lua: attribute values as numbers, strings and booleans (dates as ISO 8601
// text, binary data as byte strings, UUIDs and URIs as text), transformable values as the
// tables of their JSON form (NSNull as {["$null"] = true}, so that it leaves no hole), JSON as
// tables, and back, with the import's rules for what converts without loss.

extension LuaCall {
    // MARK: - Attribute values

    /// Pushes an attribute value; nil as nil.
    func push(_ value: AttributeValue?) {
        switch value {
        case nil: pushNil()
        case .integer(let integer)?: push(integer)
        case .double(let double)?: push(double)
        case .boolean(let bool)?: push(bool)
        case .string(let string)?: push(string)
        case .binary(let data)?: data.withUnsafeBytes { bytes in _ = lua_pushlstring(L, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count) }
        case let value?: push(json: value.jsonValue)
        }
    }

    /// Pushes the value of `attribute`: a Transformable attribute's as the tables of its
    /// JSON form (``TransformableValue/jsonValue(taggingNulls:)``), which
    /// ``attributeValue(at:for:of:)`` reads back to an equal value.
    func push(_ value: AttributeValue?, of attribute: AttributeDescription) {
        guard attribute.type == .transformable, let value else { return push(value) }
        push(json: attribute.jsonValue(of: value, taggingNulls: true))
    }

    /// The value at `index` for `attribute` of `entity`, converted as an import converts JSON;
    /// a value that does not fit is an error naming the entity, attribute and value. A
    /// Transformable attribute's value is a table, string, number or boolean in the JSON form
    /// of a ``TransformableValue``, archived as the attribute keeps its values.
    func attributeValue(at index: Int32, for attribute: AttributeDescription, of entity: String) throws(LuaError) -> AttributeValue? {
        if isNil(at: index) { return nil }
        if attribute.type == .binary, lua_type(L, index) == LUA_TSTRING {
            var length = 0
            let bytes = strata_lua_tolstring(L, index, &length)
            return .binary(Data(bytes: bytes!, count: length))
        }
        // Lua strings are bytes, and numbers may be infinite: neither converts without loss,
        // and JSON would turn them into U+FFFD or refuse them without naming the attribute.
        let type = lua_type(L, index)
        if type == LUA_TSTRING, !isValidUTF8(at: index) {
            throw LuaError(code: "value", message: "\(entity).\(attribute.name) is \(attribute.type.rawValue): the string is not valid UTF-8")
        }
        if type == LUA_TNUMBER, strata_lua_isinteger(L, index) == 0, !lua_tonumberx(L, index, nil).isFinite {
            throw LuaError(
                code: "value", message: "\(entity).\(attribute.name) is \(attribute.type.rawValue): \(lua_tonumberx(L, index, nil)) is not a finite number")
        }
        if attribute.type == .transformable {
            let json = try json(at: index)
            do {
                return .binary(try TransformableValue(json: json).storedData(valueTransformerName: attribute.valueTransformerName))
            } catch {
                throw LuaError(code: "value", message: "\(entity).\(attribute.name) is Transformable: \(error.message)")
            }
        }
        if let value = plainValue(at: index, for: attribute.type) { return value }
        let json = try json(at: index)
        switch AttributeValue.fromJSON(json, type: attribute.type, dateFormat: attribute.userInfo["dateFormat"]) {
        case .success(let value): return value
        case .failure(let mismatch):
            throw LuaError(code: "value", message: "\(entity).\(attribute.name) is \(attribute.type.rawValue): \(mismatch.reason) (\(describe(at: index)))")
        }
    }

    /// Whether the string at `index` is valid UTF-8.
    private func isValidUTF8(at index: Int32) -> Bool {
        var length = 0
        guard let bytes = strata_lua_tolstring(L, index, &length) else { return false }
        return String(validating: UnsafeRawBufferPointer(start: bytes, count: length), as: UTF8.self) != nil
    }

    /// The value at `index` when it already is of the attribute's kind (an integer in range
    /// for an integer attribute, a number for a floating point one, a string for a string, a
    /// boolean for a boolean), without the round trip through JSON text; `nil` otherwise.
    private func plainValue(at index: Int32, for type: AttributeType) -> AttributeValue? {
        switch (lua_type(L, index), type) {
        case (LUA_TNUMBER, .integer16), (LUA_TNUMBER, .integer32), (LUA_TNUMBER, .integer64):
            guard strata_lua_isinteger(L, index) != 0 else { return nil }
            let integer = lua_tointegerx(L, index, nil)
            return AttributeValue.integerRange(of: type).contains(integer) ? .integer(integer) : nil
        case (LUA_TNUMBER, .double), (LUA_TNUMBER, .float):
            let number = lua_tonumberx(L, index, nil)
            guard number.isFinite, type == .double || abs(number) <= Double(Float.greatestFiniteMagnitude) else { return nil }
            return .double(number)
        case (LUA_TSTRING, .string):
            return optionalString(at: index).map(AttributeValue.string)
        case (LUA_TBOOLEAN, .boolean):
            return .boolean(boolean(at: index))
        default:
            return nil
        }
    }

    /// A short description of the value at `index` for messages: `"abc"`, `1.5`, `a table`.
    func describe(at index: Int32) -> String {
        switch lua_type(L, index) {
        case LUA_TSTRING: return "\"\(optionalString(at: index) ?? "")\""
        case LUA_TNUMBER, LUA_TBOOLEAN: return optionalString(at: index) ?? (boolean(at: index) ? "true" : "false")
        default: return "a \(typeName(at: index))"
        }
    }

    // MARK: - JSON

    /// Pushes JSON as Lua values: objects and arrays as tables, null as nil (a hole in an
    /// array, a missing key in an object), numbers as integers when they are integral.
    func push(json: JSONValue) {
        switch json.kind {
        case .null: pushNil()
        case .bool(let bool): push(bool)
        case .string(let string): push(string)
        case .number(let text):
            if let integer = Int64(text) { push(integer) } else { push(Double(text) ?? .nan) }
        case .array(let values):
            guard hasStackRoom() else { return pushNil() }
            lua_createtable(L, Int32(clamping: values.count), 0)
            for (position, value) in values.enumerated() {
                push(json: value)
                lua_rawseti(L, -2, lua_Integer(position + 1))
            }
        case .object(let members):
            guard hasStackRoom() else { return pushNil() }
            lua_createtable(L, 0, Int32(clamping: members.count))
            for member in members where !member.value.isNull {
                push(member.key)
                push(json: member.value)
                lua_rawset(L, -3)
            }
        }
    }

    /// The value at `index` as JSON: a table with the keys 1…n (or none) is an array, one with
    /// string keys an object (keys sorted, so that output is stable); other keys, functions
    /// and userdata are an error naming the value.
    ///
    /// Charged first (see `LuaCall+Limits.swift`), `bytesPerTable` more per table for what
    /// the caller makes of each (an import's objects): a table that holds another many times
    /// is copied as many times, and a graph too big for the limits fails before it is built.
    func json(at index: Int32, bytesPerTable: Int = 0) throws(LuaError) -> JSONValue {
        try chargeConversion(at: index, bytesPerTable: bytesPerTable)
        var open: Set<UnsafeRawPointer> = []
        var converted = 0
        return try json(at: lua_absindex(L, index), depth: 0, open: &open, converted: &converted)
    }

    private func json(at index: Int32, depth: Int, open: inout Set<UnsafeRawPointer>, converted: inout Int) throws(LuaError) -> JSONValue {
        converted += 1
        // Charged already: only the clock and Ctrl-C are left to see.
        if converted % Self.valuesPerCheck == 0 { try charge(instructions: 0) }
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return .null
        case LUA_TBOOLEAN: return .bool(boolean(at: index))
        case LUA_TNUMBER:
            if strata_lua_isinteger(L, index) != 0 { return .number(lua_tointegerx(L, index, nil)) }
            let number = lua_tonumberx(L, index, nil)
            guard number.isFinite else { throw LuaError(code: "value", message: "\(number.isNaN ? "nan" : "\(number)") has no JSON form") }
            return .number(number)
        case LUA_TSTRING: return .string(optionalString(at: index) ?? "")
        case LUA_TTABLE:
            guard depth < Self.maximumDepth, hasStackRoom(), let pointer = lua_topointer(L, index), open.insert(pointer).inserted else {
                throw LuaError(code: "value", message: "a table nested more than \(Self.maximumDepth) deep, or inside itself, has no JSON form")
            }
            defer { open.remove(pointer) }
            var strings: [(String, JSONValue)] = [], items: [Int64: JSONValue] = [:]
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                defer { lua_settop(L, -2) }
                let value = try json(at: lua_absindex(L, -1), depth: depth + 1, open: &open, converted: &converted)
                if lua_type(L, -2) == LUA_TSTRING {
                    strings.append((optionalString(at: -2) ?? "", value))
                } else if strata_lua_isinteger(L, -2) != 0, lua_tointegerx(L, -2, nil) >= 1 {
                    items[lua_tointegerx(L, -2, nil)] = value
                } else {
                    throw LuaError(code: "value", message: "a table key that is neither a string nor a positive integer has no JSON form")
                }
            }
            if strings.isEmpty, items.keys.max() ?? 0 == items.count {
                return .array((0..<items.count).map { items[Int64($0 + 1)] ?? .null })
            }
            guard items.isEmpty else { throw LuaError(code: "value", message: "a table with both string keys and array items has no JSON form") }
            return .object(strings.sorted { $0.0 < $1.0 }.map { JSONMember($0.0, $0.1) })
        default:
            throw LuaError(code: "value", message: "a \(typeName(at: index)) has no JSON form")
        }
    }
}
