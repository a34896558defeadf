import Foundation
import Testing
@testable import Strata

/// The export mirrors the import: records written by ``Exporter`` import into an empty store
/// as the same objects, flat or nested, with mapped keys, every attribute type, to-one,
/// to-many, ordered and many-to-many relationships, and Sync's `hyper.nonExportable`.
@Suite struct ExportTests {
    static let model = """
        {"entities": [
          {"name": "Author", "attributes": [
             {"name": "remoteID", "type": "integer64"}, {"name": "name", "type": "string", "userInfo": {"mappedKeyName": "full_name"}},
             {"name": "born", "type": "date"}, {"name": "photo", "type": "binary"}, {"name": "website", "type": "uri"},
             {"name": "secret", "type": "string", "userInfo": {"hyper.nonExportable": "YES"}}],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "author", "toMany": true},
             {"name": "favourites", "destination": "Book", "toMany": true, "userInfo": {"hyper.nonExportable": "true"}}]},
          {"name": "Book", "attributes": [
             {"name": "isbn", "type": "string", "userInfo": {"hyper.isPrimaryKey": "YES"}}, {"name": "title", "type": "string"},
             {"name": "rating", "type": "double"}, {"name": "weight", "type": "float"}, {"name": "price", "type": "decimal"},
             {"name": "pageCount", "type": "integer16"}, {"name": "copies", "type": "integer32"}, {"name": "published", "type": "date"},
             {"name": "inPrint", "type": "boolean"}, {"name": "uuid", "type": "uuid"}, {"name": "cover", "type": "binary"},
             {"name": "publisherName", "type": "string", "userInfo": {"mappedKeyName": "publisher.name"}},
             {"name": "publisherCity", "type": "string", "userInfo": {"hyper.remoteKey": "publisher.city"}}],
           "relationships": [{"name": "author", "destination": "Author", "inverse": "books"},
             {"name": "tags", "destination": "Tag", "inverse": "books", "toMany": true},
             {"name": "chapters", "destination": "Chapter", "inverse": "book", "toMany": true, "ordered": true, "deleteRule": "cascade"},
             {"name": "notes", "destination": "Note", "inverse": "book", "toMany": true, "deleteRule": "cascade"},
             {"name": "sequel", "destination": "Book"}]},
          {"name": "Tag", "attributes": [{"name": "name", "type": "string"}], "uniquenessConstraints": [["name"]],
           "relationships": [{"name": "books", "destination": "Book", "inverse": "tags", "toMany": true}]},
          {"name": "Chapter", "attributes": [{"name": "chapterID", "type": "integer64"}, {"name": "title", "type": "string"}],
           "relationships": [{"name": "book", "destination": "Book", "inverse": "chapters"}]},
          {"name": "Note", "attributes": [{"name": "text", "type": "string"}, {"name": "day", "type": "date", "userInfo": {"dateFormat": "yyyy-MM-dd"}}],
           "relationships": [{"name": "book", "destination": "Book", "inverse": "notes"}]}
        ]}
        """

    /// A store of the model with authors, books, tags, chapters in an order of their own (one
    /// without its identity value) and notes (which have no identity), some values and links nil.
    static func seeded() throws -> ImportFixture {
        let fixture = try ImportFixture(modelJSON: model)
        try fixture.context.performAndWait {
            let context = fixture.context
            let leGuin = try context.make("Author", [
                "remoteID": 1, "name": "Ursula K. Le Guin", "born": Date(timeIntervalSince1970: -1_268_956_800.5),
                "photo": Data([0, 1, 2, 255]), "website": URL(string: "https://ursulakleguin.com/a?b=c"), "secret": "not exported",
            ])
            let herbert = try context.make("Author", ["remoteID": 2, "name": "Frank \"Dune\" Herbert", "born": Date(timeIntervalSinceReferenceDate: 737_000_000.123456)])
            _ = try context.make("Author", ["remoteID": 3])
            let tags = try ["fantasy", "sf", "classic", "unused"].map { try context.make("Tag", ["name": $0]) }
            let chapters = try (1...4).map { try context.make("Chapter", ["chapterID": Int64($0), "title": "Chapter \($0)"]) }
            let untitled = try context.make("Chapter", ["title": "Untitled"])
            let notes = try ["first note", "second note", "third note", "orphan note"].enumerated().map { index, text in
                try context.make("Note", ["text": text, "day": Date(timeIntervalSince1970: 1_704_067_200 + Double(index) * 86_400)])
            }
            let tombs = try context.make("Book", ["isbn": "978-1", "title": "The Tombs of Atuan", "author": leGuin, "tags": [tags[0]], "chapters": [chapters[3], untitled]])
            _ = try context.make("Book", [
                "isbn": "978-0", "title": "A Wizard of Earthsea", "rating": 4.5, "weight": Float(1.25), "price": Decimal(string: "19.99")!,
                "pageCount": 183, "copies": 100_000, "published": Date(timeIntervalSince1970: -86_400 * 365 + 0.123456), "inPrint": true,
                "uuid": UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!, "cover": Data("cover\n".utf8),
                "publisherName": "Parnassus", "publisherCity": "Berkeley", "author": leGuin, "tags": [tags[0], tags[2]],
                "chapters": [chapters[2], chapters[0], chapters[1]], "notes": [notes[0], notes[1]], "sequel": tombs,
            ])
            let dune = try context.make("Book", [
                "isbn": "978-2", "title": "Dune", "rating": 0.1, "price": Decimal(string: "0.1")!, "inPrint": false, "author": herbert,
                "tags": [tags[1], tags[2]], "notes": [notes[2]],
            ])
            _ = try context.make("Book", ["isbn": "978-3", "title": "Orphan, with a comma", "sequel": dune])
            try leGuin.setValue([dune], forKey: "favourites")
            try context.save()
        }
        return fixture
    }

    /// Every object as one line of its exported properties, by entity and identity value.
    static func snapshot(_ fixture: ImportFixture) throws -> [String: String] {
        try fixture.context.performAndWait {
            let model = fixture.context.model
            var lines: [String: String] = [:]
            for entity in model.entities {
                for object in try fixture.context.fetch(FetchRequest(entityName: entity.name)) {
                    var parts: [String] = []
                    for attribute in model.allAttributes(of: entity) where attribute.name != "secret" {
                        parts.append("\(attribute.name)=\(try object.attributeValue(forKey: attribute.name).map(exact) ?? "nil")")
                    }
                    for relationship in model.allRelationships(of: entity) where relationship.name != "favourites" {
                        let value = try object.value(forKey: relationship.name)
                        var labels = try ((value as? [ManagedObject]) ?? (value as? ManagedObject).map { [$0] } ?? []).map(label)
                        if !relationship.isOrdered { labels.sort() }
                        parts.append("\(relationship.name)=[\(labels.joined(separator: ", "))]")
                    }
                    lines[try label(object)] = parts.joined(separator: " ")
                }
            }
            return lines
        }
    }

    static func label(_ object: ManagedObject) throws -> String {
        let key = ["Author": "remoteID", "Book": "isbn", "Tag": "name", "Chapter": "chapterID", "Note": "text"][object.entity.name] ?? "?"
        return "\(object.entity.name) \(try object.attributeValue(forKey: key).map(exact) ?? "nil")"
    }

    /// A value in text that tells apart any two values.
    static func exact(_ value: AttributeValue) -> String {
        switch value {
        case .date(let date): "\(date.timeIntervalSinceReferenceDate)"
        case .double(let double): "\(double)"
        case .decimal(let decimal): "\(decimal)"
        case .binary(let data): data.base64EncodedString()
        case .string(let string): string
        default: value.displayText
        }
    }

    static func export(_ fixture: ImportFixture, entities: [String]? = nil, nested: Bool = false) throws -> (text: String, order: [String]) {
        try fixture.context.performAndWait {
            let exporter = try Exporter(context: fixture.context, entities: entities, nested: nested)
            return (JSONWriter.string(from: try exporter.export()), exporter.entityNames)
        }
    }

    @Test(arguments: [false, true])
    func exportThenImportIntoAnEmptyStoreGivesTheSameObjects(nested: Bool) throws {
        let source = try Self.seeded()
        let (text, order) = try Self.export(source, nested: nested)
        let copy = try ImportFixture(modelJSON: Self.model)
        let report = try copy.importJSON(text)
        #expect(report.unresolvedLinks == [], "\(text)")
        #expect(report.invalid == [])
        let expected = try Self.snapshot(source), actual = try Self.snapshot(copy)
        #expect(actual.count == 20)
        for (label, line) in expected { #expect(actual[label] == line, "\(label)") }
        #expect(actual == expected)
        #expect(!text.contains("secret") && !text.contains("favourites"), "hyper.nonExportable properties are left out")
        #expect(order == (nested ? ["Author", "Book", "Tag", "Chapter", "Note"] : ["Author", "Tag", "Chapter", "Book", "Note"]))
        try copy.context.performAndWait {
            let leGuin = try #require(try copy.context.fetch(FetchRequest(entityName: "Author", predicate: try ObjectPredicate(format: "remoteID == 1"))).first)
            #expect(try leGuin.attributeValue(forKey: "secret") == nil)
            #expect(try leGuin.objects(forKey: "favourites").isEmpty)
        }
    }

    @Test func flatRecordsUseTheImportKeysReversed() throws {
        let source = try Self.seeded()
        let json = try JSONReader.parse(Data(try Self.export(source).text.utf8))
        #expect(json.objectMembers?.map(\.key) == ["authors", "tags", "chapters", "books", "notes"])
        let books = try #require(json["books"]?.arrayValue)
        #expect(books.map { $0["isbn"]?.stringValue } == ["978-0", "978-1", "978-2", "978-3"], "sorted by identity")
        let wizard = books[0]
        func text(_ value: JSONValue?) -> String { value.map { JSONWriter.string(from: $0, pretty: false) } ?? "missing" }
        #expect(wizard.objectMembers?.map(\.key) == [
            "isbn", "title", "rating", "weight", "price", "pageCount", "copies", "published", "inPrint", "uuid", "cover", "publisher",
            "author_id", "tags_ids", "chapters_ids", "notes", "sequel_id",
        ])
        #expect(text(wizard["publisher"]) == #"{"name":"Parnassus","city":"Berkeley"}"#)
        #expect(text(wizard["price"]) == "19.99")
        #expect(text(wizard["rating"]) == "4.5")
        #expect(text(wizard["weight"]) == "1.25")
        #expect(text(wizard["inPrint"]) == "true")
        #expect(text(wizard["published"]) == #""1969-01-01T00:00:00.123456Z""#)
        #expect(text(wizard["uuid"]) == #""E621E1F8-C36C-495A-93FC-0C247A3E6E5F""#)
        #expect(text(wizard["cover"]) == #""Y292ZXIK""#)
        #expect(text(wizard["author_id"]) == "1")
        #expect(text(wizard["chapters_ids"]) == "[3,1,2]", "an ordered relationship in its order")
        #expect(text(wizard["sequel_id"]) == #""978-1""#)
        #expect(text(wizard["notes"]) == #"[{"text":"first note","day":"2024-01-01"},{"text":"second note","day":"2024-01-02"}]"#,
            "notes have no identity: nested, without their way back")
        #expect(text(books[1]["pageCount"]) == "null")
        #expect(text(books[1]["chapters"]) == #"[{"chapterID":4},{"chapterID":null,"title":"Untitled"}]"#,
            "a chapter without its identity value is nested where its book holds it, the others by their identity")
        #expect(json["chapters"]?.arrayValue?.count == 4)
        let authors = try #require(json["authors"]?.arrayValue)
        #expect(text(authors[0]) == #"{"id":1,"full_name":"Ursula K. Le Guin","born":"1929-10-15T23:59:59.5Z","photo":"AAEC/w==","website":"https://ursulakleguin.com/a?b=c"}"#,
            "books are written from the books' side")
        #expect(text(json["tags"]?.arrayValue?.first) == #"{"name":"classic"}"#)
        #expect(text(json["chapters"]?.arrayValue?.first) == #"{"chapterID":1,"title":"Chapter 1"}"#)
        #expect(text(json["notes"]) == #"[{"text":"orphan note","day":"2024-01-04","book_id":null}]"#, "notes written nested are not repeated")
    }

    @Test func nestedRecordsHoldTheirDestinationsOnce() throws {
        let source = try Self.seeded()
        let json = try JSONReader.parse(Data(try Self.export(source, nested: true).text.utf8))
        let leGuin = try #require(json["authors"]?.arrayValue?.first)
        let books = try #require(leGuin["books"]?.arrayValue)
        #expect(books.map { $0["isbn"]?.stringValue } == ["978-0", "978-1"], "sorted by identity")
        let wizard = books[0]
        #expect(wizard["author"] == nil, "never back through the inverse")
        #expect(wizard["chapters"]?.arrayValue?.compactMap { $0["chapterID"]?.intValue } == [3, 1, 2])
        #expect(wizard["chapters"]?.arrayValue?.first?["book"] == nil)
        #expect(wizard["sequel"]?["title"]?.stringValue == "The Tombs of Atuan", "written in full where first met")
        #expect(books[1].objectMembers?.map(\.key) == ["isbn"], "met again: its identity alone")
        #expect(json["books"]?.arrayValue?.compactMap { $0["isbn"]?.stringValue } == ["978-3"], "the others are nested in their authors")
        #expect(json["tags"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["unused"])
    }

    @Test func oneEntityNestedGivesItsObjectsAndWhatTheyHold() throws {
        let source = try Self.seeded()
        let text = try source.context.performAndWait {
            let exporter = try Exporter(context: source.context, entities: ["Book"], nested: true)
            return JSONWriter.string(from: .array(try exporter.records(of: "Book", where: try ObjectPredicate(format: "isbn != '978-3'"))))
        }
        let copy = try ImportFixture(modelJSON: Self.model)
        #expect(try copy.importJSON(text, into: "Book").unresolvedLinks == [])
        var expected = try Self.snapshot(source)
        for label in ["Author 3", "Tag unused", "Note orphan note", "Book 978-3"] { expected[label] = nil }
        let actual = try Self.snapshot(copy)
        #expect(actual == expected)
    }

    /// Every object of a store as a line of its values and related objects, objects named by
    /// their identity value (or their values without one), whatever the model.
    static func genericSnapshot(_ fixture: ImportFixture) throws -> [String] {
        try fixture.context.performAndWait {
            let model = fixture.context.model
            func label(_ object: ManagedObject) throws -> String {
                let names = if case .attribute(let name, _) = ImportIdentity.conventional(for: object.entity, in: model) { [name] } else {
                    model.allAttributes(of: object.entity).map(\.name)
                }
                return try object.entity.name + " " + names.map { try object.attributeValue(forKey: $0).map(exact) ?? "nil" }.joined(separator: "|")
            }
            var lines: [String] = []
            for entity in model.entities where !entity.isAbstract {
                var request = FetchRequest(entityName: entity.name)
                request.includesSubentities = false
                for object in try fixture.context.fetch(request) {
                    var parts = try model.allAttributes(of: entity).map { "\($0.name)=\(try object.attributeValue(forKey: $0.name).map(exact) ?? "nil")" }
                    for relationship in model.allRelationships(of: entity) {
                        let value = try object.value(forKey: relationship.name)
                        var labels = try ((value as? [ManagedObject]) ?? (value as? ManagedObject).map { [$0] } ?? []).map(label)
                        if !relationship.isOrdered { labels.sort() }
                        parts.append("\(relationship.name)=[\(labels.joined(separator: ", "))]")
                    }
                    lines.append(try label(object) + ": " + parts.joined(separator: " "))
                }
            }
            return lines.sorted()
        }
    }

    @Test(.enabled(if: Fixtures.available, Fixtures.skipReason), arguments: [false, true])
    func syncsPayloadsRoundTrip(nested: Bool) throws {
        let cases = [
            ("Sync-151-many-to-many", [("151-many-to-many-notes-update.json", "Note")]),
            ("Sync-113", [("bug-113-stories-comments-no-ids.json", "AwesomeStory"), ("bug-113-custom_relationship_key_to_one.json", "AwesomeStory")]),
        ]
        for (model, payloads) in cases {
            let source = try ImportFixture(sharedModel: model)
            if model == "Sync-151-many-to-many" { try source.importJSON(#"[{"id": "0", "name": "Tag 0"}, {"id": "1", "name": "Tag 1"}]"#, into: "Tag") }
            for (file, entity) in payloads { try source.importFile(file, into: entity) }
            let copy = try ImportFixture(sharedModel: model)
            let report = try copy.importJSON(try Self.export(source, nested: nested).text)
            #expect(report.unresolvedLinks == [], "\(model)")
            let expected = try Self.genericSnapshot(source)
            #expect(expected.count > 4, "\(model)")
            #expect(try Self.genericSnapshot(copy) == expected, "\(model)")
        }
    }

    @Test func datesReadBackExactlyWithTheFewestDigits() throws {
        #expect(Exporter.json(Date(timeIntervalSinceReferenceDate: 0)).stringValue == "2001-01-01T00:00:00Z")
        #expect(Exporter.json(Date(timeIntervalSinceReferenceDate: 0.5)).stringValue == "2001-01-01T00:00:00.5Z")
        #expect(Exporter.json(Date(timeIntervalSince1970: 1_714_559_415.25)).stringValue == "2024-05-01T10:30:15.25Z")
        var generator = SystemRandomNumberGenerator()
        let samples = (0..<2000).map { _ in Double.random(in: -60_000_000_000...240_000_000_000, using: &generator) }
            + [1e-7, 86_399.999_999, 978_307_200, -63_113_904_000, 1.5e11]
        for seconds in samples {
            let date = Date(timeIntervalSinceReferenceDate: seconds)
            let json = Exporter.json(date)
            let back = json.stringValue.flatMap(ISO8601Text.date(from:)) ?? json.doubleValue.map { Date(timeIntervalSince1970: $0) }
            #expect(back == date, "\(seconds): \(JSONWriter.string(from: json))")
            if let text = json.stringValue, case .success(let value) = AttributeValue.fromJSON(json, type: .date) {
                #expect(value == .date(date), "\(text)")
            }
        }
        #expect(Exporter.json(Date(timeIntervalSinceReferenceDate: 300_000_000_000)).doubleValue != nil, "a year past 9999: Unix seconds")
        // Just before 2001 the time of day holds less precision than the date: the nearest text.
        #expect(Exporter.json(Date(timeIntervalSinceReferenceDate: -0.001)).stringValue == "2000-12-31T23:59:59.999Z")
    }

    @Test func wrapperKeysMapBackToTheirEntities() throws {
        let fixture = try ImportFixture(modelJSON: """
            {"entities": [{"name": "Category"}, {"name": "Address"}, {"name": "SalesPerson"}, {"name": "Day"}, {"name": "Box"}, {"name": "Entity"}]}
            """)
        try fixture.context.performAndWait {
            let exporter = try Exporter(context: fixture.context)
            let keys = exporter.entityNames.map(exporter.key(for:))
            #expect(keys == ["categories", "addresses", "sales_persons", "days", "boxes", "entities"])
            let session = ImportSession(context: fixture.context)
            #expect(keys.map(session.entityName(forKey:)) == exporter.entityNames)
            #expect(throws: StoreError.self) { _ = try Exporter(context: fixture.context, entities: ["Nope"]) }
        }
    }

    /// Regression: a to-one key to a row the store does not hold (artsy-energy's
    /// ArtsyPartner_1.3.sqlite has an Artwork whose artist is gone) failed the whole export
    /// with "<Artist p1> does not exist"; it links no object.
    @Test func aKeyToAMissingRowExportsAsNoObject() throws {
        let fixture = try ImportFixture(modelJSON: """
            {"entities": [{"name": "Artist", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "artworks", "destination": "Artwork", "inverse": "artist", "toMany": true}]},
              {"name": "Artwork", "attributes": [{"name": "title", "type": "string"}],
               "relationships": [{"name": "artist", "destination": "Artist", "inverse": "artworks"}]}]}
            """)
        try fixture.store.database.execute("INSERT INTO ZARTWORK (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZARTIST) VALUES (1, 2, 1, 'one work', 7)")
        try fixture.context.performAndWait {
            let records = try Exporter(context: fixture.context).records(of: "Artwork")
            #expect(records.count == 1)
            #expect(records.first?["title"]?.stringValue == "one work")
            #expect(records.first?["artist"]?.isNull ?? true, "no artist")
        }
    }

    @Test func anEntityBringsItsSubEntities() throws {
        let model = """
            {"entities": [{"name": "Item", "attributes": [{"name": "code", "type": "string"}], "uniquenessConstraints": [["code"]]},
              {"name": "Special", "parent": "Item", "attributes": [{"name": "perk", "type": "string"}]},
              {"name": "Other", "attributes": [{"name": "code", "type": "string"}]}]}
            """
        let source = try ImportFixture(modelJSON: model)
        try source.importJSON(#"{"items": [{"code": "a"}], "specials": [{"code": "b", "perk": "shiny"}], "others": [{"code": "c"}]}"#)
        let (text, order) = try Self.export(source, entities: ["Item"])
        #expect(order == ["Item", "Special"])
        let copy = try ImportFixture(modelJSON: model)
        try copy.importJSON(text)
        #expect(try copy.values("Item", "code") == ["a", "b"])
        #expect(try copy.values("Special", "perk") == ["shiny"])
        #expect(try copy.store.count(of: "Other") == 0)
    }

    @Test func anExportLetsGoOfWhatItWroteButKeepsWhatTheCallerHolds() throws {
        let fixture = try ImportFixture(modelJSON: #"{"entities": [{"name": "Book", "attributes": [{"name": "isbn", "type": "integer64"}, {"name": "title", "type": "string"}], "uniquenessConstraints": [["isbn"]]}]}"#)
        let count = Exporter.batchSize * 3 + 17
        try fixture.importJSON("[" + (1...count).map { #"{"isbn": \#($0), "title": "T\#($0)"}"# }.joined(separator: ",") + "]", into: "Book")
        try fixture.context.performAndWait {
            let context = fixture.context
            context.reset()
            let held = try #require(try context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "isbn == 5"))).first)
            let changed = try #require(try context.fetch(FetchRequest(entityName: "Book", predicate: try ObjectPredicate(format: "isbn == 7"))).first)
            try changed.setValue("Unsaved", forKey: "title")
            let changedID = changed.objectID
            var titles: [Int: String] = [:]
            try Exporter(context: context, entities: ["Book"]).forEachRecord(of: "Book") { record in
                titles[record["isbn"]?.intValue ?? 0] = record["title"]?.stringValue
            }
            #expect(titles.count == count)
            #expect(titles[7] == "Unsaved", "unsaved changes are exported")
            #expect(titles[count] == "T\(count)")
            #expect(context.registeredObjects.count < Exporter.batchSize * 6, "objects written and held by nothing are let go")
            #expect(context.object(with: held.objectID) === held, "an object the caller holds stays the same object")
            #expect(try context.object(with: changedID).attributeValue(forKey: "title") == .string("Unsaved"), "unsaved changes stay")
            #expect(context.hasChanges)
        }
    }

    /// Regression: of the objects pointing to one object without identity attribute, only the
    /// first kept the link through export → import: it nested the object, and the others could
    /// not name it. Every link survives, whether the pointing entity has an identity or not,
    /// from rows or from objects, flat or nested.
    @Test(arguments: [(false, false), (false, true), (true, false), (true, true)])
    func everyLinkToASharedObjectWithoutIdentitySurvivesARoundTrip(nested: Bool, readsRows: Bool) throws {
        let model = """
            {"entities": [
              {"name": "Book", "attributes": [{"name": "remoteID", "type": "integer64"}, {"name": "title", "type": "string"}],
               "relationships": [{"name": "publisher", "destination": "Publisher", "inverse": "books"}]},
              {"name": "Publisher", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "books", "destination": "Book", "inverse": "publisher", "toMany": true}]},
              {"name": "Note", "attributes": [{"name": "text", "type": "string"}],
               "relationships": [{"name": "shelf", "destination": "Shelf", "inverse": "notes"}]},
              {"name": "Shelf", "attributes": [{"name": "label", "type": "string"}],
               "relationships": [{"name": "notes", "destination": "Note", "inverse": "shelf", "toMany": true}]}
            ]}
            """
        let source = try ImportFixture(modelJSON: model)
        try source.context.performAndWait {
            let context = source.context
            let publishers = try ["Ace", "Tor"].map { try context.make("Publisher", ["name": $0]) }
            let shelves = try ["top", "bottom"].map { try context.make("Shelf", ["label": $0]) }
            for index in 1...5 {
                _ = try context.make("Book", ["remoteID": Int64(index), "title": "Book \(index)", "publisher": publishers[index % 2]])
                _ = try context.make("Note", ["text": "Note \(index)", "shelf": shelves[index % 2]])
            }
            _ = try context.make("Book", ["title": "Without identity value", "publisher": publishers[0]])
            _ = try context.make("Book", ["remoteID": Int64(9), "title": "Alone"])
            _ = try context.make("Note", ["text": "Loose"])
            try context.save()
        }
        let text = try source.context.performAndWait {
            let exporter = try Exporter(context: source.context, nested: nested)
            exporter.readsRows = readsRows
            return JSONWriter.string(from: try exporter.export())
        }
        let copy = try ImportFixture(modelJSON: model)
        let report = try copy.importJSON(text)
        #expect(report.unresolvedLinks == [], "\(text)")
        let expected = try Self.genericSnapshot(source)
        #expect(expected.count == 17)
        #expect(expected.filter { $0.hasPrefix("Book") && $0.contains("publisher=[Publisher") }.count == 6)
        #expect(try Self.genericSnapshot(copy) == expected, "\(text)")
    }
}
