import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// BookMigration's chain Model1 → Model2 → Model3 with the app's own mapping models, a policy
/// in place of its `MHWBookToBookPolicy`, checked object by object against what the mapping
/// models say; the refusal without a policy; what Core Data's matching picks.
@Suite(.enabled(if: BookMigration.available, Corpus.skipReason)) struct BookMigrationTests {
    @Test func theMappingModelsAreReadWithTheirKindsPoliciesUserInfoAndTheExpressionsXcodeGenerates() throws {
        let first = try BookMigration.mapping("Model1_to_Model2")
        #expect(first.entityMappings.map(\.name) == ["UserToUser", "Author", "BookToBook"], "in the mapping order Xcode saved")
        #expect(first.entityMappings.map(\.kind) == [.transform, .add, .custom])
        let book = try #require(first.entityMapping(named: "BookToBook"))
        #expect(book.policyClassName == "MHWBookToBookPolicy")
        #expect(book.userInfo == ["modelVersion": "2"])
        #expect(book.attributeMappings.map(\.name) == ["fileURL", "title"])
        #expect(book.attributeMappings.map(\.valueExpression) == [.keyPath(["$source", "fileURL"]), .keyPath(["$source", "title"])])
        // Model1's Book has no `authors` or `users`: Xcode generates no expression for them.
        #expect(book.relationshipMappings.map(\.valueExpression) == [nil, nil])
        let users = try #require(first.entityMapping(named: "UserToUser")?.relationshipMappings.first)
        #expect(users.name == "books")
        #expect(users.valueExpression == .function("FUNCTION", arguments: [
            .variable("manager"), .value(.string("destinationInstancesForEntityMappingNamed:sourceInstances:")), .value(.string("BookToBook")),
            .keyPath(["$source", "books"]),
        ]))
        // The pass of its own keeps UserToUser only; the editor's left-over entity mappings are not read.
        #expect(try BookMigration.mapping("Model2_to_Model3_User").entityMappings.map(\.name) == ["UserToUser"])
        #expect(try BookMigration.mapping("Model2_to_Model3").entityMappings.map(\.name) == ["File", "BookToBook", "AuthorToAuthor"])
        #expect(try BookMigration.mapping("Model2_to_Model3").entityMapping(named: "AuthorToAuthor")?.kind == .copy, "Author does not change")
    }

    @Test func theyMatchTheStepsWhoseVersionHashesTheirModelsHave() throws {
        let bundle = try ModelLoader.load(BookMigration.bundleURL)
        let (v1, v2, v3) = (try bundle.version(named: "Model1").model, try bundle.version(named: "Model2").model, try bundle.version(named: "Model3").model)
        let first = try BookMigration.mapping("Model1_to_Model2"), second = try BookMigration.mapping("Model2_to_Model3")
        #expect(first.matches(source: v1, destination: v2))
        #expect(!first.matches(source: v1, destination: v3))
        #expect(!first.matches(source: v2, destination: v3))
        #expect(second.matches(source: v2, destination: v3))
        #expect(try MappingModel.discover(near: BookMigration.bundleURL).count == 3, "found in the folder beside the bundle")
    }

    @Test func aCustomPolicyClassWithoutAPolicyIsRefusedNamingClassAndEntityMappingAndTheStoreStaysAsItWas() throws {
        let folder = try TemporaryFolder()
        let path = try BookMigration.copyStore(into: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var migrator = try StoreMigrator(storePath: path, bundle: try ModelLoader.load(BookMigration.bundleURL), destinationVersion: "Model2")
        migrator.mappingModels = try BookMigration.mappingModels()
        #expect {
            try migrator.plan()
        } throws: { error in
            guard case .unmappable(_, let step, let reasons) = error as? MigrationError else { return false }
            return step == "Model1 → Model2" && reasons.count == 1 && reasons[0].contains("BookToBook") && reasons[0].contains("MHWBookToBookPolicy")
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
    }

    @Test func model1ToModel2MakesAnAuthorPerNameAndKeepsTheUsersBooks() throws {
        let folder = try TemporaryFolder()
        let path = try BookMigration.copyStore(into: folder)
        var migrator = try StoreMigrator(storePath: path, bundle: try ModelLoader.load(BookMigration.bundleURL), destinationVersion: "Model2")
        migrator.mappingModels = try BookMigration.mappingModels()
        migrator.policy = BookToBookPolicy()
        let plan = try migrator.plan()
        #expect(plan.steps.map(\.isMapped) == [true])
        #expect(plan.description.contains("BookToBook: custom Book → Book, custom policy MHWBookToBookPolicy"))
        let result = try migrator.migrate(plan)
        #expect(result.counts == ["Author": 3, "Book": 4, "User": 3])
        #expect(try BookMigration.contents(of: path, version: "Model2") == Self.model2)
        #expect(try Self.fileURLs(of: path) == Self.fileURLs(of: BookMigration.storeURL.path), "fileURL's archives carried byte for byte")
    }

    /// Model2 as the mapping model and MHWBookToBookPolicy make it of the store: UserToUser
    /// keeps each user's userId and (by `$source.books` mapped through BookToBook) its books;
    /// BookToBook copies title and fileURL and links each book to the Author of its
    /// authorName, one Author per name.
    static let model2: [String: [String]] = model2Lists.mapValues { $0.sorted() }
    private static let model2Lists: [String: [String]] = [
        "User": ["User(p1, userId: 1)", "User(p2, userId: 1)", "User(p3, userId: 1)"],
        "Book": [
            "Book(title: Cosmos)", "Book(title: Extinction)",
            "Book(title: Metamorphosis)", "Book(title: The Trial)",
        ],
        "Author": ["Author(name: Franz Kafka)", "Author(name: Thomas Bernhard)", "Author(name: Witold Gombrowicz)"],
        "Author.books": [
            "Author(name: Franz Kafka) → Book(title: The Trial)", "Author(name: Franz Kafka) → Book(title: Metamorphosis)",
            "Author(name: Thomas Bernhard) → Book(title: Extinction)", "Author(name: Witold Gombrowicz) → Book(title: Cosmos)",
        ],
        "Book.authors": [
            "Book(title: Cosmos) → Author(name: Witold Gombrowicz)", "Book(title: The Trial) → Author(name: Franz Kafka)",
            "Book(title: Extinction) → Author(name: Thomas Bernhard)", "Book(title: Metamorphosis) → Author(name: Franz Kafka)",
        ],
        "Book.users": [
            "Book(title: Cosmos) → User(p3, userId: 1)", "Book(title: The Trial) → User(p3, userId: 1)",
            "Book(title: Extinction) → User(p3, userId: 1)", "Book(title: Metamorphosis) → User(p3, userId: 1)",
        ],
        "User.books": [
            "User(p3, userId: 1) → Book(title: Cosmos)", "User(p3, userId: 1) → Book(title: The Trial)",
            "User(p3, userId: 1) → Book(title: Extinction)", "User(p3, userId: 1) → Book(title: Metamorphosis)",
        ],
    ]

    @Test func theChainThroughModel2UsesEachStepsMappingModelsAsPassesAndMakesAFilePerBookAndUser() throws {
        let folder = try TemporaryFolder()
        let path = try BookMigration.copyStore(into: folder)
        let bundle = try ModelLoader.load(BookMigration.bundleURL)
        let originalFileURLs = try Self.fileURLs(of: BookMigration.storeURL.path)
        var migrator = try StoreMigrator(storePath: path, bundle: bundle, destinationVersion: "Model3", route: ["Model2"])
        migrator.mappingModels = try BookMigration.mappingModels()
        migrator.policy = BookToBookPolicy()
        let plan = try migrator.plan()
        #expect(plan.steps.map(\.mappingModels).map { $0.map(\.name) } == [["Model1_to_Model2"], ["Model2_to_Model3_User", "Model2_to_Model3"]])
        let result = try migrator.migrate(plan)
        #expect(result.counts == ["Author": 3, "Book": 4, "File": 4, "User": 3])
        let contents = try BookMigration.contents(of: path, version: "Model3")
        #expect(contents["Author.books"]?.count == 4, "AuthorToAuthor keeps the books by $source.books through BookToBook")
        #expect(contents["Book.authors"] == Self.model2["Book.authors"])
        #expect(contents["File.book"]?.count == 4)
        #expect(contents["File.user"] == Array(repeating: "File() → User(p3, userId: 1)", count: 4), "each book's file goes to the user the book had")
        #expect(contents["User.files"]?.count == 4)
        #expect(contents["Book"] == ["Book(title: Cosmos)", "Book(title: Extinction)", "Book(title: Metamorphosis)", "Book(title: The Trial)"])
        // Each file holds its book's fileURL, byte for byte.
        #expect(try Self.fileURLsByBook(of: path) == originalFileURLs)
        #expect(result.backupPath.map { FileManager.default.fileExists(atPath: $0) } == true)
    }

    @Test func aDataStackMigratesThroughTheChainWithTheMappingModels() throws {
        let folder = try TemporaryFolder()
        let path = try BookMigration.copyStore(into: folder)
        var options = DataStack.Options()
        options.migrationRoute = ["Model2"]
        options.mappingModels = try BookMigration.mappingModels()
        options.migrationPolicy = BookToBookPolicy()
        let stack = try DataStack(modelAt: BookMigration.bundleURL, store: .sqlite(URL(fileURLWithPath: path)), options: options)
        let context = stack.mainContext
        let counts = try context.performAndWait {
            try ["Author", "Book", "File", "User"].map { try context.count(for: FetchRequest(entityName: $0)) }
        }
        #expect(counts == [3, 4, 4, 3])
    }

    @Test func aDryRunChecksTheMappedStepsAndChangesNothing() throws {
        let folder = try TemporaryFolder()
        let path = try BookMigration.copyStore(into: folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        var migrator = try StoreMigrator(storePath: path, bundle: try ModelLoader.load(BookMigration.bundleURL), destinationVersion: "Model3", route: ["Model2"])
        migrator.mappingModels = try BookMigration.mappingModels()
        migrator.policy = BookToBookPolicy()
        #expect(try migrator.check(try migrator.plan()) == ["Author": 3, "Book": 4, "File": 4, "User": 3])
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.url.path) == ["Model1.sqlite"])
    }

    @Test func severalMappingModelsFoundForOneStepAreRefusedUntilTheirOrderIsGiven() throws {
        let folder = try TemporaryFolder()
        let path = try BookMigration.copyStore(into: folder)
        var migrator = try StoreMigrator(storePath: path, bundle: try ModelLoader.load(BookMigration.bundleURL), destinationVersion: "Model3", route: ["Model2"])
        migrator.mappingModels = try MappingModel.discover(near: BookMigration.bundleURL)
        migrator.runsMatchingMappingModelsAsPasses = false
        migrator.policy = BookToBookPolicy()
        #expect {
            try migrator.plan()
        } throws: { error in
            guard case .unmappable(_, let step, let reasons) = error as? MigrationError else { return false }
            return step == "Model2 → Model3" && reasons.first?.contains("Model2_to_Model3, Model2_to_Model3_User") == true
        }
    }

    /// The fileURL bytes of each book of a Model1 store, by title.
    static func fileURLs(of path: String) throws -> [String: Data] {
        let database = try Database(path: path, configuration: .readOnly)
        defer { database.close() }
        var result: [String: Data] = [:]
        for row in try database.rows("SELECT ZTITLE, ZFILEURL FROM ZBOOK") { result[row[0].stringValue ?? ""] = row[1].dataValue }
        return result
    }

    /// The fileURL bytes of each file of a Model3 store, by its book's title.
    static func fileURLsByBook(of path: String) throws -> [String: Data] {
        let database = try Database(path: path, configuration: .readOnly)
        defer { database.close() }
        var result: [String: Data] = [:]
        for row in try database.rows("SELECT b.ZTITLE, f.ZFILEURL FROM ZFILE f JOIN ZBOOK b ON b.Z_PK = f.ZBOOK") { result[row[0].stringValue ?? ""] = row[1].dataValue }
        return result
    }
}
