/// A picture of a model: its entities (with their attributes when asked), relationships with
/// their cardinality and delete rule, each pair of inverses drawn as one line, and inheritance,
/// written as Graphviz DOT or as a Mermaid class diagram.
///
/// ```swift
/// let graph = ModelGraph(model: model, showsAttributes: true)
/// try graph.dot.write(toFile: "Library.dot", atomically: true, encoding: .utf8)   // dot -Tsvg Library.dot
/// print(graph.mermaid)                                                           // in Markdown, a ```mermaid block
/// ```
///
/// Lines follow crow's-foot notation in DOT (a crow's foot for to-many, a bar for to-one, a
/// circle for optional) and UML multiplicities in Mermaid (`0..1`, `1`, `0..*`, `1..5`), with each
/// end labelled by the relationship that leads to it and its delete rule. Inheritance is UML's
/// hollow-headed arrow from the sub-entity to its parent. Mermaid's class diagram is used
/// rather than its ER diagram because only a class diagram can draw inheritance.
package struct ModelGraph: Sendable {
    /// The model drawn.
    package var model: ObjectModel
    /// Whether each entity lists its own attributes (inherited ones are listed by its parent).
    package var showsAttributes: Bool

    /// A graph of `model`; with `showsAttributes`, each entity lists its attributes and types.
    package init(model: ObjectModel, showsAttributes: Bool = false) {
        self.model = model
        self.showsAttributes = showsAttributes
    }

    /// One line of the picture: a relationship and, when it has one, its inverse.
    package struct Link: Sendable, Equatable {
        /// The entity that declares ``relationship``.
        package var source: String
        /// The relationship drawn, from ``source`` to ``destination``.
        package var relationship: RelationshipDescription
        /// ``relationship``'s destination entity.
        package var destination: String
        /// The inverse relationship, declared on ``destination`` (or one of its parents).
        package var inverse: RelationshipDescription?
    }

    /// Every relationship of the model once, an inverse pair as one ``Link``, in the order the
    /// model declares them: the lines a picture draws.
    package var links: [Link] {
        var links: [Link] = []
        var drawn: Set<String> = []
        for entity in model.entities {
            for relationship in entity.relationships {
                let key = "\(entity.name).\(relationship.name)"
                guard !drawn.contains(key) else { continue }
                drawn.insert(key)
                let owner = relationship.inverseEntityName ?? relationship.destinationEntityName
                let inverse = relationship.inverseName.flatMap { name in
                    model.entity(named: owner).flatMap { model.relationship(named: name, in: $0) }
                }
                if let inverse, let inverseName = relationship.inverseName {
                    // The inverse is declared by the destination or by one of its parents.
                    drawn.insert("\(declaringEntity(of: inverseName, from: owner)).\(inverse.name)")
                }
                links.append(Link(source: entity.name, relationship: relationship, destination: relationship.destinationEntityName, inverse: inverse))
            }
        }
        return links
    }

    /// The entity among `name` and its parents that declares the relationship `relationship`.
    private func declaringEntity(of relationship: String, from name: String) -> String {
        var current = model.entity(named: name)
        while let entity = current {
            if entity.relationships.contains(where: { $0.name == relationship }) { return entity.name }
            current = entity.superentityName.flatMap { model.entity(named: $0) }
        }
        return name
    }

    // MARK: - Cardinality

    /// A relationship's multiplicity in UML's words: `0..1`, `1`, `0..*`, `1..*`, `2..5`.
    static func multiplicity(_ relationship: RelationshipDescription) -> String {
        let minimum = max(relationship.minCount, relationship.isOptional ? 0 : 1)
        guard relationship.isToMany else { return minimum > 0 ? "1" : "0..1" }
        let maximum = relationship.maxCount > 0 ? String(relationship.maxCount) : "*"
        return minimum == 0 && maximum == "*" ? "0..*" : "\(minimum)..\(maximum)"
    }

    /// The crow's-foot end of a relationship's line at its destination.
    static func arrow(_ relationship: RelationshipDescription) -> String {
        let optional = relationship.isOptional && relationship.minCount == 0
        return (relationship.isToMany ? "crow" : "tee") + (optional ? "odot" : "tee")
    }

    /// The text at a line's end: the relationship, its multiplicity and its delete rule.
    static func endLabel(_ relationship: RelationshipDescription) -> String {
        "\(relationship.name) \(multiplicity(relationship))\(relationship.isOrdered ? " ordered" : "") \(relationship.deleteRule.rawValue)"
    }
}
