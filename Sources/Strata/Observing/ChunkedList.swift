/// A list kept in chunks of a few hundred elements, so that inserting or removing one shifts
/// its chunk rather than the whole list: what keeps a change to a controller of 100,000
/// results as cheap as one to a controller of 1,000. Positions are found by walking the
/// chunks' counts.
struct ChunkedList<Element> {
    /// The most elements a chunk holds before it splits.
    static var chunkCapacity: Int { 512 }

    private(set) var chunks: [[Element]] = []
    private(set) var count = 0

    init(_ elements: [Element] = []) {
        count = elements.count
        chunks = stride(from: 0, to: elements.count, by: Self.chunkCapacity / 2).map {
            Array(elements[$0..<min($0 + Self.chunkCapacity / 2, elements.count)])
        }
    }

    /// Every element, in order.
    var elements: [Element] { chunks.flatMap { $0 } }

    subscript(position: Int) -> Element {
        let (chunk, offset) = place(of: position)
        return chunks[chunk][offset]
    }

    /// The elements at `range`, in order.
    func elements(in range: Range<Int>) -> [Element] {
        var result: [Element] = []
        result.reserveCapacity(range.count)
        var start = 0
        for chunk in chunks {
            let end = start + chunk.count
            let low = max(range.lowerBound, start), high = min(range.upperBound, end)
            if low < high { result += chunk[(low - start)..<(high - start)] }
            if end >= range.upperBound { break }
            start = end
        }
        return result
    }

    /// The first position whose element is not `before` the sought one, for elements sorted
    /// so that `before` holds for a prefix: where the sought element is, or goes.
    func firstPosition(notBefore before: (Element) -> Bool) -> Int {
        // The first chunk whose last element is not before: the comparisons are few, and only
        // the counts of the chunks ahead of it are added up.
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if let last = chunks[middle].last, before(last) { low = middle + 1 } else { high = middle }
        }
        let start = chunks[..<low].reduce(0) { $0 + $1.count }
        guard low < chunks.count else { return start }
        let chunk = chunks[low]
        var first = 0, end = chunk.count
        while first < end {
            let middle = (first + end) / 2
            if before(chunk[middle]) { first = middle + 1 } else { end = middle }
        }
        return start + first
    }

    mutating func insert(_ element: Element, at position: Int) {
        count += 1
        guard !chunks.isEmpty else {
            chunks = [[element]]
            return
        }
        // At the end of a chunk rather than the start of the next, so the last chunk grows.
        let (chunk, offset) = position == count - 1 ? (chunks.count - 1, chunks[chunks.count - 1].count) : place(of: position)
        chunks[chunk].insert(element, at: offset)
        if chunks[chunk].count > Self.chunkCapacity {
            let half = chunks[chunk].count / 2
            chunks.insert(Array(chunks[chunk][half...]), at: chunk + 1)
            chunks[chunk].removeSubrange(half...)
        }
    }

    @discardableResult
    mutating func remove(at position: Int) -> Element {
        let (chunk, offset) = place(of: position)
        count -= 1
        let element = chunks[chunk].remove(at: offset)
        if chunks[chunk].isEmpty { chunks.remove(at: chunk) }
        return element
    }

    /// The chunk holding `position`, and the position within it.
    private func place(of position: Int) -> (chunk: Int, offset: Int) {
        precondition(position >= 0 && position < count, "position \(position) outside a list of \(count)")
        var start = 0
        for (number, chunk) in chunks.enumerated() {
            if position < start + chunk.count { return (number, position - start) }
            start += chunk.count
        }
        preconditionFailure("the chunks hold fewer elements than counted")
    }
}
