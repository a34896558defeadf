import Foundation

/// Reads Strata's JSON model format, for people who write models without Xcode.
///
/// The format is described in the README; ``JSONModelWriter`` writes it. Reading is strict:
/// a value of the wrong kind or an unknown key is a ``ModelError`` naming the line and column.
///
/// ```json
/// { "strataModelFormat": 1,
///   "entities": [ { "name": "Tag",
///                   "attributes": [ { "name": "name", "type": "string", "optional": false } ] } ] }
/// ```
public enum JSONModelReader {
    /// The version of the format that this reader reads and ``JSONModelWriter`` writes.
    public static let formatVersion = 1

    /// Reads the JSON model file at `url`.
    ///
    /// - Throws: ``ModelError/unreadable(path:reason:)`` when the file is missing or cannot be
    ///   read; ``ModelError/malformed(path:location:message:)`` for text that does not parse and
    ///   ``ModelError/invalidContent(path:location:message:)`` for content a model cannot hold, each
    ///   with the line and column.
    public static func read(contentsOf url: URL) throws(ModelError) -> ObjectModel {
        try read(readModelFile(at: url), path: url.path)
    }

    /// Reads a JSON model from `data`; `path` names the file in errors.
    ///
    /// - Throws: ``ModelError/malformed(path:location:message:)`` for text that does not parse and
    ///   ``ModelError/invalidContent(path:location:message:)`` for content a model cannot hold, each
    ///   with the line and column.
    public static func read(_ data: Data, path: String) throws(ModelError) -> ObjectModel {
        try read(data, path: path, compilesPatterns: true)
    }

    /// Reads a JSON model from `data`, compiling each attribute's regular expression only when
    /// `compilesPatterns`: the model a store records was checked when it was first read, and the
    /// first compilation in a process sets ICU's regular expressions up (about a millisecond of
    /// every command that opens a store). A pattern that does not compile still fails the values
    /// a save checks against it.
    static func read(_ data: Data, path: String, compilesPatterns: Bool) throws(ModelError) -> ObjectModel {
        let document: JSONValue
        do {
            document = try JSONReader.parse(data)
        } catch {
            throw .malformed(path: path, location: error.location, message: error.message)
        }
        var reader = try JSONObjectReader(document, path: path, context: "the model")
        if let version = try reader.integer("strataModelFormat"), version != formatVersion {
            throw reader.invalid(
                "strataModelFormat", "format version \(version) is not supported; this Strata reads version \(formatVersion)")
        }
        var entities: [EntityDescription] = []
        for (index, value) in try reader.array("entities").enumerated() {
            entities.append(try entity(from: value, path: path, index: index, compilesPatterns: compilesPatterns))
        }
        var model = ObjectModel(entities: entities)
        model.versionIdentifier = try reader.string("versionIdentifier") ?? ""
        for value in try reader.array("fetchRequests") {
            model.fetchRequestTemplates.append(try fetchRequest(from: value, path: path, context: "a fetch request"))
        }
        for value in try reader.array("composites") {
            var compositeReader = try JSONObjectReader(value, path: path, context: "a composite")
            let name = try compositeReader.requiredString("name")
            var attributes: [AttributeDescription] = []
            for element in try compositeReader.array("attributes") {
                attributes.append(try attribute(from: element, path: path, entity: "composite \(name)", compilesPatterns: compilesPatterns))
            }
            try compositeReader.finish()
            model.composites.append(CompositeDescription(name: name, attributes: attributes))
        }
        for value in try reader.array("configurations") {
            var configurationReader = try JSONObjectReader(value, path: path, context: "a configuration")
            var configuration = ModelConfiguration(
                name: try configurationReader.requiredString("name"),
                entityNames: try configurationReader.stringList("entities"))
            configuration.isUsedWithCloudKit = try configurationReader.bool("cloudKit") ?? false
            try configurationReader.finish()
            model.configurations.append(configuration)
        }
        model.xcodeSettings = try reader.stringDictionary("xcode")
        try reader.finish()
        return model
    }

    // MARK: - Entities

    private static func entity(
        from value: JSONValue, path: String, index: Int, compilesPatterns: Bool
    ) throws(ModelError) -> EntityDescription {
        let name = value["name"]?.stringValue ?? "#\(index + 1)"
        var reader = try JSONObjectReader(value, path: path, context: "entity '\(name)'")
        var entity = EntityDescription(name: try reader.requiredString("name"))
        entity.className = try reader.string("className")
        entity.superentityName = try reader.string("parent")
        entity.isAbstract = try reader.bool("abstract") ?? false
        for value in try reader.array("attributes") {
            entity.attributes.append(try attribute(from: value, path: path, entity: entity.name, compilesPatterns: compilesPatterns))
        }
        for value in try reader.array("relationships") {
            entity.relationships.append(try relationship(from: value, path: path, entity: entity.name))
        }
        for value in try reader.array("fetchedProperties") {
            let propertyName = value["name"]?.stringValue ?? "?"
            let context = "entity '\(entity.name)', fetched property '\(propertyName)'"
            var propertyReader = try JSONObjectReader(value, path: path, context: context)
            let name = try propertyReader.requiredString("name")
            guard let requestValue = propertyReader.value("fetchRequest") else {
                throw propertyReader.invalid("fetchRequest", "no \"fetchRequest\"")
            }
            var property = FetchedPropertyDescription(
                name: name, fetchRequest: try fetchRequest(from: requestValue, path: path, context: context + ", fetch request"))
            property.isOptional = try propertyReader.bool("optional") ?? true
            property.userInfo = try propertyReader.stringDictionary("userInfo")
            property.xcodeSettings = try propertyReader.stringDictionary("xcode")
            try propertyReader.finish()
            entity.fetchedProperties.append(property)
        }
        entity.uniquenessConstraints = try reader.stringLists("uniquenessConstraints")
        for value in try reader.array("fetchIndexes") {
            entity.fetchIndexes.append(try fetchIndex(from: value, path: path, entity: entity.name))
        }
        entity.compoundIndexes = try reader.stringLists("compoundIndexes")
        entity.userInfo = try reader.stringDictionary("userInfo")
        entity.renamingIdentifier = try reader.string("renamingIdentifier")
        entity.versionHashModifier = try reader.string("versionHashModifier")
        entity.xcodeSettings = try reader.stringDictionary("xcode")
        try reader.finish()
        return entity
    }

    private static func fetchIndex(from value: JSONValue, path: String, entity: String) throws(ModelError) -> FetchIndexDescription {
        var reader = try JSONObjectReader(value, path: path, context: "entity '\(entity)', a fetch index")
        let name = try reader.requiredString("name")
        var elements: [FetchIndexDescription.Element] = []
        for elementValue in try reader.array("elements") {
            var elementReader = try JSONObjectReader(
                elementValue, path: path, context: "entity '\(entity)', fetch index '\(name)'")
            let indexed: String
            if let expression = try elementReader.string("expression") {
                indexed = expression
            } else {
                indexed = try elementReader.requiredString("property")
            }
            var element = FetchIndexDescription.Element(
                property: indexed,
                kind: try elementReader.string("kind") ?? "Binary",
                isAscending: try elementReader.bool("ascending") ?? true)
            element.expressionType = try elementReader.string("expressionType")
            elements.append(element)
            try elementReader.finish()
        }
        try reader.finish()
        return FetchIndexDescription(name: name, elements: elements)
    }

    // MARK: - Properties

    private static func attribute(
        from value: JSONValue, path: String, entity: String, compilesPatterns: Bool
    ) throws(ModelError) -> AttributeDescription {
        let context = "entity '\(entity)', attribute '\(value["name"]?.stringValue ?? "?")'"
        var reader = try JSONObjectReader(value, path: path, context: context)
        let name = try reader.requiredString("name")
        let typeName = try reader.requiredString("type")
        guard let type = AttributeType(named: typeName) else {
            throw reader.invalid("type", "unknown type '\(typeName)'; known: \(AttributeType.jsonNames)")
        }
        var attribute = AttributeDescription(name: name, type: type)
        try readPropertySettings(of: &attribute, from: &reader)
        attribute.isIndexed = try reader.bool("indexed") ?? false
        attribute.defaultValue = try reader.text("default")
        attribute.minValue = try reader.text("min")
        attribute.maxValue = try reader.text("max")
        attribute.regularExpression = try reader.string("regularExpression")
        attribute.isDerived = try reader.bool("derived") ?? false
        attribute.derivationExpression = try reader.string("derivationExpression")
        attribute.allowsExternalBinaryDataStorage = try reader.bool("externalBinaryStorage") ?? false
        attribute.preservesValueInHistoryOnDeletion = try reader.bool("preserveAfterDeletion") ?? false
        attribute.valueTransformerName = try reader.string("valueTransformer")
        attribute.customClassName = try reader.string("customClassName")
        attribute.compositeName = try reader.string("composite")
        try reader.finish()
        // Refused here rather than only by validation, so that the error names the line.
        if let (field, message) = attribute.firstValueError(compilingPattern: compilesPatterns) {
            let key = switch field {
            case .defaultValue: "default"
            case .minimum: "min"
            case .maximum: "max"
            case .regularExpression: "regularExpression"
            }
            throw reader.invalid(key, message)
        }
        return attribute
    }

    private static func relationship(from value: JSONValue, path: String, entity: String) throws(ModelError) -> RelationshipDescription {
        let context = "entity '\(entity)', relationship '\(value["name"]?.stringValue ?? "?")'"
        var reader = try JSONObjectReader(value, path: path, context: context)
        var relationship = RelationshipDescription(
            name: try reader.requiredString("name"), destination: try reader.requiredString("destination"),
            isToMany: try reader.bool("toMany") ?? false)
        relationship.inverseName = try reader.string("inverse")
        relationship.inverseEntityName = try reader.string("inverseEntity")
        relationship.isOrdered = try reader.bool("ordered") ?? false
        relationship.minCount = try reader.integer("minCount") ?? 0
        relationship.maxCount = try reader.integer("maxCount") ?? relationship.maxCount
        if let ruleName = try reader.string("deleteRule") {
            guard let rule = DeleteRule(named: ruleName) else {
                throw reader.invalid("deleteRule", "unknown delete rule '\(ruleName)'; known: \(DeleteRule.jsonNames)")
            }
            relationship.deleteRule = rule
        }
        try readPropertySettings(of: &relationship, from: &reader)
        try reader.finish()
        return relationship
    }

    private static func readPropertySettings<Property: PropertyDescription>(
        of property: inout Property, from reader: inout JSONObjectReader
    ) throws(ModelError) {
        property.isOptional = try reader.bool("optional") ?? true
        property.isTransient = try reader.bool("transient") ?? false
        property.userInfo = try reader.stringDictionary("userInfo")
        property.renamingIdentifier = try reader.string("renamingIdentifier")
        property.versionHashModifier = try reader.string("versionHashModifier")
        property.xcodeSettings = try reader.stringDictionary("xcode")
    }

    // MARK: - Fetch requests

    private static func fetchRequest(from value: JSONValue, path: String, context: String) throws(ModelError) -> FetchRequestTemplate {
        var reader = try JSONObjectReader(value, path: path, context: context)
        var request = FetchRequestTemplate(
            name: try reader.requiredString("name"), entityName: try reader.requiredString("entity"),
            predicate: try reader.string("predicate"))
        if let resultName = try reader.string("resultType") {
            guard let resultType = FetchRequestTemplate.ResultType(named: resultName) else {
                throw reader.invalid(
                    "resultType", "unknown result type '\(resultName)'; known: \(FetchRequestTemplate.ResultType.jsonNames)")
            }
            request.resultType = resultType
        }
        request.fetchLimit = try reader.integer("fetchLimit")
        request.fetchOffset = try reader.integer("fetchOffset")
        request.fetchBatchSize = try reader.integer("fetchBatchSize")
        request.returnsDistinctResults = try reader.bool("distinct")
        request.includesSubentities = try reader.bool("includesSubentities")
        request.includesPropertyValues = try reader.bool("includesPropertyValues")
        request.includesPendingChanges = try reader.bool("includesPendingChanges")
        request.returnsObjectsAsFaults = try reader.bool("returnsObjectsAsFaults")
        request.xcodeSettings = try reader.stringDictionary("xcode")
        try reader.finish()
        return request
    }
}
