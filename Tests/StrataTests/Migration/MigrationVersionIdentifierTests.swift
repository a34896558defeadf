import Foundation
import Testing
@testable import Strata

/// Version identifiers are free labels, as in Core Data, which matches a store to its version
/// by hashes and never compares `versionIdentifiers`: a store migrates to the destination
/// whichever label sorts first (issue 33, where a real bundle's older version is `v1.3` and its
/// current one `1.9`).
@Suite struct MigrationVersionIdentifierTests {
    static func item(_ identifier: String, extra: String = "") -> String {
        #"{"versionIdentifier": "\#(identifier)", "entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}\#(extra)]}]}"#
    }

    /// The store's version is labelled `v1.3`, the bundle's current one `1.9`: `v1.3` sorts
    /// after `1.9` (as text and as numbers), yet it is the older, and the store migrates,
    /// with its objects, in one step.
    @Test func aStoreWhoseLabelSortsAfterTheCurrentOnesMigrates() throws {
        let older = Self.item("v1.3")
        let current = Self.item("1.9", extra: #", {"name": "size", "type": "integer32"}"#)
        #expect("v1.3".compare("1.9", options: .numeric) == .orderedDescending, "the labels this test is about")
        let fixture = try MigrationFixture(versions: [("Model", older), ("Model 2", current)]) { context in
            try context.make("Item", ["code": "a"])
            try context.make("Item", ["code": "b"])
        }
        let result = try fixture.migrator().migrate()
        #expect(result.plan.steps.map(\.name) == ["Model → Model 2"])
        #expect(result.plan.steps[0].mapping.changes == [.attributeAdded(entity: "Item", attribute: "size", defaultValue: nil, isOptional: true)])
        #expect(result.counts == ["Item": 2])
        #expect(try fixture.read { try sortedNames($0.all("Item", by: "code"), "code") } == ["a", "b"])
    }

    /// "Back" to a version whose identifier is smaller (`1.9` from `1.10`, compared as numbers)
    /// is a migration like another: inferred, checked, and what the destination lacks dropped,
    /// as the plan says; a route in between is taken in the order given.
    @Test func aStoreOfAGreaterIdentifierMigratesBackAndThroughARouteInItsOrder() throws {
        let later = Self.item("1.10", extra: #", {"name": "note", "type": "string"}, {"name": "size", "type": "integer32"}"#)
        let middle = Self.item("1.2", extra: #", {"name": "note", "type": "string"}"#)
        let earlier = Self.item("1.9")
        // The store's version is first (the fixture seeds with it); "A", the destination, last.
        let fixture = try MigrationFixture(versions: [("B", later), ("C", middle), ("A", earlier)]) { try $0.make("Item", ["code": "x", "note": "n"]) }
        let plan = try fixture.migrator(through: ["C"]).plan()
        #expect(plan.steps.map(\.name) == ["B → C", "C → A"])
        #expect(plan.steps.map(\.mapping.changes) == [[.attributeRemoved(entity: "Item", attribute: "size")], [.attributeRemoved(entity: "Item", attribute: "note")]])
        let result = try fixture.migrator().migrate()
        #expect(result.plan.steps.map(\.name) == ["B → A"])
        #expect(result.counts == ["Item": 1])
        #expect(try fixture.read { try sortedNames($0.all("Item", by: "code"), "code") } == ["x"])
    }

    /// A stack opened on the bundle migrates such a store on opening, as Core Data's automatic
    /// migration does, keeping the old store as a backup.
    @Test func aStackMigratesAStoreWhoseLabelSortsAfterTheCurrentOnes() throws {
        let fixture = try MigrationFixture(
            versions: [("Model", Self.item("v1.3")), ("Model 2", Self.item("1.9", extra: #", {"name": "size", "type": "integer32"}"#))]
        ) { try $0.make("Item", ["code": "kept"]) }
        let stack = try DataStack(bundle: fixture.bundle, store: .sqlite(URL(fileURLWithPath: fixture.path)))
        stack.cleanUp()
        #expect(try fixture.otherFiles().contains { $0.hasSuffix(".bak") })
        #expect(try fixture.read { try sortedNames($0.all("Item", by: "code"), "code") } == ["kept"])
    }
}
