import Foundation
import Strata
import Testing
import StrataTestSupport

/// Code in the style of the seed libraries' examples (SugarRecord, BNR CoreDataStack,
/// DKDBManager, CoreDataMonk, KarthVader), ported to Strata as a user would port it: public API
/// only, in a file that imports Foundation (whose `Predicate` and `SortDescriptor` must not
/// clash with Strata's names).
@Suite(.serialized) struct SeedStyleTests {
    static let club = """
        {"entities": [
          {"name": "Runner", "userInfo": {"relatedByAttribute": "name", "strata.identityIgnoresCase": "YES"},
           "attributes": [{"name": "name", "type": "string", "optional": false}, {"name": "age", "type": "integer16"},
             {"name": "weight", "type": "float"}, {"name": "rank", "type": "integer64"}, {"name": "score", "type": "double"},
             {"name": "fee", "type": "decimal"}, {"name": "active", "type": "boolean"}, {"name": "joined", "type": "date"},
             {"name": "photo", "type": "binary"}, {"name": "badge", "type": "uuid"}, {"name": "homepage", "type": "uri"},
             {"name": "laps", "type": "integer32"}],
           "relationships": [{"name": "club", "destination": "Club", "inverse": "runners"}]},
          {"name": "Club", "attributes": [{"name": "title", "type": "string"}],
           "relationships": [{"name": "runners", "destination": "Runner", "inverse": "club", "toMany": true}]}
        ]}
        """

    static func model(_ json: String = club) throws -> ObjectModel {
        try JSONModelReader.read(Data(json.utf8), path: "Club.json")
    }

    // MARK: - SugarRecord

    @Test func aStackSetUpInOneLineFromABundleMigratesAndAnnouncesItsCleanUp() throws {
        let temporary = try TemporaryFolder("strata-seed")
        let folder = temporary.url
        let bundle = folder.appendingPathComponent("Club.xcdatamodeld")
        let first = try Self.model(#"{"entities": [{"name": "Club", "attributes": [{"name": "title", "type": "string"}]}]}"#)
        let second = try Self.model(
            #"{"entities": [{"name": "Club", "attributes": [{"name": "title", "type": "string"}, {"name": "city", "type": "string", "default": "Oslo"}]}]}"#)
        try XcodeModelWriter.write(first, toModelFolder: bundle.appendingPathComponent("Club.xcdatamodel"))
        try XcodeModelWriter.write(second, toModelFolder: bundle.appendingPathComponent("Club 2.xcdatamodel"))
        try ModelBundle.writeCurrentVersionMarker(in: bundle, versionName: "Club 2")
        let storeURL = folder.appendingPathComponent("Club.sqlite")
        let old = try PersistentStore.create(at: storeURL.path, model: first)
        let seeding = ObjectContext(store: old)
        try seeding.performAndWait {
            try seeding.insert("Club").setValue("Harriers", forKey: "title")
            try seeding.save()
        }
        old.close()

        let stack = try DataStack(modelAt: bundle, store: .sqlite(storeURL))
        #expect(!stack.createdStore)
        let cities = try stack.mainContext.performAndWait {
            try stack.mainContext.find(.all, "Club").map { $0["city"] as? String }
        }
        #expect(cities == ["Oslo"], "the store of Club was migrated to Club 2 on opening")

        let announced = Announcements()
        let observer = NotificationCenter.default.addObserver(forName: DataStack.didCleanUpNotification, object: stack, queue: nil) { note in
            announced.record(note.userInfo?[DataStack.storeURLKey] as? URL)
        }
        defer { NotificationCenter.default.removeObserver(observer) }
        stack.cleanUp()
        #expect(announced.urls == [storeURL])
    }

    // MARK: - Predicates with Swift values

    @Test func predicateFormatsTakeVariablesOfEveryAttributeTypeObjectsIDsAndArrays() throws {
        let stack = try DataStack(model: Self.model(), store: .inMemory)
        let context = stack.mainContext
        let name = "Ada", age: Int16 = 36, weight: Float = 61.5, rank: Int64 = 1 << 40, score = 9.75
        let fee = Decimal(string: "12.50")!, active = true, joined = Date(timeIntervalSince1970: 1_700_000_000)
        let photo = Data([1, 2, 3]), badge = UUID(), homepage = URL(string: "https://example.org/ada")!, laps: Int32 = 42
        let noLaps: Int32? = nil
        try context.performAndWait {
            let club = try context.insert("Club")
            let ada = try context.insert("Runner")
            for (key, value) in [("name", name), ("age", age), ("weight", weight), ("rank", rank), ("score", score), ("fee", fee),
                                 ("active", active), ("joined", joined), ("photo", photo), ("badge", badge), ("homepage", homepage),
                                 ("laps", laps)] as [(String, Any)] {
                try ada.setValue(value, forKey: key)
            }
            try ada.setValue(club, forKey: "club")
            try context.insert("Runner").setValue("Grace", forKey: "name")
            try context.save()

            func count(_ format: String, _ arguments: (any PredicateValueConvertible)?...) throws -> Int {
                try context.count(for: FetchRequest(entityName: "Runner", predicate: ObjectPredicate(format: format, arguments: arguments.map {
                    PredicateArgument($0?.predicateValue ?? .null)
                })))
            }
            #expect(try context.count("Runner", where: ObjectPredicate(format: "name ==[c] %@", name.lowercased())) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "age == %@ AND weight == %@ AND rank == %@", age, weight, rank)) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "score == %@ AND fee == %@ AND active == %@", score, fee, active)) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "joined == %@ AND photo == %@ AND badge == %@", joined, photo, badge)) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "homepage == %@ AND laps == %@", homepage, laps)) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "club == %@", club)) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "club == %@", club.objectID)) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "name IN %@", ["Ada", "Grace", "Hedy"])) == 2)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "laps IN %@", Set([laps, 7]))) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "laps == %@", noLaps)) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate(format: "%K == %@", "name", "Grace")) == 1)
            #expect(try context.count("Runner", where: ObjectPredicate.where("age > %d", 30)) == 1)
            #expect(try count("self IN %@", [ada])  == 1)
            let sorted: [ObjectSortDescriptor] = [ObjectSortDescriptor("name", ascending: false)]
            let filter: ObjectPredicate = try ObjectPredicate(format: "name != nil")
            #expect(try context.find(.all, "Runner", where: filter, sortedBy: sorted).map { $0["name"] as? String } == ["Grace", "Ada"])
        }
    }

    // MARK: - KarthVader

    @Test func commitWaitsOrCallsBackWithTheOutcome() async throws {
        let stack = try DataStack(model: Self.model(), store: .inMemory)
        let worker = stack.newWorkerContext()
        try worker.performAndWait { try worker.insert("Club").setValue("waited", forKey: "title") }
        try worker.commit(wait: true)
        #expect(try stack.store.count(of: "Club") == 1)

        let (onQueue, permanent): (Bool, Bool) = await withCheckedContinuation { continuation in
            worker.performAndWait { _ = try? worker.insert("Club").setValue("called back", forKey: "title") }
            worker.commit { error in
                let ids = worker.registeredObjects.map(\.objectID)
                continuation.resume(returning: (worker.isOnQueue && error == nil, ids.allSatisfy { !$0.isTemporary }))
            }
        }
        #expect(onQueue && permanent, "the completion runs on the context's queue, the objects saved")
        #expect(try stack.store.count(of: "Club") == 2)

        try worker.performAndWait { _ = try worker.insert("Runner") }
        #expect(throws: ContextError.self) { try worker.commit(wait: true) }
        let failure: String? = await withCheckedContinuation { continuation in
            worker.commit { error in continuation.resume(returning: error.map { "\($0)" }) }
        }
        #expect(failure?.contains("name") == true, "a runner without a name is refused: \(failure ?? "no error")")
        #expect(try stack.store.count(of: "Runner") == 0)
    }

    // MARK: - DKDBManager

    /// DKDBManager's subclass with rules of its own.
    final class Runner: ManagedObject, @unchecked Sendable {
        override class var entityName: String { "Runner" }

        override func invalidReason() throws -> String? {
            if let reason = try super.invalidReason() { return reason }
            return (self["age"] as? Int64).map { $0 < 0 ? "age is negative" : nil } ?? nil
        }
    }

    @Test func objectsSayWhyTheyAreInvalidAndDeleteThemselves() throws {
        let stack = try DataStack(model: Self.model(), store: .inMemory)
        stack.register([Runner.self])
        let context = stack.mainContext
        try context.performAndWait {
            let valid = try context.insert("Runner")
            try valid.setValue("Ada", forKey: "name")
            let nameless = try context.insert("Runner")
            let negative = try context.insert("Runner")
            try negative.setValue("Bob", forKey: "name")
            try negative.setValue(-3, forKey: "age")
            #expect(valid is Runner)
            #expect(try valid.invalidReason() == nil)
            #expect(try nameless.invalidReason() == "name is required")
            #expect(try negative.invalidReason() == "age is negative")
            #expect(try !valid.deleteIfInvalid())
            #expect(try nameless.deleteIfInvalid() && negative.deleteIfInvalid())
            try context.commit()
            #expect(try context.count("Runner") == 1)
        }
        // An import asks the subclass too.
        let report = try context.performAndWait {
            try ImportSession(context: context).import(JSONReader.parse(Data(#"[{"name": "Cy", "age": -1}, {"name": "Di", "age": 30}]"#.utf8)), into: "Runner")
        }
        #expect(report.invalid.map(\.reason) == ["age is negative"])
        #expect(try context.performAndWait { try context.count("Runner") } == 2)
    }

    @Test func identitiesCanMatchWhateverTheirCase() throws {
        let stack = try DataStack(model: Self.model(), store: .inMemory)
        let context = stack.mainContext
        try context.performAndWait {
            let session = ImportSession(context: context)
            _ = try session.import(JSONReader.parse(Data(#"[{"name": "Le Guin", "age": 80}]"#.utf8)), into: "Runner")
            let second = try session.import(JSONReader.parse(Data(#"[{"name": "LE GUIN", "age": 81}, {"name": "le guin", "age": 82}]"#.utf8)), into: "Runner")
            #expect(second.count("Runner", .created) == 0)
            try context.save()
            let runners = try context.find(.all, "Runner")
            #expect(runners.count == 1)
            #expect(runners.first?["age"] as? Int64 == 82)
            #expect(runners.first?["name"] as? String == "le guin", "the record's spelling is kept")
        }
        // The same through an identity given in code, on an entity without the userInfo.
        let plain = try DataStack(model: Self.model(Self.club.replacingOccurrences(of: #", "strata.identityIgnoresCase": "YES""#, with: "")), store: .inMemory)
        try plain.mainContext.performAndWait {
            let session = ImportSession(context: plain.mainContext, identities: ["Runner": .attribute("name", ignoringCase: true)])
            _ = try session.import(JSONReader.parse(Data(#"[{"name": "Ada"}, {"name": "ADA"}]"#.utf8)), into: "Runner")
            #expect(try plain.mainContext.count("Runner") == 1)
        }
    }

    // MARK: - CoreDataMonk

    @Test func updatesUseObjectsOfOtherContextsAndGoOnInCallbacks() async throws {
        let stack = try DataStack(model: Self.model(), store: .inMemory)
        let main = stack.mainContext
        let shown = try main.performAndWait {
            let club = try main.insert("Club")
            try club.setValue("Harriers", forKey: "title")
            try main.commit()
            return club
        }
        let failure: String? = await withCheckedContinuation { continuation in
            stack.beginUpdate { update in
                let club = try update.use(shown)
                let runner = try update.insert("Runner")
                try runner.setValue(club, forKey: "club")
                DispatchQueue.global().async {
                    update.perform({ update in
                        try runner.setValue("Ada", forKey: "name")
                        try update.commit()
                    }, completion: { error in continuation.resume(returning: error.map { "\($0)" }) })
                }
            }
        }
        #expect(failure == nil)
        let members = try await main.perform { try main.count("Runner", where: ObjectPredicate(format: "club.title == %@", "Harriers")) }
        #expect(members == 1)
    }

    // MARK: - Logging

    @Test func theLogLevelIsSetWithoutBootstrappingSwiftLog() throws {
        let lines = LogLines()
        StrataLog.write(to: { lines.append($0) })
        StrataLog.level = .verbose
        defer { StrataLog.level = nil }
        let stack = try DataStack(model: Self.model(), store: .inMemory)
        try stack.mainContext.performAndWait {
            let club = try stack.mainContext.insert("Club")
            try stack.mainContext.delete(club, reason: "closed")
        }
        #expect(lines.all.contains { $0.hasPrefix("verbose [Club] Deleting") && $0.hasSuffix(": closed") }, "\(lines.all)")
    }
}

/// What notifications carried, from whichever thread posted them.
private final class Announcements: @unchecked Sendable {
    private let lock = NSLock()
    private var received: [URL?] = []

    func record(_ url: URL?) {
        lock.withLock { received.append(url) }
    }

    var urls: [URL?] { lock.withLock { received } }
}

/// Log lines written by Strata, from whichever thread wrote them.
private final class LogLines: @unchecked Sendable {
    private let lock = NSLock()
    private var lines: [String] = []

    func append(_ line: String) {
        lock.withLock { lines.append(line) }
    }

    var all: [String] { lock.withLock { lines } }
}
