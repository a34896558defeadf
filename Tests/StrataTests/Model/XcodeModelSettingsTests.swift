import Foundation
import Testing
@testable import Strata

/// Settings no fixture model uses, read from XML written the way Xcode writes them, and kept
/// through both formats.
@Suite struct XcodeModelSettingsTests {
    static let contents = """
        <?xml version="1.0" encoding="UTF-8" standalone="yes"?>
        <model type="com.apple.IDECoreDataModeler.DataModel" documentVersion="1.0" userDefinedModelVersionIdentifier="7">
            <entity name="Event" representedClassName="EventMO" elementID="Happening" versionHashModifier="v2">
                <attribute name="at" attributeType="Date" minDateTimeInterval="-978307200" maxDateTimeInterval="1000000000" defaultDateTimeInterval="0"/>
                <attribute name="title" attributeType="String" minValueString="1" maxValueString="80" regularExpressionString="[A-Z].*" indexed="YES" elementID="name"/>
                <attribute name="titleLength" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="title.length"/>
                <attribute name="photo" optional="YES" attributeType="Binary" allowsExternalBinaryDataStorage="YES" preserveAfterDeletion="YES"/>
                <attribute name="palette" optional="YES" attributeType="Transformable" valueTransformerName="NSSecureUnarchiveFromData" customClassName="[UIColor]"/>
                <attribute name="scratch" optional="YES" transient="YES" attributeType="Undefined"/>
                <relationship name="venue" optional="YES" maxCount="1" deletionRule="Deny" destinationEntity="Venue" inverseName="events" inverseEntity="Venue" elementID="place" versionHashModifier="r2"/>
                <compoundIndexes>
                    <compoundIndex>
                        <index value="at"/>
                        <index value="title"/>
                    </compoundIndex>
                </compoundIndexes>
                <fetchIndex name="byAtDescending">
                    <fetchIndexElement property="at" type="Binary" order="descending"/>
                </fetchIndex>
                <fetchIndex name="byTitleLength">
                    <fetchIndexElement expression="length:(title)" expressionType="Integer 64" type="Binary" order="ascending"/>
                </fetchIndex>
            </entity>
            <entity name="Venue" isAbstract="YES">
                <relationship name="events" optional="YES" toMany="YES" minCount="1" maxCount="50" deletionRule="No Action" destinationEntity="Event" inverseName="venue" inverseEntity="Event"/>
            </entity>
            <entity name="Hall" parentEntity="Venue"/>
            <fetchRequest name="Upcoming" entity="Event" predicateString="at &gt; $NOW" fetchLimit="20" fetchBatchSize="5" resultType="4"/>
            <configuration name="Cloud" usedWithCloudKit="YES">
                <memberEntity name="Event"/>
            </configuration>
        </model>
        """

    @Test func readsEverySetting() throws {
        let model = try XcodeModelReader.read(Data(Self.contents.utf8), path: "Events")
        #expect(model.versionIdentifier == "7")
        let event = try #require(model.entity(named: "Event"))
        #expect(event.className == "EventMO")
        #expect(event.renamingIdentifier == "Happening")
        #expect(event.versionHashModifier == "v2")
        let at = try #require(event.attribute(named: "at"))
        #expect(at.minValue == "-978307200" && at.maxValue == "1000000000" && at.defaultValue == "0")
        let title = try #require(event.attribute(named: "title"))
        #expect(title.isIndexed && title.regularExpression == "[A-Z].*" && title.renamingIdentifier == "name")
        let length = try #require(event.attribute(named: "titleLength"))
        #expect(length.isDerived && length.derivationExpression == "title.length")
        let photo = try #require(event.attribute(named: "photo"))
        #expect(photo.allowsExternalBinaryDataStorage && photo.preservesValueInHistoryOnDeletion)
        #expect(event.attribute(named: "palette")?.valueTransformerName == "NSSecureUnarchiveFromData")
        #expect(event.attribute(named: "scratch")?.type == .undefined)
        let venue = try #require(event.relationship(named: "venue"))
        #expect(venue.deleteRule == .deny && venue.renamingIdentifier == "place" && venue.versionHashModifier == "r2")
        #expect(event.compoundIndexes == [["at", "title"]])
        #expect(event.fetchIndexes.first?.elements.first?.isAscending == false)
        #expect(event.fetchIndexes.last?.elements == [.init(expression: "length:(title)", expressionType: "Integer 64")])
        let events = try #require(model.entity(named: "Venue")?.relationship(named: "events"))
        #expect(events.minCount == 1 && events.maxCount == 50 && events.deleteRule == .noAction)
        #expect(model.fetchRequestTemplates.first?.resultType == .count)
        #expect(model.fetchRequestTemplates.first?.fetchBatchSize == 5)
        #expect(model.configurations.first?.isUsedWithCloudKit == true)
        // `title.length` is not a form a store derives (a key path through an attribute): the
        // model is valid, with that one warning.
        #expect(model.validate().map(\.severity) == [.warning])
        #expect(model.validate().first?.message.contains("title.length") == true)
    }

    @Test func everySettingSurvivesBothFormats() throws {
        let model = try XcodeModelReader.read(Data(Self.contents.utf8), path: "Events")
        #expect(try XcodeModelReader.read(Data(XcodeModelWriter.contents(of: model).utf8), path: "x") == model)
        #expect(try JSONModelReader.read(Data(JSONModelWriter.string(for: model).utf8), path: "x") == model)
    }

    @Test func aModelMadeWithoutXcodeGetsTheRootAttributesXcodeExpects() {
        let written = XcodeModelWriter.contents(of: ObjectModel(entities: [EntityDescription(name: "A")]))
        #expect(written.contains(#"type="com.apple.IDECoreDataModeler.DataModel""#))
        #expect(written.contains(#"documentVersion="1.0""#))
        #expect(written.contains(#"minimumToolsVersion="Automatic""#))
    }

    @Test func dateBoundsAreWrittenAsDateIntervals() throws {
        let model = try XcodeModelReader.read(Data(Self.contents.utf8), path: "Events")
        let written = XcodeModelWriter.contents(of: model)
        #expect(written.contains(#"minDateTimeInterval="-978307200" maxDateTimeInterval="1000000000""#))
        #expect(written.contains(#"defaultDateTimeInterval="0""#))
    }

    /// Xcode writes a date range both ways, the `…ValueString` as the date it showed
    /// (core-data-editor's iOS_Example model); the interval is the value, the text is kept.
    @Test func aDateRangeIsReadFromItsIntervalsNotItsDisplayText() throws {
        let contents = """
            <model><entity name="Event"><attribute name="when" attributeType="Date" minDateTimeInterval="407847600" \
            minValueString="12/4/2013" maxDateTimeInterval="439470000" maxValueString="12/5/2014"/></entity></model>
            """
        let model = try XcodeModelReader.read(Data(contents.utf8), path: "Events")
        let when = try #require(model.entities.first?.attributes.first)
        #expect(when.minimumBound == 407_847_600)
        #expect(when.maximumBound == 439_470_000)
        #expect(when.valueIssues().isEmpty)
        #expect(when.xcodeSettings == ["minValueString": "12/4/2013", "maxValueString": "12/5/2014"])
        let written = XcodeModelWriter.contents(of: model)
        #expect(written.contains(#"minDateTimeInterval="407847600""#) && written.contains(#"minValueString="12/4/2013""#))
    }
}
