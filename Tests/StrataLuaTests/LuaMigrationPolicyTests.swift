import Foundation
import Strata
import Testing
@testable import StrataLua
import StrataTestSupport

/// Lua migration policies: BookMigration's chain with a Lua policy in place of its
/// `MHWBookToBookPolicy`, and the policy scripts that are refused.
@Suite struct LuaMigrationPolicyTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("shared/fixtures/coredata/corpus")
    static let available = FileManager.default.fileExists(atPath: corpus.appendingPathComponent("stores/bookmigration/Model1.sqlite").path)

    static let bookPolicy = """
        local authors = {}
        return {
          MHWBookToBookPolicy = {
            create_destination_instances = function(book, manager)
              local version = manager:mapping().user_info.modelVersion
              local copy = manager:default_destination(book)
              if version == "2" and book.authorName then
                local author = authors[book.authorName]
                if not author then
                  author = manager:insert("Author")
                  author.name = book.authorName
                  authors[book.authorName] = author
                end
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

    @Test(.enabled(if: available, "shared/fixtures/coredata/corpus not found next to the checkout: corpus test skipped"))
    func bookMigrationsChainRunsWithALuaPolicy() throws {
        let temporary = try TemporaryFolder("strata-lua-policy")
        let folder = temporary.url
        let path = folder.appendingPathComponent("Model1.sqlite").path
        try FileManager.default.copyItem(atPath: Self.corpus.appendingPathComponent("stores/bookmigration/Model1.sqlite").path, toPath: path)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        let models = Self.corpus.appendingPathComponent("models/bookmigration")
        let bundle = try ModelLoader.load(models.appendingPathComponent("Model.xcdatamodeld"))
        var migrator = try StoreMigrator(storePath: path, bundle: bundle, destinationVersion: "Model3", route: ["Model2"])
        migrator.mappingModels = try ["Model1_to_Model2", "Model2_to_Model3_User", "Model2_to_Model3"].map {
            try MappingModel.load(contentsOf: models.appendingPathComponent("mapping/\($0).xcmappingmodel"))
        }
        migrator.policy = try LuaMigrationPolicy(script: Self.bookPolicy, name: "=book-policy")
        let result = try migrator.migrate()
        #expect(result.counts == ["Author": 3, "Book": 4, "File": 4, "User": 3])
        let store = try PersistentStore.open(at: path, model: try bundle.version(named: "Model3").model, configuration: .readOnly)
        defer { store.close() }
        let context = ObjectContext(store: store)
        try context.performAndWait {
            var authorsByTitle: [String: [String]] = [:]
            for book in try context.fetch(FetchRequest(entityName: "Book")) {
                let title = try book.value(forKey: "title") as? String ?? "?"
                authorsByTitle[title] = try book.objects(forKey: "authors").map { try $0.value(forKey: "name") as? String ?? "?" }
                let files = try book.objects(forKey: "files")
                #expect(files.count == 1, "one file per user of \(title)")
                #expect(try files.first.flatMap { try $0.value(forKey: "user") as? ManagedObject }?.objectID.primaryKey == 3, "the user the book had")
            }
            #expect(authorsByTitle == ["The Trial": ["Franz Kafka"], "Metamorphosis": ["Franz Kafka"], "Cosmos": ["Witold Gombrowicz"], "Extinction": ["Thomas Bernhard"]])
            #expect(try context.count(for: FetchRequest(entityName: "Author")) == 3, "one Author per name")
        }
    }

    @Test func aPolicyThatReturnsNoTableOfHooksIsRefused() throws {
        #expect(throws: LuaError.self) { try LuaMigrationPolicy(script: "return 42", name: "=p") }
        #expect(throws: LuaError.self) { try LuaMigrationPolicy(script: "return { BookToBook = { other = 1 } }", name: "=p") }
        #expect(throws: LuaError.self) { try LuaMigrationPolicy(script: "return {", name: "=p") }
        let policy = try LuaMigrationPolicy(script: "return { BookToBook = { create_relationships = function() end } }", name: "=p")
        #expect(policy.hookedNames == ["BookToBook"])
        #expect(policy.handles(MappingModel.EntityMapping(kind: .custom, sourceEntityName: "Book", destinationEntityName: "Book", policyClassName: "X")))
        #expect(!policy.handles(MappingModel.EntityMapping(kind: .custom, sourceEntityName: "User", destinationEntityName: "User", policyClassName: "X")))
    }
}
