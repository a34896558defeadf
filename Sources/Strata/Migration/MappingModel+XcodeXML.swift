import Foundation

// Reading `.xcmappingmodel` folders as Xcode saves them. `xcmapping.xml` is a Core Data XML
// store of Xcode's mapping editor: `<object type="…" id="z…">` elements whose `<attribute>`s
// hold values as text (binary ones base64) and whose `<relationship>`s name other objects by
// `idrefs`. An `XDDEVMAPPINGMODEL` keeps the source and destination models as archived Xcode
// models (`sourcemodeldata`, `destinationmodeldata`: the archive an Xcode 3 `elements` file
// holds) and lists its `XDDEVENTITYMAPPING`s; entity mappings that no mapping model lists are
// left-overs of the editor and are ignored. Each entity mapping keeps `sourcename`,
// `destinationname`, `mappingtypename`, `mappingnumber` (its place in the order),
// `migrationpolicyclassname`, `userinfodata` (an archived dictionary) and its
// `XDDEVATTRIBUTEMAPPING`s and `XDDEVRELATIONSHIPMAPPING`s, each with a `name` and an archived
// `valueexpressiondata`, or `autogenerateexpression` for the expression Xcode writes when it
// compiles the model. All of this was read from the mapping models at hand (BookMigration's
// three, CoreDataPlus's); the attribute that keeps a filter predicate is not in any of them,
// so the names read for it (`filterpredicate…`, a string) are inferred.

extension MappingModel {
    /// Reads the mapping model at `url`: an `.xcmappingmodel` folder or its `xcmapping.xml`.
    ///
    /// - Throws: ``MappingModelError`` naming the file and the element that cannot be read. A
    ///   compiled `.cdm` file is refused: Strata reads the form Xcode saves.
    public static func load(contentsOf url: URL) throws(MappingModelError) -> MappingModel {
        var file = url
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue {
            file = url.appendingPathComponent("xcmapping.xml")
        }
        if url.pathExtension == "cdm" {
            throw MappingModelError(path: url.path, message: "a compiled mapping model (.cdm) is not read; give the .xcmappingmodel it was compiled from")
        }
        guard let data = FileManager.default.contents(atPath: file.path) else {
            throw MappingModelError(path: file.path, message: "cannot read the file")
        }
        let name = (file.lastPathComponent == "xcmapping.xml" ? file.deletingLastPathComponent() : file).deletingPathExtension().lastPathComponent
        return try XcodeMappingReader(path: file.path, name: name).read(data)
    }

    /// The mapping models in the folder of the model bundle at `bundleURL`, beside it, and in
    /// the folders beside it (an app keeps them anywhere in its project), by file name.
    /// Hidden folders and packages other than `.xcmappingmodel` are not searched.
    ///
    /// - Throws: ``MappingModelError`` for the first mapping model that cannot be read.
    public static func discover(near bundleURL: URL) throws(MappingModelError) -> [MappingModel] {
        let manager = FileManager.default
        let parent = bundleURL.deletingLastPathComponent()
        var folders = [bundleURL, parent]
        for name in (try? manager.contentsOfDirectory(atPath: parent.path))?.sorted() ?? [] where !name.hasPrefix(".") && !name.contains(".") {
            var isFolder: ObjCBool = false
            let url = parent.appendingPathComponent(name)
            if manager.fileExists(atPath: url.path, isDirectory: &isFolder), isFolder.boolValue { folders.append(url) }
        }
        var found: [URL] = []
        for folder in folders {
            for name in (try? manager.contentsOfDirectory(atPath: folder.path))?.sorted() ?? [] where name.hasSuffix(".xcmappingmodel") {
                let url = folder.appendingPathComponent(name).standardizedFileURL
                if !found.contains(url) { found.append(url) }
            }
        }
        var models: [MappingModel] = []
        for url in found { models.append(try load(contentsOf: url)) }
        return models
    }
}

/// Turns the objects of an `xcmapping.xml` into a ``MappingModel``.
private struct XcodeMappingReader {
    let path: String
    let name: String

    /// An `<object>` of the file: its attributes' text and its relationships' ids.
    struct StoredObject {
        var type: String
        var id: String
        var attributes: [String: String]
        var relationships: [String: [String]]
        var label: String { "\(type) \(id)" }
    }

    func read(_ data: Data) throws(MappingModelError) -> MappingModel {
        let root: XMLTreeElement
        do {
            root = try XMLTreeReader.parse(data)
        } catch {
            throw MappingModelError(path: path, location: error.location, message: error.message)
        }
        guard root.name == "database" else {
            throw MappingModelError(path: path, element: "<\(root.name)>", message: "expected the <database> of a Core Data XML store, as Xcode saves xcmapping.xml")
        }
        var objects: [String: StoredObject] = [:]
        for element in root.children(named: "object") {
            var object = StoredObject(type: element.attributes["type"] ?? "", id: element.attributes["id"] ?? "", attributes: [:], relationships: [:])
            for attribute in element.children(named: "attribute") {
                if let key = attribute.attributes["name"] { object.attributes[key] = attribute.text.trimmingCharacters(in: .whitespacesAndNewlines) }
            }
            for relationship in element.children(named: "relationship") {
                if let key = relationship.attributes["name"] {
                    object.relationships[key] = (relationship.attributes["idrefs"] ?? "").split(separator: " ").map(String.init)
                }
            }
            objects[object.id] = object
        }
        let models = objects.values.filter { $0.type == "XDDEVMAPPINGMODEL" }
        guard models.count == 1, let model = models.first else {
            throw MappingModelError(path: path, message: "expected one XDDEVMAPPINGMODEL object, found \(models.count)")
        }
        let sourceModel = try archivedModel("sourcemodeldata", of: model)
        let destinationModel = try archivedModel("destinationmodeldata", of: model)
        var stored: [(number: Int, object: StoredObject)] = []
        for id in model.relationships["entitymappings"] ?? [] {
            guard let object = objects[id], object.type == "XDDEVENTITYMAPPING" else {
                throw MappingModelError(path: path, element: model.label, message: "its entity mapping \(id) is not an XDDEVENTITYMAPPING of the file")
            }
            stored.append((Int(object.attributes["mappingnumber"] ?? "") ?? Int.max, object))
        }
        stored.sort { $0.number < $1.number }
        let sourceHashes = sourceModel.entityVersionHashes(), destinationHashes = destinationModel.entityVersionHashes()
        var mappings: [MappingModel.EntityMapping] = []
        for (_, object) in stored {
            let source = object.attributes["sourcename"].flatMap { $0.isEmpty ? nil : $0 }
            let destination = object.attributes["destinationname"].flatMap { $0.isEmpty ? nil : $0 }
            for (name, model) in [(source, sourceModel), (destination, destinationModel)] {
                if let name, model.entity(named: name) == nil {
                    throw MappingModelError(path: path, element: object.label, message: "names the entity \(name), which its model does not have")
                }
            }
            let policy = object.attributes["migrationpolicyclassname"].flatMap { $0.isEmpty ? nil : $0 }
            let kind = try kind(of: object, source: source, destination: destination, policy: policy) {
                guard let source, let destination else { return false }
                return sourceHashes[source] == destinationHashes[destination]
            }
            var filter: ObjectPredicate?
            if let text = object.attributes.first(where: { $0.key.hasPrefix("filterpredicate") })?.value, !text.isEmpty {
                do {
                    filter = try ObjectPredicate(format: text)
                } catch {
                    throw MappingModelError(path: path, element: object.label, message: "its filter predicate cannot be read: \(error.message)", underlying: error)
                }
            }
            mappings.append(MappingModel.EntityMapping(
                kind: kind, sourceEntityName: source, destinationEntityName: destination, policyClassName: policy, filterPredicate: filter,
                userInfo: try userInfo(of: object)))
        }
        // Expressions Xcode generates name other entity mappings, so they come once all are named.
        for (index, (_, object)) in stored.enumerated() {
            let autogenerates = object.attributes["autogenerateexpression"] == "1"
            for id in object.relationships["attributemappings"] ?? [] {
                guard let property = objects[id] else { continue }
                mappings[index].attributeMappings.append(try propertyMapping(property, isRelationship: false, of: mappings[index], in: mappings, autogenerates: autogenerates, source: sourceModel, destination: destinationModel))
            }
            for id in object.relationships["relationshipmappings"] ?? [] {
                guard let property = objects[id] else { continue }
                mappings[index].relationshipMappings.append(try propertyMapping(property, isRelationship: true, of: mappings[index], in: mappings, autogenerates: autogenerates, source: sourceModel, destination: destinationModel))
            }
            mappings[index].attributeMappings.sort { $0.name < $1.name }
            mappings[index].relationshipMappings.sort { $0.name < $1.name }
        }
        return MappingModel(name: name, path: path, sourceModel: sourceModel, destinationModel: destinationModel, entityMappings: mappings)
    }

    private func archivedModel(_ key: String, of object: StoredObject) throws(MappingModelError) -> ObjectModel {
        guard let text = object.attributes[key], let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw MappingModelError(path: path, element: object.label, message: "has no \(key) (the model it maps \(key.hasPrefix("source") ? "from" : "to"))")
        }
        do {
            return try XcodeBinaryModelReader.read(data, path: "\(path) (\(key))")
        } catch {
            throw MappingModelError(path: path, element: object.label, message: "its \(key) cannot be read: \(error)", underlying: error)
        }
    }

    /// The kind the editor saved, or for `Undefined` the one Xcode compiles: add without a
    /// source, remove without a destination, custom with a policy class, copy when the
    /// entity's hash does not change, else transform.
    private func kind(
        of object: StoredObject, source: String?, destination: String?, policy: String?, unchanged: () -> Bool
    ) throws(MappingModelError) -> MappingModel.Kind {
        let saved = (object.attributes["mappingtypename"] ?? "Undefined").lowercased()
        if let kind = MappingModel.Kind.allCases.first(where: { saved == $0.rawValue || saved == "ns\($0.rawValue)entitymappingtype" }) { return kind }
        guard saved == "undefined" || saved.isEmpty else {
            throw MappingModelError(path: path, element: object.label, message: "unknown mapping type \(object.attributes["mappingtypename"] ?? "")")
        }
        switch (source, destination) {
        case (nil, nil): throw MappingModelError(path: path, element: object.label, message: "names neither a source nor a destination entity")
        case (nil, _): return policy == nil ? .add : .custom
        case (_, nil): return .remove
        default: return policy != nil ? .custom : unchanged() ? .copy : .transform
        }
    }

    private func userInfo(of object: StoredObject) throws(MappingModelError) -> [String: String] {
        guard let text = object.attributes["userinfodata"], !text.isEmpty else { return [:] }
        guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
            throw MappingModelError(path: path, element: object.label, message: "its userinfodata is not base64")
        }
        do {
            let archive = try KeyedArchive(data: data)
            var info: [String: String] = [:]
            for (key, value) in archive.dictionary(.uid(UInt64(archive.rootIndex))) {
                switch value {
                case .integer(let number): info[key] = String(number)
                case .real(let number): info[key] = String(number)
                case .bool(let flag): info[key] = flag ? "YES" : "NO"
                default: if let text = archive.string(value) { info[key] = text }
                }
            }
            return info
        } catch {
            throw MappingModelError(path: path, element: object.label, message: "its user info cannot be read: \(error.description)")
        }
    }

    /// A property mapping: its archived expression, or the one Xcode generates: `$source.<name>`
    /// for an attribute the source entity has, and for a relationship it has, its objects'
    /// destinations by the entity mapping between the two relationships' entities.
    private func propertyMapping(
        _ object: StoredObject, isRelationship: Bool, of mapping: MappingModel.EntityMapping, in mappings: [MappingModel.EntityMapping],
        autogenerates: Bool, source: ObjectModel, destination: ObjectModel
    ) throws(MappingModelError) -> MappingModel.PropertyMapping {
        guard let name = object.attributes["name"], !name.isEmpty else {
            throw MappingModelError(path: path, element: object.label, message: "a property mapping without a name")
        }
        if let text = object.attributes["valueexpressiondata"], !text.isEmpty {
            guard let data = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                throw MappingModelError(path: path, element: object.label, message: "its valueexpressiondata is not base64")
            }
            do {
                return MappingModel.PropertyMapping(name: name, valueExpression: try ObjectPredicate.Expression.unarchived(from: data))
            } catch {
                throw MappingModelError(path: path, element: object.label, message: "the value expression of \(name) cannot be read: \(error.message)", underlying: error)
            }
        }
        let generates = autogenerates || object.attributes["autogenerateexpression"] == "1"
        guard generates, let sourceName = mapping.sourceEntityName, let sourceEntity = source.entity(named: sourceName) else {
            return MappingModel.PropertyMapping(name: name, valueExpression: nil)
        }
        if !isRelationship {
            let has = source.allAttributes(of: sourceEntity).contains { $0.name == name && !$0.isTransient }
            return MappingModel.PropertyMapping(name: name, valueExpression: has ? .keyPath(["$source", name]) : nil)
        }
        guard let old = source.allRelationships(of: sourceEntity).first(where: { $0.name == name }),
            let destinationName = mapping.destinationEntityName, let destinationEntity = destination.entity(named: destinationName),
            let new = destination.allRelationships(of: destinationEntity).first(where: { $0.name == name }),
            let target = mappings.first(where: { $0.sourceEntityName == old.destinationEntityName && $0.destinationEntityName == new.destinationEntityName })
                ?? mappings.first(where: { $0.destinationEntityName == new.destinationEntityName && $0.sourceEntityName != nil })
        else { return MappingModel.PropertyMapping(name: name, valueExpression: nil) }
        return MappingModel.PropertyMapping(name: name, valueExpression: .function(ExpressionFunction.method.rawValue, arguments: [
            .variable("manager"), .value(.string("destinationInstancesForEntityMappingNamed:sourceInstances:")), .value(.string(target.name)),
            .keyPath(["$source", name]),
        ]))
    }
}
