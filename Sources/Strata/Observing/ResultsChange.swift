/// A place in a ``FetchedResultsController``'s results: the section, then the object's
/// position within it (Core Data's index path of a section and a row).
public struct ResultsIndex: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The section's number, from 0.
    public var section: Int
    /// The object's position within its section, from 0.
    public var item: Int

    /// The place of `item` in `section`.
    public init(item: Int, section: Int) {
        self.item = item
        self.section = section
    }

    public static func < (lhs: ResultsIndex, rhs: ResultsIndex) -> Bool {
        (lhs.section, lhs.item) < (rhs.section, rhs.item)
    }

    /// `[section, item]`, as index paths print.
    public var description: String { "[\(section), \(item)]" }
}

/// How a ``FetchedResultsController``'s results changed in one save or merge, in the terms a
/// list applies changes in (a table view's batch updates):
///
/// 1. `deleted` objects and the sources of `moved` ones leave, at their old places, and
///    `deletedSections` go, by their old numbers (every object they held is listed too);
/// 2. `insertedSections` come, empty, at their new numbers;
/// 3. `inserted` objects and the destinations of `moved` ones arrive at their new places,
///    in ascending order;
/// 4. `updated` objects changed in place: their old places, which they keep relative to the
///    objects that did not move.
///
/// ``ResultsSnapshot/applying(_:)`` applies a change this way: the results before the change,
/// so changed, are the results after it.
public struct ResultsChange: Sendable, Equatable {
    /// Sections that went, by their old numbers.
    public var deletedSections: [Int] = []
    /// Sections that appeared, at their new numbers, with their names.
    public var insertedSections: [(index: Int, name: String)] = []
    /// Objects that left the results, at their old places.
    public var deleted: [(index: ResultsIndex, id: ObjectID)] = []
    /// Objects that entered the results, at their new places.
    public var inserted: [(index: ResultsIndex, id: ObjectID)] = []
    /// Objects whose sort or section value changed, from their old places to their new ones.
    public var moved: [(from: ResultsIndex, to: ResultsIndex, id: ObjectID)] = []
    /// Objects that changed without moving, at their old places.
    public var updated: [(index: ResultsIndex, id: ObjectID)] = []

    /// A change that changes nothing, to be filled in.
    init() {}

    /// Whether the change changes nothing.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && deleted.isEmpty && inserted.isEmpty && moved.isEmpty && updated.isEmpty
    }

    public static func == (lhs: ResultsChange, rhs: ResultsChange) -> Bool {
        lhs.deletedSections == rhs.deletedSections && lhs.insertedSections.elementsEqual(rhs.insertedSections) { $0 == $1 }
            && lhs.deleted.elementsEqual(rhs.deleted) { $0 == $1 } && lhs.inserted.elementsEqual(rhs.inserted) { $0 == $1 }
            && lhs.moved.elementsEqual(rhs.moved) { $0 == $1 } && lhs.updated.elementsEqual(rhs.updated) { $0 == $1 }
    }
}

/// A ``FetchedResultsController``'s results as identifiers: each section's name and its
/// objects' IDs in order, what a diffable data source shows.
public struct ResultsSnapshot: Sendable, Equatable {
    /// One section: its name and its objects' IDs in order.
    public struct Section: Sendable, Equatable {
        /// The section's name: its objects' value at the section key path (empty without one).
        public var name: String
        /// Its objects' IDs, in the results' order.
        public var objectIDs: [ObjectID]

        /// A section named `name` holding `objectIDs`.
        public init(name: String, objectIDs: [ObjectID]) {
            self.name = name
            self.objectIDs = objectIDs
        }
    }

    /// The sections, in order.
    public var sections: [Section]

    /// A snapshot of `sections`.
    public init(sections: [Section] = []) {
        self.sections = sections
    }

    /// Every object's ID, section after section.
    public var objectIDs: [ObjectID] { sections.flatMap(\.objectIDs) }

    /// These results with `change` applied as a list applies it (see ``ResultsChange``).
    public func applying(_ change: ResultsChange) -> ResultsSnapshot {
        var sections = self.sections
        let leaving = (change.deleted.map(\.index) + change.moved.map(\.from)).sorted(by: >)
        for index in leaving { sections[index.section].objectIDs.remove(at: index.item) }
        for section in change.deletedSections.sorted(by: >) { sections.remove(at: section) }
        for (section, name) in change.insertedSections.sorted(by: { $0.index < $1.index }) { sections.insert(Section(name: name, objectIDs: []), at: section) }
        let arriving = (change.inserted.map { ($0.index, $0.id) } + change.moved.map { ($0.to, $0.id) }).sorted { $0.0 < $1.0 }
        for (index, id) in arriving { sections[index.section].objectIDs.insert(id, at: index.item) }
        return ResultsSnapshot(sections: sections)
    }
}
