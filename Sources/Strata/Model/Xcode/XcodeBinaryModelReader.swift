import Foundation

/// Reads the `elements` file that Xcode 3 saved in an `.xcdatamodel` folder instead of
/// `contents` XML: an `NSKeyedArchiver` archive of Xcode's own model classes.
///
/// The archive holds an `XDPMModel` whose root package keeps the entities (`XDPMEntity`) by
/// name; each keeps its attributes (`XDPMAttribute`) and relationships (`XDPMRelationship`),
/// and every element keeps its settings as the default values of its stereotypes' properties:
/// `XD_PSK_isAbstract` for an entity, `XD_PPSK_isOptional` for any property,
/// `XD_PAttK_attributeType` (Core Data's `NSAttributeType`) for an attribute,
/// `XD_PRK_destination` and `XD_PRK_inverseRelationship` (the elements themselves) for a
/// relationship, `XDPMUniquenessConstraints` (arrays of property names) for an entity's
/// uniqueness constraints. Stores that such models wrote carry the same version hashes as the model read
/// here (Apple's iPhoneCoreDataRecipes sample, RestKit's seed database).
///
/// ```swift
/// let model = try XcodeBinaryModelReader.read(contentsOf: URL(fileURLWithPath: "Recipes.xcdatamodel/elements"))
/// ```
///
/// What Strata cannot read (a file that is not such an archive, an element of an unknown
/// kind, an attribute type Core Data does not have) is a ``ModelError`` naming the file and
/// the element. Fetch request templates and configurations are not read.
enum XcodeBinaryModelReader {
    /// Reads the model in the `elements` file at `url`.
    static func read(contentsOf url: URL) throws(ModelError) -> ObjectModel {
        try read(readModelFile(at: url), path: url.path)
    }

    /// Reads a model from the bytes of an `elements` file; `path` names the file in errors.
    static func read(_ data: Data, path: String) throws(ModelError) -> ObjectModel {
        let plist: PropertyListValue, archive: KeyedArchive
        do {
            plist = try BinaryPropertyListReader.read(data)
        } catch {
            throw .unreadable(path: path, reason: .notAPropertyList(error))
        }
        do {
            archive = try KeyedArchive(plist)
        } catch {
            throw .unreadable(path: path, reason: .notAKeyedArchive(error))
        }
        return try ArchivedModelReader(archive: archive, path: path).model()
    }
}

/// Turns the archived Xcode elements into descriptions.
private struct ArchivedModelReader {
    let archive: KeyedArchive
    let path: String

    func model() throws(ModelError) -> ObjectModel {
        let root = archive.root
        guard archive.className(of: root) == "XDPMModel", let package = archive.object(root["_xd_rootPackage"]) else {
            throw .invalidContent(path: path, location: nil, message: "expected an archived XDPMModel at the root, found \(archive.className(of: root) ?? "no class")")
        }
        var entities: [EntityDescription] = []
        for (name, element) in archive.dictionary(package["XDBucketForClassesstorage"]) {
            guard archive.className(of: element) == "XDPMEntity" else { continue }
            entities.append(try entity(named: name, from: element))
        }
        var model = ObjectModel(entities: entities.sorted { $0.name < $1.name })
        model.versionIdentifier = archive.string(root["_modelVersionIdentifier"]) ?? ""
        return model
    }

    // MARK: - Elements

    private func entity(named name: String, from element: PropertyListValue) throws(ModelError) -> EntityDescription {
        let settings = settings(of: element)
        var entity = EntityDescription(name: name)
        entity.isAbstract = settings["XD_PSK_isAbstract"]?.boolValue ?? false
        entity.className = archive.string(settings["XD_PSK_entityClassName"]).flatMap { $0 == "NSManagedObject" ? nil : $0 }
        entity.renamingIdentifier = archive.string(settings["XD_PSK_elementID"])
        entity.versionHashModifier = archive.string(settings["XD_PSK_versionHashModifier"])
        entity.userInfo = archive.stringDictionary(settings["XD_PSK_userInfo"])
        // An array of constraints, each an array of property names, as the XML's
        // `<uniquenessConstraints>`: part of the entity's version hash, so a model read
        // without them matches no store or mapping model made from it.
        entity.uniquenessConstraints = archive.array(settings["XDPMUniquenessConstraints"]).map { constraint in
            archive.array(constraint).compactMap(archive.string)
        }.filter { !$0.isEmpty }
        entity.superentityName = archive.array(element["XDBucketForGeneralizationsstorage"]).lazy.compactMap(parentName(in:)).first
        for (propertyName, property) in archive.dictionary(element["XDBucketForOwnedAttributesstorage"]).sorted(by: { $0.key < $1.key }) {
            switch archive.className(of: property) {
            case "XDPMAttribute": entity.attributes.append(try attribute(named: propertyName, of: name, from: property))
            case "XDPMRelationship": entity.relationships.append(try relationship(named: propertyName, of: name, from: property))
            case let kind:
                throw .invalidContent(path: path, location: nil, message: "entity '\(name)' has a property '\(propertyName)' of a kind Strata cannot read (\(kind ?? "no class"))")
            }
        }
        return entity
    }

    /// The name of the entity a generalization (an archived parent link) points to.
    private func parentName(in generalization: PropertyListValue) -> String? {
        guard case .dictionary(let fields) = generalization else { return nil }
        for key in fields.keys.sorted() where key != "_owner" {
            if let target = archive.object(fields[key]), archive.className(of: target) == "XDPMEntity" { return archive.string(target["_name"]) }
        }
        return nil
    }

    private func attribute(named name: String, of entity: String, from element: PropertyListValue) throws(ModelError) -> AttributeDescription {
        let settings = settings(of: element)
        let code = settings["XD_PAttK_attributeType"]?.integerValue ?? 0
        guard let type = UInt32(exactly: code).flatMap(AttributeType.init(code:)) else {
            throw .invalidContent(path: path, location: nil, message: "attribute '\(entity).\(name)' has an attribute type Core Data does not have (\(code))")
        }
        var attribute = AttributeDescription(name: name, type: type)
        readPropertySettings(of: &attribute, from: settings)
        attribute.isIndexed = settings["XD_PPSK_isIndexed"]?.boolValue ?? false
        attribute.defaultValue = archive.string(settings["XD_PAttK_defaultValueAsString"])
        attribute.minValue = archive.string(settings["XD_PAttK_minValueString"])
        attribute.maxValue = archive.string(settings["XD_PAttK_maxValueString"])
        attribute.regularExpression = archive.string(settings["XD_PAttK_regularExpressionString"])
        attribute.valueTransformerName = archive.string(settings["XD_PAttK_valueTransformerName"])
        attribute.allowsExternalBinaryDataStorage = settings["XD_PAttK_allowsExternalBinaryDataStorage"]?.boolValue ?? false
        return attribute
    }

    private func relationship(named name: String, of entity: String, from element: PropertyListValue) throws(ModelError) -> RelationshipDescription {
        let settings = settings(of: element)
        guard let destination = archive.object(settings["XD_PRK_destination"]).flatMap({ archive.string($0["_name"]) }) else {
            throw .invalidContent(path: path, location: nil, message: "relationship '\(entity).\(name)' has no destination entity")
        }
        // Xcode 3 kept isToMany, and a to-one's counts (maxCount 1); a to-many's counts may be absent.
        let maxCount = settings["XD_PRK_maxCount"]?.integerValue
        let isToMany = settings["XD_PRK_isToMany"]?.boolValue ?? (maxCount.map { $0 != 1 } ?? false)
        var relationship = RelationshipDescription(name: name, destination: destination, isToMany: isToMany)
        readPropertySettings(of: &relationship, from: settings)
        relationship.inverseName = archive.object(settings["XD_PRK_inverseRelationship"]).flatMap { archive.string($0["_name"]) }
        relationship.isOrdered = settings["XD_PRK_ordered"]?.boolValue ?? false
        relationship.minCount = Int(clamping: settings["XD_PRK_minCount"]?.integerValue ?? 0)
        relationship.maxCount = Int(clamping: maxCount ?? (isToMany ? 0 : 1))
        if let code = settings["XD_PRK_deleteRule"]?.integerValue {
            guard let rule = DeleteRule(code: code) else {
                throw .invalidContent(path: path, location: nil, message: "relationship '\(entity).\(name)' has a delete rule Core Data does not have (\(code))")
            }
            relationship.deleteRule = rule
        }
        return relationship
    }

    private func readPropertySettings<Property: PropertyDescription>(of property: inout Property, from settings: [String: PropertyListValue]) {
        property.isOptional = settings["XD_PPSK_isOptional"]?.boolValue ?? true
        property.isTransient = settings["XD_PPSK_isTransient"]?.boolValue ?? false
        property.renamingIdentifier = archive.string(settings["XD_PPSK_elementID"])
        property.versionHashModifier = archive.string(settings["XD_PPSK_versionHashModifier"])
        property.userInfo = archive.stringDictionary(settings["XD_PPSK_userInfo"])
    }

    // MARK: - Stereotypes

    /// An element's settings: the default value of each property of each of its stereotypes
    /// (`XD_PPropStereotype`, `XD_PAtt_Stereotype`, …), by the property's name; an unset one
    /// is absent.
    private func settings(of element: PropertyListValue) -> [String: PropertyListValue] {
        var settings: [String: PropertyListValue] = [:]
        for (_, stereotype) in archive.dictionary(element["XDBucketForStereotypesstorage"]) {
            for (key, property) in archive.dictionary(stereotype["XDBucketForOwnedAttributesstorage"]) {
                if let value = archive.object(property["_default"]) { settings[key] = value }
            }
        }
        return settings
    }
}
