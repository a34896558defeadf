extension ModelGraph {
    /// The graph in Graphviz's DOT language, for `dot -Tsvg` or `dot -Tpng`: an entity a box
    /// (a record listing its attributes when ``showsAttributes``), a relationship a line in
    /// crow's-foot notation labelled at each end, and inheritance a hollow-headed arrow.
    package var dot: String {
        var lines = ["digraph model {", "  rankdir=LR;", "  node [shape=box, fontname=\"Helvetica\"];", "  edge [fontname=\"Helvetica\", fontsize=10];"]
        for entity in model.entities {
            let title = (entity.isAbstract ? "«abstract» " : "") + entity.name
            let attributes = entity.attributes.map { "\($0.name): \($0.type.rawValue)\($0.isOptional ? "?" : "")\($0.isTransient ? " (transient)" : "")" }
            if showsAttributes, !attributes.isEmpty {
                // A record's label is written as it is: its backslashes are DOT's escapes.
                let fields = attributes.map { Self.recordText($0) + "\\l" }.joined()
                lines.append("  \(Self.quoted(entity.name)) [shape=record, label=\"{\(Self.recordText(title))|\(fields)}\"];")
            } else {
                lines.append("  \(Self.quoted(entity.name)) [label=\(Self.quoted(title))\(entity.isAbstract ? ", style=dashed" : "")];")
            }
        }
        for entity in model.entities {
            if let parent = entity.superentityName {
                lines.append("  \(Self.quoted(entity.name)) -> \(Self.quoted(parent)) [arrowhead=empty];")
            }
        }
        for link in links {
            var attributes = [
                "arrowhead=\(Self.arrow(link.relationship))", "headlabel=\(Self.quoted(Self.endLabel(link.relationship)))",
            ]
            if let inverse = link.inverse {
                attributes += ["dir=both", "arrowtail=\(Self.arrow(inverse))", "taillabel=\(Self.quoted(Self.endLabel(inverse)))"]
            }
            lines.append("  \(Self.quoted(link.source)) -> \(Self.quoted(link.destination)) [\(attributes.joined(separator: ", "))];")
        }
        lines.append("}")
        return lines.joined(separator: "\n") + "\n"
    }

    /// The graph as a Mermaid class diagram, for a ```` ```mermaid ```` block in Markdown: a
    /// class per entity (`<<abstract>>` when it is), a link per relationship or inverse pair
    /// with UML multiplicities at its ends, and `<|--` for inheritance.
    package var mermaid: String {
        var lines = ["classDiagram"]
        for entity in model.entities {
            let members = (entity.isAbstract ? ["<<abstract>>"] : [])
                + (showsAttributes ? entity.attributes.map { "\(Self.mermaidType($0.type))\($0.isOptional ? "?" : "") \($0.name)" } : [])
            if members.isEmpty {
                lines.append("  class \(entity.name)")
            } else {
                lines.append("  class \(entity.name) {")
                lines += members.map { "    \($0)" }
                lines.append("  }")
            }
        }
        for entity in model.entities {
            if let parent = entity.superentityName { lines.append("  \(parent) <|-- \(entity.name)") }
        }
        for link in links {
            let forward = "\(link.relationship.name) (\(link.relationship.deleteRule.rawValue))"
            if let inverse = link.inverse {
                lines.append(
                    "  \(link.source) \"\(Self.multiplicity(inverse))\" -- \"\(Self.multiplicity(link.relationship))\" \(link.destination) : \(forward) / \(inverse.name) (\(inverse.deleteRule.rawValue))")
            } else {
                lines.append("  \(link.source) --> \"\(Self.multiplicity(link.relationship))\" \(link.destination) : \(forward)")
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// `text` as a DOT string: quoted, with quotes and backslashes escaped.
    static func quoted(_ text: String) -> String {
        "\"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    }

    /// `text` as a field of a DOT record, whose braces, bars and angle brackets mean structure
    /// unless escaped, inside a quoted label.
    static func recordText(_ text: String) -> String {
        var escaped = ""
        for character in text {
            if "{}|<>\"\\".contains(character) { escaped.append("\\") }
            escaped.append(character)
        }
        return escaped
    }

    /// A type name Mermaid reads as one word (`Integer 16` is `Integer16`).
    static func mermaidType(_ type: AttributeType) -> String {
        type.rawValue.replacingOccurrences(of: " ", with: "")
    }
}
