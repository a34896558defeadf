import Foundation
@testable import Strata
import StrataTestSupport

/// A store of a model given as Strata JSON model text, or loaded from the shared fixtures, with
/// helpers to import JSON into it and read back what it holds.
struct ImportFixture {
    let folder: TemporaryFolder
    let store: PersistentStore
    let context: ObjectContext

    init(model: ObjectModel) throws {
        folder = try TemporaryFolder()
        store = try PersistentStore.create(at: folder.path("Import.sqlite"), model: model)
        context = ObjectContext(store: store, name: "import")
    }

    init(modelJSON: String) throws {
        try self.init(model: JSONModelReader.read(Data(modelJSON.utf8), path: "test.json"))
    }

    init(sharedModel name: String) throws {
        let url = Fixtures.model("\(name).xcdatamodeld")
        try self.init(model: ModelLoader.load(url).currentVersion.model)
    }

    /// Imports `json` text in a new session and saves; returns the session's report.
    @discardableResult
    func importJSON(_ json: String, into entity: String? = nil, prune: [String] = [], identities: [String: ImportIdentity] = [:]) throws -> ImportReport {
        try importData(Data(json.utf8), into: entity, prune: prune, identities: identities)
    }

    @discardableResult
    func importFile(_ name: String, into entity: String, prune: [String] = []) throws -> ImportReport {
        try importData(Data(contentsOf: Fixtures.coreData.appendingPathComponent("json/sync/\(name)")), into: entity, prune: prune, identities: [:])
    }

    private func importData(_ data: Data, into entity: String?, prune: [String], identities: [String: ImportIdentity]) throws -> ImportReport {
        let json = try JSONReader.parse(data)
        return try context.performAndWait {
            let session = ImportSession(context: context, identities: identities)
            do {
                try session.import(json, into: entity)
                if !prune.isEmpty { try session.removeDeprecated(prune) }
                try context.save()
            } catch {
                context.rollback()
                throw error
            }
            return session.report
        }
    }

    /// `attribute` of every object of `entity`, sorted by `sortKey`.
    func values(_ entity: String, _ attribute: String, sortedBy sortKey: String? = nil) throws -> [String?] {
        try context.performAndWait {
            try context.fetch(FetchRequest(entityName: entity, sortDescriptors: [ObjectSortDescriptor(sortKey ?? attribute)]))
                .map { try $0.attributeValue(forKey: attribute).map(Self.text) }
        }
    }

    /// The `attribute` values of the objects `object`'s relationship holds, sorted.
    func related(_ entity: String, where format: String, _ relationship: String, _ attribute: String) throws -> [String] {
        try context.performAndWait {
            guard let object = try context.fetch(FetchRequest(entityName: entity, predicate: try ObjectPredicate(format: format))).first else { return ["<missing>"] }
            let value = try object.value(forKey: relationship)
            let objects = (value as? [ManagedObject]) ?? (value as? ManagedObject).map { [$0] } ?? []
            return try objects.map { try $0.attributeValue(forKey: attribute).map(Self.text) ?? "nil" }.sorted()
        }
    }

    /// A value as tests compare it: strings as they are, others as descriptions show them.
    static func text(_ value: AttributeValue) -> String {
        if case .string(let string) = value { return string }
        return value.displayText
    }
}
