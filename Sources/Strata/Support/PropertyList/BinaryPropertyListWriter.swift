import Foundation

/// Writes binary property lists (`bplist00`), as Core Data keeps a store's metadata.
///
/// Dictionaries are written with their keys sorted, so equal values give equal bytes.
package enum BinaryPropertyListWriter {
    /// The binary property list of `value`.
    package static func data(for value: PropertyListValue) -> Data {
        var objects: [[UInt8]] = []
        // Objects are numbered before their contents are encoded, so references are known.
        func add(_ value: PropertyListValue) -> Int {
            let index = objects.count
            objects.append([])
            objects[index] = encode(value)
            return index
        }
        func encode(_ value: PropertyListValue) -> [UInt8] {
            switch value {
            case .bool(let bool): return [bool ? 0x09 : 0x08]
            case .integer(let integer): return encodeInteger(integer)
            case .real(let real): return [0x23] + real.bitPattern.bigEndianBytes
            case .date(let date): return [0x33] + date.timeIntervalSinceReferenceDate.bitPattern.bigEndianBytes
            case .data(let data): return header(0x4, data.count) + [UInt8](data)
            case .string(let string):
                if string.utf8.allSatisfy({ $0 < 0x80 }) { return header(0x5, string.utf8.count) + Array(string.utf8) }
                let units = Array(string.utf16)
                return header(0x6, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
            case .uid(let uid):
                let size = uid <= 0xFF ? 1 : uid <= 0xFFFF ? 2 : uid <= 0xFFFF_FFFF ? 4 : 8
                return [0x80 | UInt8(size - 1)] + Array(uid.bigEndianBytes.suffix(size))
            case .array(let values):
                let references = values.map { add($0) }
                return header(0xA, references.count) + references.flatMap(referenceBytes)
            case .dictionary(let dictionary):
                let keys = dictionary.keys.sorted()
                let keyReferences = keys.map { add(.string($0)) }
                let valueReferences = keys.map { add(dictionary[$0]!) }
                return header(0xD, keys.count) + (keyReferences + valueReferences).flatMap(referenceBytes)
            }
        }
        // References use 4 bytes, enough for any metadata Strata writes and simple to encode.
        func referenceBytes(_ index: Int) -> [UInt8] { Array(UInt64(index).bigEndianBytes.suffix(4)) }

        _ = add(value)
        var output = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(output.count)
            output += object
        }
        let tableOffset = output.count
        for offset in offsets { output += Array(UInt64(offset).bigEndianBytes.suffix(8)) }
        output += [0, 0, 0, 0, 0, 0, 8, 4]
        output += UInt64(objects.count).bigEndianBytes + UInt64(0).bigEndianBytes + UInt64(tableOffset).bigEndianBytes
        return Data(output)
    }

    private static func header(_ kind: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [kind << 4 | UInt8(count)] : [kind << 4 | 0x0F] + encodeInteger(Int64(count))
    }

    private static func encodeInteger(_ value: Int64) -> [UInt8] {
        switch value {
        case 0...0xFF: return [0x10, UInt8(value)]
        case 0...0xFFFF: return [0x11] + Array(UInt64(value).bigEndianBytes.suffix(2))
        case 0...0xFFFF_FFFF: return [0x12] + Array(UInt64(value).bigEndianBytes.suffix(4))
        default: return [0x13] + UInt64(bitPattern: value).bigEndianBytes
        }
    }
}

extension UInt64 {
    fileprivate var bigEndianBytes: [UInt8] { (0..<8).reversed().map { UInt8(truncatingIfNeeded: self >> ($0 * 8)) } }
}
