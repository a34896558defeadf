import ArgumentParser
import Foundation
import Strata

/// `strata model show`: the entities of a model with their properties, constraints and indexes.
struct ModelShowCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "show",
        abstract: "Show a model's entities, properties, constraints and indexes.",
        discussion: """
            The table lists each entity with its parent, its attributes (type and flags) and \
            relationships (destination, inverse, cardinality, delete rule). --format json prints \
            the model in Strata's JSON model format, which lists every setting. The table \
            ends with the mapping models (.xcmappingmodel) found in and beside a bundle, \
            the versions each maps between (by version hashes, as Core Data matches them), \
            and their entity mappings.
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var output: FormatOptions<OutputFormat>

    var format: OutputFormat { output.format }

    func run() async throws {
        let version = try options.loadModelOrStoresModel()
        switch format {
        case .json: print(JSONModelWriter.string(for: version.model), terminator: "")
        case .table:
            print(ModelDescription(model: version.model).lines(title: "Model \(version.name) (\(version.file.path))").joined(separator: "\n"))
            if options.modelPaths.count == 1, let path = options.modelPath, path.hasSuffix(".xcdatamodeld") || path.hasSuffix(".xcdatamodeld/") {
                let url = URL(fileURLWithPath: path)
                print(Self.mappingLines(try MappingModel.discover(near: url), bundle: try ModelLoader.load(url)).joined(separator: "\n"))
            }
        }
    }

    /// The mapping models of a bundle: the versions each maps between, and its entity mappings.
    static func mappingLines(_ models: [MappingModel], bundle: ModelBundle) -> [String] {
        guard !models.isEmpty else { return [] }
        var lines = ["", "Mapping models"]
        for model in models {
            let pairs = bundle.versions.flatMap { from in
                bundle.versions.filter { to in model.matches(source: from.model, destination: to.model) }.map { "\(from.name) → \($0.name)" }
            }
            lines.append("  \(model.name): " + (pairs.isEmpty ? "matches no two versions of the bundle" : pairs.joined(separator: ", ")) + " (\(model.path))")
            lines += model.summary.map { "    \($0)" }
        }
        return lines
    }
}

/// The human-readable summary of a model that `strata model show` prints.
struct ModelDescription {
    let model: ObjectModel

    func lines(title: String) -> [String] {
        var lines = [title, "\(model.entities.count) entities"]
        for entity in model.entities {
            lines.append("")
            lines += entityLines(entity)
        }
        if !model.fetchRequestTemplates.isEmpty {
            lines += ["", "Fetch request templates"]
            var table = TextTable(header: ["name", "entity", "result", "predicate"], indent: 2)
            for template in model.fetchRequestTemplates {
                table.append([template.name, template.entityName, template.resultType.jsonName, template.predicate ?? ""])
            }
            lines += table.lines
        }
        for configuration in model.configurations {
            lines += ["", "Configuration \(configuration.name): \(configuration.entityNames.joined(separator: ", "))"]
        }
        return lines
    }

    private func entityLines(_ entity: EntityDescription) -> [String] {
        var heading = entity.name
        if let parent = entity.superentityName { heading += " : \(parent)" }
        var notes: [String] = []
        if entity.isAbstract { notes.append("abstract") }
        let subentities = model.directSubentities(of: entity).map(\.name)
        if !subentities.isEmpty { notes.append("sub-entities: \(subentities.joined(separator: ", "))") }
        if let className = entity.className, className != entity.name { notes.append("class \(className)") }
        if !notes.isEmpty { heading += "  (\(notes.joined(separator: "; ")))" }
        var lines = [heading]
        if !entity.attributes.isEmpty {
            var table = TextTable(header: ["attribute", "type", "flags"], indent: 2)
            for attribute in entity.attributes { table.append([attribute.name, attribute.type.rawValue, flags(of: attribute)]) }
            lines += table.lines
        }
        if !entity.relationships.isEmpty {
            var table = TextTable(header: ["relationship", "destination", "inverse", "cardinality", "delete rule"], indent: 2)
            for relationship in entity.relationships {
                table.append([
                    relationship.name, relationship.destinationEntityName, relationship.inverseName ?? "-",
                    cardinality(of: relationship), relationship.deleteRule.rawValue,
                ])
            }
            lines += table.lines
        }
        for property in entity.fetchedProperties {
            lines.append("  fetched property \(property.name): \(property.fetchRequest.entityName) where \(property.fetchRequest.predicate ?? "TRUEPREDICATE")")
        }
        for constraint in entity.uniquenessConstraints {
            lines.append("  unique (\(constraint.joined(separator: ", ")))")
        }
        for index in entity.fetchIndexes {
            let elements = index.elements.map { "\($0.property)\($0.isAscending ? "" : " desc")" }
            lines.append("  index \(index.name) (\(elements.joined(separator: ", ")))")
        }
        for index in entity.compoundIndexes {
            lines.append("  compound index (\(index.joined(separator: ", ")))")
        }
        return lines
    }

    private func flags(of attribute: AttributeDescription) -> String {
        var flags = [attribute.isOptional ? "optional" : "required"]
        if attribute.isTransient { flags.append("transient") }
        if attribute.isIndexed { flags.append("indexed") }
        if attribute.isDerived { flags.append("derived") }
        if let name = attribute.compositeName { flags.append("composite \(name)") }
        if let value = attribute.defaultValue { flags.append("default \(value)") }
        if let value = attribute.minValue { flags.append("min \(value)") }
        if let value = attribute.maxValue { flags.append("max \(value)") }
        if let value = attribute.regularExpression { flags.append("matches \(value)") }
        if attribute.allowsExternalBinaryDataStorage { flags.append("external storage") }
        if let value = attribute.customClassName { flags.append("class \(value)") }
        return flags.joined(separator: ", ")
    }

    private func cardinality(of relationship: RelationshipDescription) -> String {
        guard relationship.isToMany else { return relationship.isOptional ? "to-one" : "to-one, required" }
        var text = relationship.isOrdered ? "ordered to-many" : "to-many"
        if relationship.minCount > 0 || relationship.maxCount > 0 {
            text += " [\(relationship.minCount)…\(relationship.maxCount == 0 ? "" : String(relationship.maxCount))]"
        }
        return text
    }
}
