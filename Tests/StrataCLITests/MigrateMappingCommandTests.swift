import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata migrate` with BookMigration's mapping models and a Lua policy, on a copy of the
/// corpus store of Model1.
@Suite(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found next to the checkout: corpus test skipped"))
struct MigrateMappingCommandTests {
    static let models = StrataRunner.sharedFixtures.appendingPathComponent("corpus/models/bookmigration")
    static let policy = """
        local authors = {}
        return {
          MHWBookToBookPolicy = {
            create_destination_instances = function(book, manager)
              local version = manager:mapping().user_info.modelVersion
              local copy = manager:default_destination(book)
              if version == "2" and book.authorName then
                local author = authors[book.authorName] or manager:insert("Author")
                author.name = book.authorName
                authors[book.authorName] = author
                copy.authors:add(author)
              elseif version == "3" then
                for user in book.users:each() do
                  local file = manager:insert("File")
                  manager:copy_value(book, "fileURL", file)
                  file.book = copy
                  file.user = manager:destination_instances("UserToUser", user)[1]
                end
              end
            end,
          },
        }
        """

    static func store(in folder: TemporaryFolder) throws -> String {
        let path = folder.url.appendingPathComponent("Model1.sqlite").path
        try FileManager.default.copyItem(atPath: StrataRunner.sharedFixtures.appendingPathComponent("corpus/stores/bookmigration/Model1.sqlite").path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return path
    }

    var mappingArguments: [String] {
        ["Model1_to_Model2", "Model2_to_Model3_User", "Model2_to_Model3"].flatMap { ["--mapping", Self.models.appendingPathComponent("mapping/\($0).xcmappingmodel").path] }
    }

    @Test func theChainRunsWithTheMappingModelsAndALuaPolicy() throws {
        let folder = try TemporaryFolder()
        let store = try Self.store(in: folder)
        let policy = folder.url.appendingPathComponent("policy.lua")
        try Self.policy.write(to: policy, atomically: true, encoding: .utf8)
        let arguments = ["migrate", "--store", store, "--model", Self.models.appendingPathComponent("Model.xcdatamodeld").path, "--through", "Model2"]
            + mappingArguments + ["--policy", policy.path]
        let dryRun = try StrataRunner.run(arguments + ["--dry-run"])
        #expect(dryRun.status == 0, "\(dryRun.standardError)")
        #expect(dryRun.standardOutput.contains("Model2 → Model3: carried out by the mapping models, as passes in this order, Model2_to_Model3_User, Model2_to_Model3"))
        #expect(dryRun.standardOutput.contains("objects per entity after the migration: Author: 3, Book: 4, File: 4, User: 3"))
        let migrated = try StrataRunner.run(arguments)
        #expect(migrated.status == 0, "\(migrated.standardError)")
        #expect(migrated.standardOutput.contains("objects per entity: Author: 3, Book: 4, File: 4, User: 3"))
    }

    @Test func aCustomPolicyClassWithoutPolicyIsRefusedWithExitStatus3() throws {
        let folder = try TemporaryFolder()
        let store = try Self.store(in: folder)
        let result = try StrataRunner.run(["migrate", "--store", store, "--model", Self.models.appendingPathComponent("Model.xcdatamodeld").path, "--to", "Model2", "--dry-run"])
        #expect(result.status == 3)
        #expect(result.standardError.contains("entity mapping BookToBook of Model1_to_Model2 names the custom policy class MHWBookToBookPolicy"))
    }

    @Test func aMappingModelThatCannotBeReadIsNamed() throws {
        let folder = try TemporaryFolder()
        let store = try Self.store(in: folder)
        let broken = folder.url.appendingPathComponent("Broken.xcmappingmodel")
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        try "<database><object type=\"XDDEVMAPPINGMODEL\" id=\"z1\"></object></database>".write(to: broken.appendingPathComponent("xcmapping.xml"), atomically: true, encoding: .utf8)
        let result = try StrataRunner.run(["migrate", "--store", store, "--model", Self.models.appendingPathComponent("Model.xcdatamodeld").path, "--mapping", broken.path, "--dry-run"])
        #expect(result.status == 3)
        #expect(result.standardError.contains("Broken.xcmappingmodel/xcmapping.xml: XDDEVMAPPINGMODEL z1: has no sourcemodeldata"))
    }
}
