import Foundation
import Strata

/// The objects of a fetch as rows: their URI, then the selected key paths' values.
enum ObjectTable {
    /// Fetches `request` in a context on `store` and lays out the objects. Without `select`,
    /// the columns are the entity's attributes and to-one relationships, in model order;
    /// `includes` adds to-many relationships.
    static func rows(of request: FetchRequest, store: PersistentStore, select: [String]?, includes: [String]) throws -> ResultRows {
        let model = store.model
        guard let entity = model.entity(named: request.entityName) else {
            throw StoreError.unknownEntity(path: store.path, name: request.entityName, known: model.entities.map(\.name).sorted())
        }
        let keys = select
            ?? model.allAttributes(of: entity).filter { !$0.isTransient }.map(\.name)
                + model.allRelationships(of: entity).filter { !$0.isToMany }.map(\.name)
        let paths = keys + includes
        for path in paths {
            try Predicate.comparison(.init(.keyPath(path.split(separator: ".").map(String.init)), .equal, .value(.null))).checkKeys(for: entity, in: model)
        }
        let context = ObjectContext(store: store, name: "strata")
        return try context.performAndWait {
            var result = ResultRows(columns: ["uri"] + paths)
            for object in try context.fetch(request) {
                var row = [uri(object)]
                for path in paths { row.append(try json(of: object, keyPath: path, model: model)) }
                result.rows.append(row)
            }
            return result
        }
    }

    /// The value at `keyPath` as JSON: attributes by their type, objects as their URI.
    private static func json(of object: ManagedObject, keyPath: String, model: ObjectModel) throws -> JSONValue {
        var owner = object
        var components = keyPath.split(separator: ".").map(String.init)
        let last = components.removeLast()
        for key in components {
            guard let next = try owner.value(forKey: key) as? ManagedObject else { return .null }
            owner = next
        }
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
