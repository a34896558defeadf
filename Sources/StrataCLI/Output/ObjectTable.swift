import Foundation
import Strata

/// The objects of a fetch as rows: their URI (in a table, an `object` column of `Entity/p12`,
/// left out when the key paths are selected), then the selected key paths' values.
enum ObjectTable {
    /// Objects are read this many at a time and turned back into faults once printed, so that
    /// a fetch of any size prints in bounded memory.
    static let batchSize = 1000

    /// Fetches `request` in a context on `store` and prints the objects. Without `select`,
    /// the columns are the entity's attributes and to-one relationships, in model order;
    /// `includes` adds to-many relationships.
    static func write(_ request: FetchRequest, store: PersistentStore, select: [String]?, includes: [String], format: RowFormat, pages: Bool = false) throws {
        let columns = try Columns(request, store: store, select: select, includes: includes, format: format)
        let objectColumn = format == .table ? "object" : "uri"
        var writer = RowWriter(
            columns: (columns.namesObjects ? [objectColumn] : []) + columns.keys + includes, format: format, pages: pages,
            wholeColumns: columns.namesObjects ? 1 : 0)
        if columns.streams {
            try stream(request, store: store, keys: columns.keys, includes: includes, namesObjects: columns.namesObjects, into: &writer)
        } else {
            try writeObjects(request, store: store, paths: columns.paths, namesObjects: columns.namesObjects, into: &writer)
        }
        writer.finish()
    }

    /// The SQL ``write(_:store:select:includes:format:pages:)`` would read the rows with, and
    /// SQLite's plan for it, without reading them: the values in SQL when they stream, else
    /// the objects' IDs (their values then come a batch at a time by primary key).
    static func explain(_ request: FetchRequest, store: PersistentStore, select: [String]?, includes: [String], format: RowFormat) throws -> QueryExplanation {
        let columns = try Columns(request, store: store, select: select, includes: includes, format: format)
        if columns.streams { return try store.explain(streamed(request, keys: columns.keys)) }
        var identities = request
        identities.resultType = .dictionary
        identities.propertiesToFetch = [.keyPath("self")]
        return try store.explain(identities)
    }

    /// The columns of a fetch's rows, checked against the model, and how they are read.
    private struct Columns {
        /// The key paths printed after the object, before the included to-manys.
        var keys: [String]
        /// `keys` and the includes, split at their dots.
        var paths: [[String]]
        /// Whether the rows begin with the object's URI (in a table, `Entity/p12`).
        var namesObjects: Bool
        /// Whether every value is read in SQL as the rows stream, without objects.
        var streams: Bool

        init(_ request: FetchRequest, store: PersistentStore, select: [String]?, includes: [String], format: RowFormat) throws {
            let model = store.model
            guard let entity = model.entity(named: request.entityName) else {
                throw StoreError.unknownEntity(path: store.path, name: request.entityName, known: model.entities.map(\.name).sorted())
            }
            // Columns the store lacks (opening warned of them) are left out of the default ones, so
            // that what the store holds still prints; selected, they fail naming the column.
            let table = store.layout.entity(named: entity.name)?.tableName
            let lacking = Set(store.missingColumns.filter { $0.table == table && ($0.kind == .attribute || $0.kind == .toOne) }.map(\.property))
            keys = select
                ?? (model.allAttributes(of: entity).filter { !$0.isTransient }.map(\.name)
                    + model.allRelationships(of: entity).filter { !$0.isToMany }.map(\.name)).filter { !lacking.contains($0) }
            let paths = (keys + includes).map { $0.split(separator: ".", omittingEmptySubsequences: false).map(String.init) }
            if let bad = zip(keys + includes, paths).first(where: { $0.1.contains("") }) {
                throw CLIError.refused(.notAKeyPath(bad.0))
            }
            for path in paths where !ObjectTable.endsAtFetchedProperty(path, from: entity, model: model) {
                try model.checkKeyPath(path, from: entity)
            }
            self.paths = paths
            // A table of chosen key paths is for reading them: the URI would take most of each line.
            namesObjects = !(format == .table && select != nil)
            streams = paths.dropLast(includes.count).allSatisfy({ ObjectTable.readsInSQL($0, from: entity, model: model) })
                && includes.allSatisfy({ model.relationship(named: $0, in: entity)?.isToMany == true })
        }
    }

    /// The dictionary request that reads `keys` in SQL, after the object itself.
    private static func streamed(_ request: FetchRequest, keys: [String]) -> FetchRequest {
        var dictionary = request
        dictionary.resultType = .dictionary
        // Aliases, since a key may be selected twice and "self" may also be an attribute's name.
        dictionary.propertiesToFetch = [.keyPath("self", as: "0")] + keys.enumerated().map { .keyPath($1, as: "\($0 + 1)") }
        return dictionary
    }

    /// Whether `path` leads along to-ones to a fetched property, whose objects show as a
    /// to-many's do (read through objects, since a fetch gives them).
    private static func endsAtFetchedProperty(_ path: [String], from entity: EntityDescription, model: ObjectModel) -> Bool {
        var current = entity
        for key in path.dropLast() {
            guard let relationship = model.relationship(named: key, in: current), !relationship.isToMany,
                let destination = model.entity(named: relationship.destinationEntityName)
            else { return false }
            current = destination
        }
        return path.last.flatMap { model.fetchedProperty(named: $0, in: current) } != nil
    }

    /// Whether `path` reads a stored attribute or to-one through to-ones, which SQL reads
    /// without objects.
    private static func readsInSQL(_ path: [String], from entity: EntityDescription, model: ObjectModel) -> Bool {
        var current = entity
        for (index, key) in path.enumerated() {
            if let attribute = model.attribute(named: key, in: current) { return index == path.count - 1 && !attribute.isTransient }
            guard let relationship = model.relationship(named: key, in: current), !relationship.isToMany, !relationship.isTransient,
                let destination = model.entity(named: relationship.destinationEntityName)
            else { return false }
            current = destination
        }
        return true
    }

    /// Prints the rows as SQLite reads them, without objects: the first row at once, in
    /// bounded memory. The members of `includes` are read a batch of rows at a time.
    private static func stream(
        _ request: FetchRequest, store: PersistentStore, keys: [String], includes: [String], namesObjects: Bool, into writer: inout RowWriter
    ) throws {
        let format = writer.format
        let dictionary = streamed(request, keys: keys)
        // The attribute each key path ends at, for the values of Transformable ones.
        let attributes: [AttributeDescription?] = [nil] + keys.map { ValueFormatting.attribute(at: $0, from: request.entityName, model: store.model) }
        var waiting: [(key: Int64, row: [JSONValue])] = []
        func writeWaiting(_ writer: inout RowWriter) throws {
            let members = try includes.map { try store.toManyReferences(request.entityName, $0, primaryKeys: waiting.map(\.key)) }
            for (key, row) in waiting {
                writer.write(row + members.map { references in
                    .array((references[key] ?? []).map {
                        ValueFormatting.row(ObjectID(entityName: $0.entityName, storeIdentifier: store.metadata.uuid, key: .permanent($0.primaryKey)), format: format)
                    })
                })
            }
            waiting.removeAll(keepingCapacity: true)
        }
        try store.forEachDictionary(dictionary) { values in
            let row = values.indices.dropFirst(namesObjects ? 0 : 1).map { ValueFormatting.row(values[$0], format: format, attribute: attributes[$0]) }
            guard !includes.isEmpty, case .object(let id)? = values[0], let key = id.primaryKey else {
                writer.write(row)
                return
            }
            waiting.append((key, row))
            if waiting.count == batchSize { try writeWaiting(&writer) }
        }
        if !waiting.isEmpty { try writeWaiting(&writer) }
    }

    /// Prints the rows through objects, a batch at a time: for key paths SQL cannot read
    /// (through or to to-manys, transient attributes).
    private static func writeObjects(
        _ request: FetchRequest, store: PersistentStore, paths: [[String]], namesObjects: Bool, into writer: inout RowWriter
    ) throws {
        let context = ObjectContext(store: store, name: "strata")
        let format = writer.format
        try context.performAndWait {
            try context.forEachBatchOfObjectIDs(request, batchSize: batchSize) { ids in
                // Each entity's rows are read in one query: sub-entities' objects apart.
                var objects: [ObjectID: ManagedObject] = [:]
                for (entityName, members) in Dictionary(grouping: ids, by: \.entityName) {
                    for object in try context.objects(with: members, entityName: entityName, prefetching: request.relationshipKeyPathsForPrefetching) {
                        objects[object.objectID] = object
                    }
                }
                for id in ids {
                    guard let object = objects[id] else { continue }
                    var row = namesObjects ? [ValueFormatting.row(object.objectID, format: format)] : []
                    for path in paths { row.append(try value(of: object, keyPath: path, model: store.model, format: format)) }
                    writer.write(row)
                }
                objects = [:]  // held here, the batch's objects could not be let go of
                context.releaseUnheldObjects(among: ids)
            }
        }
    }

    /// The value at `keyPath` as a row of `format` holds it, as ``ValueFormatting`` writes a
    /// fetched value. Through a to-many the value is the list of its members' values (a member's
    /// own list joined into it), as Core Data's `value(forKeyPath:)` gives a set through one;
    /// empty when the to-many is.
    private static func value(of object: ManagedObject, keyPath: [String], model: ObjectModel, format: RowFormat) throws -> JSONValue {
        var owners = [object]
        var throughToMany = false
        for key in keyPath.dropLast() {
            var next: [ManagedObject] = []
            for owner in owners {
                switch try owner.value(forKey: key) {
                case let destination as ManagedObject: next.append(destination)
                case let members as [ManagedObject]:
                    next += members
                    throughToMany = true
                default: break
                }
            }
            owners = next
        }
        let values = try owners.map { try value(of: $0, key: keyPath[keyPath.count - 1], model: model, format: format) }
        guard throughToMany else { return values.first.map { $0.isList ? .array($0.values) : $0.values[0] } ?? .null }
        return .array(values.flatMap(\.values))
    }

    /// The value of `object`'s property `key` as a row of `format` holds it: one value, or the
    /// values of a to-many's (or fetched property's) objects.
    private static func value(of object: ManagedObject, key: String, model: ObjectModel, format: RowFormat) throws -> (values: [JSONValue], isList: Bool) {
        if let attribute = model.attribute(named: key, in: object.entity) {
            return ([ValueFormatting.row(try object.attributeValue(forKey: key).map(FetchedValue.attribute), format: format, attribute: attribute)], false)
        }
        switch try object.value(forKey: key) {
        case let destination as ManagedObject: return ([ValueFormatting.row(destination.objectID, format: format)], false)
        case let members as [ManagedObject]: return (members.map { ValueFormatting.row($0.objectID, format: format) }, true)
        default: return ([.null], false)
        }
    }
}
