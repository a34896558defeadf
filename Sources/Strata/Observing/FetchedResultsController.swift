import Foundation

/// Hears a ``FetchedResultsController``'s changes (Core Data's
/// `NSFetchedResultsControllerDelegate`, in one call per change).
///
/// The calls come on the controller's context's queue. A screen on the main actor, showing a
/// controller of a main-queue context, adopts it with a `@preconcurrency` conformance, which
/// checks at run time that each call comes on the main actor:
///
/// ```swift
/// @MainActor final class BookList { … }
/// extension BookList: @preconcurrency FetchedResultsControllerDelegate {
///     func controller(_ controller: FetchedResultsController, didChange change: ResultsChange) { … }
/// }
/// ```
public protocol FetchedResultsControllerDelegate: AnyObject {
    /// The results changed as `change` says; the controller shows the new results already.
    func controller(_ controller: FetchedResultsController, didChange change: ResultsChange)
}

/// The results of a fetch request on a context, kept up to date as the context saves, merges
/// other contexts' saves and takes its children's saves, with each change told as a list
/// applies it: Core Data's `NSFetchedResultsController`.
///
/// ```swift
/// let books = FetchedResultsController(
///     fetchRequest: FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "rating >= 4"),
///                                sortDescriptors: [ObjectSortDescriptor("title")]),
///     context: viewContext, sectionNameKeyPath: "genre")
/// try viewContext.performAndWait { try books.performFetch() }
/// books.onChange = { change in
///     tableView.apply(change)                    // deletes, inserts, moves, reloads
/// }
/// for await change in books.changes { … }        // or as an asynchronous sequence
/// ```
///
/// Use it on its context's queue, where its changes are delivered: one change per save that
/// reaches the context, telling each object once (a commit from a worker arrives as one
/// change, its new objects under their permanent IDs). Objects are sorted by the
/// section key path's value first (when there is one), then by the request's sort
/// descriptors, then by ID, as ``ObjectSortDescriptor`` compares in memory. A change costs in
/// proportion to the objects it touches, not to the results; when the predicate, a sort or the
/// section reads through a relationship, a change to another entity's objects makes the
/// controller fetch again and compare.
public final class FetchedResultsController: @unchecked Sendable {
    /// The request whose results the controller keeps: its entity, predicate and sort.
    public let fetchRequest: FetchRequest
    /// The context the controller fetches in and follows.
    public let context: ObjectContext
    /// The key path whose value names each object's section; `nil` for one section.
    public let sectionNameKeyPath: String?
    /// Called with each change, after the controller took it in.
    public var onChange: ((ResultsChange) -> Void)?
    /// Told of each change, as ``onChange`` is; held weakly.
    public weak var delegate: (any FetchedResultsControllerDelegate)?

    /// An object of the results and what orders it: its section's value and name, then the
    /// values of the sort descriptors. A class, so that moving entries moves references.
    final class Entry {
        var id: ObjectID
        let sectionValue: DatabaseValue
        let sectionName: String
        let sortValues: [DatabaseValue]

        init(id: ObjectID, sectionValue: DatabaseValue, sectionName: String, sortValues: [DatabaseValue]) {
            (self.id, self.sectionValue, self.sectionName, self.sortValues) = (id, sectionValue, sectionName, sortValues)
        }

        func hasSameKey(as other: Entry) -> Bool {
            sectionName == other.sectionName && sectionValue == other.sectionValue && sortValues == other.sortValues
        }
    }

    /// A section: its name, the value it is ordered by, and how many objects it holds.
    struct SectionInfo {
        let name: String
        let value: DatabaseValue
        var count: Int
    }

    /// The results in order, section after section.
    var entries = ChunkedList<Entry>()
    var entriesByID: [ObjectID: Entry] = [:]
    var sectionInfos: [SectionInfo] = []
    /// The entities whose objects can be in the results.
    let entityNames: Set<String>
    /// Whether the predicate, a sort or the section reads other objects than the results':
    /// a change to those can move objects of the results.
    let readsRelatedObjects: Bool
    private var observation: DidSaveObservation?
    private let streams = ChangeStreams<ResultsChange>()

    /// A controller of `fetchRequest`'s results on `context`, grouped in sections by the value
    /// of `sectionNameKeyPath` when given. Call ``performFetch()`` to read them.
    public init(fetchRequest: FetchRequest, context: ObjectContext, sectionNameKeyPath: String? = nil) {
        self.fetchRequest = fetchRequest
        self.context = context
        self.sectionNameKeyPath = sectionNameKeyPath
        let model = context.model
        let entity = model.entity(named: fetchRequest.entityName)
        entityNames = Set([fetchRequest.entityName] + (fetchRequest.includesSubentities ? entity.map { model.allSubentities(of: $0).map(\.name) } ?? [] : []))
        let keyPaths = fetchRequest.sortDescriptors.map(\.keyPath) + (sectionNameKeyPath.map { [$0] } ?? [])
        readsRelatedObjects = keyPaths.contains { $0.contains(".") }
            || (fetchRequest.predicate.map { Self.readsRelationships($0, of: entity, in: model) } ?? false)
    }

    deinit {
        observation?.cancel()
        streams.finishAll()
    }

    // MARK: - Fetching

    /// Reads the results and starts following the context's changes.
    ///
    /// - Throws: what ``ObjectContext/fetch(_:)`` throws, or ``ContextError`` when a sort or
    ///   section key path cannot be read.
    public func performFetch() throws {
        context.assertOnQueue()
        context.noteExternalDataVersion()
        let fetched = try fetchEntries()
        entries = ChunkedList(fetched)
        entriesByID = Dictionary(fetched.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        sectionInfos = Self.sections(of: fetched)
        guard observation == nil else { return }
        observation = context.addObjectsDidChangeObserver { [weak self] change in
            self?.take(change)
        }
    }

    /// The results, sorted, as entries.
    func fetchEntries() throws -> [Entry] {
        var request = fetchRequest
        request.returnsObjectsAsFaults = false
        let entries = try context.fetch(request).map { try entry(for: $0) }
        return entries.sorted(by: precedes)
    }

    /// The entry of `object`, read from its current values.
    func entry(for object: ManagedObject) throws -> Entry {
        let sectionValue = try sectionNameKeyPath.map { try value(of: $0, in: object) } ?? .null
        let sortValues = try fetchRequest.sortDescriptors.map { try value(of: $0.keyPath, in: object) }
        return Entry(id: object.objectID, sectionValue: sectionValue, sectionName: Self.sectionName(sectionValue), sortValues: sortValues)
    }

    private func value(of keyPath: String, in object: ManagedObject) throws(ContextError) -> DatabaseValue {
        try PredicateEvaluator.value(ofKeyPath: keyPath.split(separator: ".").map(String.init), on: object).databaseValue ?? .null
    }

    /// A section's name: its value as text, `""` for none.
    static func sectionName(_ value: DatabaseValue) -> String {
        switch value {
        case .null: ""
        case .text(let text): text
        case .integer(let integer): String(integer)
        case .real(let real): String(real)
        case .blob(let data): data.base64EncodedString()
        }
    }

    /// Whether `a` comes before `b`: by section value, the sort descriptors, then ID.
    func precedes(_ a: Entry, _ b: Entry) -> Bool {
        if sectionNameKeyPath != nil {
            let order = a.sectionValue.sortOrder(b.sectionValue, caseInsensitive: false)
            if order != .orderedSame { return order == .orderedAscending }
        }
        for (index, descriptor) in fetchRequest.sortDescriptors.enumerated() {
            var order = a.sortValues[index].sortOrder(b.sortValues[index], caseInsensitive: descriptor.caseInsensitive)
            if !descriptor.ascending { order = order == .orderedAscending ? .orderedDescending : order == .orderedDescending ? .orderedAscending : order }
            if order != .orderedSame { return order == .orderedAscending }
        }
        return a.id.precedes(b.id)
    }

    static func sections(of entries: [Entry]) -> [SectionInfo] {
        var sections: [SectionInfo] = []
        for entry in entries {
            if let last = sections.last, last.name == entry.sectionName {
                sections[sections.count - 1].count += 1
            } else {
                sections.append(SectionInfo(name: entry.sectionName, value: entry.sectionValue, count: 1))
            }
        }
        return sections
    }

    // MARK: - Results

    /// The objects of the results, in order.
    public var fetchedObjects: [ManagedObject] {
        context.assertOnQueue()
        return entries.elements.map { context.object(with: $0.id) }
    }

    /// Each section's name and number of objects, in order.
    public var sections: [(name: String, numberOfObjects: Int)] {
        sectionInfos.map { ($0.name, $0.count) }
    }

    /// The object at `index`.
    public func object(at index: ResultsIndex) -> ManagedObject {
        context.assertOnQueue()
        return context.object(with: entries[flatPosition(of: index, in: sectionInfos)].id)
    }

    /// Where `object` is in the results, or `nil` when it is not.
    public func index(of object: ManagedObject) -> ResultsIndex? {
        guard let entry = entriesByID[object.objectID], let position = position(of: entry) else { return nil }
        return Self.index(ofFlatPosition: position, in: sectionInfos)
    }

    /// The results as sections of IDs.
    public var snapshot: ResultsSnapshot {
        var sections: [ResultsSnapshot.Section] = []
        var start = 0
        for info in sectionInfos {
            sections.append(ResultsSnapshot.Section(name: info.name, objectIDs: entries.elements(in: start..<(start + info.count)).map(\.id)))
            start += info.count
        }
        return ResultsSnapshot(sections: sections)
    }

    // MARK: - Positions

    /// The position of `entry` in the results, found by its key, or `nil` when it is not there.
    func position(of entry: Entry) -> Int? {
        let position = insertionPoint(of: entry)
        return position < entries.count && entries[position] === entry ? position : nil
    }

    /// Where `entry` goes in the results: the first position whose entry does not precede it.
    func insertionPoint(of entry: Entry) -> Int {
        entries.firstPosition { precedes($0, entry) }
    }

    static func index(ofFlatPosition position: Int, in sections: [SectionInfo]) -> ResultsIndex {
        var start = 0
        for (number, section) in sections.enumerated() {
            if position < start + section.count { return ResultsIndex(item: position - start, section: number) }
            start += section.count
        }
        preconditionFailure("position \(position) beyond the results")
    }

    func flatPosition(of index: ResultsIndex, in sections: [SectionInfo]) -> Int {
        sections.prefix(index.section).reduce(0) { $0 + $1.count } + index.item
    }

    // MARK: - Delivering

    /// The changes to come, as an asynchronous sequence; it ends when the controller goes.
    public var changes: AsyncStream<ResultsChange> {
        streams.makeStream()
    }

    func deliver(_ change: ResultsChange) {
        guard !change.isEmpty else { return }
        onChange?(change)
        delegate?.controller(self, didChange: change)
        streams.yield(change)
    }

    // MARK: - What the predicate reads

    /// Whether `predicate` reads through a relationship of `entity` (or with a subquery).
    static func readsRelationships(_ predicate: ObjectPredicate, of entity: EntityDescription?, in model: ObjectModel) -> Bool {
        func reads(_ expression: ObjectPredicate.Expression) -> Bool {
            switch expression {
            case .keyPath(let path):
                guard let first = path.first, let entity else { return true }
                return path.count > 1 || model.relationship(named: first, in: entity) != nil
            case .subquery: return true
            default: return expression.operands.contains(where: reads)
            }
        }
        switch predicate {
        case .constant: return false
        case .not(let inner): return readsRelationships(inner, of: entity, in: model)
        case .and(let parts), .or(let parts): return parts.contains { readsRelationships($0, of: entity, in: model) }
        case .comparison(let comparison): return reads(comparison.left) || reads(comparison.right)
        }
    }
}
