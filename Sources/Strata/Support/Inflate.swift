import Foundation

/// Decompresses raw DEFLATE data (RFC 1951, no zlib or gzip header), as Core Data stores its
/// model cache. Damaged input is an error, never a crash; output is capped so that a hostile
/// stream cannot exhaust memory.
///
/// ```swift
/// let archive = try Inflate.decompress(modelCacheBlob)
/// ```
public enum Inflate {
    /// Why a stream could not be decompressed.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var description: String { "DEFLATE data: \(message)" }
    }

    /// The decompressed bytes of `data`; fails past `limit` output bytes.
    public static func decompress(_ data: Data, limit: Int = 256 << 20) throws(Failure) -> Data {
        var reader = BitReader(bytes: [UInt8](data))
        var output: [UInt8] = []
        var isLastBlock = false
        while !isLastBlock {
            isLastBlock = try reader.bits(1) == 1
            switch try reader.bits(2) {
            case 0: try copyStoredBlock(&reader, into: &output)
            case 1: try inflateBlock(&reader, into: &output, literals: fixedLiterals, distances: fixedDistances, limit: limit)
            case 2:
                let (literals, distances) = try readDynamicTables(&reader)
                try inflateBlock(&reader, into: &output, literals: literals, distances: distances, limit: limit)
            default: throw Failure(message: "invalid block type 3")
            }
            if output.count > limit { throw Failure(message: "output exceeds \(limit) bytes") }
        }
        return Data(output)
    }

    // MARK: - Blocks

    private static func copyStoredBlock(_ reader: inout BitReader, into output: inout [UInt8]) throws(Failure) {
        reader.alignToByte()
        let length = try reader.bits(16), complement = try reader.bits(16)
        guard length == ~complement & 0xFFFF else { throw Failure(message: "stored block length check failed") }
        output += try reader.bytes(length)
    }

    private static let lengthBases = [3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258]
    private static let lengthExtraBits = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    private static let distanceBases = [1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577]
    private static let distanceExtraBits = [0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13]

    private static func inflateBlock(
        _ reader: inout BitReader, into output: inout [UInt8], literals: HuffmanTable, distances: HuffmanTable, limit: Int
    ) throws(Failure) {
        while true {
            let symbol = try literals.decode(&reader)
            if symbol < 256 {
                output.append(UInt8(symbol))
            } else if symbol == 256 {
                return
            } else {
                let lengthIndex = symbol - 257
                guard lengthIndex < lengthBases.count else { throw Failure(message: "invalid length symbol \(symbol)") }
                let length = lengthBases[lengthIndex] + (try reader.bits(lengthExtraBits[lengthIndex]))
                let distanceSymbol = try distances.decode(&reader)
                guard distanceSymbol < distanceBases.count else { throw Failure(message: "invalid distance symbol \(distanceSymbol)") }
                let distance = distanceBases[distanceSymbol] + (try reader.bits(distanceExtraBits[distanceSymbol]))
                guard distance <= output.count else { throw Failure(message: "a back reference points before the start") }
                guard output.count + length <= limit else { throw Failure(message: "output exceeds \(limit) bytes") }
                let start = output.count - distance
                for offset in 0..<length { output.append(output[start + offset]) }
            }
        }
    }

    private static func readDynamicTables(_ reader: inout BitReader) throws(Failure) -> (HuffmanTable, HuffmanTable) {
        let literalCount = try reader.bits(5) + 257, distanceCount = try reader.bits(5) + 1, codeLengthCount = try reader.bits(4) + 4
        let order = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]
        var codeLengthLengths = [Int](repeating: 0, count: 19)
        for index in 0..<codeLengthCount { codeLengthLengths[order[index]] = try reader.bits(3) }
        let codeLengths = try HuffmanTable(lengths: codeLengthLengths)
        var lengths: [Int] = []
        while lengths.count < literalCount + distanceCount {
            let symbol = try codeLengths.decode(&reader)
            switch symbol {
            case 0...15: lengths.append(symbol)
            case 16:
                guard let previous = lengths.last else { throw Failure(message: "a repeat code has nothing to repeat") }
                lengths += Array(repeating: previous, count: 3 + (try reader.bits(2)))
            case 17: lengths += Array(repeating: 0, count: 3 + (try reader.bits(3)))
            default: lengths += Array(repeating: 0, count: 11 + (try reader.bits(7)))
            }
        }
        guard lengths.count == literalCount + distanceCount else { throw Failure(message: "code lengths overrun their tables") }
        return (
            try HuffmanTable(lengths: Array(lengths[0..<literalCount])),
            try HuffmanTable(lengths: Array(lengths[literalCount...]))
        )
    }

    private static let fixedLiterals = try! HuffmanTable(
        lengths: Array(repeating: 8, count: 144) + Array(repeating: 9, count: 112) + Array(repeating: 7, count: 24) + Array(repeating: 8, count: 8))
    private static let fixedDistances = try! HuffmanTable(lengths: Array(repeating: 5, count: 30))

    // MARK: - Huffman codes and bits

    /// A canonical Huffman code, decoded one bit at a time by counting codes per length.
    private struct HuffmanTable {
        var countsPerLength: [Int]
        var symbolsInCodeOrder: [Int]

        init(lengths: [Int]) throws(Failure) {
            countsPerLength = Array(repeating: 0, count: 16)
            for length in lengths { countsPerLength[length] += 1 }
            countsPerLength[0] = 0
            var offsets = [Int](repeating: 0, count: 16)
            for length in 1..<16 { offsets[length] = offsets[length - 1] + countsPerLength[length - 1] }
            symbolsInCodeOrder = Array(repeating: 0, count: lengths.filter { $0 > 0 }.count)
            for (symbol, length) in lengths.enumerated() where length > 0 {
                symbolsInCodeOrder[offsets[length]] = symbol
                offsets[length] += 1
            }
        }

        func decode(_ reader: inout BitReader) throws(Failure) -> Int {
            var code = 0, first = 0, index = 0
            for length in 1..<16 {
                code |= try reader.bits(1)
                let count = countsPerLength[length]
                if code - first < count { return symbolsInCodeOrder[index + code - first] }
                index += count
                first = (first + count) << 1
                code <<= 1
            }
            throw Failure(message: "invalid Huffman code")
        }
    }

    private struct BitReader {
        let bytes: [UInt8]
        var position = 0
        var bitBuffer = 0
        var bitCount = 0

        mutating func bits(_ count: Int) throws(Failure) -> Int {
            while bitCount < count {
                guard position < bytes.count else { throw Failure(message: "the data ends in the middle of a block") }
                bitBuffer |= Int(bytes[position]) << bitCount
                position += 1
                bitCount += 8
            }
            let value = bitBuffer & ((1 << count) - 1)
            bitBuffer >>= count
            bitCount -= count
            return value
        }

        mutating func alignToByte() {
            bitBuffer = 0
            bitCount = 0
        }

        mutating func bytes(_ count: Int) throws(Failure) -> ArraySlice<UInt8> {
            guard count <= bytes.count - position else { throw Failure(message: "a stored block runs past the end") }
            defer { position += count }
            return bytes[position..<(position + count)]
        }
    }
}
