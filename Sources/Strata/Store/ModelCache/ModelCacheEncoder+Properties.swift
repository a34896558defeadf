import Foundation

// Attributes, relationships and fetched properties as Core Data's caches archive them.

extension ModelCacheEncoder {
    /// Core Data's `_P` bits of a property, as read off the corpus caches (every value there
    /// agrees): 0x02 optional, 0x04 read-only, 0x08 transient, 0x10 and 0x20 no validation
    /// predicates and no validation warnings (both clear on the attributes that have some:
    /// EasyLife's `repeats`, SampleModel2's `title`; a rule always comes with its warning, so
    /// which of the two bits is which is inferred), 0x40 no user info. 0x01 and 0x80 are set
    /// on every property there; what clears them is not known.
    static func propertyBits(isOptional: Bool, isReadOnly: Bool, isTransient: Bool, hasUserInfo: Bool, hasValidationRules: Bool = false) -> Int64 {
        var bits: Int64 = 0x01 | 0x80
        if isOptional { bits |= 0x02 }
        if isReadOnly { bits |= 0x04 }
        if isTransient { bits |= 0x08 }
        if !hasValidationRules { bits |= 0x10 | 0x20 }
        if !hasUserInfo { bits |= 0x40 }
        return bits
    }

    /// The keys every property archives; optional flags are written only when true, as Core
    /// Data writes them.
    private mutating func propertyFields<Property: PropertyDescription>(
        _ property: Property, of entity: String, isReadOnly: Bool = false, hasValidationRules: Bool = false
    ) -> [String: PropertyListValue] {
        propertyFields(
            name: property.name, isOptional: property.isOptional, isTransient: property.isTransient, isReadOnly: isReadOnly,
            userInfo: property.userInfo, renamingIdentifier: property.renamingIdentifier, versionHashModifier: property.versionHashModifier,
            hasValidationRules: hasValidationRules, of: entity)
    }

    private mutating func propertyFields(
        name: String, isOptional: Bool, isTransient: Bool, isReadOnly: Bool, userInfo: [String: String],
        renamingIdentifier: String?, versionHashModifier: String?, hasValidationRules: Bool = false, of entity: String
    ) -> [String: PropertyListValue] {
        var fields: [String: PropertyListValue] = [
            "_P": .integer(Self.propertyBits(
                isOptional: isOptional, isReadOnly: isReadOnly, isTransient: isTransient, hasUserInfo: !userInfo.isEmpty,
                hasValidationRules: hasValidationRules)),
            "NSEntity": reference(entityPlaces[entity]!),
            "NSPropertyName": writer.plain(.string(name)),
            "NSRenamingIdentifier": writer.plain(.string(renamingIdentifier ?? name)),
        ]
        if isOptional { fields["NSIsOptional"] = .bool(true) }
        if isTransient { fields["NSIsTransient"] = .bool(true) }
        if isReadOnly { fields["NSIsReadOnly"] = .bool(true) }
        if !userInfo.isEmpty { fields["NSUserInfo"] = stringDictionary(userInfo) }
        // No corpus property has a version hash modifier; the key is the entity's (inferred).
        if let modifier = versionHashModifier { fields["NSVersionHashModifier"] = writer.plain(.string(modifier)) }
        return fields
    }

    // MARK: - Attributes

    mutating func encode(_ attribute: AttributeDescription, at place: Int, of entity: String) {
        let rules = validationRules(of: attribute)
        var fields = propertyFields(attribute, of: entity, isReadOnly: attribute.isDerived, hasValidationRules: !rules.isEmpty)
        if !rules.isEmpty {
            fields["NSValidationPredicates"] = array(rules.map(\.predicate), mutable: true)
            fields["NSValidationWarnings"] = array(rules.map { writer.plain(.integer($0.warning)) }, mutable: true)
        }
        fields["NSAttributeType"] = .integer(Int64(attribute.type.code))
        fields["NSAttributeValueClassName"] = string(valueClassName(of: attribute))
        fields["NSValueTransformerName"] = string(attribute.valueTransformerName)
        fields["NSDefaultValue"] = defaultValue(of: attribute)
        // Preserve-after-deletion is bit 0x10 (the one attribute of the corpus marked so); no
        // other bit of NSFlagsKey is known.
        fields["NSFlagsKey"] = .integer(attribute.preservesValueInHistoryOnDeletion ? 0x10 : 0)
        if attribute.isIndexed { fields["NSIsIndexed"] = .bool(true) }
        // No corpus attribute allows external storage: its key is the one the decoder reads,
        // NSAllowsExternalBinaryDataStorage (inferred from Core Data's property name).
        if attribute.allowsExternalBinaryDataStorage { fields["NSAllowsExternalBinaryDataStorage"] = .bool(true) }
        if attribute.isDerived {
            fields["NSDerivationExpression"] = (try? attribute.derivation)?.map { derivationExpression($0) } ?? KeyedArchiveWriter.null
            fields["NSFilteringPredicate"] = KeyedArchiveWriter.null
            writer.fill(place, className: "NSDerivedAttributeDescription", superclasses: ["NSAttributeDescription", "NSPropertyDescription"], fields: fields)
        } else {
            writer.fill(place, className: "NSAttributeDescription", superclasses: ["NSPropertyDescription"], fields: fields)
        }
    }

    /// The class of the attribute's values, as Core Data names it: confirmed in the corpus
    /// caches for every type but Float and Binary (NSNumber and NSData, inferred); a
    /// Transformable's is its custom class, when it names one.
    private func valueClassName(of attribute: AttributeDescription) -> String? {
        switch attribute.type {
        case .integer16, .integer32, .integer64, .double, .float, .boolean: "NSNumber"
        case .decimal: "NSDecimalNumber"
        case .string: "NSString"
        case .date: "NSDate"
        case .binary: "NSData"
        case .uuid: "NSUUID"
        case .uri: "NSURL"
        case .transformable: attribute.customClassName
        case .undefined, .objectID, .composite: nil
        }
    }

    /// The default value as an archived object: numbers, booleans and strings as they are (the
    /// corpus caches show integers, `false` and strings); a date as `NSDate` with `NS.time`, a
    /// UUID as `NSUUID` with `NS.uuidbytes` and a URI as `NSURL` with `NS.relative`, the forms
    /// Foundation's archiver gives those classes (no cache shows one). A Decimal's default is
    /// left out: `NSDecimalNumber`'s archived form is not shown by any cache either, and a wrong
    /// guess would be worse than none.
    private mutating func defaultValue(of attribute: AttributeDescription) -> PropertyListValue {
        switch attribute.defaultAttributeValue {
        case .integer(let value)?: writer.plain(.integer(value))
        case .double(let value)?: writer.plain(.real(value))
        case .boolean(let value)?: writer.plain(.bool(value))
        case .string(let value)?: writer.plain(.string(value))
        case .binary(let value)?: writer.plain(.data(value))
        case .date(let value)?: writer.date(value)
        case .uuid(let value)?: writer.uuid(value)
        case .uri(let value)?: object("NSURL", [], ["NS.base": KeyedArchiveWriter.null, "NS.relative": writer.plain(.string(value.absoluteString))])
        case .decimal?, nil: KeyedArchiveWriter.null
        }
    }

    // MARK: - Derivations

    /// A derivation as the `NSExpression` Core Data archives: a key path is an
    /// `NSKeyPathExpression` on `self`, a function an `NSFunctionExpression` whose operand is
    /// the constant `_NSPredicateUtilities` (SampleModel2's `count:(pages)`). The selector of a
    /// key path through a relationship, `valueForKeyPath:`, is inferred: the corpus shows only
    /// single keys (`valueForKey:`).
    mutating func derivationExpression(_ derivation: Derivation) -> PropertyListValue {
        switch derivation {
        case .now:
            return writer.functionExpression("now", arguments: [])
        case .value(let relationship, let attribute, let stringFunction):
            let path = writer.keyPathExpression(relationship.map { "\($0).\(attribute)" } ?? attribute)
            return stringFunction.map { writer.functionExpression("\($0.rawValue):", arguments: [path]) } ?? path
        case .aggregate(let relationship, let aggregate, let attribute):
            return writer.functionExpression(
                aggregate.coreDataName, arguments: [writer.keyPathExpression(attribute.map { "\(relationship).\($0)" } ?? relationship)])
        }
    }

    // MARK: - Relationships

    mutating func encode(_ relationship: RelationshipDescription, at place: Int, of entity: String) {
        var fields = propertyFields(relationship, of: entity)
        let destination = relationship.destinationEntityName
        // The inverse is the destination's own object of that name (its copy, when the
        // destination inherits the inverse), as in SampleModel2's cache.
        let inverse = relationship.inverseName.flatMap { propertyPlaces[destination]?[$0] }
        fields["NSDestinationEntity"] = entityPlaces[destination].map(reference) ?? KeyedArchiveWriter.null
        fields["_NSDestinationEntityName"] = writer.plain(.string(destination))
        fields["NSInverseRelationship"] = inverse.map(reference) ?? KeyedArchiveWriter.null
        fields["_NSInverseRelationshipName"] = string(relationship.inverseName)
        fields["NSDeleteRule"] = .integer(relationship.deleteRule.code)
        fields["NSMinCount"] = .integer(Int64(Int32(truncatingIfNeeded: relationship.minCount)))
        // An unbounded to-many stays 0 as Xcode writes it; a count of UInt32.max is archived
        // as -1, as SampleModel2's cache (built in code) has it.
        fields["NSMaxCount"] = .integer(Int64(Int32(truncatingIfNeeded: relationship.maxCount)))
        // No relationship of the corpus caches is ordered: the key is inferred from Core
        // Data's property name, and is the one the decoder reads.
        if relationship.isOrdered { fields["NSIsOrdered"] = .bool(true) }
        writer.fill(place, className: "NSRelationshipDescription", superclasses: ["NSPropertyDescription"], fields: fields)
    }

    // MARK: - Fetched properties

    mutating func encode(_ fetched: FetchedPropertyDescription, at place: Int, of entity: String) {
        // A fetched property is transient and read-only in Core Data whatever the model says
        // (every one of the corpus caches is).
        var fields = propertyFields(
            name: fetched.name, isOptional: fetched.isOptional, isTransient: true, isReadOnly: true, userInfo: fetched.userInfo,
            renamingIdentifier: nil, versionHashModifier: nil, of: entity)
        fields["_NSFetchRequestEntityName"] = writer.plain(.string(fetched.fetchRequest.entityName))
        fields["NSFetchRequest"] = fetchRequest(fetched.fetchRequest)
        writer.fill(place, className: "NSFetchedPropertyDescription", superclasses: ["NSPropertyDescription"], fields: fields)
    }

    /// An `NSFetchRequest` with the keys of the corpus caches' ones. Its predicate is archived
    /// by the encoder's ``PredicateArchiver``; without one, or for text it cannot archive, it
    /// is `$null`, and Strata's copy of the model in the metadata keeps the predicate.
    /// `NSFetchRequestFlags` is 30 in every cache, meaning unknown.
    mutating func fetchRequest(_ request: FetchRequestTemplate) -> PropertyListValue {
        let predicate = request.predicate.flatMap { text in predicates?.archived(text, into: &writer) }
        return object("NSFetchRequest", ["NSPersistentStoreRequest"], [
            "NSEntity": entityPlaces[request.entityName].map(reference) ?? KeyedArchiveWriter.null,
            "NSPredicate": predicate ?? KeyedArchiveWriter.null,
            "NSSortDescriptors": KeyedArchiveWriter.null,
            "NSValuesToFetch": KeyedArchiveWriter.null,
            "NSValuesToGroupBy": KeyedArchiveWriter.null,
            "NSHavingPredicate": KeyedArchiveWriter.null,
            "NSRelationshipKeyPathsForPrefetching": KeyedArchiveWriter.null,
            "NSHasFetchRequestFlags": .bool(true),
            "NSFetchRequestFlags": .integer(30),
            "NSResultType": .integer(Int64(request.resultType.rawValue)),
            "NSFetchOffset": .integer(Int64(request.fetchOffset ?? 0)),
            "NSFetchLimit": .integer(Int64(request.fetchLimit ?? 0)),
            "NSBatchSize": .integer(Int64(request.fetchBatchSize ?? 0)),
            "NSAllocationType": .integer(0),
        ])
    }
}
