import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// A hostile `Z_MODELCACHE` is refused promptly and in bounded memory: a deflate bomb, a
/// property list whose containers share objects in a deep binary tree or refer to one object
/// millions of times, an archive whose entities share one property dictionary.
@Suite struct HostileModelCacheTests {
    /// Raw DEFLATE, one fixed-Huffman block: the byte 'A', then `copies` back references of 258
    /// bytes at distance 1 (13 bits each, so about 1 : 160 000 bits inflated).
    static func deflateBomb(copies: Int) -> Data {
        var bytes: [UInt8] = [], buffer = 0, count = 0
        func put(_ value: Int, _ bits: Int) {
            buffer |= value << count
            count += bits
            while count >= 8 {
                bytes.append(UInt8(buffer & 0xFF))
                buffer >>= 8
                count -= 8
            }
        }
        // Huffman codes go most significant bit first.
        func code(_ value: Int, _ bits: Int) {
            for bit in (0..<bits).reversed() { put((value >> bit) & 1, 1) }
        }
        put(1, 1)  // the last block
        put(1, 2)  // fixed Huffman codes
        code(0x30 + Int(UInt8(ascii: "A")), 8)
        for _ in 0..<copies {
            code(0b1100_0101, 8)  // length symbol 285: 258 bytes
            code(0, 5)  // distance symbol 0: distance 1
        }
        code(0, 7)  // end of block (256)
        put(0, 7)
        return Data(bytes)
    }

    /// A binary property list of `count` objects whose offsets `objects` gives, the top object first.
    static func binaryPropertyList(_ objects: [[UInt8]]) -> Data {
        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let tableOffset = bytes.count
        for offset in offsets { bytes += withUnsafeBytes(of: UInt32(offset).bigEndian, Array.init) }
        bytes += [0, 0, 0, 0, 0, 0, 4, 4]  // offset size 4, reference size 4
        bytes += withUnsafeBytes(of: UInt64(objects.count).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(0).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt64(tableOffset).bigEndian, Array.init)
        return Data(bytes)
    }

    /// An array of `references` 4-byte references.
    static func array(_ references: [Int]) -> [UInt8] {
        var bytes: [UInt8] = references.count < 15 ? [0xA0 | UInt8(references.count)] : [0xAF, 0x12] + withUnsafeBytes(of: UInt32(references.count).bigEndian, Array.init)
        for reference in references { bytes += withUnsafeBytes(of: UInt32(reference).bigEndian, Array.init) }
        return bytes
    }

    @Test func aDeflateBombIsRefusedPromptlyNamingTheLimit() {
        let bomb = Self.deflateBomb(copies: 300_000)  // 77 MB inflated, from 488 KB
        let started = Date()
        #expect {
            try ModelCacheDecoder.decode(bomb)
        } throws: { error in
            guard let failure = error as? KeyedArchive.Failure else { return false }
            return (failure.underlying as? RawDeflate.Failure)?.reason == .outputExceeds(limit: 64 << 20)
                && failure.message == "the blob is \(bomb.count) bytes; no model needs more than 64 MB"
                && failure.description.hasPrefix("DEFLATE data: output exceeds 67108864 bytes (the blob is \(bomb.count) bytes")
        }
        #expect(Date().timeIntervalSince(started) < 30)
    }

    /// Object i is the array [i+1, i+1]: 2^40 paths, 41 objects. Each object is decoded once.
    @Test func objectsSharedInABinaryTreeOfDepth40AreDecodedOnce() throws {
        let objects = (0..<40).map { Self.array([$0 + 1, $0 + 1]) } + [[0x09]]
        let started = Date()
        var value = try BinaryPropertyListReader.read(Self.binaryPropertyList(objects))
        for _ in 0..<40 { value = try #require(value.arrayValue?.first) }
        #expect(value == .bool(true))
        #expect(Date().timeIntervalSince(started) < 5)
        #expect {
            try ModelCacheDecoder.model(fromArchive: try BinaryPropertyListReader.read(Self.binaryPropertyList(objects)))
        } throws: { error in
            (error as? KeyedArchive.Failure)?.message == "not an NSKeyedArchiver archive"
        }
    }

    /// Arrays that each refer 3 000 times to one object, which cost 8 bytes a reference
    /// decoded but 4 bytes of input: counted against a limit of 8 000 elements, as the real
    /// limit counts millions.
    @Test func manyReferencesToOneObjectAreRefused() throws {
        let objects = [Self.array([1, 2, 3]), Self.array(Array(repeating: 4, count: 3_000)),
            Self.array(Array(repeating: 4, count: 3_000)), Self.array(Array(repeating: 4, count: 3_000)), [0x09]]
        let plist = Self.binaryPropertyList(objects)
        #expect {
            try BinaryPropertyListReader.read(plist, elementLimit: 8_000)
        } throws: { error in
            (error as? PropertyListError)?.message == "the containers hold more than 8000 elements in all"
        }
        #expect(try BinaryPropertyListReader.read(plist, elementLimit: 9_003).arrayValue?.count == 3)
    }

    /// 100 entities sharing one dictionary of 100 properties cost 10 000 reads: past a limit of
    /// 5 000, as the real limit counts millions.
    @Test func entitiesSharingOnePropertyDictionaryAreRefused() {
        let entityCount = 100, propertyCount = 100
        // 0 $null, 1 model, 2 entities dictionary, 3 shared properties dictionary, 4 one attribute,
        // 5 class NSManagedObjectModel, 6 class NSDictionary, 7 class NSEntityDescription,
        // 8 class NSAttributeDescription, then names and entities.
        func classObject(_ name: String) -> PropertyListValue {
            .dictionary(["$classname": .string(name), "$classes": .array([.string(name)])])
        }
        var objects: [PropertyListValue] = [
            .string("$null"), .dictionary(["$class": .uid(5), "NSEntities": .uid(2)]), .string("placeholder"), .string("placeholder"),
            .dictionary(["$class": .uid(8), "NSAttributeType": .integer(700)]),
            classObject("NSManagedObjectModel"), classObject("NSDictionary"), classObject("NSEntityDescription"), classObject("NSAttributeDescription"),
        ]
        var propertyKeys: [PropertyListValue] = []
        for index in 0..<propertyCount {
            propertyKeys.append(.uid(UInt64(objects.count)))
            objects.append(.string("p\(index)"))
        }
        objects[3] = .dictionary(["$class": .uid(6), "NS.keys": .array(propertyKeys), "NS.objects": .array(Array(repeating: .uid(4), count: propertyCount))])
        var entityKeys: [PropertyListValue] = [], entityValues: [PropertyListValue] = []
        for index in 0..<entityCount {
            entityKeys.append(.uid(UInt64(objects.count)))
            objects.append(.string("E\(index)"))
            entityValues.append(.uid(UInt64(objects.count)))
            objects.append(.dictionary(["$class": .uid(7), "NSEntityName": entityKeys.last!, "NSProperties": .uid(3)]))
        }
        objects[2] = .dictionary(["$class": .uid(6), "NS.keys": .array(entityKeys), "NS.objects": .array(entityValues)])
        let archive = PropertyListValue.dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$top": .dictionary(["root": .uid(1)]), "$objects": .array(objects),
        ])
        #expect {
            try ModelCacheDecoder.model(fromArchive: archive, propertyVisitLimit: 5_000)
        } throws: { error in
            (error as? KeyedArchive.Failure)?.message?.hasPrefix("the entities list more than 5000 properties") == true
        }
    }

    /// Through a store: `StoreError.modelCacheUnreadable` names the store and what was wrong.
    @Test func aStoreWithADeflateBombForItsModelCacheIsUnreadable() throws {
        let temporary = try TemporaryFolder("strata-bomb")
        let folder = temporary.url
        let path = folder.appendingPathComponent("bomb.sqlite").path
        var book = EntityDescription(name: "Book")
        book.attributes = [AttributeDescription(name: "title", type: .string)]
        try PersistentStore.create(at: path, model: ObjectModel(entities: [book])).close()
        let database = try Database(path: path)
        try database.execute("DELETE FROM Z_MODELCACHE")  // the cache Strata wrote
        try database.execute("INSERT INTO Z_MODELCACHE VALUES (?)", [.blob(Self.deflateBomb(copies: 300_000))])
        database.close()
        #expect {
            try PersistentStore.open(at: path, configuration: .readOnly)
        } throws: { error in
            guard case .modelCacheUnreadable(let store, let cause as KeyedArchive.Failure) = error as? StoreError else { return false }
            return store == path && (cause.underlying as? RawDeflate.Failure)?.reason == .outputExceeds(limit: 64 << 20)
                && "\(error)".contains("DEFLATE data: output exceeds 67108864 bytes")
        }
    }
}
