import Foundation
import Testing
@testable import Strata

/// Document-local `@id`s: objects without identity value that several objects link to keep
/// every link through export → import, and an import resolves `{"@id": …}` references in any
/// order, reporting those that name no record.
@Suite struct LocalIDTests {
    /// Artsy's shape (ArtsyFolio v2.3): documents of a hierarchy point to artists, neither with
    /// an identity attribute; books with identity point to covers of a hierarchy; playlists
    /// hold songs in an order of their own, songs shared between playlists.
    static let model = """
        {"entities": [
          {"name": "Artist", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "documents", "destination": "Document", "inverse": "artist", "toMany": true}]},
          {"name": "Document", "attributes": [{"name": "title", "type": "string"}],
           "relationships": [{"name": "artist", "destination": "Artist", "inverse": "documents"}]},
          {"name": "ArtistDocument", "parent": "Document", "attributes": [{"name": "pages", "type": "integer16"}]},
          {"name": "Book", "attributes": [{"name": "remoteID", "type": "integer64"}, {"name": "title", "type": "string"}],
           "relationships": [{"name": "cover", "destination": "Image", "inverse": "books"}]},
          {"name": "Image", "attributes": [{"name": "caption", "type": "string"}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "cover", "toMany": true}]},
          {"name": "Photo", "parent": "Image", "attributes": [{"name": "camera", "type": "string"}]},
          {"name": "Playlist", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "songs", "destination": "Song", "inverse": "playlists", "toMany": true, "ordered": true}]},
          {"name": "Song", "attributes": [{"name": "title", "type": "string"}],
           "relationships": [{"name": "playlists", "destination": "Playlist", "inverse": "songs", "toMany": true}]}
        ]}
        """

    static func seeded() throws -> ImportFixture {
        let fixture = try ImportFixture(modelJSON: model)
        try fixture.context.performAndWait {
            let context = fixture.context
            let artists = try ["Hepworth", "Riley"].map { try context.make("Artist", ["name": $0]) }
            for (index, artist) in [0, 0, 1, 0].enumerated() {
                _ = try context.make(index == 3 ? "Document" : "ArtistDocument", ["title": "Doc \(index)", "artist": artists[artist]])
            }
            _ = try context.make("ArtistDocument", ["title": "Unattributed", "pages": Int16(3)])
            let covers = [try context.make("Photo", ["caption": "Sea", "camera": "Leica"]), try context.make("Image", ["caption": "Drawn"])]
            for (index, cover) in [0, 0, 1].enumerated() {
                _ = try context.make("Book", ["remoteID": Int64(index + 1), "title": "Book \(index + 1)", "cover": covers[cover]])
            }
            let songs = try ["One", "Two", "Three", "Four"].map { try context.make("Song", ["title": $0]) }
            _ = try context.make("Playlist", ["name": "Road", "songs": [songs[2], songs[0], songs[1]]])
            _ = try context.make("Playlist", ["name": "Home", "songs": [songs[1], songs[2], songs[3]]])
            try context.save()
        }
        return fixture
    }

    static func export(_ fixture: ImportFixture, nested: Bool = false, readsRows: Bool = true) throws -> String {
        try fixture.context.performAndWait {
            let exporter = try Exporter(context: fixture.context, nested: nested)
            exporter.readsRows = readsRows
            return JSONWriter.string(from: try exporter.export())
        }
    }

    /// The titles of `playlist`'s songs, in order.
    static func songs(of playlist: String, in fixture: ImportFixture) throws -> [String] {
        try fixture.context.performAndWait {
            let request = FetchRequest(entityName: "Playlist", predicate: try ObjectPredicate(format: "name == %@", playlist))
            let found = try #require(try fixture.context.fetch(request).first)
            return try found.objects(forKey: "songs").map { try $0.value(forKey: "title") as? String ?? "nil" }
        }
    }

    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func everyLinkSurvivesARoundTrip(nested: Bool, readsRows: Bool) throws {
        let source = try Self.seeded()
        let text = try Self.export(source, nested: nested, readsRows: readsRows)
        let copy = try ImportFixture(modelJSON: Self.model)
        let report = try copy.importJSON(text)
        #expect(report.unresolvedLinks == [], "\(text)")
        let expected = try ExportTests.genericSnapshot(source)
        #expect(expected.filter { $0.contains("artist=[Artist") }.count == 4, "four documents point to two artists")
        #expect(expected.filter { $0.hasPrefix("Book") && $0.contains("cover=[Photo") }.count == 2, "two books share one photo")
        #expect(try Self.songs(of: "Road", in: copy) == ["Three", "One", "Two"], "\(text)")
        #expect(try Self.songs(of: "Home", in: copy) == ["Two", "Three", "Four"])
        #expect(try ExportTests.genericSnapshot(copy) == expected, "\(text)")
    }

    @Test func sharedObjectsCarryAnIDAndAreReferencedByIt() throws {
        let source = try Self.seeded()
        let json = try JSONReader.parse(Data(try Self.export(source).utf8))
        func text(_ value: JSONValue?) -> String { value.map { JSONWriter.string(from: $0, pretty: false) } ?? "missing" }
        let books = try #require(json["books"]?.arrayValue)
        #expect(books.map { text($0["cover"]) } == [#"{"@id":"Photo/1"}"#, #"{"@id":"Photo/1"}"#, #"{"@id":"Image/2"}"#],
            "a to-one into a hierarchy: a reference to the record of the destination's own array")
        #expect(text(json["photos"]?.arrayValue?.first?["@id"]) == #""Photo/1""#)
        #expect(json["books"]?.arrayValue?.first?["@id"] == nil, "an object with its identity value has no @id")
        let ids = (json.objectMembers ?? []).flatMap { $0.value.arrayValue ?? [] }.compactMap { $0["@id"]?.stringValue }
        #expect(Set(ids).count == ids.count, "each object is defined once")
    }

    @Test func aReferenceMayComeBeforeItsDefinitionAndKeepsItsPlace() throws {
        let text = """
            {"playlists": [{"name": "Road", "songs": [{"@id": "s2"}, {"@id": "s1", "title": "One"}, {"@id": "s3"}]},
                           {"name": "Home", "songs": [{"@id": "s1"}, {"@id": "s3"}]}],
             "songs": [{"@id": "s2", "title": "Two"}, {"@id": "s3", "title": "Three"}]}
            """
        let copy = try ImportFixture(modelJSON: Self.model)
        let report = try copy.importJSON(text)
        #expect(report.unresolvedLinks == [])
        #expect(report.ignoredKeys.isEmpty, "@id is no unknown key")
        #expect(try copy.values("Song", "title") == ["One", "Three", "Two"])
        #expect(try Self.songs(of: "Road", in: copy) == ["Two", "One", "Three"])
        #expect(try Self.songs(of: "Home", in: copy) == ["One", "Three"])

        // Streamed as the CLI imports, one batch per entity with a save between: the same.
        let streamed = try ImportFixture(modelJSON: Self.model)
        let payload = try JSONReader.parse(Data(text.utf8))
        try streamed.context.performAndWait {
            let session = ImportSession(context: streamed.context)
            try session.import(records: try #require(payload["playlists"]?.arrayValue), into: "Playlist")
            try session.saveAndReset()
            try session.import(records: try #require(payload["songs"]?.arrayValue), into: "Song")
            try session.resolvePendingLinks()
            try streamed.context.save()
            #expect(session.report.unresolvedLinks == [])
        }
        #expect(try Self.songs(of: "Road", in: streamed) == ["Two", "One", "Three"])
        #expect(try Self.songs(of: "Home", in: streamed) == ["One", "Three"])
    }

    @Test func aReferenceToNoRecordIsReportedAndAnIDNeverMatchesStoredObjects() throws {
        let copy = try ImportFixture(modelJSON: Self.model)
        let report = try copy.importJSON("""
            {"playlists": [{"name": "Road", "songs": [{"@id": "gone"}, {"@id": "s1", "title": "One"}]}],
             "books": [{"remoteID": 1, "cover": {"@id": "missing"}}]}
            """)
        #expect(report.unresolvedLinks.sorted() == ["Book.cover: @id missing (record 1)", "Playlist.songs: @id gone (record 1)"])
        #expect(try Self.songs(of: "Road", in: copy) == ["One"])
        // A second import's s1 is a new song, not the one the store holds.
        try copy.importJSON(#"{"songs": [{"@id": "s1", "title": "One again"}]}"#)
        #expect(try copy.values("Song", "title") == ["One", "One again"])
    }
}
