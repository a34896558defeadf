import Foundation
@testable import Strata
import StrataTestSupport

/// A small model and a store of it that tracks persistent history, for the suites on history:
/// the format (PersistentHistoryFormatTests), the API (PersistentHistoryAPITests) and
/// migrations (MigrationHistoryTests).
enum TrackedStore {
    /// A model whose Item keeps `code` and `serial` after deletion, with a to-many to Part and
    /// a many-to-many to Label.
    static func model() -> ObjectModel {
        var item = EntityDescription(name: "Item")
        var code = AttributeDescription(name: "code", type: .string)
        code.preservesValueInHistoryOnDeletion = true
        var serial = AttributeDescription(name: "serial", type: .integer64)
        serial.preservesValueInHistoryOnDeletion = true
        item.attributes = [code, AttributeDescription(name: "name", type: .string), serial]
        var parts = RelationshipDescription(name: "parts", destination: "Part", isToMany: true)
        parts.inverseName = "item"
        var labels = RelationshipDescription(name: "labels", destination: "Label", isToMany: true)
        labels.inverseName = "items"
        item.relationships = [parts, labels]
        var part = EntityDescription(name: "Part")
        part.attributes = [AttributeDescription(name: "weight", type: .double)]
        var owner = RelationshipDescription(name: "item", destination: "Item")
        owner.inverseName = "parts"
        part.relationships = [owner]
        var label = EntityDescription(name: "Label")
        label.attributes = [AttributeDescription(name: "text", type: .string)]
        var items = RelationshipDescription(name: "items", destination: "Item", isToMany: true)
        items.inverseName = "labels"
        label.relationships = [items]
        return ObjectModel(entities: [item, label, part])
    }

    /// A new store of ``model()`` named `name` in `folder`, with history tracking on.
    static func create(in folder: TemporaryFolder, name: String = "Tracked.sqlite") throws -> PersistentStore {
        var configuration = Database.Configuration()
        configuration.tracksPersistentHistory = true
        return try PersistentStore.create(at: folder.path(name), model: model(), configuration: configuration)
    }
}
