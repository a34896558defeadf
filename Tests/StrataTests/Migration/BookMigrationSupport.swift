import Foundation
@testable import Strata
import StrataTestSupport

/// BookMigration (objc.io issue 4) in the shared corpus: a three-version bundle, its three
/// mapping models as Xcode saved them, and a store of `Model1` written by Core Data (3 users,
/// all with userId 1, and 4 books of user p3 by 3 authors' names).
enum BookMigration {
    static let folder = Corpus.folder.appendingPathComponent("models/bookmigration")
    static let bundleURL = folder.appendingPathComponent("Model.xcdatamodeld")
    static let storeURL = Corpus.folder.appendingPathComponent("stores/bookmigration/Model1.sqlite")
    static let available = FileManager.default.fileExists(atPath: storeURL.path)

    static func mapping(_ name: String) throws -> MappingModel {
        try MappingModel.load(contentsOf: folder.appendingPathComponent("mapping/\(name).xcmappingmodel"))
    }

    /// The app's passes, in the order the app runs them: Model1 → Model2 in one, Model2 →
    /// Model3 in two, `User` first (the other pass's policy looks users up).
    static func mappingModels() throws -> [MappingModel] {
        [try mapping("Model1_to_Model2"), try mapping("Model2_to_Model3_User"), try mapping("Model2_to_Model3")]
    }

    /// A copy of the Model1 store in `folder`.
    static func copyStore(into folder: TemporaryFolder) throws -> String {
        let path = folder.path("Model1.sqlite")
        try FileManager.default.copyItem(atPath: storeURL.path, toPath: path)
        // The shared corpus is read-only; the copy takes the permissions of the file it copies.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: path)
        return path
    }

    /// The objects and links of a store of `version`, as text that tests compare: each object by
    /// its attributes, each link by the attributes of both ends.
    static func contents(of path: String, version: String) throws -> [String: [String]] {
        let bundle = try ModelLoader.load(bundleURL)
        let store = try PersistentStore.open(at: path, model: try bundle.version(named: version).model, configuration: .readOnly)
        defer { store.close() }
        let context = ObjectContext(store: store)
        return try context.performAndWait {
            var result: [String: [String]] = [:]
            for entity in context.model.entities {
                for object in try context.fetch(FetchRequest(entityName: entity.name)) {
                    result[entity.name, default: []].append(try label(object))
                    for relationship in entity.relationships {
                        let targets = relationship.isToMany ? try object.objects(forKey: relationship.name) : [try object.value(forKey: relationship.name) as? ManagedObject].compactMap { $0 }
                        for target in targets { result["\(entity.name).\(relationship.name)", default: []].append("\(try label(object)) → \(try label(target))") }
                    }
                }
            }
            return result.mapValues { $0.sorted() }
        }
    }

    /// `Book(title: Cosmos)`, `User(p3, userId: 1)`: the object's text attributes and numbers
    /// (users, whose only attribute is the same for all, by their key as well); binary values
    /// are compared on their own.
    static func label(_ object: ManagedObject) throws -> String {
        var parts: [String] = []
        if object.entity.name == "User" { parts.append("p\(object.objectID.primaryKey ?? 0)") }
        for attribute in object.entity.attributes.sorted(by: { $0.name < $1.name }) {
            switch try object.attributeValue(forKey: attribute.name) {
            case .string(let text)?: parts.append("\(attribute.name): \(text)")
            case .integer(let number)?: parts.append("\(attribute.name): \(number)")
            default: break
            }
        }
        return "\(object.entity.name)(\(parts.joined(separator: ", ")))"
    }
}

/// What `MHWBookToBookPolicy` does, in Swift: by the entity mapping's `modelVersion`, a Book
/// copied with the attributes both versions have; for version 2 an Author per author name,
/// shared by the books that name it; for version 3 a File per user of the book, holding its
/// fileURL, linked to the book and to that user's migrated object.
final class BookToBookPolicy: MigrationPolicy, @unchecked Sendable {
    private var authors: [String: ManagedObject] = [:]

    func handles(_ mapping: MappingModel.EntityMapping) -> Bool { mapping.policyClassName == "MHWBookToBookPolicy" }

    func createDestinationInstances(forSource book: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws {
        let copy = try manager.insertDestinationObject(mapping.destinationEntityName ?? "Book")
        for attribute in copy.entity.attributes where book.entity.attributes.contains(where: { $0.name == attribute.name }) {
            if let value = try book.attributeValue(forKey: attribute.name) { try copy.setValue(value, forKey: attribute.name) }
        }
        switch mapping.userInfo["modelVersion"] {
        case "2":
            if case .string(let name)? = try book.attributeValue(forKey: "authorName") {
                let author = try authors[name] ?? manager.insertDestinationObject("Author")
                try author.setValue(name, forKey: "name")
                authors[name] = author
                try copy.add(author, toKey: "authors")
            }
        case "3":
            for user in try book.objects(forKey: "users") {
                let file = try manager.insertDestinationObject("File")
                try manager.copyValue(forKey: "fileURL", from: book, to: file)
                try file.setValue(copy, forKey: "book")
                try file.setValue(manager.destinationInstances(forEntityMappingNamed: "UserToUser", sourceInstances: [user]).first, forKey: "user")
            }
        default: break
        }
        manager.associate(source: book, destination: copy, mapping: mapping.name)
    }
}
