import Foundation

/// Writes a model in Strata's JSON model format, which ``JSONModelReader`` reads back into an
/// equal model. Settings at their default value are left out.
public enum JSONModelWriter {
    /// The model as a JSON document.
    public static func document(for model: ObjectModel) -> JSONValue {
        .object([
            "strataModelFormat": .number(JSONModelReader.formatVersion),
            "versionIdentifier": model.versionIdentifier.isEmpty ? nil : .string(model.versionIdentifier),
            "entities": .array(model.entities.map(entity)),
            "fetchRequests": nonEmpty(model.fetchRequestTemplates.map(fetchRequest)),
            "composites": nonEmpty(
                model.composites.map { composite in
                    .object(["name": .string(composite.name), "attributes": .array(composite.attributes.map(attribute))])
                }),
            "configurations": nonEmpty(
                model.configurations.map { configuration in
                    .object([
                        "name": .string(configuration.name),
                        "entities": .array(configuration.entityNames.map(JSONValue.string)),
                        "cloudKit": configuration.isUsedWithCloudKit ? .bool(true) : nil,
                    ])
                }),
            "xcode": dictionary(model.xcodeSettings),
        ])
    }

    /// The model as pretty-printed JSON text, ending with a newline.
    public static func string(for model: ObjectModel) -> String {
        JSONWriter.string(from: document(for: model)) + "\n"
    }

    // MARK: - Parts

    private static func entity(_ entity: EntityDescription) -> JSONValue {
        .object([
            "name": .string(entity.name),
            "className": entity.className.map(JSONValue.string),
            "parent": entity.superentityName.map(JSONValue.string),
            "abstract": entity.isAbstract ? .bool(true) : nil,
            "attributes": nonEmpty(entity.attributes.map(attribute)),
            "relationships": nonEmpty(entity.relationships.map(relationship)),
            "fetchedProperties": nonEmpty(
                entity.fetchedProperties.map { property in
                    .object([
                        "name": .string(property.name),
                        "optional": .bool(property.isOptional),
                        "fetchRequest": fetchRequest(property.fetchRequest),
                        "userInfo": dictionary(property.userInfo),
                        "xcode": dictionary(property.xcodeSettings),
                    ])
                }),
            "uniquenessConstraints": nonEmpty(entity.uniquenessConstraints.map(stringArray)),
            "fetchIndexes": nonEmpty(
                entity.fetchIndexes.map { index in
                    .object([
                        "name": .string(index.name),
                        "elements": .array(
                            index.elements.map { element in
                                .object([
                                    element.expressionType == nil ? "property" : "expression": .string(element.property),
                                    "expressionType": element.expressionType.map(JSONValue.string),
                                    "kind": element.kind == "Binary" ? nil : .string(element.kind),
                                    "ascending": element.isAscending ? nil : .bool(false),
                                ])
                            }),
                    ])
                }),
            "compoundIndexes": nonEmpty(entity.compoundIndexes.map(stringArray)),
            "userInfo": dictionary(entity.userInfo),
            "renamingIdentifier": entity.renamingIdentifier.map(JSONValue.string),
            "versionHashModifier": entity.versionHashModifier.map(JSONValue.string),
            "xcode": dictionary(entity.xcodeSettings),
        ])
    }

    private static func attribute(_ attribute: AttributeDescription) -> JSONValue {
        let valueText = { (text: String?) in text.map { modelText($0, type: attribute.type) } }
        return propertyObject(attribute, [
            "type": .string(attribute.type.jsonName),
            "indexed": attribute.isIndexed ? .bool(true) : nil,
            "default": valueText(attribute.defaultValue),
            "min": valueText(attribute.minValue),
            "max": valueText(attribute.maxValue),
            "regularExpression": attribute.regularExpression.map(JSONValue.string),
            "derived": attribute.isDerived ? .bool(true) : nil,
            "derivationExpression": attribute.derivationExpression.map(JSONValue.string),
            "externalBinaryStorage": attribute.allowsExternalBinaryDataStorage ? .bool(true) : nil,
            "preserveAfterDeletion": attribute.preservesValueInHistoryOnDeletion ? .bool(true) : nil,
            "valueTransformer": attribute.valueTransformerName.map(JSONValue.string),
            "customClassName": attribute.customClassName.map(JSONValue.string),
            "composite": attribute.compositeName.map(JSONValue.string),
        ])
    }

    private static func relationship(_ relationship: RelationshipDescription) -> JSONValue {
        propertyObject(relationship, [
            "destination": .string(relationship.destinationEntityName),
            "inverse": relationship.inverseName.map(JSONValue.string),
            "inverseEntity": relationship.inverseEntityName.map(JSONValue.string),
            "toMany": .bool(relationship.isToMany),
            "ordered": relationship.isOrdered ? .bool(true) : nil,
            "minCount": relationship.minCount != 0 ? .number(relationship.minCount) : nil,
            "maxCount": relationship.maxCount != (relationship.isToMany ? 0 : 1) ? .number(relationship.maxCount) : nil,
            "deleteRule": .string(relationship.deleteRule.jsonName),
        ])
    }

    /// A property's object: its name, the members only its kind has, then the settings every
    /// property has.
    private static func propertyObject<Property: PropertyDescription>(
        _ property: Property, _ specific: KeyValuePairs<String, JSONValue?>
    ) -> JSONValue {
        let common: KeyValuePairs<String, JSONValue?> = [
            "optional": .bool(property.isOptional),
            "transient": property.isTransient ? .bool(true) : nil,
            "userInfo": dictionary(property.userInfo),
            "renamingIdentifier": property.renamingIdentifier.map(JSONValue.string),
            "versionHashModifier": property.versionHashModifier.map(JSONValue.string),
            "xcode": dictionary(property.xcodeSettings),
        ]
        return .object([JSONMember("name", .string(property.name))] + JSONValue.members(specific) + JSONValue.members(common))
    }

    private static func fetchRequest(_ request: FetchRequestTemplate) -> JSONValue {
        .object([
            "name": .string(request.name),
            "entity": .string(request.entityName),
            "predicate": request.predicate.map(JSONValue.string),
            "resultType": request.resultType == .managedObject ? nil : .string(request.resultType.jsonName),
            "fetchLimit": request.fetchLimit.map(JSONValue.number),
            "fetchOffset": request.fetchOffset.map(JSONValue.number),
            "fetchBatchSize": request.fetchBatchSize.map(JSONValue.number),
            "distinct": request.returnsDistinctResults.map(JSONValue.bool),
            "includesSubentities": request.includesSubentities.map(JSONValue.bool),
            "includesPropertyValues": request.includesPropertyValues.map(JSONValue.bool),
            "includesPendingChanges": request.includesPendingChanges.map(JSONValue.bool),
            "returnsObjectsAsFaults": request.returnsObjectsAsFaults.map(JSONValue.bool),
            "xcode": dictionary(request.xcodeSettings),
        ])
    }

    // MARK: - Values

    /// A value the model keeps as text, written as a JSON number or boolean where the text is
    /// exactly one, so that the file reads naturally and reads back to the same text.
    private static func modelText(_ text: String, type: AttributeType) -> JSONValue {
        if type == .boolean, text == "YES" || text == "NO" { return .bool(text == "YES") }
        if type.isNumeric || type == .date,
            (try? JSONReader.parse(Data(text.utf8)))?.kind.isNumber == true
        {
            return JSONValue(.number(text))
        }
        return .string(text)
    }

    private static func stringArray(_ strings: [String]) -> JSONValue {
        .array(strings.map(JSONValue.string))
    }

    private static func nonEmpty(_ values: [JSONValue]) -> JSONValue? {
        values.isEmpty ? nil : .array(values)
    }

    private static func dictionary(_ dictionary: [String: String]) -> JSONValue? {
        guard !dictionary.isEmpty else { return nil }
        return .object(dictionary.sorted { $0.key < $1.key }.map { JSONMember($0.key, .string($0.value)) })
    }
}

extension JSONValue.Kind {
    fileprivate var isNumber: Bool {
        if case .number = self { return true }
        return false
    }
}
