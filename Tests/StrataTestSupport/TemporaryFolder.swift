import Foundation

/// A new, empty folder in the temporary directory for one test, removed with all it holds when
/// the value goes away.
///
/// A test keeps the value in a local (or in its suite's instance, which Swift Testing makes for
/// each test), so the folder goes when the test ends: when it passes, when an expectation
/// fails, and when it throws. It is the tests' one owner of temporary files; `scripts/test`
/// runs the tests with `TMPDIR` set to a folder of its own and fails when anything is left in
/// it.
///
/// ```swift
/// @Test func createsAStore() throws {
///     let folder = try TemporaryFolder()
///     let store = try PersistentStore.create(at: folder.path("Library.sqlite"), model: model)
///     …
/// }
/// ```
public final class TemporaryFolder: Sendable {
    /// The folder.
    public let url: URL

    /// Makes the folder, named `prefix` and a UUID so that tests running at once never share one.
    ///
    /// - Throws: the file system's error when the folder cannot be made.
    public init(_ prefix: String = "strata") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}
