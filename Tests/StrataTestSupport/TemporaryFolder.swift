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

    /// Makes the folder, named `prefix`, a dash and six characters that `mkdtemp` picks so
    /// that tests running at once never share one. The name is short because paths in it end
    /// up in messages that tests compare whole, and Lua shortens a script's name past 59
    /// characters; the folder is readable by everyone, as one a user made would be (a test
    /// may run a command as another user in it).
    ///
    /// - Throws: `CocoaError(.fileWriteUnknown)` naming the folder, with the `POSIXError` of
    ///   `mkdtemp` as its underlying error, when the folder cannot be made.
    public init(_ prefix: String = "strata") throws {
        let template = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-XXXXXX").path
        var path = Array(template.utf8CString)
        guard mkdtemp(&path) != nil else {
            let cause = POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: template, NSUnderlyingErrorKey: cause])
        }
        url = URL(fileURLWithPath: String(decoding: path.dropLast().map { UInt8(bitPattern: $0) }, as: UTF8.self), isDirectory: true)
        chmod(url.path, 0o755)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` inside the folder.
    public func path(_ name: String) -> String {
        url.appendingPathComponent(name).path
    }
}
