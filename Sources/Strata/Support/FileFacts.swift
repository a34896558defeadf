import Foundation

/// The size in bytes of the file at `path`, or `nil` when there is none.
func fileSize(atPath path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int
}
