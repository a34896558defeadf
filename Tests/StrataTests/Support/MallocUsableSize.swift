import Foundation
import Testing

/// The fewest bytes glibc's allocator gave any of `count` objects that `make` makes
/// (`malloc_usable_size`, which Swift's Glibc module does not declare): what tests that pin an
/// object's size compare. Blocks come in steps of 16 bytes, 8 of each taken by the allocator's
/// own header, so a size pinned here moves only when an object grows or shrinks across a
/// step. The fewest of several: a block reused from a larger one that was freed may keep the
/// few bytes too many to split off, and one object alone was then seen to read larger.
func smallestMallocUsableSize(of count: Int = 16, _ make: () throws -> AnyObject) throws -> Int {
    let symbol = try #require(dlsym(nil, "malloc_usable_size"))
    let usableSize = unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer) -> Int).self)
    let objects = try (0..<count).map { _ in try make() }
    return objects.map { usableSize(Unmanaged.passUnretained($0).toOpaque()) }.min() ?? 0
}
