/// One problem that model validation found, naming the entity and property it concerns.
public struct ModelIssue: Sendable, Equatable, CustomStringConvertible {
    /// Whether an issue makes the model unusable or is only reported.
    public enum Severity: String, Sendable {
        /// The model cannot be used.
        case error
        /// The model can be used but probably does not mean what its author wanted.
        case warning
    }

    /// How serious the issue is; ``ModelLoader/loadValidated(_:version:)`` fails on any error.
    public var severity: Severity
    /// The name of the entity the issue concerns; `nil` for an issue about the model as a whole,
    /// such as a configuration naming an unknown entity.
    public var entity: String?
    /// The name of the property the issue concerns; `nil` for an issue about the entity as a whole.
    public var property: String?
    /// What is wrong, in words for the model's author, without the entity and property that
    /// ``description`` adds.
    public var message: String

    /// An issue of `severity` about `entity` and `property`, explained by `message`.
    init(_ severity: Severity, entity: String? = nil, property: String? = nil, _ message: String) {
        self.severity = severity
        self.entity = entity
        self.property = property
        self.message = message
    }

    /// `error: entity 'Book', property 'author': …`.
    public var description: String {
        var parts = ["\(severity.rawValue):"]
        var place: [String] = []
        if let entity { place.append("entity '\(entity)'") }
        if let property { place.append("property '\(property)'") }
        if !place.isEmpty { parts.append(place.joined(separator: ", ") + ":") }
        parts.append(message)
        return parts.joined(separator: " ")
    }
}
