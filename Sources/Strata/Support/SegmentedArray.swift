/// An array that grows in segments of a fixed number of elements and never moves what it
/// holds. (``ChunkedList`` is the other kind: chunks that split, for inserting in the middle
/// of a sorted list, found by walking their counts; here a position is found by arithmetic,
/// and elements are only appended and removed from the end.)
///
/// Appending to a `ContiguousArray` of a million elements copies the whole buffer at each
/// doubling, into memory fresh from the kernel: every page of the new buffer faults once for
/// the copy, and the old one is freed. For a context's identity map, which grows by one entry
/// per object a fetch makes, those copies and faults were a tenth of fetching 100,000 objects
/// and more at 1,000,000 (see BENCHMARKS.md). Here each segment is allocated once, at its full
/// size (small enough to come from and return to the allocator's heap, so a later fetch reuses
/// it), and nothing is copied as the array grows. The first segment grows as an array does, so a
/// context of a few objects holds no more memory than before.
///
/// Elements are reached by position through two loads: the segment, then the element.
struct SegmentedArray<Element>: RandomAccessCollection, MutableCollection {
    /// Elements per segment, a power of two: 4,096 keeps a segment of 24-byte IDs under 128 KiB,
    /// the size above which glibc's allocator maps memory of its own instead of using its heap.
    static var segmentCapacity: Int { 1 << segmentShift }
    private static var segmentShift: Int { 12 }
    private static var positionMask: Int { segmentCapacity - 1 }

    private var segments: ContiguousArray<ContiguousArray<Element>> = []
    /// The number of elements.
    private(set) var count = 0

    init() {}

    var startIndex: Int { 0 }
    var endIndex: Int { count }

    // A position out of range falls outside a segment, or outside the segments, and traps there.
    subscript(position: Int) -> Element {
        get { segments[position >> Self.segmentShift][position & Self.positionMask] }
        _modify { yield &segments[position >> Self.segmentShift][position & Self.positionMask] }
    }

    /// Walks the elements segment by segment, without working out each one's place.
    struct Iterator: IteratorProtocol {
        fileprivate let segments: ContiguousArray<ContiguousArray<Element>>
        private var segment = 0, offset = 0

        fileprivate init(segments: ContiguousArray<ContiguousArray<Element>>) {
            self.segments = segments
        }

        mutating func next() -> Element? {
            while segment < segments.count {
                if offset < segments[segment].count {
                    defer { offset += 1 }
                    return segments[segment][offset]
                }
                (segment, offset) = (segment + 1, 0)
            }
            return nil
        }
    }

    func makeIterator() -> Iterator {
        Iterator(segments: segments)
    }

    mutating func append(_ element: Element) {
        if count & Self.positionMask == 0, count > 0 {
            var segment = ContiguousArray<Element>()
            segment.reserveCapacity(Self.segmentCapacity)
            segments.append(segment)
        } else if segments.isEmpty {
            segments.append([])
        }
        segments[segments.count - 1].append(element)
        count += 1
    }

    @discardableResult
    mutating func removeLast() -> Element {
        precondition(count > 0, "removeLast() of an empty array")
        let element = segments[segments.count - 1].removeLast()
        if segments[segments.count - 1].isEmpty { segments.removeLast() }
        count -= 1
        return element
    }

    mutating func swapAt(_ i: Int, _ j: Int) {
        guard i != j else { return }
        let first = self[i]
        self[i] = self[j]
        self[j] = first
    }

    /// Makes room for `capacity` elements in all, so that appending up to it allocates nothing.
    mutating func reserveCapacity(_ capacity: Int) {
        if segments.isEmpty, capacity > 0 { segments.append([]) }
        if segments.count == 1 { segments[0].reserveCapacity(Swift.min(capacity, Self.segmentCapacity)) }
        segments.reserveCapacity((capacity + Self.positionMask) >> Self.segmentShift)
    }
}
