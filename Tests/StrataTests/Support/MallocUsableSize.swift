import Foundation
import Testing

/// The bytes glibc's allocator gave `object` (`malloc_usable_size`, which Swift's Glibc module
/// does not declare): what tests that pin an object's size compare. The allocator hands out
/// blocks in steps of 16 bytes, 8 of each taken by its own header, so a size pinned here only
/// moves when an object grows or shrinks across a step.
func mallocUsableSize(of object: AnyObject) throws -> Int {
    let symbol = try #require(dlsym(nil, "malloc_usable_size"))
    let usableSize = unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer) -> Int).self)
    return usableSize(Unmanaged.passUnretained(object).toOpaque())
}
