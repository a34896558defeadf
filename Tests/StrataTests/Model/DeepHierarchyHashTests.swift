import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// Hashing a model computes each entity's hash once, however deep its hierarchy: a chain of
/// 200 entities, each the parent of the next, took a minute when every entity recomputed its
/// ancestors' hashes and inherited properties (issue 31).
@Suite struct DeepHierarchyHashTests {
    /// A chain of `depth` entities, `E0` the root, each with an attribute of its own.
    static func chain(_ depth: Int) -> ObjectModel {
        ObjectModel(entities: (0..<depth).map { index in
            var entity = EntityDescription(name: "E\(index)")
            entity.superentityName = index == 0 ? nil : "E\(index - 1)"
            entity.attributes = [AttributeDescription(name: "a\(index)", type: .string)]
            return entity
        })
    }

    /// The hash as the format defines it, computed from scratch for each entity.
    static func reference(_ entity: EntityDescription, in model: ObjectModel) -> Data {
        var bytes = Data(entity.name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parent = entity.superentityName.flatMap(model.entity(named:)) { bytes.append(reference(parent, in: model)) }
        let lineage = model.ancestors(of: entity).reversed() + [entity]
        let properties = lineage.flatMap(\.attributes).map { ($0.name, $0.versionHash) } + lineage.flatMap(\.relationships).map { ($0.name, $0.versionHash) }
        for (_, hash) in properties.sorted(by: { $0.0 < $1.0 }) { bytes.append(hash) }
        return SHA256.hash(bytes)
    }

    @Test func aChainHashesAsTheFormatSays() {
        let model = Self.chain(12)
        let hashes = model.entityVersionHashes()
        for entity in model.entities { #expect(hashes[entity.name] == Self.reference(entity, in: model), "\(entity.name)") }
        #expect(model.versionHash(of: model.entities[7]) == hashes["E7"])
    }

    /// 500 levels: every entity's hash computed exactly once, in a test that only has to end.
    @Test func aHierarchyOf500LevelsHashesEachEntityOnce() {
        let model = Self.chain(500)
        var hasher = EntityHasher(model: model)
        var hashes: [String: Data] = [:]
        for entity in model.entities.reversed() { hashes[entity.name] = hasher.hash(of: entity) }
        #expect(hasher.computedEntityHashes == 500)
        #expect(hashes == model.entityVersionHashes())
        #expect(model.validate().filter { $0.severity == .error }.isEmpty)
    }

    /// 500 levels lay out as Core Data lays out any hierarchy: one table, each entity's rows
    /// numbered below its parent's range. Laying out once scanned the model per subentity look-up
    /// (`create` took 44 s); it walks each hierarchy through an index now.
    @Test func aHierarchyOf500LevelsLaysOutInOneTable() throws {
        let layout = StoreLayout(model: Self.chain(500))
        #expect(layout.tables.map(\.name) == ["ZE0"])
        #expect(layout.tables.first?.columns.count == 3 + 500)
        let entities = Dictionary(uniqueKeysWithValues: layout.entities.map { ($0.name, $0) })
        #expect(entities["E0"]?.numberRange == 1...500)
        #expect(entities["E250"]?.numberRange == 251...500)
        #expect(entities["E499"]?.numberRange == 500...500)
        #expect(entities["E499"]?.attributeColumns.count == 500)
    }

    /// The missing-column check on a deep hierarchy names an inherited column after the entity
    /// that declares it, once, for a table of 100 levels. It walked every ancestor for every
    /// column of every entity (cubic): `strata create` of 250 levels spent 80 s in it.
    @Test func aDeepHierarchysMissingColumnIsNamedAfterItsDeclaringEntity() throws {
        let folder = try TemporaryFolder()
        let model = Self.chain(100)
        let path = folder.path("Deep.sqlite")
        try PersistentStore.create(at: path, model: model).close()
        let database = try Database(path: path)
        try database.execute("ALTER TABLE ZE0 DROP COLUMN ZA50")
        database.close()
        let store = try PersistentStore.open(at: path, model: model)
        defer { store.close() }
        #expect(store.missingColumns == [MissingColumn(table: "ZE0", column: "ZA50", entity: "E50", property: "a50", kind: .attribute)])
    }

    /// A cycle of parents (an invalid model) still hashes, and ends.
    @Test func aCycleOfParentsStillHashes() {
        var model = Self.chain(3)
        model.entities[0].superentityName = "E2"
        #expect(model.entityVersionHashes().count == 3)
    }
}
