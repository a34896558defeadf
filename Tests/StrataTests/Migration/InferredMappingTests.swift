import Foundation
import Testing
@testable import Strata

/// Migrations Core Data's lightweight migration performs on real apps' models, which Strata
/// refused or got wrong: each with its store checked after the migration.
@Suite struct InferredMappingTests {
    // MARK: - Renaming identifiers

    /// LoopKit's CachedInsulinDeliveryObject, in every version: `programmedTempBasalRate` keeps
    /// the renaming identifier `scheduledTempBasalRate` while `scheduledTempBasalRate` remains.
    /// Each attribute is its own match, by name.
    @Test func attributesSharingARenamingIdentifierMatchByName() throws {
        let version = """
            {"entities": [{"name": "Delivery", "attributes": [
              {"name": "programmedTempBasalRate", "type": "double", "renamingIdentifier": "scheduledTempBasalRate"},
              {"name": "scheduledTempBasalRate", "type": "double"}%@]}]}
            """
        let v1 = version.replacingOccurrences(of: "%@", with: "")
        let v2 = version.replacingOccurrences(of: "%@", with: #", {"name": "reason", "type": "string"}"#)
        let fixture = try MigrationFixture(versions: [("Model", v1), ("Model 2", v2)]) { context in
            try context.make("Delivery", ["programmedTempBasalRate": 1.5, "scheduledTempBasalRate": 2.25])
        }
        let result = try fixture.migrator().migrate()
        #expect(result.plan.steps[0].mapping.changes == [.attributeAdded(entity: "Delivery", attribute: "reason", defaultValue: nil, isOptional: true)])
        try fixture.read { context in
            let delivery = try #require(try context.all("Delivery", by: "scheduledTempBasalRate").first)
            #expect(try delivery.attributeValue(forKey: "programmedTempBasalRate") == .double(1.5))
            #expect(try delivery.attributeValue(forKey: "scheduledTempBasalRate") == .double(2.25))
        }
    }

    /// Two source attributes share the identifier of a destination attribute named as neither:
    /// either could be it, so the migration is refused, naming them.
    @Test func anAmbiguousRenamingIdentifierIsRefused() throws {
        let source = try JSONModelReader.read(Data(#"""
            {"entities": [{"name": "Item", "attributes": [{"name": "rate", "type": "double"}, {"name": "oldRate", "type": "double", "renamingIdentifier": "rate"}]}]}
            """#.utf8), path: "v1")
        let destination = try JSONModelReader.read(Data(#"""
            {"entities": [{"name": "Item", "attributes": [{"name": "price", "type": "double", "renamingIdentifier": "rate"}]}]}
            """#.utf8), path: "v2")
        #expect(throws: ModelMappingError(reasons: ["entity Item: rate and oldRate share the renaming identifier 'rate', so either could be price"])) {
            try ModelMapping(from: source, to: destination)
        }
    }

    // MARK: - Relationships to another entity

    /// artsy-energy's `Show.installationImages`, which went from Image to a new entity,
    /// InstallShotImage: it starts empty, which loses nothing when no show held an image; a
    /// store where one does is refused, naming it, and left as it was.
    static let gallery = """
        {"entities": [
          {"name": "Show", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "installationImages", "destination": "Image", "inverse": "show", "toMany": true}]},
          {"name": "Image", "attributes": [{"name": "url", "type": "string"}],
           "relationships": [{"name": "show", "destination": "Show", "inverse": "installationImages"}]}
        ]}
        """
    static let galleryWithInstallShots = """
        {"entities": [
          {"name": "Show", "attributes": [{"name": "name", "type": "string"}],
           "relationships": [{"name": "installationImages", "destination": "InstallShotImage", "inverse": "show", "toMany": true}]},
          {"name": "Image", "attributes": [{"name": "url", "type": "string"}]},
          {"name": "InstallShotImage", "attributes": [{"name": "url", "type": "string"}],
           "relationships": [{"name": "show", "destination": "Show", "inverse": "installationImages"}]}
        ]}
        """

    @Test func aRelationshipToANewEntityStartsEmptyWhenNoObjectHoldsAny() throws {
        let fixture = try MigrationFixture(versions: [("V1", Self.gallery), ("V2", Self.galleryWithInstallShots)]) { context in
            try context.make("Show", ["name": "Spring"])
            try context.make("Image", ["url": "a.jpg"])
        }
        let plan = try fixture.migrator().plan()
        #expect(plan.steps[0].mapping.changes.contains(.relationshipRetargeted(
            entity: "Show", relationship: "installationImages", destination: "InstallShotImage", destinationIsNew: true,
            previous: "installationImages", previousDestination: "Image")))
        let result = try fixture.migrator().migrate(plan)
        #expect(result.counts == ["Show": 1, "Image": 1, "InstallShotImage": 0])
        try fixture.read { context in
            let show = try context.all("Show", by: "name")[0]
            #expect(try show.objects(forKey: "installationImages").isEmpty)
            try show.add(try context.make("InstallShotImage", ["url": "b.jpg"]), toKey: "installationImages")
            try context.save()
        }
    }

    @Test func aRelationshipToANewEntityThatHoldsObjectsIsRefused() throws {
        let fixture = try MigrationFixture(versions: [("V1", Self.gallery), ("V2", Self.galleryWithInstallShots)]) { context in
            let show = try context.make("Show", ["name": "Spring"])
            try context.make("Image", ["url": "a.jpg", "show": show])
            try context.make("Image", ["url": "b.jpg", "show": show])
        }
        let before = try fixture.bytes()
        #expect {
            try fixture.migrator().migrate()
        } throws: { error in
            "\(error)" == "\(fixture.path): the store's data does not fit V1 → V2:\n"
                + "  Show.installationImages now points to InstallShotImage, not Image, but 1 object holds some in it (p1: 2 objects); they would be lost"
        }
        #expect(try fixture.bytes() == before)
        #expect(try fixture.otherFiles() == [])
    }

    // MARK: - Attribute types

    /// Kiwix's `Article.lastPosition` went from Double to Float: the values stay (both are REAL
    /// columns); one beyond Float's range is refused.
    @Test func aDoubleBecomesAFloatWithinItsRange() throws {
        let v1 = #"{"entities": [{"name": "Article", "attributes": [{"name": "title", "type": "string"}, {"name": "lastPosition", "type": "double"}]}]}"#
        let v2 = v1.replacingOccurrences(of: #""type": "double""#, with: #""type": "float""#)
        let fixture = try MigrationFixture(versions: [("1.9", v1), ("Kiwix", v2)]) { context in
            try context.make("Article", ["title": "a", "lastPosition": 0.25])
            try context.make("Article", ["title": "b", "lastPosition": -1200.5])
            try context.make("Article", ["title": "c"])
        }
        try fixture.migrator().migrate()
        try fixture.read { context in
            let positions = try context.all("Article", by: "title").map { try $0.attributeValue(forKey: "lastPosition") }
            #expect(positions == [.double(0.25), .double(-1200.5), nil])
        }

        let beyond = try MigrationFixture(versions: [("1.9", v1), ("Kiwix", v2)]) { context in
            try context.make("Article", ["title": "far", "lastPosition": 1e300])
        }
        #expect {
            try beyond.migrator().migrate()
        } throws: { error in
            "\(error)".hasSuffix("Article.lastPosition: 1 object holds values beyond the range of Float (p1: 1e+300)")
        }
    }

    // MARK: - Storage Core Data has and Strata's copy missed

    /// Regression: a to-many without an inverse keeps its owners' keys in a `Z<n><NAME>`
    /// column of the members' table, which the row copy left behind; and the owner's entity
    /// number, in that column's name, changes when an entity comes before it.
    @Test func aToManyWithoutInverseKeepsItsObjects() throws {
        let v1 = """
            {"entities": [
              {"name": "Album", "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "documents", "destination": "Document", "toMany": true}]},
              {"name": "Document", "attributes": [{"name": "title", "type": "string"}]}
            ]}
            """
        let v2 = v1.replacingOccurrences(of: #"{"entities": ["#, with: #"{"entities": [{"name": "Aardvark", "attributes": [{"name": "name", "type": "string"}]},"#)
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { context in
            let blue = try context.make("Album", ["name": "Blue"])
            for title in ["notes", "press"] { try blue.add(try context.make("Document", ["title": title]), toKey: "documents") }
            try context.make("Album", ["name": "Empty"])
            try context.make("Document", ["title": "loose"])
        }
        try fixture.migrator().migrate()
        let store = try PersistentStore.open(at: fixture.path, model: fixture.bundle.currentVersion.model)
        #expect(store.layout.entity(named: "Album")?.toManyKeyColumns == ["documents": "Z2DOCUMENTS"], "Album is entity 2 now")
        store.close()
        try fixture.read { context in
            let albums = try context.all("Album", by: "name")
            #expect(try albums.map { try sortedNames($0.objects(forKey: "documents"), "title") } == [["notes", "press"], []])
        }
    }

    /// Regression: a row of a table its entity holds alone, whose `Z_ENT` is another entity's
    /// (artsy-energy's `ArtsyPartner_1.3.sqlite`), was left behind by the copy, which then
    /// failed its count.
    @Test func aRowWithAStrayEntityNumberIsCopied() throws {
        let v1 = #"{"entities": [{"name": "Artist", "attributes": [{"name": "name", "type": "string"}]}, {"name": "Artwork", "attributes": [{"name": "title", "type": "string"}]}]}"#
        let v2 = v1.replacingOccurrences(of: #"{"name": "title", "type": "string"}"#, with: #"{"name": "title", "type": "string"}, {"name": "year", "type": "integer16"}"#)
        let fixture = try MigrationFixture(versions: [("V1", v1), ("V2", v2)]) { _ in }
        let store = try PersistentStore.open(at: fixture.path, model: fixture.bundle.versions[0].model)
        try store.database.execute("INSERT INTO ZARTWORK (Z_PK, Z_ENT, Z_OPT, ZTITLE) VALUES (1, 1, 1, 'stray')")
        store.close()
        let result = try fixture.migrator().migrate()
        #expect(result.counts == ["Artist": 0, "Artwork": 1])
        #expect(try fixture.read { try $0.all("Artwork", by: "title").map { try $0.attributeValue(forKey: "title") } } == [.string("stray")])
    }
}
