import Testing
@testable import Strata

/// The chunked list behind a controller's results must behave as one array does.
@Suite struct ChunkedListTests {
    @Test func randomInsertionsAndRemovalsMatchAnArray() {
        var random = SystemRandomNumberGenerator()
        var model = Array(0..<3_000)
        var list = ChunkedList(model)
        for step in 0..<6_000 {
            if model.isEmpty || Bool.random(using: &random) {
                let position = Int.random(in: 0...model.count, using: &random)
                model.insert(10_000 + step, at: position)
                list.insert(10_000 + step, at: position)
            } else {
                let position = Int.random(in: 0..<model.count, using: &random)
                #expect(list.remove(at: position) == model.remove(at: position))
            }
        }
        #expect(list.count == model.count)
        #expect(list.elements == model)
        #expect(list.chunks.allSatisfy { !$0.isEmpty && $0.count <= ChunkedList<Int>.chunkCapacity })
        #expect(list.elements(in: 100..<1_900) == Array(model[100..<1_900]))
        #expect((0..<model.count).allSatisfy { list[$0] == model[$0] })
    }

    @Test func theFirstPositionNotBeforeAValueIsFoundInEveryChunk() {
        let sorted = Array(stride(from: 0, to: 20_000, by: 2))
        let list = ChunkedList(sorted)
        for value in [-1, 0, 1, 511, 512, 513, 9_999, 10_000, 19_998, 19_999, 25_000] {
            #expect(list.firstPosition { $0 < value } == sorted.firstIndex { $0 >= value } ?? sorted.count, "\(value)")
        }
        var empty = ChunkedList<Int>()
        #expect(empty.firstPosition { $0 < 3 } == 0)
        empty.insert(3, at: 0)
        #expect(empty.elements == [3])
    }
}
