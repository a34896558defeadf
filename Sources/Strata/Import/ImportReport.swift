/// What an import did to an object.
public enum ImportState: String, Sendable, CaseIterable, Comparable {
    case created
    case updated
    /// Seen, with nothing to change (or skipped by the should-update check).
    case unchanged
    /// Deleted: invalid after the import, or deprecated by ``ImportSession/removeDeprecated(_:where:)``.
    case deleted

    public static func < (lhs: ImportState, rhs: ImportState) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The counts of an import per entity and state, and the objects deleted as invalid.
///
/// ```swift
/// let report = try session.import(records, into: "Book")
/// report.count("Book", .created)     // 12
/// report.description                 // Book: 12 created, 3 updated, 40 unchanged
/// ```
public struct ImportReport: Sendable, Equatable, CustomStringConvertible {
    /// Objects per entity and state.
    public var counts: [String: [ImportState: Int]] = [:]
    /// The objects deleted as invalid, with their reason.
    public var invalid: [InvalidObject] = []
    /// Identity values that named no object, by relationship, with the record that named
    /// them (`Book.tags: "17" (record 12)`).
    public var unresolvedLinks: [String] = []
    /// Record keys that no property reads, by entity (`Book.subtitle`): a misspelt key shows here.
    public var ignoredKeys: Set<String> = []
    /// The first record that carried each of ``ignoredKeys`` (`Book.subtitle` → `record 3`),
    /// to point at in messages.
    public var ignoredKeyRecords: [String: String] = [:]
    /// Record keys that a property reads, by entity (`Book.title`). With ``ignoredKeys`` it
    /// tells records fed to the wrong entity (none read, some ignored) from records of the
    /// right one that carry a few extra keys.
    public var readKeys: Set<String> = []

    /// Whether the records had keys and not one of them fits their entity: no property reads
    /// any, as when records are fed to the wrong entity.
    public var readsNoKey: Bool { readKeys.isEmpty && !ignoredKeys.isEmpty }

    /// An object the import deleted as invalid.
    public struct InvalidObject: Sendable, Equatable, CustomStringConvertible {
        /// The object's entity.
        public var entity: String
        /// The object as the log names it: its identity value, or its ID.
        public var object: String
        /// Why it was invalid: `title is required`.
        public var reason: String

        /// `Book 9780261103252: title is required`.
        public var description: String { "\(entity) \(object): \(reason)" }
    }

    /// An empty report, to be filled in by an import.
    public init() {}

    /// How many objects of `entity` ended in `state`.
    public func count(_ entity: String, _ state: ImportState) -> Int {
        counts[entity]?[state] ?? 0
    }

    mutating func record(_ entity: String, _ state: ImportState) {
        counts[entity, default: [:]][state, default: 0] += 1
    }

    /// One line per entity: `Book: 12 created, 3 updated, 40 unchanged, 1 deleted`.
    public var description: String {
        counts.keys.sorted().map { entity in
            let states = ImportState.allCases.compactMap { state in counts[entity]?[state].flatMap { $0 > 0 ? "\($0) \(state.rawValue)" : nil } }
            return "\(entity): " + states.joined(separator: ", ")
        }.joined(separator: "\n")
    }
}
