import CLua
import CLuaBridge

// What Strata does for a script counts against the script's limits, as Lua's own work does:
//
// - one instruction of the budget per value it converts, reads or writes (a JSON value encoded
//   or decoded, a Lua value read into Swift, a record imported, an object or row fetched);
// - against the memory limit, an estimate of what Swift holds for the script while the call
//   runs: `bytesPerValue` per value, `bytesPerObject` per object an import or a fetch makes,
//   and the bytes of its text;
// - the time limit and Ctrl-C, checked with each charge and between an import's batches.
//
// Charges are made before the work where its size can be known first (a table read in full,
// JSON text), so that a table graph of a billion leaves (`for i = 1, 30 do t = {t, t} end`)
// fails at once instead of after gigabytes; after it otherwise (a fetch).

extension LuaCall {
    /// What Swift holds per value converted: a `JSONValue` or `LuaValue` with its share of
    /// its container's storage and of the dictionaries used to build it.
    static let bytesPerValue = 64
    /// What Swift holds per object an import or a fetch makes: the object, its snapshot and
    /// its place in the context's tables.
    static let bytesPerObject = 512
    /// Values converted between two checks of the clock when the work was charged before.
    static let valuesPerCheck = 4096

    /// Counts work that Strata does for the script: `instructions` against the budget, and
    /// `bytes` it holds for the script against the memory limit until the Swift function that
    /// the script called returns.
    ///
    /// - Throws: ``LuaError``: "not enough memory" (code `memory`), or the reason the run
    ///   stops (its budget, its time limit, an interruption; code `lua`, as when Lua stops it).
    public func charge(instructions: Int, bytes: Int = 0) throws(LuaError) {
        var message = [CChar](repeating: 0, count: 128)
        let answer = strata_lua_charge(L, Int64(clamping: instructions), max(0, bytes), &message, message.count)
        guard answer != STRATA_LUA_GO_ON else { return }
        let text = String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        throw LuaError(code: answer == STRATA_LUA_OUT_OF_MEMORY ? "memory" : "lua", message: text)
    }

    /// The size of the value at `index` read in full: a table as many times as it is met
    /// (shared subtables are copied each time), to ``maximumDepth``; a table inside itself
    /// counts once (the readers refuse it or read it as `other`). Worked out once per table,
    /// so that it costs the number of distinct tables, not the size it measures.
    func expandedSize(at index: Int32) -> ExpandedSize {
        var known: [UnsafeRawPointer: ExpandedSize] = [:]
        var open: Set<UnsafeRawPointer> = []
        return expandedSize(at: lua_absindex(L, index), depth: 0, known: &known, open: &open)
    }

    /// What reading a value in full takes: values, tables and the bytes of its strings, each
    /// at most `Int.max / 2` (sizes of a billion-leaf graph add up past any limit, not past
    /// `Int`).
    struct ExpandedSize {
        var values = 0, tables = 0, textBytes = 0

        static let cap = Int.max / 2

        mutating func add(_ other: ExpandedSize) {
            values = min(Self.cap, values + other.values)
            tables = min(Self.cap, tables + other.tables)
            textBytes = min(Self.cap, textBytes + other.textBytes)
        }

        /// The memory Swift holds for it, by the rule at the top of this file.
        var bytes: Int {
            let (product, overflow) = values.multipliedReportingOverflow(by: LuaCall.bytesPerValue)
            return overflow ? Self.cap : min(Self.cap, product + textBytes)
        }
    }

    private func expandedSize(at index: Int32, depth: Int, known: inout [UnsafeRawPointer: ExpandedSize], open: inout Set<UnsafeRawPointer>) -> ExpandedSize {
        var size = ExpandedSize(values: 1)
        switch lua_type(L, index) {
        case LUA_TSTRING:
            size.textBytes = Int(lua_rawlen(L, index))
        case LUA_TTABLE:
            guard depth < Self.maximumDepth, hasStackRoom(), let pointer = lua_topointer(L, index) else { return size }
            if let measured = known[pointer] { return measured }
            guard open.insert(pointer).inserted else { return size }
            defer { open.remove(pointer) }
            size.tables = 1
            lua_pushnil(L)
            while lua_next(L, index) != 0 {
                size.add(expandedSize(at: lua_absindex(L, -2), depth: depth + 1, known: &known, open: &open))
                size.add(expandedSize(at: lua_absindex(L, -1), depth: depth + 1, known: &known, open: &open))
                lua_settop(L, -2)
            }
            known[pointer] = size
        default:
            break
        }
        return size
    }

    /// Charges reading the value at `index` in full into Swift: an instruction and
    /// ``bytesPerValue`` per value, the bytes of its strings, and `bytesPerTable` more per table.
    func chargeConversion(at index: Int32, bytesPerTable: Int = 0) throws(LuaError) {
        let size = expandedSize(at: index)
        let (tableBytes, overflow) = size.tables.multipliedReportingOverflow(by: bytesPerTable)
        try charge(instructions: size.values, bytes: overflow ? ExpandedSize.cap : min(ExpandedSize.cap, size.bytes + tableBytes))
    }

    /// Charges decoding the JSON text `bytes`: its values, counted without parsing it (each
    /// but the first follows a `[`, `{` or `,` outside strings), and `bytesPerObject` more per
    /// object; the copies of the text count too.
    func chargeDecoding<Bytes: Collection<UInt8>>(_ bytes: Bytes, bytesPerObject: Int = 0) throws(LuaError) {
        var values = 1, objects = 0, inString = false, escaped = false
        for byte in bytes {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "{"):
                objects += 1
                values += 1
            case UInt8(ascii: "["), UInt8(ascii: ","): values += 1
            default: break
            }
        }
        try charge(instructions: values, bytes: values * Self.bytesPerValue + objects * bytesPerObject + 2 * bytes.count)
    }
}
