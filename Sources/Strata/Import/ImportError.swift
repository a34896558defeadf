/// Why an import stopped: a record that does not fit the model, named by its place and the
/// entity and key at fault, or a request or model rule that no record can satisfy. Nothing of
/// the import is saved.
///
/// The cause is kept as a value (``problem``, with the ``InvalidIfError`` of a bad
/// `strata.invalidIf`), and so is the place (``entity``, ``key``, ``recordNumber``,
/// ``location``); ``description`` is the one place that words them. The file a record came
/// from is the `source` of ``StreamingImportError/badInput(source:cause:)``. Failures of the
/// context or the store during an import (a uniqueness clash, a locked store) are not import
/// errors: they are thrown as the ``ContextError`` or ``StoreError`` they are.
///
/// ```swift
/// do { try session.import(records: records, into: "Book") } catch let error as ImportError {
///     print(error.recordNumber, error.key, error.location)   // Optional(2), Optional("pages"), Optional(line 1, column 40)
///     print(error)   // record 2 (line 1, column 40): key 'pages' for pages (integer16): …
///     if case .invalidIf(let rule) = error.problem { print(rule.entity, rule.syntax.offset) }
/// }
/// ```
public struct ImportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, as a value a program can switch over.
    public enum Problem: Sendable, Equatable {
        /// A record, key or value that does not fit the model, or an identity that cannot
        /// identify records, worded with the names and value at fault.
        case doesNotFit(String)
        /// The entity an import was asked for (or a CSV's, or a nested record's) is not in
        /// the model; `known` are the model's entities, the closest of which is suggested.
        case unknownEntity(name: String, known: [String])
        /// An identity override names no attribute of `entity`; `known` are its attributes.
        case unknownIdentity(entity: String, attribute: String, known: [String])
        /// The entity's `strata.invalidIf` userInfo predicate does not parse: the import stops
        /// before its first record, since it could not tell invalid records apart.
        case invalidIf(InvalidIfError)
        /// A CSV field of a Transformable attribute (whose values a CSV writes as JSON) that
        /// is not JSON.
        case notJSON(JSONSyntaxError)
    }

    /// What is wrong.
    public var problem: Problem
    /// The entity whose record (or rule, or identity) is at fault, when one is.
    public var entity: String?
    /// The record's key at fault (`pages`, `author_id`), when one is.
    public var key: String?
    /// The record at fault as messages name it (`record 2`, `record 3.pages[1]` for a nested
    /// record), when one is.
    public var record: String?
    /// The 1-based number of the record at fault among those the import was given (for a
    /// nested record, of the record it is nested in), when one is.
    public var recordNumber: Int?
    /// Where in the input the value at fault is, when the input was read from text.
    public var location: SourceLocation?

    /// An error about `problem`, at the place the other parameters name.
    ///
    /// - Parameters:
    ///   - problem: What is wrong.
    ///   - entity: The entity at fault.
    ///   - key: The record's key at fault.
    ///   - record: The record as messages name it (`record 2`).
    ///   - recordNumber: The record's 1-based number in the import.
    ///   - location: Where in the input text the value at fault is.
    public init(
        _ problem: Problem, entity: String? = nil, key: String? = nil, record: String? = nil, recordNumber: Int? = nil,
        at location: SourceLocation? = nil
    ) {
        self.problem = problem
        self.entity = entity
        self.key = key
        self.record = record
        self.recordNumber = recordNumber
        self.location = location
    }

    /// An error saying that a record does not fit (``Problem/doesNotFit(_:)``), in `message`,
    /// at the place the other parameters name.
    public init(
        _ message: String, entity: String? = nil, key: String? = nil, record: String? = nil, recordNumber: Int? = nil,
        at location: SourceLocation? = nil
    ) {
        self.init(.doesNotFit(message), entity: entity, key: key, record: record, recordNumber: recordNumber, at: location)
    }

    /// An error about the record `label` names.
    init(_ message: String, entity: String?, key: String? = nil, label: RecordLabel, at location: SourceLocation? = nil) {
        self.init(.doesNotFit(message), entity: entity, key: key, record: label.description, recordNumber: label.recordNumber, at: location)
    }

    /// What is wrong, without the record and location: `no entity 'Bok'; did you mean 'Book'?`.
    public var message: String {
        switch problem {
        case .doesNotFit(let message): message
        case .unknownEntity(let name, let known): "no entity '\(name)'\(didYouMean(name, among: known))"
        case .unknownIdentity(let entity, let attribute, let known):
            "entity \(entity) has no attribute '\(attribute)' to identify records by\(didYouMean(attribute, among: known))"
        case .invalidIf(let error): error.description
        case .notJSON(let error): "\(key.map { "\($0): " } ?? "")a Transformable value is written as JSON, and this is not JSON: \(error)"
        }
    }

    /// `record 2 (line 1, column 40): …`, `line 3, column 1: …` or the message alone.
    public var description: String {
        switch (record, location) {
        case (let record?, let location?): "\(record) (\(location)): \(message)"
        case (let record?, nil): "\(record): \(message)"
        case (nil, let location?): "\(location): \(message)"
        case (nil, nil): message
        }
    }
}
