import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata setup` then `strata reset --yes` on a new store, as a new user runs them.
@Suite struct StackCommandTests {
    /// Removed when the suite's instance goes away, after its test.
    private let temporary: TemporaryFolder
    var folder: URL { temporary.url }
    let model = StrataRunner.repositoryRoot.appendingPathComponent(StrataRunner.exampleModel).path

    init() throws {
        temporary = try TemporaryFolder()
    }

    /// A reset would take the files from under a connection that is writing, which would lose
    /// its commit: it waits, then refuses, naming the process, and the store keeps the commit.
    @Test func resetRefusesWhileAnotherConnectionWritesNamingTheProcess() throws {
        let folder = try TemporaryFolder()
        let store = folder.url.appendingPathComponent("Library.sqlite").path
        #expect(try StrataRunner.run(["create", "--store", store, "--model", model]).status == 0)
        let writer = try Database(path: store)
        try writer.execute("BEGIN IMMEDIATE")
        try writer.execute("INSERT INTO ZTAG (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, (SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Tag'), 1, 'kept')")
        let refused = try StrataRunner.run(["reset", "--yes", "--busy-timeout", "0.2", "--store", store, "--model", model])
        #expect(refused.status == 1)
        #expect(refused.standardError == "strata: \(store): the store is open in another connection (process \(getpid())); close it and try again\n")
        try writer.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 1 WHERE Z_NAME = 'Tag'")
        try writer.execute("COMMIT")
        writer.close()
        #expect(try StrataRunner.run(["count", "Tag", "--store", store]).standardOutput == "1\n")
        #expect(try StrataRunner.run(["reset", "--yes", "--store", store, "--model", model]).status == 0)
        #expect(try StrataRunner.run(["count", "Tag", "--store", store]).standardOutput == "0\n")
    }

    @Test func setupCreatesThenOpensAndResetEmptiesTheStore() throws {
        let store = folder.appendingPathComponent("Library.sqlite").path
        let created = try StrataRunner.run(["setup", "--store", store, "--model", model])
        #expect(created.status == 0)
        #expect(created.standardOutput.contains("store     \(store) (created, UUID "))
        #expect(created.standardOutput.contains("topology  three-tier"))
        let opened = try StrataRunner.run(["setup", "--store", store, "--model", model, "--format", "json"])
        let report = try JSONReader.parse(Data(opened.standardOutput.utf8))
        #expect(report["created"]?.boolValue == false)
        #expect(report["entities"]?.arrayValue?.count == 5)

        do {
            let stack = try DataStack(model: ModelLoader.load(URL(fileURLWithPath: model)).currentVersion.model, store: .sqlite(URL(fileURLWithPath: store)))
            try stack.rootContext.performAndWait {
                try stack.rootContext.insert("Tag").setValue("doomed", forKey: "name")
                try stack.rootContext.save()
            }
            stack.cleanUp()
        }
        let refused = try StrataRunner.run(["reset", "--store", store, "--model", model])
        #expect(refused.status == 2)
        #expect(refused.standardError == "strata: reset removes every object in \(store); pass --yes to confirm\n")
        let reset = try StrataRunner.run(["reset", "--yes", "--store", store, "--model", model])
        #expect(reset.status == 0, "\(reset.standardError)")
        #expect(reset.standardOutput.hasPrefix("removed \(store)\n"))
        let inspected = try StrataRunner.run(["inspect", "--format", "json", "--store", store])
        let counts = try JSONReader.parse(Data(inspected.standardOutput.utf8))["entities"]?.arrayValue?.compactMap { $0["rows"]?.intValue }
        #expect(counts == [0, 0, 0, 0, 0])
    }

    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func bothRefuseAStoreOfAnotherModel() throws {
        let store = folder.appendingPathComponent("Other.sqlite").path
        #expect(try StrataRunner.run(["create", "--store", store, "--model", model]).status == 0)
        let tavant = StrataRunner.sharedFixtures.appendingPathComponent("models/TavantTrade.xcdatamodeld").path
        for command in [["setup"], ["reset", "--yes"]] {
            let result = try StrataRunner.run(command + ["--store", store, "--model", tavant])
            #expect(result.status == 3)
            #expect(result.standardError.contains("cannot find the model the store was made with: it is none of the versions of TavantTrade.xcdatamodeld"), "\(result.standardError)")
        }
        let manual = try StrataRunner.run(["setup", "--no-automigrate", "--store", store, "--model", tavant])
        #expect(manual.status == 3)
        #expect(manual.standardError.contains("the store was made with another model; entities that differ: FeedbackCategory (only in the model)"))
        #expect(manual.standardError.hasSuffix("(automatic migration is off)\n"))
        #expect(FileManager.default.fileExists(atPath: store))
    }

    @Test(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
    func setupMigratesAStoreOfAnEarlierVersionUnlessToldNot() throws {
        let swiftGen = StrataRunner.sharedFixtures.appendingPathComponent("models/SwiftGen.xcdatamodeld").path
        let store = folder.appendingPathComponent("SwiftGen.sqlite").path
        #expect(try StrataRunner.run(["create", "--store", store, "--model", swiftGen, "--model-version", "Model"]).status == 0)
        let refused = try StrataRunner.run(["setup", "--no-automigrate", "--store", store, "--model", swiftGen])
        #expect(refused.status == 3)
        #expect(refused.standardError.hasSuffix("(automatic migration is off)\n"))
        let migrated = try StrataRunner.run(["setup", "--store", store, "--model", swiftGen, "--format", "json"])
        #expect(migrated.status == 0, "\(migrated.standardError)")
        #expect(try JSONReader.parse(Data(migrated.standardOutput.utf8))["entities"]?.arrayValue?.count == 8, "Model 2's entities")
        let backups = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasPrefix("SwiftGen.sqlite.") && $0.hasSuffix(".bak") }
        #expect(backups.count == 1)
    }

    /// Regression: reset needed --model, though the store keeps its model. It keeps that one;
    /// a store whose model would only be inferred from its tables still needs --model.
    @Test func resetKeepsTheStoresOwnModelWithoutModel() throws {
        let store = folder.appendingPathComponent("Own.sqlite").path
        let imported = try StrataRunner.run(["import", "Tag", "--create", "--store", store, "--model", model], input: Data(#"[{"name": "a"}]"#.utf8))
        #expect(imported.status == 0, "\(imported.standardError)")
        let reset = try StrataRunner.run(["reset", "--yes", "--store", store])
        #expect(reset.status == 0, "\(reset.standardError)")
        #expect(try StrataRunner.run(["count", "Tag", "--store", store]).standardOutput == "0\n")
        // The reset store is still the model's: setup opens it without migrating.
        let opened = try StrataRunner.run(["setup", "--no-automigrate", "--store", store, "--model", model, "--format", "json"])
        #expect(opened.status == 0, "\(opened.standardError)")

        let inferred = folder.appendingPathComponent("Inferred.sqlite").path
        let database = try Database(path: store)
        try database.execute("VACUUM INTO '\(inferred)'")
        database.close()
        let plain = try Database(path: inferred)
        try plain.execute("UPDATE Z_METADATA SET Z_PLIST = NULL")
        try plain.execute("DROP TABLE Z_MODELCACHE")
        plain.close()
        let refused = try StrataRunner.run(["reset", "--yes", "--store", inferred])
        #expect(refused.status == 2)
        #expect(refused.standardError == "strata: \(inferred) keeps no model of its own (inferred from the schema); pass --model\n", "\(refused.standardError)")
    }

    @Test func resetOfAMissingStoreSaysSo() throws {
        let store = folder.appendingPathComponent("Missing.sqlite").path
        let result = try StrataRunner.run(["reset", "--yes", "--store", store, "--model", model])
        #expect(result.status == 1)
        #expect(result.standardError == "strata: \(store): no such store; pass --store PATH\n")
    }
}
