import Foundation
import Testing
@testable import Strata

/// Transformable values as `NSKeyedArchiver` archives: each property-list class written as
/// Apple's archiver lays it out (the layouts Final Cut Pro's stores show), read back equal,
/// read by Foundation's own `NSKeyedUnarchiver`, and the archives Foundation writes read here;
/// objects of other classes kept; the JSON form and its errors.
@Suite struct TransformableValueTests {
    /// A value with every case a keyed archive can hold.
    static let everything: TransformableValue = .dictionary([
        "tags": .array([.string("fantasy"), .string("classic"), .string("日本語")]),
        "count": .integer(-12), "big": .integer(Int64.max), "ratio": .real(0.1), "whole": .real(2.0), "huge": .real(.infinity),
        "flag": .bool(true), "off": .bool(false),
        "updated": .date(Date(timeIntervalSinceReferenceDate: 737_000_000.123456)),
        "blob": .data(Data([0, 1, 2, 255])),
        "site": .url(URL(string: "https://example.com/a?b=c")!),
        "page": .url(URL(string: "page.html", relativeTo: URL(string: "https://example.com/docs/")!)!),
        "id": .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!),
        "nothing": .null,
        "letters": .set([.string("a"), .string("b"), .integer(3)]),
        "steps": .orderedSet([.string("one"), .string("two")]),
        "nested": .array([.dictionary(["$odd key": .array([])]), .array([.null, .string("")])]),
    ])

    private func objects(_ archive: Data) throws -> [PropertyListValue] {
        try KeyedArchive(data: archive).objects
    }

    private func uid(_ index: UInt64) -> PropertyListValue { .uid(index) }

    private func classDescription(_ names: String...) -> PropertyListValue {
        .dictionary(["$classname": .string(names[0]), "$classes": .array((names + ["NSObject"]).map(PropertyListValue.string))])
    }

    // MARK: - Archives

    /// The layouts of an array, a dictionary, a date and NSNull as Final Cut Pro's
    /// `dictionaryData` holds them (FinalCutEvent.sqlite): the object first, its contents, then
    /// its class description, which equal objects share.
    @Test func archivesAreLaidOutAsApplesArchiverLaysThemOut() throws {
        let array = try TransformableValue.array([.string("ReplayKitRecording"), .string("x")]).keyedArchive()
        #expect(array.starts(with: Data("bplist00".utf8)))
        let top = try BinaryPropertyListReader.read(array)
        #expect(top["$archiver"] == .string("NSKeyedArchiver"))
        #expect(top["$version"] == .integer(100_000))
        #expect(top["$top"] == .dictionary(["root": uid(1)]))
        #expect(try objects(array) == [
            .string("$null"), .dictionary(["NS.objects": .array([uid(2), uid(3)]), "$class": uid(4)]),
            .string("ReplayKitRecording"), .string("x"), classDescription("NSArray"),
        ])
        let dictionary = try TransformableValue.dictionary(["a": .bool(true), "b": .bool(true), "c": .null, "d": .date(Date(timeIntervalSinceReferenceDate: 0.5))])
            .keyedArchive()
        #expect(try objects(dictionary) == [
            .string("$null"),
            .dictionary(["NS.keys": .array([uid(2), uid(3), uid(4), uid(5)]), "NS.objects": .array([uid(6), uid(6), uid(7), uid(9)]), "$class": uid(11)]),
            .string("a"), .string("b"), .string("c"), .string("d"), .bool(true),
            .dictionary(["$class": uid(8)]), classDescription("NSNull"),
            .dictionary(["NS.time": .real(0.5), "$class": uid(10)]), classDescription("NSDate"),
            classDescription("NSDictionary"),
        ])
        #expect(try objects(TransformableValue.string("The Trial.file").keyedArchive()) == [.string("$null"), .string("The Trial.file")])
        #expect(try objects(TransformableValue.data(Data([1, 2])).keyedArchive()) == [.string("$null"), .data(Data([1, 2]))])
    }

    /// The layouts not seen on a store, as swift-corelibs-foundation's archiver writes them.
    @Test func urlUUIDAndOrderedSetAreLaidOutAsFoundationLaysThemOut() throws {
        let url = try TransformableValue.url(URL(string: "page.html", relativeTo: URL(string: "https://example.com/")!)!).keyedArchive()
        #expect(try objects(url) == [
            .string("$null"),
            .dictionary(["NS.base": uid(2), "NS.relative": uid(5), "$class": uid(4)]),
            .dictionary(["NS.base": uid(0), "NS.relative": uid(3), "$class": uid(4)]),
            .string("https://example.com/"), classDescription("NSURL"), .string("page.html"),
        ])
        let uuid = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!
        #expect(try objects(TransformableValue.uuid(uuid).keyedArchive()) == [
            .string("$null"), .dictionary(["NS.uuidbytes": .data(Data([0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])), "$class": uid(2)]),
            classDescription("NSUUID"),
        ])
        #expect(try objects(TransformableValue.orderedSet([.string("x"), .string("y")]).keyedArchive()) == [
            .string("$null"), .dictionary(["NS.object.0": uid(2), "NS.object.1": uid(3), "$class": uid(4)]),
            .string("x"), .string("y"), classDescription("NSOrderedSet"),
        ])
    }

    @Test func everyValueReadsBackEqual() throws {
        let archive = try Self.everything.keyedArchive()
        #expect(try TransformableValue(keyedArchive: archive) == Self.everything)
        // Written again, the same bytes: keys and set members go in a stable order.
        #expect(try TransformableValue(keyedArchive: archive).keyedArchive() == archive)
        for value in Self.everything.dictionaryValue!.values {
            #expect(try TransformableValue(keyedArchive: value.keyedArchive()) == value, "\(value)")
        }
    }

    // MARK: - Foundation's archiver

    /// What Strata writes, Foundation's `NSKeyedUnarchiver` reads as the same objects.
    @Test func foundationsUnarchiverReadsWhatStrataWrites() throws {
        func unarchived(_ value: TransformableValue) throws -> Any? {
            let unarchiver = try NSKeyedUnarchiver(forReadingFrom: try value.keyedArchive())
            unarchiver.requiresSecureCoding = false
            return unarchiver.decodeObject(forKey: NSKeyedArchiveRootObjectKey)
        }
        #expect(try unarchived(.array([.string("fantasy"), .string("classic")])) as? [String] == ["fantasy", "classic"])
        let settings = try #require(try unarchived(.dictionary(["size": .integer(12), "ratio": .real(1.5), "on": .bool(true), "name": .string("x")])) as? NSDictionary)
        #expect(settings["size"] as? Int == 12)
        #expect(settings["ratio"] as? Double == 1.5)
        #expect(settings["on"] as? Bool == true)
        #expect(settings["name"] as? String == "x")
        #expect(try unarchived(.date(Date(timeIntervalSinceReferenceDate: 12.5))) as? Date == Date(timeIntervalSinceReferenceDate: 12.5))
        #expect(try unarchived(.data(Data([1, 2, 3]))) as? Data == Data([1, 2, 3]))
        #expect(try unarchived(.url(URL(string: "https://example.com/a")!)) as? URL == URL(string: "https://example.com/a"))
        let relative = try #require(try unarchived(.url(URL(string: "b.html", relativeTo: URL(string: "https://example.com/a/")!)!)) as? URL)
        #expect(relative.absoluteString == "https://example.com/a/b.html")
        let uuid = UUID()
        #expect(try unarchived(.uuid(uuid)) as? UUID == uuid)
        #expect(try unarchived(.null) is NSNull)
        #expect((try unarchived(.set([.string("x"), .string("y")])) as? NSSet).map { Set($0.allObjects.compactMap { $0 as? String }) } == ["x", "y"])
        #expect((try unarchived(.orderedSet([.string("x"), .string("y")])) as? NSOrderedSet)?.array.compactMap { $0 as? String } == ["x", "y"])
        let nested = try #require(try unarchived(.array([.dictionary(["k": .array([.integer(1), .null])])])) as? NSArray)
        #expect(((nested[0] as? NSDictionary)?["k"] as? NSArray)?.count == 2)
    }

    /// What Foundation's `NSKeyedArchiver` writes, Strata reads as the same values.
    @Test func strataReadsWhatFoundationsArchiverWrites() throws {
        func read(_ object: Any) throws -> TransformableValue {
            try TransformableValue(keyedArchive: NSKeyedArchiver.archivedData(withRootObject: object, requiringSecureCoding: false))
        }
        #expect(try read(NSArray(array: ["a", "b"])) == .array([.string("a"), .string("b")]))
        // (No Boolean here: Foundation on Linux archives `true` as the integer 1, where Apple's
        // archiver writes a Boolean, as Final Cut Pro's archives show.)
        #expect(try read(NSDictionary(dictionary: ["k": 1, "d": 2.5, "s": "x"])) == .dictionary(["k": .integer(1), "d": .real(2.5), "s": .string("x")]))
        #expect(try read(NSURL(string: "rel/x", relativeTo: URL(string: "https://example.com/base/"))!)
            == .url(URL(string: "rel/x", relativeTo: URL(string: "https://example.com/base/"))!))
        let uuid = UUID()
        #expect(try read(NSUUID(uuidString: uuid.uuidString)!) == .uuid(uuid))
        #expect(try read(NSOrderedSet(array: ["x", "y"])) == .orderedSet([.string("x"), .string("y")]))
        #expect(try read(NSSet(array: ["x", "y"])) == .set([.string("x"), .string("y")]))
        #expect(try read(NSDate(timeIntervalSinceReferenceDate: 12.5)) == .date(Date(timeIntervalSinceReferenceDate: 12.5)))
        #expect(try read(NSData(bytes: [1, 2, 3] as [UInt8], length: 3)) == .data(Data([1, 2, 3])))
        #expect(try read(NSNull()) == .null)
        #expect(try read(NSMutableString(string: "hello")) == .string("hello"))
    }

    /// The forms Strata reads but never writes: NSMutableString's and NSMutableData's fields,
    /// and the numbered keys of older archives.
    @Test func otherLayoutsOfThePropertyListClassesAreRead() throws {
        func archive(_ objects: [PropertyListValue]) -> Data {
            BinaryPropertyListWriter.data(for: .dictionary([
                "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000), "$top": .dictionary(["root": .uid(1)]),
                "$objects": .array([.string("$null")] + objects),
            ]))
        }
        let dictionary = archive([
            .dictionary(["NS.key.0": uid(2), "NS.object.0": uid(3), "NS.key.1": uid(5), "NS.object.1": uid(6), "$class": uid(8)]),
            .string("name"), .dictionary(["NS.string": .string("mutable"), "$class": uid(4)]),
            .dictionary(["$classname": .string("NSMutableString"), "$classes": .array([.string("NSMutableString"), .string("NSString")])]),
            .string("bytes"), .dictionary(["NS.data": .data(Data([9])), "$class": uid(7)]),
            .dictionary(["$classname": .string("NSMutableData"), "$classes": .array([.string("NSMutableData"), .string("NSData")])]),
            .dictionary(["$classname": .string("NSMutableDictionary"), "$classes": .array([.string("NSMutableDictionary"), .string("NSDictionary")])]),
        ])
        #expect(try TransformableValue(keyedArchive: dictionary) == .dictionary(["name": .string("mutable"), "bytes": .data(Data([9]))]))
        let array = archive([
            .dictionary(["NS.object.0": uid(2), "NS.object.1": uid(2), "$class": uid(3)]), .integer(7),
            .dictionary(["$classname": .string("NSMutableArray"), "$classes": .array([.string("NSMutableArray"), .string("NSArray")])]),
        ])
        #expect(try TransformableValue(keyedArchive: array) == .array([.integer(7), .integer(7)]))
        // A numbered key missing in the middle is no list: the object is kept.
        let gap = archive([
            .dictionary(["NS.object.0": uid(2), "NS.object.2": uid(2), "$class": uid(3)]), .integer(7),
            .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray")])]),
        ])
        #expect(try TransformableValue(keyedArchive: gap) == .object(ArchivedObject(className: "NSArray", archive: gap)))
    }

    // MARK: - What is kept

    /// An archive holding an object of an app's class, built as Apple's archiver writes one
    /// (CoreDataPlus's `Content`: a `text` field and its class description).
    static func archive(ofContent text: String, inside: Bool) -> Data {
        var objects: [PropertyListValue] = [.string("$null")]
        if inside { objects.append(.dictionary(["NS.objects": .array([.uid(3), .uid(2)]), "$class": .uid(6)])) }
        let base = UInt64(objects.count)
        objects += [
            .string("first"),
            .dictionary(["text": .uid(base + 2), "$class": .uid(base + 3)]), .string(text),
            .dictionary(["$classname": .string("Content"), "$classes": .array([.string("Content"), .string("NSObject")])]),
        ]
        if inside { objects.append(.dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])])) }
        return BinaryPropertyListWriter.data(for: .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000),
            "$top": .dictionary(["root": .uid(inside ? 1 : base + 1)]), "$objects": .array(objects),
        ]))
    }

    @Test func objectsOfOtherClassesAreKeptWithTheirClassName() throws {
        let whole = Self.archive(ofContent: "page 1", inside: false)
        guard case .object(let object) = try TransformableValue(keyedArchive: whole) else {
            Issue.record("not kept as an object")
            return
        }
        #expect(object.className == "Content")
        #expect(object.archive == whole)
        #expect(try TransformableValue.object(object).keyedArchive() == whole)

        let inside = try TransformableValue(keyedArchive: Self.archive(ofContent: "page 2", inside: true))
        guard case .array(let items) = inside, items.count == 2, case .object(let content) = items[0] else {
            Issue.record("\(inside)")
            return
        }
        #expect(items[1] == .string("first"))
        #expect(inside.archivedClassNames == ["Content"])
        // The object's own archive holds it and what it refers to.
        let kept = try KeyedArchive(data: content.archive)
        #expect(kept.className(of: kept.root) == "Content")
        #expect(kept.string(kept.root["text"]) == "page 2")
        // Written inside another value and read again, it is the same object.
        let again = try TransformableValue(keyedArchive: TransformableValue.dictionary(["page": .object(content)]).keyedArchive())
        #expect(again == .dictionary(["page": .object(content)]))
    }

    @Test func whatIsNoArchiveIsRefusedAndAttributesKeepItAsBytes() throws {
        for bytes in [Data("not a plist".utf8), BinaryPropertyListWriter.data(for: .array([.string("x")])), Data()] {
            #expect(throws: TransformableValueError.self) { try TransformableValue(keyedArchive: bytes) }
            let attribute = AttributeDescription(name: "colors", type: .transformable)
            #expect(attribute.transformableValue(storedData: bytes) == .bytes(bytes))
            #expect(try attribute.storedData(for: .bytes(bytes)) == bytes)
        }
        #expect(throws: TransformableValueError.self) { try TransformableValue.array([.bytes(Data([1]))]).keyedArchive() }
    }

    /// With an app's own transformer the whole value is opaque: read as the archived object of
    /// its root class, written back only as it was.
    @Test func anAppsOwnTransformerKeepsTheWholeArchive() throws {
        var attribute = AttributeDescription(name: "dictionaryData", type: .transformable)
        attribute.valueTransformerName = "DSMetadataTransformer"
        #expect(!attribute.storesKeyedArchives)
        let archive = try TransformableValue.dictionary(["name": .string("Favorites")]).keyedArchive()
        #expect(attribute.transformableValue(storedData: archive) == .object(ArchivedObject(className: "NSDictionary", archive: archive)))
        #expect(try attribute.storedData(for: attribute.transformableValue(storedData: archive)) == archive)
        #expect { try attribute.storedData(for: .string("x")) } throws: {
            ($0 as? TransformableValueError)?.message.contains("value transformer DSMetadataTransformer, which Strata cannot run") == true
        }
        // The secure transformer reads no ordered set back.
        attribute.valueTransformerName = "NSSecureUnarchiveFromData"
        #expect { try attribute.storedData(for: .dictionary(["steps": .array([.orderedSet([])])])) } throws: {
            ($0 as? TransformableValueError)?.message.hasPrefix("at steps[0]: NSSecureUnarchiveFromData reads only NSArray") == true
        }
        attribute.valueTransformerName = nil
        #expect(try attribute.storedData(for: .orderedSet([])).isEmpty == false)
        for name in [nil, "", "NSKeyedUnarchiveFromData", "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer"] {
            attribute.valueTransformerName = name
            #expect(attribute.storesKeyedArchives, "\(name ?? "nil")")
            #expect(attribute.transformableValue(storedData: archive) == .dictionary(["name": .string("Favorites")]))
        }
    }

    /// An archive whose objects refer to each other many times stands for more values than
    /// memory holds; one whose array holds itself for no value at all. Neither runs away.
    @Test func archivesThatStandForTooMuchAreKeptWhole() throws {
        let levels = 40
        var objects: [PropertyListValue] = [.string("$null")]
        for level in 0..<levels {
            let next = PropertyListValue.uid(UInt64(level + 2))
            objects.append(.dictionary(["NS.objects": .array([next, next]), "$class": .uid(UInt64(levels + 2))]))
        }
        objects.append(.string("leaf"))
        objects.append(.dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray"), .string("NSObject")])]))
        let archive = BinaryPropertyListWriter.data(for: .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000), "$top": .dictionary(["root": .uid(1)]), "$objects": .array(objects),
        ]))
        #expect(try TransformableValue(keyedArchive: archive, decodedCountLimit: 100_000) == .object(ArchivedObject(className: "NSArray", archive: archive)))

        let loop = BinaryPropertyListWriter.data(for: .dictionary([
            "$archiver": .string("NSKeyedArchiver"), "$version": .integer(100_000), "$top": .dictionary(["root": .uid(1)]),
            "$objects": .array([.string("$null"), .dictionary(["NS.objects": .array([.uid(1)]), "$class": .uid(2)]),
                                .dictionary(["$classname": .string("NSArray"), "$classes": .array([.string("NSArray")])])]),
        ]))
        guard case .array(let items) = try TransformableValue(keyedArchive: loop), case .object(let inner)? = items.first else {
            Issue.record("the array inside itself is not kept")
            return
        }
        #expect(inner.className == "NSArray")
    }

    /// Damaged archives (bytes changed at random places) are errors or values, never a crash,
    /// and whatever they read as can be written again.
    @Test func damagedArchivesNeverStopTheProgram() throws {
        let archives = [try Self.everything.keyedArchive(), Self.archive(ofContent: "page", inside: true)]
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next() -> Int {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int(truncatingIfNeeded: seed >> 33)
        }
        var read = 0
        for round in 0..<2000 {
            var bytes = [UInt8](archives[round % archives.count])
            for _ in 0..<(1 + next() % 3) { bytes[next() % bytes.count] = UInt8(truncatingIfNeeded: next()) }
            guard let value = try? TransformableValue(keyedArchive: Data(bytes)) else { continue }
            read += 1
            if let again = try? value.keyedArchive() { _ = try? TransformableValue(keyedArchive: again) }
            _ = JSONWriter.string(from: value.jsonValue())
        }
        #expect(read > 0)
        // A date of no time at all, as a damaged NS.time may hold.
        for seconds in [Double.nan, .infinity, -.infinity, 1e300] {
            let date = TransformableValue.date(Date(timeIntervalSinceReferenceDate: seconds))
            _ = date.description
            _ = JSONWriter.string(from: date.jsonValue())
            _ = try? TransformableValue(keyedArchive: date.keyedArchive())
        }
    }

    // MARK: - JSON

    @Test func theJSONFormReadsBackEqual() throws {
        let text = JSONWriter.string(from: Self.everything.jsonValue(), pretty: false)
        #expect(try TransformableValue(json: JSONReader.parse(Data(text.utf8))) == Self.everything)
        let lua = Self.everything.jsonValue(taggingNulls: true)
        #expect(try TransformableValue(json: lua) == Self.everything)
        #expect(!JSONWriter.string(from: lua, pretty: false).contains("null,"))
        let kept = try TransformableValue(keyedArchive: Self.archive(ofContent: "x", inside: true))
        #expect(try TransformableValue(json: JSONReader.parse(Data(JSONWriter.string(from: kept.jsonValue()).utf8))) == kept)
        #expect(try TransformableValue(json: TransformableValue.bytes(Data([9])).jsonValue()) == .bytes(Data([9])))
    }

    @Test func theJSONFormIsTheDocumentedOne() throws {
        func text(_ value: TransformableValue) -> String { JSONWriter.string(from: value.jsonValue(), pretty: false) }
        #expect(text(.array([.string("a"), .integer(1), .real(1), .bool(false), .null])) == #"["a",1,1.0,false,null]"#)
        #expect(text(.null) == #"{"$null":true}"#)
        #expect(text(.date(Date(timeIntervalSince1970: 1_714_559_415.25))) == #"{"$date":"2024-05-01T10:30:15.25Z"}"#)
        #expect(text(.data(Data([0, 255]))) == #"{"$data":"AP8="}"#)
        #expect(text(.url(URL(string: "b", relativeTo: URL(string: "https://x.org/a/")!)!)) == #"{"$url":"b","$base":"https://x.org/a/"}"#)
        #expect(text(.set([.integer(2), .integer(1)])) == #"{"$set":[1,2]}"#)
        #expect(text(.orderedSet([.integer(2), .integer(1)])) == #"{"$orderedSet":[2,1]}"#)
        #expect(text(.dictionary(["$rootObjectID": .string("C6"), "a": .integer(1)])) == #"{"$dictionary":{"$rootObjectID":"C6","a":1}}"#)
        #expect(text(.real(-.infinity)) == #"{"$real":"-inf"}"#)
        #expect(text(.bytes(Data([1]))) == #"{"$bytes":"AQ=="}"#)
    }

    @Test(arguments: [
        (#"[1, {"$date": "May 1"}]"#, #"at [1]: "May 1" is not an ISO 8601 date"#),
        (#"{"$dat": "AA=="}"#, "$dat is not one of the tagged forms"),
        (#"{"a": 1, "$b": 2}"#, #"at $b: a key beginning with $ is one of the tags"#),
        (#"{"list": [{"$bytes": "AA=="}]}"#, "at list[0]: bytes ($bytes) can only be a whole value"),
        (#"{"$uuid": "nope"}"#, #""nope" is not a UUID"#),
        (#"{"$archive": "AA==", "$class": "X"}"#, "$archive is not an NSKeyedArchiver archive"),
        (#"{"$null": false}"#, "$null is not true"),
    ])
    func badJSONIsAnErrorNamingThePlace(json: String, message: String) throws {
        #expect { try TransformableValue(json: JSONReader.parse(Data(json.utf8))) } throws: {
            ($0 as? TransformableValueError)?.message.contains(message) == true
        }
    }

    /// Bytes that are no keyed archive are refused with the archive reader's cause in its own
    /// words (a regression: the cause once printed as "nil").
    @Test func bytesThatAreNoArchiveAreRefusedWithTheirCause() throws {
        let bytes = Data("not a property list".utf8)
        var cause = ""
        do { _ = try KeyedArchive(data: bytes) } catch { cause = error.description }
        #expect(!cause.isEmpty)
        #expect { try TransformableValue(keyedArchive: bytes) } throws: {
            ($0 as? TransformableValueError)?.message == "not an NSKeyedArchiver archive: " + cause
        }
    }

    @Test func theClassNamedWithAnArchiveMustBeItsClass() throws {
        let archive = Self.archive(ofContent: "x", inside: false).base64EncodedString()
        let json = #"{"$class": "Cover", "$archive": "\#(archive)"}"#
        #expect { try TransformableValue(json: JSONReader.parse(Data(json.utf8))) } throws: {
            ($0 as? TransformableValueError)?.message == "$archive holds a Content, not a Cover"
        }
    }

    @Test func descriptionsAreOneLineForPeople() {
        #expect(TransformableValue.array([.string("a\"b"), .integer(2)]).description == #"["a\"b", 2]"#)
        #expect(TransformableValue.dictionary(["b": .data(Data([1])), "a": .object(ArchivedObject(className: "FigTimeObj", archive: Data()))]).description
            == #"{"a": <FigTimeObj>, "b": <1 bytes>}"#)
    }
}
