import Foundation

/// Writes a model as the `contents` XML of an `.xcdatamodel` folder, in the shape Xcode writes
/// it, so that Xcode opens the result and ``XcodeModelReader`` reads back an equal model.
public enum XcodeModelWriter {
    /// The `contents` XML of `model`.
    public static func contents(of model: ObjectModel) -> String {
        var writer = XMLWriter()
        // Xcode expects these on the root; a model that was not read from Xcode (it has no
        // `type`) gets Xcode's defaults, while one read from Xcode keeps exactly what it had.
        let xcodeDefaults = [
            "type": "com.apple.IDECoreDataModeler.DataModel", "documentVersion": "1.0",
            "minimumToolsVersion": "Automatic", "sourceLanguage": "Swift",
        ]
        let rootSettings = model.xcodeSettings["type"] == nil
            ? xcodeDefaults.merging(model.xcodeSettings) { $1 } : model.xcodeSettings
        let modelAttributes = [("userDefinedModelVersionIdentifier", model.versionIdentifier)] + sortedSettings(rootSettings)
        writer.element("model", modelAttributes) { writer in
            for entity in model.entities { write(entity, to: &writer) }
            for request in model.fetchRequestTemplates { write(request, to: &writer) }
            for composite in model.composites {
                writer.element("composite", [("name", composite.name)]) { writer in
                    for attribute in composite.attributes { write(attribute, to: &writer) }
                }
            }
            for configuration in model.configurations {
                writer.element(
                    "configuration",
                    [("name", configuration.name), ("usedWithCloudKit", configuration.isUsedWithCloudKit ? "YES" : nil)]
                ) { writer in
                    for name in configuration.entityNames { writer.element("memberEntity", [("name", name)]) }
                }
            }
        }
        return writer.text
    }

    /// Writes `model` as a `.xcdatamodel` folder at `url` (created if needed) holding `contents`.
    ///
    /// - Throws: the file system's error when the folder cannot be made or the file written.
    public static func write(_ model: ObjectModel, toModelFolder url: URL) throws {
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        try Data(contents(of: model).utf8).write(to: url.appendingPathComponent("contents"), options: .atomic)
    }

    // MARK: - Elements

    private static func write(_ entity: EntityDescription, to writer: inout XMLWriter) {
        let attributes: [(String, String?)] = [
            ("name", entity.name),
            ("representedClassName", entity.className),
            ("parentEntity", entity.superentityName),
            ("isAbstract", yes(entity.isAbstract)),
            ("elementID", entity.renamingIdentifier),
            ("versionHashModifier", entity.versionHashModifier),
        ] + sortedSettings(entity.xcodeSettings)
        writer.element("entity", attributes) { writer in
            for attribute in entity.attributes { write(attribute, to: &writer) }
            for relationship in entity.relationships { write(relationship, to: &writer) }
            for property in entity.fetchedProperties {
                let attributes = [("name", property.name), ("optional", yes(property.isOptional))]
                    + sortedSettings(property.xcodeSettings)
                writer.element("fetchedProperty", attributes) { writer in
                    write(property.fetchRequest, to: &writer)
                    writeUserInfo(property.userInfo, to: &writer)
                }
            }
            for index in entity.fetchIndexes {
                writer.element("fetchIndex", [("name", index.name)]) { writer in
                    for element in index.elements {
                        let target: [(String, String?)] = element.expressionType.map {
                            [("expression", element.property), ("expressionType", $0)]
                        } ?? [("property", element.property)]
                        writer.element(
                            "fetchIndexElement",
                            target + [("type", element.kind), ("order", element.isAscending ? "ascending" : "descending")])
                    }
                }
            }
            writeValueLists(entity.compoundIndexes, group: "compoundIndexes", item: "compoundIndex", value: "index", to: &writer)
            writeValueLists(
                entity.uniquenessConstraints, group: "uniquenessConstraints", item: "uniquenessConstraint",
                value: "constraint", to: &writer)
            writeUserInfo(entity.userInfo, to: &writer)
        }
    }

    private static func write(_ attribute: AttributeDescription, to writer: inout XMLWriter) {
        let isDate = attribute.type == .date
        let attributes = propertyAttributes(attribute, [
            ("indexed", yes(attribute.isIndexed)),
            ("attributeType", attribute.type.rawValue),
            (isDate ? "minDateTimeInterval" : "minValueString", attribute.minValue),
            (isDate ? "maxDateTimeInterval" : "maxValueString", attribute.maxValue),
            ("regularExpressionString", attribute.regularExpression),
            (isDate ? "defaultDateTimeInterval" : "defaultValueString", attribute.defaultValue),
            ("derived", yes(attribute.isDerived)),
            ("derivationExpression", attribute.derivationExpression),
            ("allowsExternalBinaryDataStorage", yes(attribute.allowsExternalBinaryDataStorage)),
            ("preserveAfterDeletion", yes(attribute.preservesValueInHistoryOnDeletion)),
            ("valueTransformerName", attribute.valueTransformerName),
            ("customClassName", attribute.customClassName),
            ("composite", attribute.compositeName),
        ])
        writer.element("attribute", attributes, body: bodyWritingUserInfo(attribute.userInfo))
    }

    private static func write(_ relationship: RelationshipDescription, to writer: inout XMLWriter) {
        let writesMaxCount = !relationship.isToMany || relationship.maxCount != 0
        let attributes = propertyAttributes(relationship, [
            ("toMany", yes(relationship.isToMany)),
            ("minCount", relationship.minCount != 0 ? String(relationship.minCount) : nil),
            ("maxCount", writesMaxCount ? String(relationship.maxCount) : nil),
            ("deletionRule", relationship.deleteRule.rawValue),
            ("ordered", yes(relationship.isOrdered)),
            ("destinationEntity", relationship.destinationEntityName),
            ("inverseName", relationship.inverseName),
            ("inverseEntity", relationship.inverseEntityName),
        ])
        writer.element("relationship", attributes, body: bodyWritingUserInfo(relationship.userInfo))
    }

    /// A property element's XML attributes in Xcode's order: what every property has around
    /// what only its kind has (`specific`), then the kept Xcode settings.
    private static func propertyAttributes<Property: PropertyDescription>(
        _ property: Property, _ specific: [(String, String?)]
    ) -> [(String, String?)] {
        [("name", property.name), ("optional", yes(property.isOptional)), ("transient", yes(property.isTransient))]
            + specific
            + [("elementID", property.renamingIdentifier), ("versionHashModifier", property.versionHashModifier)]
            + sortedSettings(property.xcodeSettings)
    }

    private static func write(_ request: FetchRequestTemplate, to writer: inout XMLWriter) {
        let attributes: [(String, String?)] = [
            ("name", request.name),
            ("entity", request.entityName),
            ("predicateString", request.predicate),
            ("resultType", request.resultType == .managedObject ? nil : String(request.resultType.rawValue)),
            ("fetchLimit", request.fetchLimit.map(String.init)),
            ("fetchOffset", request.fetchOffset.map(String.init)),
            ("fetchBatchSize", request.fetchBatchSize.map(String.init)),
            ("includeSubentities", request.includesSubentities.map(yesNo)),
            ("includePropertyValues", request.includesPropertyValues.map(yesNo)),
            ("includesPendingChanges", request.includesPendingChanges.map(yesNo)),
            ("returnObjectsAsFaults", request.returnsObjectsAsFaults.map(yesNo)),
            ("returnDistinctResults", request.returnsDistinctResults.map(yesNo)),
        ] + sortedSettings(request.xcodeSettings)
        writer.element("fetchRequest", attributes)
    }

    // MARK: - Helpers

    private static func writeValueLists(
        _ lists: [[String]], group: String, item: String, value: String, to writer: inout XMLWriter
    ) {
        guard !lists.isEmpty else { return }
        writer.element(group) { writer in
            for list in lists {
                writer.element(item) { writer in
                    for name in list { writer.element(value, [("value", name)]) }
                }
            }
        }
    }

    private static func bodyWritingUserInfo(_ userInfo: [String: String]) -> ((inout XMLWriter) -> Void)? {
        userInfo.isEmpty ? nil : { writer in writeUserInfo(userInfo, to: &writer) }
    }

    private static func writeUserInfo(_ userInfo: [String: String], to writer: inout XMLWriter) {
        guard !userInfo.isEmpty else { return }
        writer.element("userInfo") { writer in
            for (key, value) in userInfo.sorted(by: { $0.key < $1.key }) {
                writer.element("entry", [("key", key), ("value", value)])
            }
        }
    }

    private static func sortedSettings(_ settings: [String: String]) -> [(String, String?)] {
        settings.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    private static func yes(_ flag: Bool) -> String? { flag ? "YES" : nil }

    private static func yesNo(_ flag: Bool) -> String { flag ? "YES" : "NO" }
}
