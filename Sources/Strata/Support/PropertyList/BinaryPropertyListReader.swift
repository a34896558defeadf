import Foundation

// Why not Foundation's PropertyListSerialization: checked with swift-corelibs-foundation of
// Swift 6.3.1 on Linux against the keyed archive in FinalCutLibrary.sqlite's Z_MODELCACHE. It
// reads the binary plist, but each UID comes back as `_NSKeyedArchiverUID`, a type that is not
// public API: its number (the index into `$objects` that every reference of a keyed archive is)
// can only be read by reflection, and a Swift program cannot make one, so it cannot write a
// keyed archive either. NSKeyedUnarchiver, the public way to read such an archive, stops the
// process (a fatal error, not a thrown one) on the first class that does not exist on Linux
// (`NSManagedObjectModel`). PropertyListSerialization's writer does not share repeated objects:
// the same archive read and written again grew from 7,414 to 16,236 bytes. Hence this reader and
// BinaryPropertyListWriter, with UIDs as plain values and every offset checked.

/// Reads binary property lists (`bplist00`), including the UIDs of keyed archives.
///
/// ```swift
/// let metadata = try BinaryPropertyListReader.read(plistData)
/// metadata["NSStoreType"]?.stringValue   // "SQLite"
/// ```
///
/// Every offset and count is checked against the data, so a damaged file is an error, never a
/// crash: references that loop back and nesting deeper than ``maximumDepth`` are refused, and an
/// object referenced many times is decoded once.
package struct BinaryPropertyListReader {
    /// How deeply containers may nest.
    package static let maximumDepth = 512
    /// The most objects a property list may hold: a model cache of thousands of entities holds
    /// a few hundred thousand.
    static let maximumObjectCount = 4_000_000
    /// The most container elements a property list may hold, counting an object each time a
    /// container refers to it: bounds the decoded value's memory (a reference costs a few bytes
    /// of input, an element several of memory) whatever the objects share.
    static let maximumElementCount = 8_000_000

    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int
    private var decoded: [Int: PropertyListValue] = [:]
    private var elementCount = 0
    private var elementLimit = maximumElementCount

    /// Reads the property list in `data`, refusing one whose containers hold more than
    /// `elementLimit` elements in all (each reference counted, a shared object's too).
    package static func read(_ data: Data, elementLimit: Int = maximumElementCount) throws(PropertyListError) -> PropertyListValue {
        let bytes = [UInt8](data)
        guard bytes.count >= 40, bytes.starts(with: Array("bplist0".utf8)) else {
            throw PropertyListError(message: "not a binary property list", offset: 0)
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let objectCount = try checkedInt(bigEndian(bytes, at: trailer + 8, size: 8), "object count")
        let topObject = try checkedInt(bigEndian(bytes, at: trailer + 16, size: 8), "top object")
        let tableOffset = try checkedInt(bigEndian(bytes, at: trailer + 24, size: 8), "offset table")
        guard objectCount <= maximumObjectCount else {
            throw PropertyListError(message: "\(objectCount) objects, more than the \(maximumObjectCount) allowed", offset: trailer + 8)
        }
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize), objectCount > 0, topObject < objectCount,
            tableOffset >= 8, objectCount <= (trailer - tableOffset) / offsetSize
        else {
            throw PropertyListError(message: "the trailer is damaged", offset: trailer)
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(objectCount)
        for index in 0..<objectCount {
            let offset = try checkedInt(bigEndian(bytes, at: tableOffset + index * offsetSize, size: offsetSize), "object offset")
            guard offset >= 8, offset < tableOffset else {
                throw PropertyListError(message: "object \(index) lies outside the object area", offset: tableOffset + index * offsetSize)
            }
            offsets.append(offset)
        }
        var reader = BinaryPropertyListReader(bytes: bytes, offsets: offsets, referenceSize: referenceSize)
        reader.elementLimit = elementLimit
        var visiting: Set<Int> = []
        return try reader.object(topObject, visiting: &visiting)
    }

    private mutating func object(_ index: Int, visiting: inout Set<Int>) throws(PropertyListError) -> PropertyListValue {
        guard index < offsets.count else { throw PropertyListError(message: "reference to missing object \(index)", offset: nil) }
        if let value = decoded[index] { return value }
        guard visiting.insert(index).inserted else {
            throw PropertyListError(message: "object \(index) contains itself", offset: offsets[index])
        }
        guard visiting.count <= Self.maximumDepth else {
            throw PropertyListError(message: "containers nest deeper than \(Self.maximumDepth) levels", offset: offsets[index])
        }
        defer { visiting.remove(index) }
        let value = try decodeObject(index, visiting: &visiting)
        decoded[index] = value
        return value
    }

    private mutating func decodeObject(_ index: Int, visiting: inout Set<Int>) throws(PropertyListError) -> PropertyListValue {
        let start = offsets[index]
        let marker = bytes[start]
        let kind = marker >> 4, info = Int(marker & 0x0F)
        switch kind {
        case 0x0:
            switch marker {
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw PropertyListError(message: String(format: "unsupported marker 0x%02X", marker), offset: start)
            }
        case 0x1:
            guard info <= 4 else { throw PropertyListError(message: "integer wider than 16 bytes", offset: start) }
            let size = 1 << info
            // 16-byte integers carry unsigned values above Int64.max in their low 8 bytes; those
            // become reals rather than wrapping to negative numbers.
            let value = try Self.bigEndian(bytes, at: start + 1 + max(0, size - 8), size: min(size, 8))
            if size == 16, value > UInt64(Int64.max) { return .real(Double(value)) }
            return .integer(size >= 8 ? Int64(bitPattern: value) : Int64(value))
        case 0x2:
            switch info {
            case 2: return .real(Double(Float(bitPattern: UInt32(try Self.bigEndian(bytes, at: start + 1, size: 4)))))
            case 3: return .real(Double(bitPattern: try Self.bigEndian(bytes, at: start + 1, size: 8)))
            default: throw PropertyListError(message: "real of unsupported size", offset: start)
            }
        case 0x3:
            let seconds = Double(bitPattern: try Self.bigEndian(bytes, at: start + 1, size: 8))
            return .date(Date(timeIntervalSinceReferenceDate: seconds))
        case 0x4:
            let (count, contentStart) = try length(info, at: start)
            return .data(Data(try slice(contentStart, count)))
        case 0x5:
            let (count, contentStart) = try length(info, at: start)
            return .string(String(decoding: try slice(contentStart, count), as: UTF8.self))
        case 0x6:
            let (count, contentStart) = try length(info, at: start)
            let raw = try slice(contentStart, count * 2)
            let units = stride(from: 0, to: raw.count, by: 2).map { UInt16(raw[raw.startIndex + $0]) << 8 | UInt16(raw[raw.startIndex + $0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            return .uid(try Self.bigEndian(bytes, at: start + 1, size: info + 1))
        case 0xA, 0xC:
            let (count, contentStart) = try length(info, at: start)
            try countElements(count, at: start)
            var values: [PropertyListValue] = []
            for position in 0..<count {
                values.append(try object(try reference(at: contentStart + position * referenceSize), visiting: &visiting))
            }
            return .array(values)
        case 0xD:
            let (count, contentStart) = try length(info, at: start)
            try countElements(count, at: start)
            var dictionary: [String: PropertyListValue] = [:]
            for position in 0..<count {
                let key = try object(try reference(at: contentStart + position * referenceSize), visiting: &visiting)
                guard let name = key.stringValue else {
                    throw PropertyListError(message: "a dictionary key is not a string", offset: contentStart)
                }
                dictionary[name] = try object(
                    try reference(at: contentStart + (count + position) * referenceSize), visiting: &visiting)
            }
            return .dictionary(dictionary)
        default:
            throw PropertyListError(message: String(format: "unsupported marker 0x%02X", marker), offset: start)
        }
    }

    // MARK: - Bytes

    /// Counts `count` more container elements, failing past the element limit.
    private mutating func countElements(_ count: Int, at start: Int) throws(PropertyListError) {
        elementCount += count
        guard elementCount <= elementLimit else {
            throw PropertyListError(message: "the containers hold more than \(elementLimit) elements in all", offset: start)
        }
    }

    /// The element count of a container or data object and where its content starts.
    private func length(_ info: Int, at start: Int) throws(PropertyListError) -> (Int, Int) {
        guard info == 0x0F else { return (info, start + 1) }
        guard start + 1 < bytes.count, bytes[start + 1] >> 4 == 0x1 else {
            throw PropertyListError(message: "a length is not an integer", offset: start + 1)
        }
        let size = 1 << Int(bytes[start + 1] & 0x0F)
        let count = try Self.checkedInt(Self.bigEndian(bytes, at: start + 2, size: min(size, 8)), "length")
        return (count, start + 2 + size)
    }

    private func reference(at position: Int) throws(PropertyListError) -> Int {
        try Self.checkedInt(Self.bigEndian(bytes, at: position, size: referenceSize), "object reference")
    }

    private func slice(_ start: Int, _ count: Int) throws(PropertyListError) -> ArraySlice<UInt8> {
        guard count >= 0, start <= bytes.count, count <= bytes.count - start else {
            throw PropertyListError(message: "content runs past the end", offset: start)
        }
        return bytes[start..<(start + count)]
    }

    private static func bigEndian(_ bytes: [UInt8], at start: Int, size: Int) throws(PropertyListError) -> UInt64 {
        guard start >= 0, size <= 8, start <= bytes.count, size <= bytes.count - start else {
            throw PropertyListError(message: "value runs past the end", offset: start)
        }
        return bytes[start..<(start + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func checkedInt(_ value: UInt64, _ what: String) throws(PropertyListError) -> Int {
        guard value <= UInt64(Int32.max) else { throw PropertyListError(message: "\(what) is out of range", offset: nil) }
        return Int(value)
    }
}
