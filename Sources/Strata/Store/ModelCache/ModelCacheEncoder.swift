import Foundation

/// Writes a model as Core Data keeps it in `Z_MODELCACHE`: a keyed archive of
/// `NSManagedObjectModel` in a binary property list, deflated raw. ``ModelCacheDecoder`` reads
/// it back, and so does another tool that reads Core Data's caches.
///
/// The classes, their `$classes` chains and their keys are those of the caches Core Data wrote
/// in the stores of `shared/fixtures/coredata` (Core Data 637 to 1522); `ModelCacheWriterTests`
/// checks them against those caches. What no cache there shows is marked "inferred" where it is
/// written, and listed in README's store-format section.
///
/// Predicates: an attribute's minimum, maximum and regular expression become its
/// `NSValidationPredicates` and `NSValidationWarnings`, as Xcode compiles them; the predicates
/// of fetched properties and fetch request templates are text in the model, which the
/// ``PredicateArchiver`` given by whoever creates the store turns into `NSPredicate` objects:
/// without one they are `$null`, as they are where the archiver cannot archive a predicate.
///
/// Not archived: composites (no cache shows them, and no store can hold them yet) and Xcode's
/// settings. Strata keeps all of these in its own copy of the model in the store's metadata.
struct ModelCacheEncoder {
    /// `NSKnownKeysDictionary1`'s `emptyToken`, the same string in every cache.
    static let emptySlotToken = "__empty_slot_token_4c24_98dc_ac1e_b773__"

    /// The first Core Data release whose stores have `Z_MODELCACHE`: of the corpus stores,
    /// those of 519 and earlier have none and those of 637 and later all have one (inferred
    /// between the two).
    static let firstRelease: Int64 = 637

    /// The table as Core Data creates it (every corpus store with one).
    static let createStatement = "CREATE TABLE Z_MODELCACHE (Z_CONTENT BLOB)"

    let model: ObjectModel
    /// What archives the predicates of fetched properties and templates; `nil` leaves them `$null`.
    let predicates: PredicateArchiver?
    var writer = KeyedArchiveWriter()
    /// The place of the root `NSManagedObjectModel` in `$objects`.
    let root: Int
    /// The place of each entity's object.
    var entityPlaces: [String: Int] = [:]
    /// The place of each property object, by entity and property name: an entity has its own
    /// copy of every property it inherits, as in Core Data's caches.
    var propertyPlaces: [String: [String: Int]] = [:]

    /// The deflated archive of `model`, as `Z_MODELCACHE.Z_CONTENT` holds it.
    static func blob(for model: ObjectModel, predicates: PredicateArchiver? = nil) throws(RawDeflate.Failure) -> Data {
        try RawDeflate.deflate(archive(of: model, predicates: predicates))
    }

    /// The keyed archive of `model` as a binary property list, before deflating.
    static func archive(of model: ObjectModel, predicates: PredicateArchiver? = nil) -> Data {
        var encoder = ModelCacheEncoder(model: model, predicates: predicates)
        encoder.encode()
        return encoder.writer.data(root: .uid(UInt64(encoder.root)))
    }

    /// Creates `Z_MODELCACHE` in `database` and writes `model`'s cache as its one row, or
    /// replaces the row when the table is there.
    static func write(_ model: ObjectModel, to database: Database, predicates: PredicateArchiver?) throws {
        let blob = try blob(for: model, predicates: predicates)
        if try database.scalar("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'Z_MODELCACHE'")?.int64Value == 0 {
            try database.execute(createStatement)
        }
        try database.execute("DELETE FROM Z_MODELCACHE")
        try database.execute("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(blob)])
    }

    private init(model: ObjectModel, predicates: PredicateArchiver?) {
        self.model = model
        self.predicates = predicates
        // Apple's archiver numbers the root first, then what it holds.
        root = writer.reserve()
    }

    // MARK: - The model

    private mutating func encode() {
        let entities = model.entities.sorted { $0.name < $1.name }
        for entity in entities { entityPlaces[entity.name] = writer.reserve() }
        for entity in entities {
            var places: [String: Int] = [:]
            for name in propertyNames(of: entity) { places[name] = writer.reserve() }
            propertyPlaces[entity.name] = places
        }
        // Core Data writes both index lists on every entity when any entity has a fetch index
        // (FinalCut, SampleModel_V2), and neither in four caches without one; EasyLife 1.5.0
        // (release 849) writes them empty. The rule is inferred: presence when needed.
        let writesIndexes = entities.contains { !$0.fetchIndexes.isEmpty || !$0.compoundIndexes.isEmpty }
        for entity in entities { encode(entity, writesIndexes: writesIndexes) }

        let names = entities.map { writer.plain(.string($0.name)) }
        let mapping = object("NSKnownKeysMappingStrategy1", ["NSKnownKeysMappingStrategy"], [
            "keys": array(names), "length": .integer(Int64(entities.count)), "version": .integer(1),
        ])
        let entityDictionary = object("NSKnownKeysDictionary1", ["NSKnownKeysDictionary", "NSMutableDictionary", "NSDictionary"], [
            "values": array(entities.map { reference(entityPlaces[$0.name]!) }),
            "searchMapping": mapping,
            "emptyToken": writer.plain(.string(Self.emptySlotToken)),
            "version": .integer(1),
        ])
        var fields: [String: PropertyListValue] = [
            "NSEntities": entityDictionary,
            // Xcode compiles a model without an identifier to a set of one empty string.
            "NSVersionIdentifiers": set([writer.plain(.string(model.versionIdentifier))]),
            "NSFetchRequestTemplates": fetchRequestTemplates(),
        ]
        if !model.configurations.isEmpty {
            let configurations = model.configurations.map { configuration in
                set(configuration.entityNames.compactMap { entityPlaces[$0].map(reference) })
            }
            fields["NSConfigurations"] = dictionary(keys: model.configurations.map(\.name), values: configurations, mutable: true)
        }
        writer.fill(root, className: "NSManagedObjectModel", fields: fields)
    }

    /// No cache of the corpus has a fetch request template (`NSFetchRequestTemplates` is
    /// `$null` in all ten): a model with some gets a dictionary of name → `NSFetchRequest`,
    /// the type Core Data's `fetchRequestTemplatesByName` returns (inferred).
    private mutating func fetchRequestTemplates() -> PropertyListValue {
        guard !model.fetchRequestTemplates.isEmpty else { return KeyedArchiveWriter.null }
        let requests = model.fetchRequestTemplates.map { fetchRequest($0) }
        return dictionary(keys: model.fetchRequestTemplates.map(\.name), values: requests, mutable: false)
    }

    // MARK: - Entities

    /// The names of an entity's properties, its own then those it inherits (each entity's
    /// `NSProperties` lists both).
    private func propertyNames(of entity: EntityDescription) -> [String] {
        var names: [String] = []
        var seen: Set<String> = []
        for owner in [entity] + model.ancestors(of: entity) {
            for name in owner.attributes.map(\.name) + owner.relationships.map(\.name) + owner.fetchedProperties.map(\.name)
            where seen.insert(name).inserted {
                names.append(name)
            }
        }
        return names
    }

    private mutating func encode(_ entity: EntityDescription, writesIndexes: Bool) {
        let place = entityPlaces[entity.name]!
        let names = propertyNames(of: entity)
        let places = propertyPlaces[entity.name]!
        // A sub-entity's copy of an inherited property names the sub-entity as its entity, as in
        // the CoreDataPlus caches; the nearest declaration of a name is the one copied.
        var done: Set<String> = []
        for owner in [entity] + model.ancestors(of: entity) {
            for attribute in owner.attributes where done.insert(attribute.name).inserted {
                encode(attribute, at: places[attribute.name]!, of: entity.name)
            }
            for relationship in owner.relationships where done.insert(relationship.name).inserted {
                encode(relationship, at: places[relationship.name]!, of: entity.name)
            }
            for fetched in owner.fetchedProperties where done.insert(fetched.name).inserted {
                encode(fetched, at: places[fetched.name]!, of: entity.name)
            }
        }
        let subentities = model.directSubentities(of: entity)
        var fields: [String: PropertyListValue] = [
            "NSEntityName": writer.plain(.string(entity.name)),
            // A model without a class name leaves it out (`$null`, as in SampleModel_V2's cache).
            "NSClassNameForEntity": string(entity.className),
            "NSUserInfo": stringDictionary(entity.userInfo),
            "NSSubentities": dictionary(
                keys: subentities.map(\.name), values: subentities.map { reference(entityPlaces[$0.name]!) }, mutable: true),
            "NSVersionHashModifier": string(entity.versionHashModifier),
            "NSProperties": dictionary(keys: names, values: names.map { reference(places[$0]!) }, mutable: true),
            "NSRenamingIdentifier": writer.plain(.string(entity.renamingIdentifier ?? entity.name)),
            "NSManagedObjectModel": reference(root),
            "NSSuperentity": entity.superentityName.flatMap { entityPlaces[$0] }.map(reference) ?? KeyedArchiveWriter.null,
        ]
        if entity.isAbstract { fields["NSIsAbstract"] = .bool(true) }
        if !entity.uniquenessConstraints.isEmpty {
            fields["NSUniqueTuples"] = array(entity.uniquenessConstraints.map { names in
                array(names.map { writer.plain(.string($0)) }, mutable: true)
            }, mutable: true)
        }
        if writesIndexes {
            fields["NSFetchIndexDescriptions"] = array(entity.fetchIndexes.map { fetchIndex($0, of: place) }, mutable: true)
            fields["NSCompoundIndexes"] = array(Self.compoundIndexes(of: entity).map { names in
                array(names.map { writer.plain(.string($0)) }, mutable: true)
            }, mutable: true)
        }
        writer.fill(place, className: "NSEntityDescription", fields: fields)
    }

    /// What Core Data archives as an entity's compound indexes: the property names of each
    /// fetch index of several properties (SampleModel_V2's cache lists its one such index,
    /// `byMakerAndNumberPlate`, as `[maker, numberPlate]`, arrays of strings; the single-property
    /// indexes of the Final Cut caches are not listed). The model's own compound indexes come
    /// first, in the same form (inferred: no corpus model with them has a cache).
    static func compoundIndexes(of entity: EntityDescription) -> [[String]] {
        var indexes = entity.compoundIndexes
        for index in entity.fetchIndexes where index.elements.count > 1 && index.elements.allSatisfy({ $0.expressionType == nil }) {
            let names = index.elements.map(\.property)
            if !indexes.contains(names) { indexes.append(names) }
        }
        return indexes
    }

    private mutating func fetchIndex(_ index: FetchIndexDescription, of entity: Int) -> PropertyListValue {
        let place = writer.reserve()
        let elements = index.elements.map { element in
            // An expression element's text stands in its property name: no cache shows how
            // Core Data archives one (inferred).
            object("NSFetchIndexElementDescription", [], [
                "NSPropertyName": writer.plain(.string(element.property)),
                "NSFetchIndexElementType": .integer(element.kind == "R-Tree" ? 1 : 0),
                "NSFetchIndexDescription": reference(place),
                "NSAscending": .bool(element.isAscending),
            ])
        }
        writer.fill(place, className: "NSFetchIndexDescription", fields: [
            "NSIndexName": writer.plain(.string(index.name)),
            "NSIndexElements": array(elements),
            "NSPartialIndexPredicate": KeyedArchiveWriter.null,
            "NSEntity": reference(entity),
        ])
        return reference(place)
    }

    // MARK: - Archived objects and collections

    func reference(_ place: Int) -> PropertyListValue { .uid(UInt64(place)) }

    /// A string object, or `$null` for `nil`.
    mutating func string(_ text: String?) -> PropertyListValue {
        text.map { writer.plain(.string($0)) } ?? KeyedArchiveWriter.null
    }

    /// An object of class `className` (whose superclasses below `NSObject` are `superclasses`)
    /// holding `fields`, numbered before what its fields refer to was: callers build the fields
    /// first, so it is numbered after them, which a reader does not mind.
    mutating func object(_ className: String, _ superclasses: [String], _ fields: [String: PropertyListValue]) -> PropertyListValue {
        writer.object(className, superclasses, fields)
    }

    mutating func array(_ elements: [PropertyListValue], mutable: Bool = false) -> PropertyListValue {
        writer.array(elements, mutable: mutable)
    }

    mutating func set(_ elements: [PropertyListValue]) -> PropertyListValue {
        object("NSSet", [], ["NS.objects": .array(elements)])
    }

    mutating func dictionary(keys: [String], values: [PropertyListValue], mutable: Bool) -> PropertyListValue {
        let keyReferences = keys.map { writer.plain(.string($0)) }
        let fields: [String: PropertyListValue] = ["NS.keys": .array(keyReferences), "NS.objects": .array(values)]
        return mutable ? object("NSMutableDictionary", ["NSDictionary"], fields) : object("NSDictionary", [], fields)
    }

    /// User info as Core Data archives it: an `NSDictionary` of strings, in key order.
    mutating func stringDictionary(_ pairs: [String: String]) -> PropertyListValue {
        let keys = pairs.keys.sorted()
        return dictionary(keys: keys, values: keys.map { writer.plain(.string(pairs[$0]!)) }, mutable: false)
    }
}
