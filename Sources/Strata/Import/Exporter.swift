import Foundation

/// Writes the objects of a context as JSON records that ``ImportSession`` reads back: the
/// import's key mapping, reversed. Exported, then imported into an empty store of the same
/// model, they make the same objects.
///
/// ```swift
/// let text = try context.performAndWait {
///     JSONWriter.string(from: try Exporter(context: context).export())   // {"authors": [...], "books": [...]}
/// }
/// try empty.performAndWait {                                             // a context on an empty store
///     try ImportSession(context: empty).import(try JSONReader.parse(Data(text.utf8)))
///     try empty.save()
/// }
/// ```
///
/// An attribute goes under the key an import reads first: its first mapped key
/// (`mappedKeyName`, `hyper.remoteKey`, `sync.remoteKey`; a dotted path makes nested objects),
/// else its name (`id` for an identity attribute named `remoteID`). nil is `null`; decimals
/// are numbers in their exact text; dates ISO 8601 UTC text that reads back exactly (or by the
/// attribute's `dateFormat`); binary data base64; a Transformable attribute's value in the JSON
/// form of its ``TransformableValue`` (``TransformableValue/jsonValue(taggingNulls:)``), with a
/// ``warnings`` entry for the values that hold objects kept as archives or bytes. Properties
/// whose userInfo sets `hyper.nonExportable` or `sync.nonExportable` are left out.
///
/// A relationship is its destinations' identity values (``ImportIdentity``): `"author_id": 7`,
/// `"tags_ids": [1, 2]`, in order for an ordered one; with `nested`, their records, nested.
/// Destinations without identity, or without an identity value, are nested in both forms,
/// except that a to-one to an entity without identity whose inverse is a to-many is written
/// from that side (its record lists the objects pointing to it), since several may share it;
/// destinations with sub-entities (which a nested record cannot name) are identity values, or
/// without identity attribute `@id` references to the records of their own entity's array.
///
/// Each object is written in full once, where first met; met again, as its identity value
/// alone (`{"id": 7}`; `{}` for a singleton). An object without identity value that several
/// objects may link to (its entity is a destination of a to-one or of a relationship without
/// inverse, of two relationships, or has sub-entities) carries a document-local identifier
/// among its values, `"@id": "Artist/3"` (entity and primary key; no property name can start
/// with `@`), and is met again as the reference `{"@id": "Artist/3"}`, which
/// ``ImportSession`` resolves wherever the record is in the document (see
/// ``ImportSession/localIDKey``). A nested record never goes back through the
/// inverse it came by, and a pair of inverse nested relationships is written from the side
/// met first (an ordered to-many from its own side). Entity arrays leave out objects already
/// written nested.
///
/// ``entityNames`` is the order an import must read the entities in: link targets first. A
/// pair of inverse relationships of identity values between exported entities is written from
/// one side: the required or ordered one, else the later one.
public final class Exporter {
    /// The context whose objects are exported; use the exporter on its queue.
    public let context: ObjectContext
    /// Whether relationships are written as nested records rather than identity values.
    public let nested: Bool
    /// Identity overrides by entity name, as ``ImportSession/identities``.
    public let identities: [String: ImportIdentity]
    /// The entities of the export, in the order an import reads them (see above).
    public private(set) var entityNames: [String] = []
    /// The Transformable attributes whose values the export could not write as plain values
    /// (objects kept as their archives, bytes that are no archive), in the order first met.
    public internal(set) var warnings: [ExportWarning] = []
    var warningPositions: [String: Int] = [:]
    /// What the record being made adds to ``warnings`` once it is written: a record made from
    /// rows may be given up for one made from its object.
    var pendingWarnings: [(warning: ExportWarning, classNames: [String], isBytes: Bool)] = []

    enum Kind {
        /// Destinations' identity values.
        case identity
        /// Destinations' records, nested.
        case nested
        /// `{"@id": …}` references to destinations written in their own entity's array: a
        /// destination without identity attribute that has sub-entities (which a nested
        /// record cannot name).
        case reference
        /// Not written: the destination is no entity of the model.
        case omitted
    }
    /// A relationship as records hold it.
    struct Link {
        let relationship: RelationshipDescription
        let keys: ImportKeys
        let identityKey: String
        let kind: Kind
        /// `Entity.relationship`, by the entity that declares it; the same for the inverse.
        let id: String
        let inverse: Inverse?
        typealias Inverse = (relationship: RelationshipDescription, id: String, kind: Kind)
    }

    typealias Plan = (attributes: [(attribute: AttributeDescription, keys: ImportKeys)], links: [Link])

    private var mappings: EntityImportMappings
    private var plans: [String: Plan] = [:]
    /// The objects written in full so far.
    var written = ObjectLedger<Void>()
    /// For each pair of inverse nested relationships, the one that is written.
    private var pairOwners: [String: String] = [:]
    /// Relationships that the other side of their inverse writes: of identity values, or to-ones to objects without identity (see ``isWrittenFromTheManySide(_:among:)``).
    var silenced: Set<String> = []
    var formatters: [String: DateFormatter] = [:]
    /// The entities whose objects without identity value carry an `@id` (see ``sharedEntities(of:)``).
    var sharedEntities: Set<String> = []
    /// Whether records hold the records of related objects that are nested rather than named
    /// by identity value; off, they are left out and not read (a CSV export, which cannot
    /// hold them, turns it off).
    public var writesNestedRecords = true
    /// Whether records are made from rows read in SQL where they can be (see
    /// ``forEachRecordFromRows(_:_:)``); tests turn it off to compare with the objects' records.
    var readsRows = true

    /// An exporter of `entities` and, unless `includingSubentities` is false, their
    /// sub-entities (each under its own key, since a record cannot name its entity); or of
    /// every entity that is not abstract.
    ///
    /// - Throws: ``StoreError/unknownEntity(path:name:known:)`` for a name the model lacks,
    ///   ``ImportError`` for an identity override naming no attribute.
    public init(
        context: ObjectContext, entities: [String]? = nil, includingSubentities: Bool = true, nested: Bool = false,
        identities: [String: ImportIdentity] = [:]
    ) throws {
        self.context = context
        self.nested = nested
        self.identities = identities
        mappings = EntityImportMappings(model: context.model, identities: identities)
        let model = context.model
        sharedEntities = Self.sharedEntities(of: model)
        var names: [String] = []
        for name in entities ?? model.entities.map(\.name) {
            guard let entity = model.entity(named: name) else { throw unknownEntity(name) }
            let family = entities == nil || !includingSubentities ? [entity] : [entity] + model.allSubentities(of: entity)
            for entity in family where !entity.isAbstract && !names.contains(entity.name) { names.append(entity.name) }
        }
        entityNames = try importOrder(names)
        try silenceInverses()
    }

    /// The key of `entityName`'s array in a wrapper object, one that
    /// ``ObjectModel/entityName(forImportKey:)`` maps back: `Book` → `books`, `Category` →
    /// `categories`, `SalesPerson` → `sales_persons`.
    public func key(for entityName: String) -> String {
        let lower = entityName.lowercased(), snake = ImportKeys.snakeCase(entityName)
        let plural = lower.hasSuffix("y") && !"aeiou".contains(lower.dropLast().last ?? "a") ? [lower.dropLast() + "ies"]
            : ["s", "x", "z", "ch", "sh"].contains(where: lower.hasSuffix) ? [lower + "es"] : []
        return (plural + [snake + "s", lower + "s", lower, snake, entityName]).first { context.model.entityName(forImportKey: $0) == entityName } ?? entityName
    }

    /// Every entity of the export as one wrapper object, `{"authors": [...], "books": [...]}`,
    /// in import order; the objects of each satisfy `predicate` when one is given.
    public func export(where predicate: ObjectPredicate? = nil) throws -> JSONValue {
        .object(try entityNames.map { JSONMember(key(for: $0), .array(try records(of: $0, where: predicate))) })
    }

    /// The records of the objects of `entityName` (not of its sub-entities) that satisfy
    /// `predicate`, sorted by identity value, else in store order, less those already written.
    ///
    /// ```swift
    /// let books = try Exporter(context: context, entities: ["Book"]).records(of: "Book", where: try ObjectPredicate(format: "rating > 4"))
    /// ```
    public func records(of entityName: String, where predicate: ObjectPredicate? = nil) throws -> [JSONValue] {
        var records: [JSONValue] = []
        try forEachRecord(of: entityName, where: predicate) { records.append($0) }
        return records
    }

    /// Calls `body` with each record ``records(of:where:)`` returns, as it is made, to stream
    /// an export:
    ///
    /// ```swift
    /// try exporter.forEachRecord(of: "Book") { print(JSONWriter.string(from: $0, pretty: false)) }   // NDJSON
    /// ```
    ///
    /// On a context without unsaved changes (and without a parent), records are made from rows
    /// read in SQL as the store hands them over, the first at once; the store's connection is
    /// held meanwhile (see ``PersistentStore/forEachDictionary(_:_:)``). Otherwise, and for
    /// the rows whose records need their objects, objects are read in batches, and those
    /// written that have no unsaved changes and that nothing else holds leave the context
    /// again. Either way an export of any size runs in bounded memory (besides a few bytes per
    /// object written, to write each once).
    public func forEachRecord(of entityName: String, where predicate: ObjectPredicate? = nil, _ body: (JSONValue) throws -> Void) throws {
        context.assertOnQueue()
        var request = FetchRequest(entityName: entityName, predicate: predicate)
        request.includesSubentities = false
        if let identity = try identity(of: entityName) { request.sortDescriptors = [ObjectSortDescriptor(identity.attribute.name)] }
        if readsRows, try forEachRecordFromRows(request, body) { return }
        let prefetched = try plan(for: entityName).links.filter(writes).map(\.relationship.name)
        var release = ReleaseSchedule(context: context)
        try context.forEachBatchOfObjectIDs(request, batchSize: Self.batchSize) { ids in
            let batch = ids.filter { written[$0] == nil }
            try writeRecords(of: context.objects(with: batch, entityName: entityName, prefetching: prefetched), in: entityName, to: body)
            release.afterBatch(batch)
        }
    }

    /// Lets go of the objects an export has written, so that it runs in bounded memory.
    struct ReleaseSchedule {
        let context: ObjectContext
        private var releaseAt: Int

        init(context: ObjectContext) {
            self.context = context
            releaseAt = context.registered.count + Exporter.batchSize * 4
        }

        /// Releases the objects of `batch` that nothing else holds, and every such object once
        /// the context has grown by half: scans of the whole context then cost a constant per object.
        mutating func afterBatch(_ batch: [ObjectID]) {
            context.releaseUnheldObjects(among: batch)
            if context.registered.count > releaseAt {
                context.releaseUnheldObjects()
                releaseAt = context.registered.count + max(context.registered.count / 2, Exporter.batchSize * 4)
            }
        }
    }

    /// How many objects an export reads at a time.
    static let batchSize = 1000

    func writeRecords(of objects: [ManagedObject], in entityName: String, to body: (JSONValue) throws -> Void) throws {
        for object in objects where written[object.objectID] == nil {
            // An object without its identity value is nested where the other side holds it.
            if try identity(of: entityName) != nil, try identityValue(of: object, in: entityName) == nil, try isHeldByTheOtherSide(object) { continue }
            let record = try record(of: object, through: nil)
            settleWarnings(written: true)
            try body(record)
        }
    }

    /// The keys of the values a flat record of `entityName` holds, dotted for a nested path:
    /// attributes, then identity values of relationships (not nested records), as table columns.
    public func fieldKeys(of entityName: String) throws -> [String] {
        let plan = try plan(for: entityName)
        return plan.attributes.map { $0.keys.exportKey.joined(separator: ".") }
            + plan.links.filter { $0.kind == .identity && !silenced.contains($0.id) }.map(\.identityKey)
    }

    /// The keys of ``fieldKeys(of:)`` that hold Transformable attributes' values, whose JSON
    /// may be an array or object of its own (a CSV cell holds it as JSON text).
    public func transformableFieldKeys(of entityName: String) throws -> Set<String> {
        Set(try plan(for: entityName).attributes.filter { $0.attribute.type == .transformable }.map { $0.keys.exportKey.joined(separator: ".") })
    }

    /// The relationships of `entityName` that flat records (``writesNestedRecords`` off) leave
    /// out: those whose destinations have no identity attribute, written as nested records.
    public func relationshipsLeftOutOfFlatRecords(of entityName: String) throws -> [String] {
        try plan(for: entityName).links.filter { [.nested, .reference].contains($0.kind) && !silenced.contains($0.id) }.map(\.relationship.name)
    }

    // MARK: - Records

    private func record(of object: ManagedObject, through came: RelationshipDescription?, depth: Int = 0) throws -> JSONValue {
        // An import reads JSON only so deep; a longer chain of objects without identity cannot be written.
        guard depth < JSONReader.maximumDepth / 4 else {
            throw ImportError("\(object.entity.name) objects are nested more than \(JSONReader.maximumDepth / 4) levels deep; give the entity an identity attribute to export them as references")
        }
        written[object.objectID] = ()
        let plan = try plan(for: object.entity.name)
        var members: [JSONMember] = []
        if let localID = try localID(of: object) { members.append(Self.localIDMember(localID)) }
        for (attribute, keys) in plan.attributes {
            let value = try object.attributeValue(forKey: attribute.name)
            Self.insert(value.map { json($0, of: attribute, in: object.entity.name) } ?? .null, at: keys.exportKey, into: &members)
        }
        for link in writtenLinks(of: plan, through: came) {
            let relationship = link.relationship, destination = relationship.destinationEntityName
            let related = try relationship.isToMany && !relationship.isOrdered
                ? sorted(self.related(object, relationship), in: destination) : self.related(object, relationship)
            // Identity values, unless a member has none: it is nested in their stead, or named by its `@id`.
            let asValues = try link.kind == .identity && related.allSatisfy { try identityValue(of: $0, in: destination) != nil }
            var items: [JSONValue] = []
            for member in related {
                if asValues {
                    if let value = try identityValue(of: member, in: destination, forLink: true) { items.append(value) }
                } else if try written[member.objectID] != nil
                    || link.kind == .reference
                    || (link.kind == .identity && (member.entity.name != destination || identityValue(of: member, in: destination) != nil))
                {
                    var reference: [JSONMember] = []
                    if let value = try identityValue(of: member, in: destination), let key = try identity(of: destination)?.keys.exportKey {
                        Self.insert(value, at: key, into: &reference)
                    } else if let localID = try localID(of: member) {
                        reference.append(Self.localIDMember(localID))
                    } else if try mapping(for: destination).identity != .singleton {
                        continue
                    }
                    items.append(.object(reference))
                } else {
                    items.append(try record(of: member, through: relationship, depth: depth + 1))
                }
            }
            let key = asValues ? [link.identityKey] : link.keys.exportKey
            if relationship.isToMany {
                Self.insert(.array(items), at: key, into: &members)
            } else if related.isEmpty || !items.isEmpty {
                // A to-one whose destination cannot be written is left out, not cleared.
                Self.insert(items.first ?? .null, at: key, into: &members)
            }
        }
        return .object(members)
    }

    /// The links of `plan` that a record writes when it is reached through `came` (`nil` for a
    /// record of an entity's own array): not the way back, and of a pair of inverse nested
    /// relationships only the side met first, except that an ordered to-many keeps its order.
    func writtenLinks(of plan: Plan, through came: RelationshipDescription?) -> [Link] {
        plan.links.filter { link in
            guard writes(link), came?.inverseName != link.relationship.name else { return false }
            guard link.kind == .nested, let inverse = link.inverse, inverse.kind == .nested, inverse.id != link.id,
                !silenced.contains(inverse.id)
            else { return true }
            let pair = [link.id, inverse.id].sorted().joined(separator: " ")
            let owner = pairOwners[pair] ?? (inverse.relationship.isOrderedToMany && !link.relationship.isOrderedToMany ? inverse.id : link.id)
            pairOwners[pair] = owner
            return owner == link.id
        }
    }

    /// Whether records write `link` at all (those of a pair of inverses aside).
    func writes(_ link: Link) -> Bool {
        link.kind != .omitted && !silenced.contains(link.id) && (writesNestedRecords || ![.nested, .reference].contains(link.kind))
    }

    /// Whether `object` is held, through a relationship that the other side writes, by an
    /// object with an identity value, which nests it.
    private func isHeldByTheOtherSide(_ object: ManagedObject) throws -> Bool {
        try plan(for: object.entity.name).links.contains { link in
            guard silenced.contains(link.id), link.inverse?.relationship.destinationEntityName == object.entity.name else { return false }
            // A destination without identity attribute lists its members itself (see ``isWrittenFromTheManySide(_:among:)``).
            let destination = link.relationship.destinationEntityName
            return try related(object, link.relationship).contains { try identity(of: destination) == nil || identityValue(of: $0, in: destination) != nil }
        }
    }

    private func related(_ object: ManagedObject, _ relationship: RelationshipDescription) throws -> [ManagedObject] {
        if relationship.isToMany { return try object.objects(forKey: relationship.name) }
        guard let target = try object.value(forKey: relationship.name) as? ManagedObject else { return [] }
        // A key to a row the store does not hold (artsy-energy's ArtsyPartner_1.3.sqlite has
        // an Artwork whose artist is gone) links no object, as a store without foreign keys allows.
        do {
            try target.managedObjectContext?.fireFault(target)
        } catch ContextError.objectNotFound {
            return []
        }
        return [target]
    }

    /// The identity value of `object` as the import of `entityName` looks it up, as JSON;
    /// `nil` without one. Linked values are read without the attribute's `dateFormat`.
    func identityValue(of object: ManagedObject, in entityName: String, forLink: Bool = false) throws -> JSONValue? {
        guard let identity = try identity(of: entityName), let value = try object.attributeValue(forKey: identity.attribute.name) else { return nil }
        return forLink ? json(value, dateFormat: nil) : json(value, of: identity.attribute, in: entityName)
    }

    /// The members of an unordered to-many in a stable order: by identity value as SQL sorts
    /// them, else by primary key (new objects last).
    private func sorted(_ objects: [ManagedObject], in entityName: String) throws -> [ManagedObject] {
        let name = try identity(of: entityName)?.attribute.name
        let keyed = try objects.map { object in
            (object, try name.flatMap { try object.attributeValue(forKey: $0)?.databaseValue } ?? .null, object.objectID.primaryKey ?? .max)
        }
        return Self.sortedByIdentity(keyed) { ($0.1, $0.2) }.map(\.0)
    }

    /// `items` by identity value as SQL sorts them, then by primary key: the order of an
    /// unordered to-many's members in a record.
    static func sortedByIdentity<Item>(_ items: [Item], _ identity: (Item) -> (value: DatabaseValue, primaryKey: Int64)) -> [Item] {
        items.sorted { a, b in
            let (first, second) = (identity(a), identity(b))
            let order = first.value.sortOrder(second.value, caseInsensitive: false)
            return order == .orderedSame ? first.primaryKey < second.primaryKey : order == .orderedAscending
        }
    }

    /// Adds `value` at `path`, merging into the objects earlier members made.
    static func insert(_ value: JSONValue, at path: [String], into members: inout [JSONMember]) {
        guard let first = path.first else { return }
        guard path.count > 1 else { return members.append(JSONMember(first, value)) }
        let index = members.lastIndex { $0.key == first && $0.value.objectMembers != nil }
        if index == nil { members.append(JSONMember(first, .object([]))) }
        let position = index ?? members.count - 1
        var inner = members[position].value.objectMembers ?? []
        insert(value, at: Array(path.dropFirst()), into: &inner)
        members[position].value = .object(inner)
    }

    // MARK: - Plans

    func mapping(for entityName: String) throws -> EntityImportMapping {
        guard context.model.entity(named: entityName) != nil else { throw unknownEntity(entityName) }
        return try mappings.mapping(for: entityName)
    }

    private func unknownEntity(_ name: String) -> StoreError {
        .unknownEntity(path: context.store.path, name: name, known: context.model.entities.map(\.name).sorted())
    }

    /// The identity attribute an export can write, if the entity has one.
    func identity(of entityName: String) throws -> (attribute: AttributeDescription, keys: ImportKeys)? {
        guard let identity = try mapping(for: entityName).identityAttribute, Self.isExported(identity.attribute) else { return nil }
        return identity
    }

    static func isExportable(_ userInfo: [String: String]) -> Bool {
        !["hyper.nonExportable", "sync.nonExportable"].contains { userInfo[$0].map(ObjectModel.isYes) == true }
    }

    private static func isExported(_ attribute: AttributeDescription) -> Bool {
        isExportable(attribute.userInfo) && ![.objectID, .undefined].contains(attribute.type)
    }

    private func kind(of relationship: RelationshipDescription) throws -> Kind {
        guard let destination = context.model.entity(named: relationship.destinationEntityName) else { return .omitted }
        let identified = try identity(of: destination.name) != nil
        if (nested || !identified) && !destination.isAbstract && context.model.directSubentities(of: destination).isEmpty { return .nested }
        return identified ? .identity : .reference
    }

    func plan(for entityName: String) throws -> Plan {
        if let known = plans[entityName] { return known }
        let model = context.model, mapping = try mapping(for: entityName), entity = mapping.entity
        func id(_ name: String, from entity: EntityDescription) -> String {
            (model.entityDeclaring(relationship: name, from: entity)?.name ?? entity.name) + "." + name
        }
        var links: [Link] = []
        for mapped in mapping.relationships where Self.isExportable(mapped.relationship.userInfo) {
            let relationship = mapped.relationship
            let inverse = try model.entity(named: relationship.destinationEntityName).flatMap { destination -> Link.Inverse? in
                guard let inverse = relationship.inverseName.flatMap({ model.relationship(named: $0, in: destination) }),
                    Self.isExportable(inverse.userInfo), !inverse.isTransient
                else { return nil }
                return (inverse, id(inverse.name, from: destination), try kind(of: inverse))
            }
            links.append(Link(
                relationship: relationship, keys: mapped.keys, identityKey: mapped.identityKey, kind: try kind(of: relationship),
                id: id(relationship.name, from: entity), inverse: inverse))
        }
        let plan: Plan = (mapping.attributes.filter { Self.isExported($0.attribute) }, links)
        plans[entityName] = plan
        return plan
    }

    // MARK: - Import order

    /// Whether `link`, a to-one to an entity without identity attribute whose inverse is a
    /// to-many, is written from that to-many instead: several objects may point to one such
    /// object, which a record can nest only once and no other record can name, so its own
    /// record lists them (by identity value, or nested). Needs the destination in the export.
    private func isWrittenFromTheManySide(_ link: Link, among names: [String]) -> Bool {
        guard link.kind == .nested, !link.relationship.isToMany, let inverse = link.inverse,
            inverse.relationship.isToMany, inverse.kind != .omitted, inverse.id != link.id
        else { return false }
        return !positions(of: link.relationship.destinationEntityName, in: names).isEmpty
    }

    /// The positions in `names` of `entityName` and its sub-entities.
    private func positions(of entityName: String, in names: [String]) -> [Int] {
        guard let entity = context.model.entity(named: entityName) else { return [] }
        let family = Set(([entity] + context.model.allSubentities(of: entity)).map(\.name))
        return names.indices.filter { family.contains(names[$0]) }
    }

    /// `names` ordered so that link targets come first: owners of nested records without
    /// identity before that entity's own array, targets of required and inverse-less links,
    /// then the destinations of to-one relationships when the order allows; model order else.
    private func importOrder(_ names: [String]) throws -> [String] {
        var nesting: [(Int, Int)] = [], required: [(Int, Int)] = [], preferred: [(Int, Int)] = []
        for (source, name) in names.enumerated() {
            for link in try plan(for: name).links where link.kind != .omitted && !isWrittenFromTheManySide(link, among: names) {
                let targets = positions(of: link.relationship.destinationEntityName, in: names).filter { $0 != source }
                if link.kind == .nested, try identity(of: link.relationship.destinationEntityName) == nil {
                    nesting += targets.map { (source, $0) }
                    // The nested records' links are read in the owner's batch.
                    for target in targets {
                        for inner in try plan(for: names[target]).links where inner.kind == .identity && inner.id != link.inverse?.id {
                            required += positions(of: inner.relationship.destinationEntityName, in: names).filter { $0 != source }.map { ($0, source) }
                        }
                    }
                } else if link.kind == .identity && (link.inverse?.kind != .identity || link.relationship.mustWrite) {
                    required += targets.map { ($0, source) }
                } else if link.kind == .reference {
                    // References resolve in any order; targets first spares the import waiting for them.
                    required += targets.map { ($0, source) }
                } else if link.kind == .nested && link.relationship.isToMany && link.relationship.isOrdered {
                    preferred += targets.map { (source, $0) }
                } else if !link.relationship.isToMany && link.inverse?.relationship.mustWrite != true {
                    preferred += targets.map { ($0, source) }
                }
            }
        }
        // Each rule in turn, kept unless it contradicts the ones before; then model order.
        var after = Array(repeating: Set<Int>(), count: names.count)
        func reaches(_ from: Int, _ to: Int) -> Bool {
            var stack = [from], seen: Set<Int> = []
            while let next = stack.popLast() {
                if next == to { return true }
                if seen.insert(next).inserted { stack += after[next] }
            }
            return false
        }
        for (first, second) in nesting + required + preferred where first != second && !reaches(second, first) {
            after[first].insert(second)
        }
        var order: [Int] = []
        while let next = names.indices.first(where: { index in !order.contains(index) && after.indices.allSatisfy { order.contains($0) || !after[$0].contains(index) } }) {
            order.append(next)
        }
        return order.map { names[$0] }
    }

    /// Leaves each pair of inverse relationships of identity values to one side: the one that
    /// must write (required, or ordered), else the later entity (whose targets exist by its
    /// batch), or for an entity's own pair the to-one side. Also silences the to-ones written
    /// from the many side, and references to entities the export leaves out.
    private func silenceInverses() throws {
        for (position, name) in entityNames.enumerated() {
            for link in try plan(for: name).links where isWrittenFromTheManySide(link, among: entityNames) { silenced.insert(link.id) }
            // A reference names an object of the export: to one left out, it would dangle.
            for link in try plan(for: name).links where link.kind == .reference && positions(of: link.relationship.destinationEntityName, in: entityNames).isEmpty {
                silenced.insert(link.id)
            }
            for link in try plan(for: name).links where link.kind == .identity && !link.relationship.mustWrite {
                let others = positions(of: link.relationship.destinationEntityName, in: entityNames)
                guard let inverse = link.inverse, inverse.kind == .identity, inverse.id != link.id, !others.isEmpty else { continue }
                if inverse.relationship.mustWrite {
                    silenced.insert(link.id)
                } else if others.contains(position) {
                    let mixed = link.relationship.isToMany != inverse.relationship.isToMany
                    if mixed ? link.relationship.isToMany : inverse.id < link.id { silenced.insert(link.id) }
                } else if others.allSatisfy({ $0 > position }) {
                    silenced.insert(link.id)
                }
            }
        }
    }
}

extension RelationshipDescription {
    /// Whether only the relationship's own side can write it: a required one (its batch must
    /// set it), or an ordered to-many (its order is its own).
    fileprivate var mustWrite: Bool { !isOptional || minCount > 0 || isOrderedToMany }
    fileprivate var isOrderedToMany: Bool { isToMany && isOrdered }
}
