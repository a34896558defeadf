import Foundation
import Strata

/// The objects of a fetch as rows: their URI, then the selected key paths' values.
enum ObjectTable {
    /// Objects are read this many at a time and turned back into faults once printed, so that
    /// a fetch of any size prints in bounded memory.
    static let batchSize = 1000

    /// Fetches `request` in a context on `store` and prints the objects. Without `select`,
    /// the columns are the entity's attributes and to-one relationships, in model order;
    /// `includes` adds to-many relationships.
    static func write(_ request: FetchRequest, store: PersistentStore, select: [String]?, includes: [String], format: RowFormat) throws {
        let model = store.model
        guard let entity = model.entity(named: request.entityName) else {
            throw StoreError.unknownEntity(path: store.path, name: request.entityName, known: model.entities.map(\.name).sorted())
        }
        let keys = select
            ?? model.allAttributes(of: entity).filter { !$0.isTransient }.map(\.name)
                + model.allRelationships(of: entity).filter { !$0.isToMany }.map(\.name)
        let paths = (keys + includes).map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
        if let bad = zip(keys + includes, paths).first(where: { $0.1.contains("") }) {
            throw CLIError("'\(bad.0)' is not a key path", status: .usage)
        }
        for path in paths {
            try model.checkKeyPath(path, from: entity)
        }
        var request = request
        request.fetchBatchSize = batchSize
        let context = ObjectContext(store: store, name: "strata")
        var writer = RowWriter(columns: ["uri"] + keys + includes, format: format)
        try context.performAndWait {
            let objects = try context.fetch(request)
            for start in stride(from: 0, to: objects.count, by: batchSize) {
                let batch = objects[start..<min(start + batchSize, objects.count)]
                for object in batch {
                    var row = [uri(object)]
                    for path in paths { row.append(try json(of: object, keyPath: path, model: model)) }
                    writer.write(row)
                }
                for object in batch { context.refresh(object, mergeChanges: false) }
            }
        }
        writer.finish()
    }

    /// The value at `keyPath` as JSON: attributes by their type, objects as their URI.
    private static func json(of object: ManagedObject, keyPath: [String], model: ObjectModel) throws -> JSONValue {
        var owner = object
        for key in keyPath.dropLast() {
            guard let next = try owner.value(forKey: key) as? ManagedObject else { return .null }
            owner = next
        }
        let last = keyPath[keyPath.count - 1]
        if model.attribute(named: last, in: owner.entity) != nil {
            return try owner.attributeValue(forKey: last).map(ValueFormatting.json) ?? .null
        }
        switch try owner.value(forKey: last) {
        case let destination as ManagedObject: return uri(destination)
        case let members as [ManagedObject]: return .array(members.map(uri))
        default: return .null
        }
    }

    private static func uri(_ object: ManagedObject) -> JSONValue {
        .string(object.objectID.uriRepresentation().absoluteString)
    }
}
