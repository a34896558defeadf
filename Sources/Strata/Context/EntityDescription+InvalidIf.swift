extension EntityDescription {
    /// The entity's `strata.invalidIf` userInfo predicate, parsed: the objects it matches are
    /// invalid (``ObjectContext/invalidReason(of:)``), and imports and `strata prune` delete
    /// them. `nil` when the entity has none; a sub-entity does not inherit its parent's.
    ///
    /// ```swift
    /// entity.userInfo["strata.invalidIf"] = "rating < 0"
    /// try entity.invalidIfPredicate()   // rating < 0
    /// ```
    ///
    /// - Throws: ``InvalidIfError`` naming the entity, with the parser's error, when the
    ///   predicate does not parse.
    public func invalidIfPredicate() throws(InvalidIfError) -> ObjectPredicate? {
        guard let text = userInfo["strata.invalidIf"] else { return nil }
        do {
            return try ObjectPredicate(format: text)
        } catch {
            throw InvalidIfError(entity: name, syntax: error)
        }
    }
}

/// An entity's `strata.invalidIf` userInfo predicate that does not parse.
public struct InvalidIfError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The name of the entity whose userInfo holds the predicate.
    public var entity: String
    /// Why the predicate does not parse, with the predicate and the offset of the fault.
    public var syntax: PredicateSyntaxError

    /// An error about `entity`'s predicate, which the parser refused with `syntax`.
    init(entity: String, syntax: PredicateSyntaxError) {
        self.entity = entity
        self.syntax = syntax
    }

    /// `entity Book, userInfo strata.invalidIf: …` and the parser's message with its caret.
    public var description: String { "entity \(entity), userInfo strata.invalidIf: \(syntax)" }
}
