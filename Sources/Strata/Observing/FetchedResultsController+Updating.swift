import Foundation

/// How a ``FetchedResultsController`` takes a context's change: the objects it touches are
/// judged again and moved in the sorted results, and the change is told in a list's terms.
extension FetchedResultsController {
    /// An object the change touches: its entry and place before, and its entry after
    /// (`nil` when it is not in the results then).
    private struct Touched {
        var old: (entry: Entry, position: Int)?
        var new: Entry?
        /// Whether the context said the object changed (not only its ID).
        var isUpdated = false
    }

    func take(_ change: ObjectsDidChange) {
        guard !change.isReset else {
            reload()
            return
        }
        var touched: [ObjectID: Touched] = [:]
        // Objects that got permanent IDs keep their values but sort by their new IDs.
        for (temporary, permanent) in change.permanentIDs {
            guard let entry = entriesByID[temporary], let position = position(of: entry) else { continue }
            touched[permanent] = Touched(old: (entry, position))
        }
        let resolve = { (id: ObjectID) in change.permanentIDs[id] ?? id }
        let changed = change.inserted.union(change.updated).union(change.deleted)
        if change.storeChangedElsewhere || readsRelatedObjects && changed.contains(where: { !entityNames.contains($0.entityName) }) {
            compareWithNewFetch(change)
            return
        }
        let deleted = Set(change.deleted.map(resolve))
        let updated = Set(change.updated.union(change.inserted).map(resolve))
        for id in changed.map(resolve) where entityNames.contains(id.entityName) && touched[id] == nil {
            if let entry = entriesByID[id], let position = position(of: entry) {
                touched[id] = Touched(old: (entry, position))
            } else {
                touched[id] = Touched()
            }
        }
        guard !touched.isEmpty else { return }
        for id in touched.keys {
            touched[id]?.isUpdated = updated.contains(id)
            touched[id]?.new = deleted.contains(id) ? nil : currentEntry(of: id)
        }
        // Old places come out from the end, so that earlier ones stay put; new ones go in by
        // key. The results change in place: a copy would cost as much as the results.
        var sections = sectionInfos
        for item in touched.values.compactMap(\.old).sorted(by: { $0.position > $1.position }) {
            entries.remove(at: item.position)
            remove(item.entry, from: &sections)
        }
        for entry in touched.values.compactMap(\.new) {
            entries.insert(entry, at: insertionPoint(of: entry))
            add(entry, to: &sections)
        }
        sections.removeAll { $0.count == 0 }
        let newPositions = touched.compactMapValues { item in item.new.flatMap { position(of: $0) } }
        commit(sections: sections, touched: touched, newPositions: newPositions)
    }

    /// The entry of the object `id` as it is now, or `nil` when it is not in the results:
    /// gone, outside the predicate, or unreadable.
    private func currentEntry(of id: ObjectID) -> Entry? {
        let object = context.object(with: id)
        guard object.managedObjectContext != nil, !object.isDeleted else { return nil }
        do {
            guard try fetchRequest.predicate?.evaluate(with: object) ?? true else { return nil }
            return try entry(for: object)
        } catch {
            return nil
        }
    }

    private func remove(_ entry: Entry, from sections: inout [SectionInfo]) {
        guard let number = sections.firstIndex(where: { $0.name == entry.sectionName }) else { return }
        sections[number].count -= 1
    }

    private func add(_ entry: Entry, to sections: inout [SectionInfo]) {
        if let number = sections.firstIndex(where: { $0.name == entry.sectionName }) {
            sections[number].count += 1
            return
        }
        let place = sections.firstIndex { entry.sectionValue.sortOrder($0.value, caseInsensitive: false) == .orderedAscending } ?? sections.count
        sections.insert(SectionInfo(name: entry.sectionName, value: entry.sectionValue, count: 1), at: place)
    }

    /// After a change to objects the results read through relationships: the results are
    /// fetched again and compared whole.
    private func compareWithNewFetch(_ change: ObjectsDidChange) {
        guard let fresh = try? fetchEntries() else { return }
        var touched: [ObjectID: Touched] = [:]
        for (position, entry) in entries.elements.enumerated() {
            touched[change.permanentIDs[entry.id] ?? entry.id] = Touched(old: (entry, position))
        }
        var newPositions: [ObjectID: Int] = [:]
        for (position, entry) in fresh.enumerated() {
            touched[entry.id, default: Touched()].new = entry
            newPositions[entry.id] = position
        }
        let updated = Set(change.updated.union(change.inserted).map { change.permanentIDs[$0] ?? $0 })
        for id in touched.keys { touched[id]?.isUpdated = updated.contains(id) }
        entries = ChunkedList(fresh)
        commit(sections: Self.sections(of: fresh), touched: touched, newPositions: newPositions)
    }

    /// Takes `sections` as those of the new results (`entries` by now) and tells the change
    /// the touched objects make.
    private func commit(sections: [SectionInfo], touched: [ObjectID: Touched], newPositions: [ObjectID: Int]) {
        let oldSections = sectionInfos
        var change = ResultsChange()
        let newNames = Set(sections.map(\.name)), oldNames = Set(oldSections.map(\.name))
        change.deletedSections = oldSections.indices.filter { !newNames.contains(oldSections[$0].name) }
        change.insertedSections = sections.indices.filter { !oldNames.contains(sections[$0].name) }.map { ($0, sections[$0].name) }
        for (id, item) in touched {
            let old = item.old.map { Self.index(ofFlatPosition: $0.position, in: oldSections) }
            let new = newPositions[id].map { Self.index(ofFlatPosition: $0, in: sections) }
            switch (old, new, item.old?.entry, item.new) {
            case (nil, let new?, _, _):
                change.inserted.append((new, id))
            case (let old?, nil, _, _):
                change.deleted.append((old, item.old!.entry.id))
            case (let old?, let new?, let before?, let after?):
                if before.id != after.id || !before.hasSameKey(as: after) {
                    change.moved.append((old, new, id))
                } else if item.isUpdated {
                    change.updated.append((old, id))
                }
            default:
                break
            }
        }
        change.deleted.sort { $0.index < $1.index }
        change.inserted.sort { $0.index < $1.index }
        change.moved.sort { $0.to < $1.to }
        change.updated.sort { $0.index < $1.index }
        for item in touched.values {
            if let old = item.old { entriesByID[old.entry.id] = nil }
        }
        for item in touched.values {
            if let new = item.new { entriesByID[new.id] = new }
        }
        sectionInfos = sections
        deliver(change)
    }

    /// After the context's reset: every object it held is gone, and the results are read again.
    private func reload() {
        let oldSnapshot = snapshot
        let fresh = (try? fetchEntries()) ?? []
        entries = ChunkedList(fresh)
        entriesByID = Dictionary(fresh.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        sectionInfos = Self.sections(of: fresh)
        var change = ResultsChange()
        change.deletedSections = Array(oldSnapshot.sections.indices)
        for (number, section) in oldSnapshot.sections.enumerated() {
            change.deleted += section.objectIDs.enumerated().map { (ResultsIndex(item: $0.offset, section: number), $0.element) }
        }
        let newSnapshot = snapshot
        change.insertedSections = newSnapshot.sections.enumerated().map { ($0.offset, $0.element.name) }
        for (number, section) in newSnapshot.sections.enumerated() {
            change.inserted += section.objectIDs.enumerated().map { (ResultsIndex(item: $0.offset, section: number), $0.element) }
        }
        deliver(change)
    }
}
