/// One problem that model validation found, naming the entity and property it concerns.
public struct ModelIssue: Sendable, Equatable, CustomStringConvertible {
    public enum Severity: String, Sendable {
        /// The model cannot be used.
        case error
        /// The model can be used but probably does not mean what its author wanted.
        case warning
    }

    public var severity: Severity
    public var entity: String?
    public var property: String?
    public var message: String

    public init(_ severity: Severity, entity: String? = nil, property: String? = nil, _ message: String) {
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
