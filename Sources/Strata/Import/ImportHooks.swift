/// What a program adds to an import, per entity, where DKDBManager's subclasses override
/// methods: a reason to find an object invalid, whether to update an object from a record,
/// and a call after each record. A hook of an entity serves its sub-entities too, unless they
/// have their own.
///
/// ```swift
/// var hooks = ImportHooks()
/// hooks.invalidReason["Book"] = { book in try book.objects(forKey: "pages").isEmpty ? "no pages" : nil }
/// hooks.shouldUpdate["Book"] = { book, record in record["version"]?.intValue != book["version"] as? Int }
/// let session = ImportSession(context: context)
/// session.hooks = hooks
/// ```
public struct ImportHooks {
    /// A reason to delete an object as invalid after its import, beside the model's rules and
    /// `strata.invalidIf`; `nil` when it is valid.
    public var invalidReason: [String: (ManagedObject) throws -> String?] = [:]
    /// Whether an object that exists is updated from its record; when not, it and what its
    /// record holds below it stay as they are, and count as seen (as `strata.updatedAtKey`).
    public var shouldUpdate: [String: (ManagedObject, JSONValue) throws -> Bool] = [:]
    /// Called once a record is imported, with its object, the record and the object's state.
    public var afterImport: [String: (ManagedObject, JSONValue, ImportState) throws -> Void] = [:]
    /// Called before each batch of records (nested records too) with how many it holds: what
    /// throws stops the import there, as a failing record does (a caller that bounds an
    /// import's time checks its clock here).
    public var beforeBatch: ((Int) throws -> Void)?

    /// No hooks: every record is imported and updated as it comes.
    public init() {}

    /// The hook of `table` for `entity`: its own, else its nearest ancestor's.
    func hook<Hook>(_ table: [String: Hook], for entity: EntityDescription, in model: ObjectModel) -> Hook? {
        guard !table.isEmpty else { return nil }
        for candidate in [entity] + model.ancestors(of: entity) {
            if let hook = table[candidate.name] { return hook }
        }
        return nil
    }
}
