/// A fetched property that could not be read or was written: the entity and property, the
/// predicate, and the token of it at fault.
///
/// ```text
/// Author.namesakes (fetched property, fetching Author): entity 'Author' has no property 'nme'
///   name == $FETCH_SOURCE.nme
///           ^
/// ```
public struct FetchedPropertyError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: Sendable {
        /// A fetched property was assigned: its value is the result of its fetch request, as
        /// Core Data's fetched properties cannot be set.
        case readOnly
        /// The request fetches an entity the model lacks; ``FetchedPropertyError/token`` is its name.
        case unknownDestination(known: [String])
        /// The predicate does not parse.
        case syntax(PredicateSyntaxError)
        /// The predicate names a `$VARIABLE` that a fetched property does not give: only
        /// `$FETCH_SOURCE` (with a key path or alone) and `$FETCHED_PROPERTY.userInfo.KEY` have values.
        case unknownVariable
        /// A key path after `$FETCH_SOURCE` could not be read on the source object.
        indirect case sourceValue(ContextError)
        /// The fetch of the destination failed: a key path its entity lacks, say.
        case fetch(any Error & Sendable)
    }

    /// The name of the entity whose object has the fetched property.
    public var entity: String
    /// The fetched property's name.
    public var property: String
    /// The entity the property's request fetches.
    public var destination: String
    /// The request's predicate as the model writes it; `nil` when it has none.
    public var predicate: String?
    /// The part of the predicate (or the destination's name) at fault, when one is.
    public var token: String?
    /// What is wrong with the fetched property.
    public var reason: Reason

    /// An error about `property` of `entity`, whose request fetches `destination` with `predicate`;
    /// `token` names the part at fault.
    init(entity: String, property: String, destination: String, predicate: String?, token: String? = nil, reason: Reason) {
        self.entity = entity
        self.property = property
        self.destination = destination
        self.predicate = predicate
        self.token = token
        self.reason = reason
    }

    public var description: String {
        let place = "\(entity).\(property) (fetched property, fetching \(destination))"
        let message: String
        switch reason {
        case .readOnly: return "\(place) is read-only: its value is the result of its fetch request"
        case .unknownDestination(let known):
            return "\(place): the model has no entity '\(destination)'\(didYouMean(destination, among: known))"
        case .syntax(let error): return "\(place): the predicate does not parse: \(error)"
        case .unknownVariable:
            message = "\(token ?? "the variable") has no value: a fetched property gives $FETCH_SOURCE (the object) and $FETCHED_PROPERTY.userInfo.KEY"
        case .sourceValue(let error): message = "\(token ?? "$FETCH_SOURCE") cannot be read on the object: \(error)"
        case .fetch(let error): message = String(describing: error)
        }
        guard let predicate else { return "\(place): \(message)" }
        // A caret under the token, as a predicate that does not parse shows it.
        guard let token, let range = predicate.range(of: token) else { return "\(place): \(message)\n  \(predicate)" }
        let offset = predicate.distance(from: predicate.startIndex, to: range.lowerBound)
        return "\(place): \(message)\n  \(predicate)\n  \(String(repeating: " ", count: offset))^"
    }

    public static func == (lhs: FetchedPropertyError, rhs: FetchedPropertyError) -> Bool {
        // The fetch's cause is of any type: errors are equal when they say the same.
        lhs.description == rhs.description
    }
}
