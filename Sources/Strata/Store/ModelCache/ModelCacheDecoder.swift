import Foundation

/// Recovers the model a Core Data store keeps in `Z_MODELCACHE`: raw DEFLATE around a keyed
/// archive of `NSManagedObjectModel`.
///
/// The archive's keys (`NSEntityName`, `NSAttributeType`, `NSMinCount`, …) are Core Data's
/// own; what Strata reads of them is what the version hashes and the store layout need, plus
/// the names, user info and indexes a user sees.
enum ModelCacheDecoder {
    /// The most bytes a model cache may inflate to. The caches of real apps' models inflate to
    /// tens of kilobytes; a model of thousands of entities stays within a few megabytes. A
    /// stream that inflates further is hostile or damaged (DEFLATE compresses up to 1032:1, so a
    /// 237 KB blob could otherwise become 245 MB and its parse gigabytes).
    static let maximumInflatedSize = 64 << 20

    /// The most properties the decoder reads over all entities, inherited ones listed again
    /// included: an archive whose entities share one huge property dictionary would otherwise
    /// cost entities × properties.
    static let maximumPropertyVisits = 2_000_000

    static func decode(_ blob: Data) throws(KeyedArchive.Failure) -> ObjectModel {
        let plist: PropertyListValue
        do {
            plist = try BinaryPropertyListReader.read(try RawDeflate.inflate(blob, limit: maximumInflatedSize))
        } catch let failure as RawDeflate.Failure {
            throw KeyedArchive.Failure(
                underlying: failure, note: "the blob is \(blob.count) bytes; no model needs more than \(maximumInflatedSize >> 20) MB")
        } catch {
            throw KeyedArchive.Failure(underlying: error)
        }
        return try model(fromArchive: plist)
    }

    /// The model in a keyed archive of `NSManagedObjectModel`, once inflated and parsed.
    static func model(fromArchive plist: PropertyListValue, propertyVisitLimit: Int = maximumPropertyVisits) throws(KeyedArchive.Failure) -> ObjectModel {
        let archive = try KeyedArchive(plist)
        guard archive.className(of: archive.root) == "NSManagedObjectModel" else {
            throw KeyedArchive.Failure(message: "the archive does not hold a managed object model")
        }
        var entities: [EntityDescription] = []
        var budget = propertyVisitLimit
        for (_, entityObject) in archive.dictionary(archive.root["NSEntities"]) {
            entities.append(try entity(from: entityObject, in: archive, budget: &budget))
            guard budget >= 0 else {
                throw KeyedArchive.Failure(
                    message: "the entities list more than \(propertyVisitLimit) properties, constraints and indexes in all; the archive refers to the same objects over and over")
            }
        }
        var model = ObjectModel(entities: entities.sorted { $0.name < $1.name })
        model.versionIdentifier = archive.array(archive.root["NSVersionIdentifiers"]).compactMap(\.stringValue).first ?? ""
        model.fetchRequestTemplates = fetchRequestTemplates(archive.root["NSFetchRequestTemplates"], in: archive)
        return model
    }

    private static func entity(
        from object: PropertyListValue, in archive: KeyedArchive, budget: inout Int
    ) throws(KeyedArchive.Failure) -> EntityDescription {
        guard let name = archive.string(object["NSEntityName"]) else {
            throw KeyedArchive.Failure(message: "an entity has no name")
        }
        var entity = EntityDescription(name: name)
        entity.superentityName = archive.object(object["NSSuperentity"]).flatMap { archive.string($0["NSEntityName"]) }
        entity.isAbstract = object["NSIsAbstract"]?.boolValue ?? false
        entity.className = archive.string(object["NSClassNameForEntity"])
        entity.versionHashModifier = archive.string(object["NSVersionHashModifier"])
        entity.renamingIdentifier = archive.string(object["NSRenamingIdentifier"]).flatMap { $0 == name ? nil : $0 }
        entity.userInfo = archive.stringDictionary(object["NSUserInfo"])
        let properties = archive.dictionary(object["NSProperties"]).sorted { $0.key < $1.key }
        // Core Data archives the constraints as `NSUniqueTuples` (every CoreDataPlus store with
        // a constraint does); `NSUniquenessConstraints`, the property's name, is read too.
        let constraints = archive.array(object["NSUniqueTuples"] ?? object["NSUniquenessConstraints"])
        let indexes = archive.array(object["NSFetchIndexDescriptions"])
        let compoundIndexes = archive.array(object["NSCompoundIndexes"])
        budget -= properties.count + constraints.count + indexes.count + compoundIndexes.count + 1
        // Past the budget, the caller refuses the archive before decoding anything more.
        guard budget >= 0 else { return entity }
        // An entity's archived property dictionary lists its inherited properties too, and the
        // parent's lists the grandparent's, so the parent's dictionary alone names everything
        // this entity inherits.
        let parent = archive.object(object["NSSuperentity"])
        let parentName = parent.flatMap { archive.string($0["NSEntityName"]) } ?? ""
        var parentProperties: [String: PropertyListValue] = [:]
        for (propertyName, property) in archive.dictionary(parent?["NSProperties"]) { parentProperties[propertyName] = property }
        for (propertyName, property) in properties {
            // Each property is described once, on the entity that declares it. An inherited
            // property comes in two forms: the ancestor's own object (its `NSEntity` names the
            // ancestor), or, as Core Data wrote the CoreDataPlus stores, a copy whose `NSEntity`
            // names this entity. Both are left to the ancestor.
            if let owner = archive.object(property["NSEntity"]), archive.string(owner["NSEntityName"]) != name { continue }
            if let declared = parentProperties[propertyName] {
                try requireSameVersionHash(copy: property, declared: declared, named: propertyName, entity: name, parent: parentName, in: archive)
                continue
            }
            switch archive.className(of: property) {
            case "NSAttributeDescription", "NSDerivedAttributeDescription":
                entity.attributes.append(attribute(propertyName, property, in: archive))
            case "NSRelationshipDescription": entity.relationships.append(relationship(propertyName, property, in: archive))
            case "NSFetchedPropertyDescription":
                if let fetched = fetchedProperty(propertyName, property, in: archive) { entity.fetchedProperties.append(fetched) }
            default: continue
            }
        }
        entity.uniquenessConstraints = constraints.map { constraint in
            archive.array(constraint).compactMap { archive.string($0) ?? archive.string($0["NSPropertyName"]) }
        }
        for index in indexes {
            guard let indexName = archive.string(index["NSIndexName"]) else { continue }
            let elements = archive.array(index["NSIndexElements"]).compactMap { element -> FetchIndexDescription.Element? in
                guard let property = archive.string(element["NSPropertyName"]) else { return nil }
                return FetchIndexDescription.Element(
                    property: property, kind: element["NSFetchIndexElementType"]?.integerValue == 1 ? "R-Tree" : "Binary",
                    isAscending: element["NSAscending"]?.boolValue ?? true)
            }
            entity.fetchIndexes.append(FetchIndexDescription(name: indexName, elements: elements))
        }
        // Core Data lists each fetch index of several properties again as a compound index of
        // their names (SampleModel_V2's cache): that copy is the fetch index, not an index of
        // its own. A compound index given as property descriptions is read too (inferred).
        let mirrored = entity.fetchIndexes.filter { $0.elements.count > 1 }.map { $0.elements.map(\.property) }
        entity.compoundIndexes = compoundIndexes.map { index in
            archive.array(index).compactMap { archive.string($0) ?? archive.string($0["NSPropertyName"]) }
        }.filter { !mirrored.contains($0) }
        return entity
    }

    /// Refuses a sub-entity's copy of an inherited property that is not the property its
    /// parent declares, as far as the version hashes tell (kind, type, optionality,
    /// transience, destination, inverse, counts, ordering, modifiers).
    ///
    /// Core Data lets a sub-entity only inherit a property, never redeclare it, so a copy that
    /// differs in any of these would be a cache that contradicts itself: Strata says so rather
    /// than hash or lay out one of the two at random. What the hashes do not cover (default
    /// value, user info, indexing, delete rule, renaming identifier) is kept as the ancestor
    /// declares it, since a hierarchy has one description per property name; in the CoreDataPlus
    /// stores every copy equals its ancestor's in all of these too (inferred from the
    /// CoreDataPlus stores: only `NSEntity` differs).
    private static func requireSameVersionHash(
        copy: PropertyListValue, declared: PropertyListValue, named name: String, entity: String, parent: String, in archive: KeyedArchive
    ) throws(KeyedArchive.Failure) {
        let kind = archive.className(of: copy)
        let matches: Bool
        if kind != archive.className(of: declared) {
            matches = false  // an attribute where the parent has a relationship, or the reverse
        } else if kind == "NSAttributeDescription" || kind == "NSDerivedAttributeDescription" {
            matches = attribute(name, copy, in: archive).versionHash == attribute(name, declared, in: archive).versionHash
        } else if kind == "NSRelationshipDescription" {
            matches = relationship(name, copy, in: archive).versionHash == relationship(name, declared, in: archive).versionHash
        } else {
            matches = true  // fetched properties and the like, which Strata does not read
        }
        guard matches else {
            throw KeyedArchive.Failure(
                message: "entity '\(entity)', property '\(name)': its copy of the property that the parent entity '\(parent)' declares differs from it (in kind, type, optionality or another part of the version hash)")
        }
    }

    private static func attribute(_ name: String, _ object: PropertyListValue, in archive: KeyedArchive) -> AttributeDescription {
        let code = object["NSAttributeType"]?.integerValue.flatMap { UInt32(exactly: $0) }
        var attribute = AttributeDescription(name: name, type: code.flatMap(AttributeType.init(code:)) ?? .undefined)
        readPropertySettings(of: &attribute, from: object, in: archive)
        attribute.isIndexed = object["NSIsIndexed"]?.boolValue ?? false
        attribute.valueTransformerName = archive.string(object["NSValueTransformerName"])
        if attribute.type == .transformable { attribute.customClassName = archive.string(object["NSAttributeValueClassName"]) }
        attribute.allowsExternalBinaryDataStorage = object["NSAllowsExternalBinaryDataStorage"]?.boolValue ?? false
        readValidationRules(into: &attribute, from: object, in: archive)
        // Core Data keeps "preserve after deletion" as bit 0x10 of NSFlagsKey (Person.id of the
        // CoreDataPlus SampleModel store, the only one the model marks, is the only 16 there).
        let flags = object["NSFlagsKey"]?.integerValue ?? 0
        attribute.preservesValueInHistoryOnDeletion = object["NSPreservesValueInHistoryOnDeletion"]?.boolValue ?? (flags & 0x10 != 0)
        // A derived attribute (its own archive class) has a column like any other, and its
        // expression archived as an NSExpression, read back in its function form
        // (`count:(pages)`, which SampleModel2's Book.pagesCount is).
        attribute.isDerived = archive.className(of: object) == "NSDerivedAttributeDescription"
        if attribute.isDerived { attribute.derivationExpression = expressionText(archive.object(object["NSDerivationExpression"]), in: archive) }
        switch archive.object(object["NSDefaultValue"]) {
        case .integer(let value)?: attribute.defaultValue = attribute.type == .boolean ? (value != 0 ? "YES" : "NO") : String(value)
        case .real(let value)?: attribute.defaultValue = String(value)
        case .bool(let value)?: attribute.defaultValue = value ? "YES" : "NO"
        case .string(let value)?: attribute.defaultValue = value
        case .date(let value)?: attribute.defaultValue = String(value.timeIntervalSinceReferenceDate)
        // An archived NSDate, as Strata's encoder writes a date default.
        case let date? where archive.className(of: date) == "NSDate":
            if case .real(let time)? = date["NS.time"] { attribute.defaultValue = String(time) }
        default: break
        }
        return attribute
    }

    /// An archived NSExpression as text, for the kinds a derivation uses: a key path
    /// (NSExpressionType 3, archived as `valueForKeyPath:` of a key path specifier, type 10) and
    /// a function of such (type 4, its selector and arguments: `count:(pages)`, `now()`);
    /// `nil` for any other kind.
    private static func expressionText(_ object: PropertyListValue?, in archive: KeyedArchive, depth: Int = 0) -> String? {
        guard let object, depth < 8 else { return nil }
        switch object["NSExpressionType"]?.integerValue {
        case 10: return archive.string(object["NSKeyPath"])
        case 3: return archive.array(object["NSArguments"]).first.flatMap { expressionText(archive.object($0), in: archive, depth: depth + 1) }
        case 4:
            guard let selector = archive.string(object["NSSelectorName"]) else { return nil }
            let arguments = archive.array(object["NSArguments"]).map { expressionText(archive.object($0), in: archive, depth: depth + 1) }
            guard !arguments.contains(nil) else { return nil }
            let list = arguments.compactMap { $0 }.joined(separator: ", ")
            return selector.hasSuffix(":") ? "\(selector)(\(list))" : "\(selector)()"
        default: return nil
        }
    }

    private static func relationship(_ name: String, _ object: PropertyListValue, in archive: KeyedArchive) -> RelationshipDescription {
        let destination = archive.object(object["NSDestinationEntity"]).flatMap { archive.string($0["NSEntityName"]) }
            ?? archive.string(object["_NSDestinationEntityName"]) ?? ""
        // A count is an unsigned 32-bit number: Core Data archived an unbounded to-many of the
        // SampleModel2 stores as NSMaxCount -1, which is UInt32.max, and hashes it as such.
        func count(_ key: String) -> Int { Int(UInt32(truncatingIfNeeded: object[key]?.integerValue ?? 0)) }
        let minCount = count("NSMinCount"), maxCount = count("NSMaxCount")
        var relationship = RelationshipDescription(name: name, destination: destination, isToMany: maxCount != 1)
        readPropertySettings(of: &relationship, from: object, in: archive)
        relationship.minCount = minCount
        relationship.maxCount = maxCount
        relationship.inverseName = archive.string(object["_NSInverseRelationshipName"])
            ?? archive.object(object["NSInverseRelationship"]).flatMap { archive.string($0["NSPropertyName"]) }
        relationship.isOrdered = object["NSIsOrdered"]?.boolValue ?? false
        relationship.deleteRule = object["NSDeleteRule"]?.integerValue.flatMap(DeleteRule.init(code:)) ?? .nullify
        return relationship
    }

    private static func readPropertySettings<Property: PropertyDescription>(
        of property: inout Property, from object: PropertyListValue, in archive: KeyedArchive
    ) {
        // Core Data archives NSIsOptional only for optional properties (every one in the Final
        // Cut caches says true): a required one has no key, like an entity that is not abstract.
        property.isOptional = object["NSIsOptional"]?.boolValue ?? false
        property.isTransient = object["NSIsTransient"]?.boolValue ?? false
        property.versionHashModifier = archive.string(object["NSVersionHashModifier"])
        property.renamingIdentifier = archive.string(object["NSRenamingIdentifier"]).flatMap { $0 == property.name ? nil : $0 }
        property.userInfo = archive.stringDictionary(object["NSUserInfo"])
    }
}
