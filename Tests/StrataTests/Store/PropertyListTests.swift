import Foundation
import Testing
@testable import Strata

@Suite struct PropertyListTests {
    @Test func everyKindRoundTripsThroughTheWriter() throws {
        let value = PropertyListValue.dictionary([
            "bool": .bool(true), "false": .bool(false), "small": .integer(7), "large": .integer(1 << 40), "negative": .integer(-3),
            "real": .real(2.5), "date": .date(Date(timeIntervalSinceReferenceDate: 123.5)), "data": .data(Data([1, 2, 3])),
            "ascii": .string("SQLite"), "unicode": .string("Ünïcödé 😀"), "uid": .uid(300),
            "array": .array([.string("a"), .integer(1), .array([])]), "nested": .dictionary(["k": .string(String(repeating: "x", count: 40))]),
        ])
        let data = BinaryPropertyListWriter.data(for: value)
        #expect(try BinaryPropertyListReader.read(data) == value)
        #expect(BinaryPropertyListWriter.data(for: value) == data)
    }

    @Test func foundationReadsWhatStrataWrites() throws {
        let data = BinaryPropertyListWriter.data(for: .dictionary(["NSStoreType": .string("SQLite"), "hash": .data(Data(repeating: 7, count: 32))]))
        let decoded = try PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
        #expect(decoded?["NSStoreType"] as? String == "SQLite")
        #expect((decoded?["hash"] as? Data)?.count == 32)
    }

    @Test(arguments: [
        (Data(), "not a binary property list"), (Data("bplist00".utf8) + Data(count: 32), "the trailer is damaged"),
        (Data("hello, this is not a plist at all, sorry".utf8), "not a binary property list"),
    ])
    func damagedDataIsAnError(data: Data, message: String) {
        #expect { try BinaryPropertyListReader.read(data) } throws: { ($0 as? PropertyListError)?.message == message }
    }

    @Test func truncatedPlistsFailWithoutCrashing() {
        let data = BinaryPropertyListWriter.data(for: .dictionary(["key": .array([.string("value"), .integer(1)])]))
        for length in 0..<data.count {
            _ = try? BinaryPropertyListReader.read(data.prefix(length))
        }
        var corrupted = data
        for index in 8..<(data.count - 32) {
            corrupted[index] ^= 0xFF
            _ = try? BinaryPropertyListReader.read(corrupted)
            corrupted[index] ^= 0xFF
        }
    }
}

@Suite struct RawDeflateTests {
    @Test func storedBlocksAreCopied() throws {
        let payload = Data("stored".utf8)
        let block = Data([0x01, 0x06, 0x00, 0xF9, 0xFF]) + payload
        #expect(try RawDeflate.inflate(block) == payload)
    }

    @Test func fixedHuffmanBlock() throws {
        // "abc" compressed with fixed Huffman codes (zlib -15, level 9).
        #expect(try RawDeflate.inflate(Data([0x4B, 0x4C, 0x4A, 0x06, 0x00])) == Data("abc".utf8))
    }

    @Test func deflatedDataInflatesBack() throws {
        let text = Data((0..<2000).map { "entity \($0 % 37) attribute \($0 % 11)\n" }.joined().utf8)
        let deflated = try RawDeflate.deflate(text)
        #expect(deflated.count < text.count / 4)
        #expect(try RawDeflate.inflate(deflated) == text)
        #expect(try RawDeflate.inflate(try RawDeflate.deflate(Data())) == Data())
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason))
    func modelCacheOfARealStoreInflatesToABinaryPlist() throws {
        let database = try Fixtures.readOnlyDatabase(at: Fixtures.store("FinalCutEvent.sqlite").path)
        let blob = try #require(try database.scalar("SELECT Z_CONTENT FROM Z_MODELCACHE")?.dataValue)
        let inflated = try RawDeflate.inflate(blob)
        #expect(inflated.count == 7414)
        #expect(inflated.starts(with: Data("bplist00".utf8)))
        // Core Data deflates at zlib's default level: deflating again gives the stored blob.
        #expect(try RawDeflate.deflate(inflated) == blob)
        #expect { try RawDeflate.inflate(blob, limit: 1000) } throws: { ($0 as? RawDeflate.Failure)?.reason == .outputExceeds(limit: 1000) }
    }

    @Test func aStreamPastTheLimitIsRefused() throws {
        // 1 MB of zeros deflates to about a kilobyte: a bomb in small.
        let bomb = try RawDeflate.deflate(Data(count: 1 << 20))
        #expect(bomb.count < 2000)
        #expect { try RawDeflate.inflate(bomb, limit: 100_000) } throws: { ($0 as? RawDeflate.Failure)?.reason == .outputExceeds(limit: 100_000) }
        #expect(try RawDeflate.inflate(bomb, limit: 1 << 20).count == 1 << 20)
    }

    @Test func damagedStreamsAreErrors() {
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data([0x07])) }
        #expect(throws: RawDeflate.Failure.self) { try RawDeflate.inflate(Data([0x01, 0x06, 0x00, 0x00, 0x00])) }
        #expect { try RawDeflate.inflate(Data()) } throws: { ($0 as? RawDeflate.Failure)?.reason == .truncated }
        #expect { try RawDeflate.inflate(Data([0x4B, 0x4C, 0x4A])) } throws: { ($0 as? RawDeflate.Failure)?.message == "the data ends in the middle of a block" }
        #expect { try RawDeflate.inflate(Data([0x4B, 0x4C, 0x4A, 0x06, 0x00, 0x99])) } throws: {
            ($0 as? RawDeflate.Failure)?.reason == .trailingBytes(1)
        }
        for byte in 0...255 { _ = try? RawDeflate.inflate(Data([UInt8(byte), 0x12, 0x34, 0x56])) }
    }
}
