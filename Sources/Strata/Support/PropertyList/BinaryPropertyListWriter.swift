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
            var bytes: [UInt8] = []
            encode(value, into: &bytes)
            objects[index] = bytes
            return index
        }
        // Bytes are appended in place: a model cache is thousands of objects, and an array per
        // integer made writing one most of creating a store.
        func encode(_ value: PropertyListValue, into bytes: inout [UInt8]) {
            switch value {
            case .bool(let bool):
                bytes.append(bool ? 0x09 : 0x08)
            case .integer(let integer):
                appendInteger(integer, to: &bytes)
            case .real(let real):
                bytes.append(0x23)
                bytes.appendBigEndian(real.bitPattern, size: 8)
            case .date(let date):
                bytes.append(0x33)
                bytes.appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
            case .data(let data):
                appendHeader(0x4, data.count, to: &bytes)
                bytes.append(contentsOf: data)
            case .string(let string):
                if string.utf8.allSatisfy({ $0 < 0x80 }) {
                    appendHeader(0x5, string.utf8.count, to: &bytes)
                    bytes.append(contentsOf: string.utf8)
                } else {
                    appendHeader(0x6, string.utf16.count, to: &bytes)
                    for unit in string.utf16 { bytes.appendBigEndian(UInt64(unit), size: 2) }
                }
            case .uid(let uid):
                let size = uid <= 0xFF ? 1 : uid <= 0xFFFF ? 2 : uid <= 0xFFFF_FFFF ? 4 : 8
                bytes.append(0x80 | UInt8(size - 1))
                bytes.appendBigEndian(uid, size: size)
            case .array(let values):
                let references = values.map { add($0) }
                appendHeader(0xA, references.count, to: &bytes)
                for reference in references { appendReference(reference, to: &bytes) }
            case .dictionary(let dictionary):
                let keys = dictionary.keys.sorted()
                let keyReferences = keys.map { add(.string($0)) }
                let valueReferences = keys.map { add(dictionary[$0]!) }
                appendHeader(0xD, keys.count, to: &bytes)
                for reference in keyReferences + valueReferences { appendReference(reference, to: &bytes) }
            }
        }

        _ = add(value)
        var output: [UInt8] = []
        output.reserveCapacity(8 + objects.reduce(0) { $0 + $1.count } + 8 * objects.count + 32)
        output.append(contentsOf: "bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            output.append(contentsOf: object)
        }
        let tableOffset = output.count
        for offset in offsets { output.appendBigEndian(UInt64(offset), size: 8) }
        output.append(contentsOf: [0, 0, 0, 0, 0, 0, 8, 4])
        output.appendBigEndian(UInt64(objects.count), size: 8)
        output.appendBigEndian(0, size: 8)
        output.appendBigEndian(UInt64(tableOffset), size: 8)
        return Data(output)
    }

    // References use 4 bytes, enough for any metadata Strata writes and simple to encode.
    private static func appendReference(_ index: Int, to bytes: inout [UInt8]) {
        bytes.appendBigEndian(UInt64(index), size: 4)
    }

    private static func appendHeader(_ kind: UInt8, _ count: Int, to bytes: inout [UInt8]) {
        if count < 15 {
            bytes.append(kind << 4 | UInt8(count))
        } else {
            bytes.append(kind << 4 | 0x0F)
            appendInteger(Int64(count), to: &bytes)
        }
    }

    private static func appendInteger(_ value: Int64, to bytes: inout [UInt8]) {
        switch value {
        case 0...0xFF: bytes.append(0x10); bytes.append(UInt8(value))
        case 0...0xFFFF: bytes.append(0x11); bytes.appendBigEndian(UInt64(value), size: 2)
        case 0...0xFFFF_FFFF: bytes.append(0x12); bytes.appendBigEndian(UInt64(value), size: 4)
        default: bytes.append(0x13); bytes.appendBigEndian(UInt64(bitPattern: value), size: 8)
        }
    }
}

extension [UInt8] {
    /// Appends the last `size` bytes of `value`, most significant first.
    fileprivate mutating func appendBigEndian(_ value: UInt64, size: Int) {
        for byte in (0..<size).reversed() { append(UInt8(truncatingIfNeeded: value >> (byte * 8))) }
    }
}
