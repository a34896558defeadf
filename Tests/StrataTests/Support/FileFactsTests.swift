import Foundation
import Testing
@testable import Strata
import StrataTestSupport

/// `fileSize(atPath:)` decides whether a store file is new and whether it exists at all: it must
/// see what SQLite will open.
@Suite struct FileFactsTests {
    @Test func sizesFollowSymbolicLinksAndMissingFilesHaveNone() throws {
        let folder = try TemporaryFolder()
        let file = folder.path("store.sqlite")
        try Data(repeating: 7, count: 1234).write(to: URL(fileURLWithPath: file))
        let empty = folder.path("empty.sqlite")
        try Data().write(to: URL(fileURLWithPath: empty))
        try FileManager.default.createSymbolicLink(atPath: folder.path("link.sqlite"), withDestinationPath: file)
        try FileManager.default.createSymbolicLink(atPath: folder.path("empty-link.sqlite"), withDestinationPath: empty)
        try FileManager.default.createSymbolicLink(atPath: folder.path("broken.sqlite"), withDestinationPath: folder.path("gone.sqlite"))

        #expect(fileSize(atPath: file) == 1234)
        #expect(fileSize(atPath: folder.path("link.sqlite")) == 1234)
        // A link to an empty file is a new store, as the empty file itself is.
        #expect(fileSize(atPath: folder.path("empty-link.sqlite")) == 0)
        #expect(fileSize(atPath: folder.path("broken.sqlite")) == nil)
        #expect(fileSize(atPath: folder.path("gone.sqlite")) == nil)
    }
}
