import Foundation

/// Reads the `contents` XML that Xcode writes inside an `.xcdatamodel` folder.
///
/// Syntax errors and content a model cannot hold (an unknown attribute type, a count that is
/// not a number) are ``ModelError``s naming the file, line and column. Settings Xcode writes
/// that Strata gives no meaning are kept in the descriptions' `xcodeSettings`, so that a model
/// written back by ``XcodeModelWriter`` loses nothing but the diagram layout (`<elements>`),
/// which Xcode lays out anew.
public enum XcodeModelReader {
    /// Reads the model in the `contents` file at `url`.
    ///
    /// - Throws: ``ModelError/unreadable(path:reason:)`` when the file is missing or cannot be
    ///   read; ``ModelError/malformed(path:location:message:)`` for text that does not parse and
    ///   ``ModelError/invalidContent(path:location:message:)`` for content a model cannot hold, each
    ///   with the line and column.
    public static func read(contentsOf url: URL) throws(ModelError) -> ObjectModel {
        try read(readModelFile(at: url), path: url.path)
    }

    /// Reads a model from `contents` XML; `path` names the file in errors.
    ///
    /// - Throws: ``ModelError/malformed(path:location:message:)`` for text that does not parse and
    ///   ``ModelError/invalidContent(path:location:message:)`` for content a model cannot hold, each
    ///   with the line and column.
    public static func read(_ data: Data, path: String) throws(ModelError) -> ObjectModel {
        let root: XMLTreeElement
        do {
            root = try XMLTreeReader.parse(data)
        } catch {
            throw .malformed(path: path, location: error.location, message: error.message)
        }
        guard root.name == "model" else {
            throw .invalidContent(
                path: path, location: root.location,
                message: "expected a <model> root element, found <\(root.name)>")
        }
        return try ModelElementReader(path: path).model(from: root)
    }
}

/// Turns the elements of a model file into descriptions, reporting the file and line of
/// anything it cannot read.
private struct ModelElementReader {
    let path: String

    func model(from root: XMLTreeElement) throws(ModelError) -> ObjectModel {
        var entities: [EntityDescription] = []
        for element in root.children(named: "entity") { entities.append(try entity(from: element)) }
        var model = ObjectModel(entities: entities)
        model.versionIdentifier = root.attributes["userDefinedModelVersionIdentifier"] ?? ""
        model.xcodeSettings = root.attributes.filter { $0.key != "userDefinedModelVersionIdentifier" }
        for element in root.children(named: "fetchRequest") {
            model.fetchRequestTemplates.append(try fetchRequest(from: element))
        }
        for element in root.children(named: "composite") {
            var attributes: [AttributeDescription] = []
            for child in element.children(named: "attribute") {
                attributes.append(try attribute(from: child, owner: "composite '\(element.attributes["name"] ?? "?")'"))
            }
            model.composites.append(CompositeDescription(name: try required("name", of: element), attributes: attributes))
        }
        for element in root.children(named: "configuration") {
            var configuration = ModelConfiguration(
                name: try required("name", of: element),
                entityNames: try element.children(named: "memberEntity").map { member throws(ModelError) in
                    try required("name", of: member)
                })
            configuration.isUsedWithCloudKit = flag("usedWithCloudKit", of: element)
            model.configurations.append(configuration)
        }
        return model
    }

    // MARK: - Entities

    private static let entityKeys: Set = ["name", "representedClassName", "parentEntity", "isAbstract", "elementID", "versionHashModifier"]

    private func entity(from element: XMLTreeElement) throws(ModelError) -> EntityDescription {
        var entity = EntityDescription(name: try required("name", of: element))
        entity.className = element.attributes["representedClassName"]
        entity.superentityName = element.attributes["parentEntity"]
        entity.isAbstract = flag("isAbstract", of: element)
        entity.renamingIdentifier = element.attributes["elementID"]
        entity.versionHashModifier = element.attributes["versionHashModifier"]
        entity.xcodeSettings = element.attributes.filter { !Self.entityKeys.contains($0.key) }
        entity.userInfo = userInfo(of: element)
        for child in element.children {
            switch child.name {
            case "attribute": entity.attributes.append(try attribute(from: child, owner: "entity '\(entity.name)'"))
            case "relationship": entity.relationships.append(try relationship(from: child))
            case "fetchedProperty": entity.fetchedProperties.append(try fetchedProperty(from: child))
            case "uniquenessConstraints":
                for constraint in child.children(named: "uniquenessConstraint") {
                    entity.uniquenessConstraints.append(try values(of: constraint, childName: "constraint"))
                }
            case "compoundIndexes":
                for index in child.children(named: "compoundIndex") {
                    entity.compoundIndexes.append(try values(of: index, childName: "index"))
                }
            case "fetchIndex": entity.fetchIndexes.append(try fetchIndex(from: child))
            default: continue
            }
        }
        return entity
    }

    private func fetchIndex(from element: XMLTreeElement) throws(ModelError) -> FetchIndexDescription {
        var elements: [FetchIndexDescription.Element] = []
        for child in element.children(named: "fetchIndexElement") {
            let kind = child.attributes["type"] ?? "Binary"
            let isAscending = child.attributes["order"]?.lowercased() != "descending"
            if let expression = child.attributes["expression"] {
                elements.append(
                    FetchIndexDescription.Element(
                        expression: expression, expressionType: child.attributes["expressionType"] ?? "",
                        kind: kind, isAscending: isAscending))
            } else {
                elements.append(
                    FetchIndexDescription.Element(property: try required("property", of: child), kind: kind, isAscending: isAscending))
            }
        }
        return FetchIndexDescription(name: try required("name", of: element), elements: elements)
    }

    // MARK: - Properties

    private static let propertyKeys: Set = ["name", "optional", "transient", "elementID", "versionHashModifier"]

    /// Reads what every property has, and keeps as Xcode settings the XML attributes that
    /// neither this nor the property kind's reader (`kindKeys`) knows.
    private func readPropertySettings<Property: PropertyDescription>(
        of property: inout Property, from element: XMLTreeElement, kindKeys: Set<String>
    ) {
        property.isOptional = flag("optional", of: element)
        property.isTransient = flag("transient", of: element)
        property.renamingIdentifier = element.attributes["elementID"]
        property.versionHashModifier = element.attributes["versionHashModifier"]
        property.userInfo = userInfo(of: element)
        property.xcodeSettings = element.attributes.filter {
            !Self.propertyKeys.contains($0.key) && !kindKeys.contains($0.key)
        }
    }

    private static let attributeKeys: Set = [
        "attributeType", "indexed", "defaultValueString",
        "defaultDateTimeInterval", "minValueString", "maxValueString", "minDateTimeInterval",
        "maxDateTimeInterval", "regularExpressionString", "derived", "derivationExpression",
        "allowsExternalBinaryDataStorage", "preserveAfterDeletion", "valueTransformerName",
        "customClassName", "composite",
    ]

    /// The attribute `element` describes; `owner` names its entity or composite in errors.
    private func attribute(from element: XMLTreeElement, owner: String) throws(ModelError) -> AttributeDescription {
        let name = try required("name", of: element)
        let typeName = element.attributes["attributeType"] ?? AttributeType.undefined.rawValue
        guard let type = AttributeType(rawValue: typeName) else {
            throw .invalidContent(
                path: path, location: element.location,
                message: "attribute '\(name)' has an unknown attributeType '\(typeName)'; known: "
                    + AttributeType.allCases.map(\.rawValue).joined(separator: ", "))
        }
        var attribute = AttributeDescription(name: name, type: type)
        readPropertySettings(of: &attribute, from: element, kindKeys: Self.attributeKeys)
        let attributes = element.attributes
        attribute.isIndexed = flag("indexed", of: element)
        // A date's value is its `…DateTimeInterval`; Xcode may write the `…ValueString` beside it
        // as the date it showed ("12/4/2013"), which is kept as written but not read.
        for (valueKey, textKey, intervalKey) in [
            (\AttributeDescription.defaultValue, "defaultValueString", "defaultDateTimeInterval"),
            (\.minValue, "minValueString", "minDateTimeInterval"), (\.maxValue, "maxValueString", "maxDateTimeInterval"),
        ] {
            if type == .date, let interval = attributes[intervalKey] {
                attribute[keyPath: valueKey] = interval
                if let text = attributes[textKey] { attribute.xcodeSettings[textKey] = text }
            } else {
                attribute[keyPath: valueKey] = attributes[textKey] ?? attributes[intervalKey]
            }
        }
        attribute.regularExpression = attributes["regularExpressionString"]
        attribute.isDerived = flag("derived", of: element)
        attribute.derivationExpression = attributes["derivationExpression"]
        attribute.allowsExternalBinaryDataStorage = flag("allowsExternalBinaryDataStorage", of: element)
        attribute.preservesValueInHistoryOnDeletion = flag("preserveAfterDeletion", of: element)
        attribute.valueTransformerName = attributes["valueTransformerName"]
        attribute.customClassName = attributes["customClassName"]
        attribute.compositeName = attributes["composite"]
        // Refused here rather than only by validation, so that the error names the line.
        if let (_, message) = attribute.firstValueError() {
            throw .invalidContent(path: path, location: element.location, message: "\(owner), attribute '\(name)': \(message)")
        }
        return attribute
    }

    private static let relationshipKeys: Set = [
        "destinationEntity", "inverseName", "inverseEntity", "toMany", "ordered", "minCount", "maxCount", "deletionRule",
    ]

    private func relationship(from element: XMLTreeElement) throws(ModelError) -> RelationshipDescription {
        let name = try required("name", of: element)
        var relationship = RelationshipDescription(
            name: name, destination: try required("destinationEntity", of: element),
            isToMany: flag("toMany", of: element))
        let attributes = element.attributes
        relationship.inverseName = attributes["inverseName"]
        relationship.inverseEntityName = attributes["inverseEntity"]
        relationship.isOrdered = flag("ordered", of: element)
        relationship.minCount = try integer("minCount", of: element) ?? 0
        relationship.maxCount = try integer("maxCount", of: element) ?? (relationship.isToMany ? 0 : 1)
        if let ruleName = attributes["deletionRule"] {
            guard let rule = DeleteRule(rawValue: ruleName) else {
                throw .invalidContent(
                    path: path, location: element.location,
                    message: "relationship '\(name)' has an unknown deletionRule '\(ruleName)'; known: "
                        + DeleteRule.allCases.map(\.rawValue).joined(separator: ", "))
            }
            relationship.deleteRule = rule
        }
        readPropertySettings(of: &relationship, from: element, kindKeys: Self.relationshipKeys)
        return relationship
    }

    private func fetchedProperty(from element: XMLTreeElement) throws(ModelError) -> FetchedPropertyDescription {
        let name = try required("name", of: element)
        guard let request = element.firstChild(named: "fetchRequest") else {
            throw .invalidContent(
                path: path, location: element.location, message: "fetched property '\(name)' has no <fetchRequest>")
        }
        var property = FetchedPropertyDescription(name: name, fetchRequest: try fetchRequest(from: request))
        property.isOptional = flag("optional", of: element)
        property.userInfo = userInfo(of: element)
        property.xcodeSettings = element.attributes.filter { $0.key != "name" && $0.key != "optional" }
        return property
    }

    // MARK: - Fetch requests

    private static let fetchRequestKeys: Set = [
        "name", "entity", "predicateString", "resultType", "fetchLimit", "fetchOffset", "fetchBatchSize",
        "returnDistinctResults", "includeSubentities", "includePropertyValues", "includesPendingChanges",
        "returnObjectsAsFaults",
    ]

    private func fetchRequest(from element: XMLTreeElement) throws(ModelError) -> FetchRequestTemplate {
        let name = try required("name", of: element)
        var request = FetchRequestTemplate(
            name: name, entityName: try required("entity", of: element),
            predicate: element.attributes["predicateString"])
        if let code = try integer("resultType", of: element) {
            guard let resultType = FetchRequestTemplate.ResultType(rawValue: code) else {
                throw .invalidContent(
                    path: path, location: element.location,
                    message: "fetch request '\(name)' has an unknown resultType \(code); known: 0, 1, 2, 4")
            }
            request.resultType = resultType
        }
        request.fetchLimit = try integer("fetchLimit", of: element)
        request.fetchOffset = try integer("fetchOffset", of: element)
        request.fetchBatchSize = try integer("fetchBatchSize", of: element)
        request.returnsDistinctResults = optionalFlag("returnDistinctResults", of: element)
        request.includesSubentities = optionalFlag("includeSubentities", of: element)
        request.includesPropertyValues = optionalFlag("includePropertyValues", of: element)
        request.includesPendingChanges = optionalFlag("includesPendingChanges", of: element)
        request.returnsObjectsAsFaults = optionalFlag("returnObjectsAsFaults", of: element)
        request.xcodeSettings = element.attributes.filter { !Self.fetchRequestKeys.contains($0.key) }
        return request
    }

    // MARK: - Values

    private func required(_ key: String, of element: XMLTreeElement) throws(ModelError) -> String {
        guard let value = element.attributes[key], !value.isEmpty else {
            throw .invalidContent(path: path, location: element.location, message: "<\(element.name)> has no '\(key)'")
        }
        return value
    }

    private func flag(_ key: String, of element: XMLTreeElement) -> Bool {
        optionalFlag(key, of: element) ?? false
    }

    private func optionalFlag(_ key: String, of element: XMLTreeElement) -> Bool? {
        element.attributes[key].map(ObjectModel.isYes)
    }

    private func integer(_ key: String, of element: XMLTreeElement) throws(ModelError) -> Int? {
        guard let text = element.attributes[key] else { return nil }
        guard let value = Int(text) else {
            throw .invalidContent(
                path: path, location: element.location,
                message: "<\(element.name) \(element.attributes["name"].map { "name=\"\($0)\" " } ?? "")> has \(key)=\"\(text)\", which is not a whole number")
        }
        return value
    }

    private func values(of element: XMLTreeElement, childName: String) throws(ModelError) -> [String] {
        var values: [String] = []
        for child in element.children(named: childName) { values.append(try required("value", of: child)) }
        return values
    }

    private func userInfo(of element: XMLTreeElement) -> [String: String] {
        var userInfo: [String: String] = [:]
        for entry in element.firstChild(named: "userInfo")?.children(named: "entry") ?? [] {
            if let key = entry.attributes["key"] { userInfo[key] = entry.attributes["value"] ?? "" }
        }
        return userInfo
    }
}
