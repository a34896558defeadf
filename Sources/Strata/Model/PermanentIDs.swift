import Foundation

/// The permanent IDs that saves gave inserted objects, by the temporary IDs the objects had
/// before: what ``ContextDidSave/permanentIDs`` and ``ObjectsDidChange/permanentIDs`` carry,
/// read as a dictionary is.
///
/// ```swift
/// let before = book.objectID                        // temporary
/// try context.save()
/// notification.permanentIDs[before] == book.objectID
/// for (temporary, permanent) in notification.permanentIDs { … }
/// ```
///
/// A save gives keys in a row to the objects of one entity inserted one after another, and
/// their temporary IDs were made in a row too, so the pairs are kept as runs: a save of
/// 100,000 objects of one entity holds one run, not 100,000 entries. As a dictionary they took
/// 16 MB, which a context kept for as long as it lived (it remembers every temporary ID that
/// became permanent, for its children), and building it was a few percent of that save
/// (BENCHMARKS.md). Runs go by the temporary IDs' key words (``ObjectID/KeyWord``), so temporary
/// IDs made by hand can form runs too. Pairs that fit no run, such as a temporary ID whose permanent
/// ID is of another entity, are kept in a dictionary.
public struct PermanentIDs: Sendable, Sequence, ExpressibleByDictionaryLiteral {
    /// Temporary IDs of one scope whose key words follow one another from `first`, given the
    /// permanent keys from `firstKey` in the same order.
    fileprivate struct Run: Sendable {
        /// Scopes are never freed (see ``ObjectIDScope``), as for ``ObjectID/scope``.
        unowned(unsafe) let scope: ObjectIDScope
        let first: ObjectID.KeyWord
        let firstKey: Int64
        var count: Int

        var end: ObjectID.KeyWord { first.advanced(by: Int64(count)) }
    }

    /// Sorted by `first`. No two runs share a temporary key: each one is made
    /// once (see ``ObjectID/newTemporary(in:)``), and a pair given again replaces the old one.
    private var runs: [Run] = []
    private var others: [ObjectID: ObjectID] = [:]
    /// How many temporary IDs have a permanent one.
    public private(set) var count = 0

    /// No pairs.
    public init() {}

    /// The pairs of `elements`; a temporary ID given twice keeps the last (where a dictionary
    /// literal stops the program).
    public init(dictionaryLiteral elements: (ObjectID, ObjectID)...) {
        self.init(pairs: elements)
    }

    /// The pairs of `dictionary`.
    public init(_ dictionary: [ObjectID: ObjectID]) {
        self.init(pairs: dictionary.lazy.map { ($0.key, $0.value) })
    }

    /// The pairs of `pairs`, in any order; a temporary ID given twice keeps the last. They are
    /// added in the order of their temporary keys, so that each one joins the last run or
    /// starts one after it: added in another order, each would move the runs after its place.
    init(pairs: some Sequence<(ObjectID, ObjectID)>) {
        var keyed: [(word: ObjectID.KeyWord, offset: Int, pair: (ObjectID, ObjectID))] = []
        for (offset, pair) in pairs.enumerated() {
            guard pair.0.isTemporary else {
                self[pair.0] = pair.1
                continue
            }
            keyed.append((pair.0.word, offset, pair))
        }
        let inOrder = zip(keyed, keyed.dropFirst()).allSatisfy { $0.word < $1.word }
        if !inOrder { keyed.sort { ($0.word, $0.offset) < ($1.word, $1.offset) } }
        for entry in keyed { self[entry.pair.0] = entry.pair.1 }
    }

    /// Whether no temporary ID has a permanent one here.
    public var isEmpty: Bool { count == 0 }

    /// The permanent ID of `temporary`, `nil` when it has none here. Setting `nil` takes the
    /// pair out.
    public subscript(temporary: ObjectID) -> ObjectID? {
        get {
            if let index = runIndex(holding: temporary) {
                let run = runs[index]
                return ObjectID(scope: run.scope, key: .permanent(run.firstKey + run.first.distance(to: temporary.word)))
            }
            return others.isEmpty ? nil : others[temporary]
        }
        set {
            remove(temporary)
            if let newValue { add(temporary, newValue) }
        }
    }

    /// Pairs given one by one, kept as they come while they come in the order of their
    /// temporary keys (as a save gives them), and put in order once at the end otherwise.
    struct Builder {
        private var ids = PermanentIDs()
        private var late: [(ObjectID, ObjectID)] = []

        mutating func add(_ temporary: ObjectID, _ permanent: ObjectID) {
            if late.isEmpty, ids.comesAfterEveryRun(temporary) { ids[temporary] = permanent } else { late.append((temporary, permanent)) }
        }

        func build() -> PermanentIDs {
            guard !late.isEmpty else { return ids }
            var built = ids
            built.merge(PermanentIDs(pairs: late))
            return built
        }
    }

    /// Whether `temporary`'s key comes after those of every run, or is one no run holds.
    private func comesAfterEveryRun(_ temporary: ObjectID) -> Bool {
        !temporary.isTemporary || comesAfterEveryRun(temporary.word)
    }

    /// Whether the temporary key `word` comes after those of every run.
    private func comesAfterEveryRun(_ word: ObjectID.KeyWord) -> Bool {
        guard let last = runs.last else { return true }
        return word >= last.end
    }

    /// The temporary IDs, in the order of ``Iterator``.
    public var keys: LazyMapSequence<PermanentIDs, ObjectID> { lazy.map(\.key) }

    /// Takes the pairs of `other` too; where both have a temporary ID, `other`'s pair wins.
    public mutating func merge(_ other: PermanentIDs) {
        guard !other.isEmpty else { return }
        guard !isEmpty else {
            self = other
            return
        }
        // A later save's runs come after every run held, as saves make them, and are taken
        // whole; in any other case the pairs of both are put in order again.
        let followsEveryRun = other.runs.first.map { comesAfterEveryRun($0.first) } ?? true
        guard others.isEmpty, followsEveryRun else {
            self = PermanentIDs(pairs: chainedPairs(self, other))
            return
        }
        for run in other.runs { appendRun(run) }
        for (temporary, permanent) in other.others { self[temporary] = permanent }
    }

    /// The pairs: those of runs in the order their temporary IDs were made, then the others.
    public struct Iterator: IteratorProtocol {
        fileprivate var runs: IndexingIterator<[Run]>
        fileprivate var run: LazyMapSequence<Range<Int>, (key: ObjectID, value: ObjectID)>.Iterator?
        fileprivate var others: Dictionary<ObjectID, ObjectID>.Iterator

        /// The next pair, `nil` after the last.
        public mutating func next() -> (key: ObjectID, value: ObjectID)? {
            while true {
                if let pair = run?.next() { return pair }
                guard let next = runs.next() else { return others.next() }
                run = PermanentIDs.pairs(of: next).makeIterator()
            }
        }
    }

    /// An iterator over the pairs, in the order of ``Iterator``.
    public func makeIterator() -> Iterator {
        Iterator(runs: runs.makeIterator(), run: nil, others: others.makeIterator())
    }

    // MARK: - Runs

    private static func pairs(of run: Run) -> LazyMapSequence<Range<Int>, (key: ObjectID, value: ObjectID)> {
        (0..<run.count).lazy.map { offset in
            (ObjectID(scope: run.scope, word: run.first.advanced(by: Int64(offset))),
             ObjectID(scope: run.scope, key: .permanent(run.firstKey + Int64(offset))))
        }
    }

    /// How many runs start at or before the temporary key `word`: where a run starting there
    /// goes. Saves make runs in order, so the last run is asked first.
    private func runsStarting(atOrBefore word: ObjectID.KeyWord) -> Int {
        if let last = runs.last, last.first <= word { return runs.count }
        var (lower, upper) = (0, runs.count)
        while lower < upper {
            let middle = (lower + upper) / 2
            if runs[middle].first <= word { lower = middle + 1 } else { upper = middle }
        }
        return lower
    }

    /// The run holding the temporary key `word`: the last one that starts at or before it,
    /// if it reaches that far.
    private func runIndex(containing word: ObjectID.KeyWord) -> Int? {
        let starting = runsStarting(atOrBefore: word)
        guard starting > 0 else { return nil }
        return word < runs[starting - 1].end ? starting - 1 : nil
    }

    /// The run holding `temporary`: its key and its scope.
    private func runIndex(holding temporary: ObjectID) -> Int? {
        guard temporary.isTemporary, let index = runIndex(containing: temporary.word), runs[index].scope === temporary.scope else { return nil }
        return index
    }

    /// Adds a pair that is not held: to the run it continues, else as a run of its own.
    private mutating func add(_ temporary: ObjectID, _ permanent: ObjectID) {
        count += 1
        // A key that a run of another scope holds (an ID made by hand with another entity's
        // name) goes aside: runs never share a key.
        guard temporary.isTemporary, permanent.scope === temporary.scope, let key = permanent.primaryKey,
              runIndex(containing: temporary.word) == nil else {
            others[temporary] = permanent
            return
        }
        appendRun(Run(scope: temporary.scope, first: temporary.word, firstKey: key, count: 1), counted: true)
    }

    /// Puts `run`, which shares no temporary key with a run held, in its place, joined to the
    /// run before it when it continues that one.
    private mutating func appendRun(_ run: Run, counted: Bool = false) {
        if !counted { count += run.count }
        let position = runsStarting(atOrBefore: run.first)
        if position > 0 {
            let before = runs[position - 1]
            if before.scope === run.scope, before.end == run.first,
               before.firstKey + Int64(before.count) == run.firstKey {
                runs[position - 1].count += run.count
                return
            }
        }
        runs.insert(run, at: position)
    }

    /// Takes out the pair of `temporary`, splitting its run.
    private mutating func remove(_ temporary: ObjectID) {
        if let index = runIndex(holding: temporary) {
            let run = runs[index]
            let offset = Int(run.first.distance(to: temporary.word))
            var pieces: [Run] = []
            if offset > 0 { pieces.append(Run(scope: run.scope, first: run.first, firstKey: run.firstKey, count: offset)) }
            if offset + 1 < run.count {
                pieces.append(Run(scope: run.scope, first: temporary.word.advanced(by: 1), firstKey: run.firstKey + Int64(offset + 1), count: run.count - offset - 1))
            }
            runs.replaceSubrange(index...index, with: pieces)
            count -= 1
        } else if !others.isEmpty, others.removeValue(forKey: temporary) != nil {
            count -= 1
        }
    }
}

/// The pairs of `first`, then those of `second`: the later of two pairs for one temporary ID
/// is `second`'s.
private func chainedPairs(_ first: PermanentIDs, _ second: PermanentIDs) -> [(ObjectID, ObjectID)] {
    var pairs: [(ObjectID, ObjectID)] = []
    pairs.reserveCapacity(first.count + second.count)
    for (temporary, permanent) in first { pairs.append((temporary, permanent)) }
    for (temporary, permanent) in second { pairs.append((temporary, permanent)) }
    return pairs
}

extension PermanentIDs: Equatable {
    /// Whether both hold the same pairs, however they keep them.
    public static func == (lhs: PermanentIDs, rhs: PermanentIDs) -> Bool {
        lhs.count == rhs.count && lhs.allSatisfy { rhs[$0.key] == $0.value }
    }
}
