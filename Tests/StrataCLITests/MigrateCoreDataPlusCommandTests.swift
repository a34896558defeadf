import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata migrate` on CoreDataPlus's store of SampleModel2 (Core Data wrote it), through the
/// app's mapping model V2toV3, whose compiled models carry uniqueness constraints, with a Lua
/// policy in place of its `V2to3MakerPolicy` (a Maker per car maker's name), after edits that
/// record persistent history.
@Suite(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found next to the checkout: corpus test skipped"))
struct MigrateCoreDataPlusCommandTests {
    static let bundle = StrataRunner.sharedFixtures.appendingPathComponent("corpus/models/coredataplus/SampleModel.xcdatamodeld").path
    static let policy = """
        local makers = {}
        local function carry(car, manager)
          local copy = manager:default_destination(car)
          if car.maker then
            local maker = makers[car.maker]
            if not maker then
              maker = manager:insert("Maker")
              maker.name = car.maker
              makers[car.maker] = maker
            end
            copy.createdBy = maker
          end
        end
        return { ["REPLACE_AT_RUNTIME.V2to3MakerPolicy"] = { create_destination_instances = carry } }
        """

    @Test func theMappingModelMatchesItsStepAndTheHistoryFollowsTheObjects() throws {
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("SampleModel_V2.sqlite").path
        try FileManager.default.copyItem(atPath: StrataRunner.sharedFixtures.appendingPathComponent("corpus/stores/coredataplus/SampleModel_V2.sqlite").path, toPath: store)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: store)
        let policy = folder.url.appendingPathComponent("maker.lua").path
        try Self.policy.write(toFile: policy, atomically: true, encoding: .utf8)
        let old = ["--store", store, "--model", Self.bundle, "--model-version", "SampleModel2"]
        let new = ["--store", store, "--model", Self.bundle, "--model-version", "SampleModel3"]

        let shown = try StrataRunner.run(["model", "show", "--model", Self.bundle])
        #expect(shown.standardOutput.contains("V2toV3: SampleModel2 → SampleModel3"), "\(shown.standardOutput)")
        let planned = try StrataRunner.run(["migrate", "--to", "SampleModel3", "--policy", policy, "--dry-run", "--store", store, "--model", Self.bundle])
        #expect(planned.status == 0, "\(planned.standardError)")
        #expect(planned.standardOutput.contains("V2toV3 (") && planned.standardOutput.contains("carries out SampleModel2 → SampleModel3"), "\(planned.standardOutput)")

        // Victoria Coster (p1) renamed, the last car by number plate deleted: history to carry.
        let edit = "local p = ctx:first('Person', 'lastName == %@', 'Coster') p.lastName = 'Coster-Smith' ctx:save() "
            + "ctx:delete(ctx:fetch('Car', {sort={'-numberPlate'}, limit=1})[1]) ctx:save()"
        let edited = try StrataRunner.run(["eval", edit, "--track-history"] + old)
        #expect(edited.status == 0, "\(edited.standardError)")

        let migrated = try StrataRunner.run(["migrate", "--to", "SampleModel3", "--policy", policy, "--store", store, "--model", Self.bundle])
        #expect(migrated.status == 0, "\(migrated.standardError)")
        #expect(migrated.standardOutput.contains("persistent history: every transaction kept"), "\(migrated.standardOutput)")
        // The store's 125 cars name 10 makers; one car was deleted.
        #expect(try StrataRunner.run(["count", "Maker"] + new).standardOutput == "10\n")
        #expect(try StrataRunner.run(["count", "Car", "--where", "createdBy != nil"] + new).standardOutput == "124\n")

        let person = try StrataRunner.run(["fetch", "Person", "--where", "lastName == 'Coster-Smith'", "--select", "lastName", "--format", "csv"] + new)
        let uri = try #require(person.standardOutput.split(whereSeparator: \.isNewline).dropFirst().first?.split(separator: ",").first, "\(person.standardOutput)")
        let object = uri.split(separator: "/").suffix(2).joined(separator: "/")
        let history = try StrataRunner.run(["history", "list", "--format", "csv"] + new)
        #expect(history.status == 0, "\(history.standardError)")
        let changes = history.standardOutput.split(whereSeparator: \.isNewline).dropFirst().map { $0.split(separator: ",", omittingEmptySubsequences: false) }
        #expect(Set(changes.map { $0[0] }) == ["1", "2"], "both transactions kept: \(history.standardOutput)")
        #expect(changes.contains { $0[0] == "1" && $0[6] == "update" && $0[7] == object && $0[8] == "lastName" }, "\(object): \(history.standardOutput)")
        #expect(!changes.contains { $0[6] == "delete" }, "the deleted car has no counterpart: its change is dropped")
    }
}
