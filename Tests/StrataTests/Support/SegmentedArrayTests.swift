import Testing
@testable import Strata

/// The identity map keeps its IDs and objects in segmented arrays: across the segments' edges they
/// must behave as one array, and an element must be reachable in place.
@Suite struct SegmentedArrayTests {
    private let size = SegmentedArray<Int>.segmentCapacity * 2 + 17

    @Test func elementsStayInOrderAcrossSegments() {
        var array = SegmentedArray<Int>()
        for value in 0..<size { array.append(value) }
        #expect(array.count == size)
        #expect(array.elementsEqual(0..<size))
        #expect(array[SegmentedArray<Int>.segmentCapacity - 1] == SegmentedArray<Int>.segmentCapacity - 1)
        #expect(array[SegmentedArray<Int>.segmentCapacity] == SegmentedArray<Int>.segmentCapacity)
        #expect(array.last == size - 1)
    }

    @Test func removingFromTheEndCrossesBackOverASegmentEdgeAndGrowsAgain() {
        var array = SegmentedArray<Int>()
        for value in 0..<size { array.append(value) }
        let edge = SegmentedArray<Int>.segmentCapacity
        while array.count > edge - 3 { _ = array.removeLast() }
        #expect(array.elementsEqual(0..<(edge - 3)))
        for value in (edge - 3)..<(edge + 5) { array.append(value) }
        #expect(array.elementsEqual(0..<(edge + 5)))
        while !array.isEmpty { array.removeLast() }
        array.append(42)
        #expect(Array(array) == [42])
    }

    @Test func swapsAndWritesReachElementsInTheirSegments() {
        var array = SegmentedArray<Int>()
        for value in 0..<size { array.append(value) }
        array.swapAt(1, size - 1)
        array[SegmentedArray<Int>.segmentCapacity] += 1_000
        #expect(array[1] == size - 1)
        #expect(array[size - 1] == 1)
        #expect(array[SegmentedArray<Int>.segmentCapacity] == SegmentedArray<Int>.segmentCapacity + 1_000)
    }

    /// `isKnownUniquelyReferenced` through the subscript tells whether anything else holds the
    /// object: the subscript must yield the element in place, not a copy.
    @Test func anElementIsReachedInPlace() {
        final class Box {}
        var array = SegmentedArray<Box>()
        for _ in 0..<(SegmentedArray<Box>.segmentCapacity + 2) { array.append(Box()) }
        let held = array[SegmentedArray<Box>.segmentCapacity + 1]
        #expect(!isKnownUniquelyReferenced(&array[SegmentedArray<Box>.segmentCapacity + 1]))
        #expect(isKnownUniquelyReferenced(&array[SegmentedArray<Box>.segmentCapacity]))
        _ = held
    }

    @Test func aCopyIsIndependentOfTheOriginal() {
        var array = SegmentedArray<Int>()
        array.reserveCapacity(size)
        for value in 0..<size { array.append(value) }
        var copy = array
        copy[0] = -1
        copy.append(size)
        #expect(array[0] == 0)
        #expect(array.count == size)
        #expect(copy.count == size + 1)
    }
}
