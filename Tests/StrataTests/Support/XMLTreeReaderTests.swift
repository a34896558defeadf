import Foundation
import Testing
@testable import Strata

/// Strata's own XML reader: what model files and mapping models can hold reads as XML 1.0 says,
/// and each thing that is not XML is refused with its place.
@Suite struct XMLTreeReaderTests {
    private func parse(_ xml: String) throws -> XMLTreeElement {
        try XMLTreeReader.parse(Data(xml.utf8))
    }

    private func failure(_ xml: String) -> String? {
        do {
            _ = try XMLTreeReader.parse(Data(xml.utf8))
            return nil
        } catch {
            return "\(error.location): \(error.message)"
        }
    }

    @Test func elementsAttributesTextAndWhereStartTagsEnd() throws {
        let root = try parse("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"yes\"?>\n<model a=\"1\" b='2'>\n  <entity name=\"é\"/>x\n</model>")
        #expect(root.name == "model" && root.attributes == ["a": "1", "b": "2"])
        #expect(root.location == SourceLocation(line: 2, column: 19))
        #expect(root.text == "\n  x\n")
        #expect(root.children.map(\.name) == ["entity"] && root.children[0].attributes["name"] == "é")
        #expect(root.children[0].location == SourceLocation(line: 3, column: 19))
    }

    @Test func referencesInTextAndAttributeValues() throws {
        let root = try parse(#"<a v="&lt;&gt;&amp;&apos;&quot;&#65;&#x42;&#x1F600;">&lt;b&gt; &amp; &#233;&#xe9;</a>"#)
        #expect(root.attributes["v"] == "<>&'\"AB😀")
        #expect(root.text == "<b> & éé")
    }

    @Test func cdataSectionsAreText() throws {
        let root = try parse("<a>x<![CDATA[<b>&amp;]]]]>y<!-- <c/> -->z</a>")
        #expect(root.text == "x<b>&amp;]]y" + "z")
        #expect(root.children.isEmpty)
    }

    /// XML 1.0 section 3.3.3: a literal tab or line end in an attribute value becomes a space,
    /// a referenced one stays; model files keep predicates and user-info values in attributes.
    @Test func attributeValuesAreNormalized() throws {
        let root = try parse("<a v=\"x\ty\nz\r\nw\rv  u\" r=\"&#9;&#10;&#13;\"/>")
        #expect(root.attributes["v"] == "x y z w v  u")
        #expect(root.attributes["r"] == "\t\n\r")
    }

    /// XML 1.0 section 2.11: CR LF and a lone CR are LF, in text and in the line count.
    @Test func lineEndsAreNormalized() throws {
        let root = try parse("<a>\r\n<b/>x\ry\r\n<c/></a>")
        #expect(root.text == "\nx\ny\n")
        #expect(root.children.map(\.location) == [SourceLocation(line: 2, column: 3), SourceLocation(line: 4, column: 3)])
    }

    @Test func namesAreKeptAsWritten() throws {
        let root = try parse(#"<p:a xmlns:p="urn:x" xmlns="y" p:b="1"><q:c/></p:a>"#)
        #expect(root.name == "p:a" && root.children.map(\.name) == ["q:c"])
        #expect(root.attributes == ["xmlns:p": "urn:x", "xmlns": "y", "p:b": "1"])
    }

    /// Core Data XML stores, as mapping models are, name an external DTD, which is not read.
    @Test func aDoctypeIsRead() throws {
        let xml = "<?xml version=\"1.0\" standalone=\"no\"?>\n<!DOCTYPE database SYSTEM \"file:///System/Library/DTDs/CoreData.dtd\">\n\n<database/>"
        #expect(try parse(xml).name == "database")
        #expect(try parse(#"<!DOCTYPE a PUBLIC "-//X//EN" "a.dtd" [ <!-- c --> <!ELEMENT a ANY> <!NOTATION n SYSTEM "x>y"> ]><a/>"#).name == "a")
    }

    @Test func commentsAndWhiteSpaceAroundTheRoot() throws {
        #expect(try parse("\u{FEFF}<!-- a --> <a/> <!-- b -->\n").name == "a")
    }

    @Test(arguments: [
        ("<a>", "line 1, column 4: the document ends inside <a>"),
        ("<a", "line 1, column 3: the document ends inside the tag <a>"),
        ("<a x=\"1", "line 1, column 8: the document ends inside an attribute value of <a>"),
        ("<a></a", "line 1, column 7: the document ends inside the closing tag </a>"),
        ("<a><![CDATA[x", "line 1, column 14: the document ends inside a CDATA section in <a>"),
        ("<a><!-- x", "line 1, column 10: an unfinished comment"),
        ("<a><!-- x -- y --></a>", "line 1, column 11: '--' inside a comment, which XML does not allow"),
        ("<!-- c -->", "line 1, column 11: the document has no root element"),
        ("<a>\n  <b>\n</a>", "line 3, column 1: the closing tag </a> does not match <b> opened at line 2, column 5"),
        ("<a x=\"1\" x=\"2\"/>", "line 1, column 10: the attribute 'x' is written twice"),
        ("<a x=\"1\"y=\"2\"/>", "line 1, column 9: a space is required here"),
        ("<a x/>", "line 1, column 5: '=' is required after an attribute name"),
        ("<a x=1/>", "line 1, column 6: an attribute without a quoted value"),
        ("<a x=\"<\"/>", "line 1, column 7: '<' inside an attribute value (write &lt;)"),
        ("<a/ >", "line 1, column 4: '>' is required here"),
        ("< a/>", "line 1, column 2: a name is required here"),
        ("<a>\n &nbsp;</a>", "line 2, column 2: an undeclared entity &nbsp; (write &amp; for a literal '&')"),
        ("<a v=\"&foo;\"/>", "line 1, column 7: an undeclared entity &foo; (write &amp; for a literal '&')"),
        ("<a>AT&T</a>", "line 1, column 8: an entity reference is missing its ';'"),
        ("<a>a & b</a>", "line 1, column 6: a '&' that starts no reference (write &amp; for a literal '&')"),
        ("<a>&#x;</a>", "line 1, column 4: a malformed character reference (write &#38; or &#x26;)"),
        ("<a>&#12a;</a>", "line 1, column 4: a malformed character reference (write &#38; or &#x26;)"),
        ("<a>&#0;</a>", "line 1, column 4: a character that XML does not allow"),
        ("<a v=\"&#xD800;\"/>", "line 1, column 7: a character that XML does not allow"),
        ("<a>&#99999999999;</a>", "line 1, column 4: a character that XML does not allow"),
        ("<a>\u{1}</a>", "line 1, column 4: a character that XML does not allow"),
        ("<a>\u{FFFE}</a>", "line 1, column 4: a character that XML does not allow"),
        ("<a>]]></a>", "line 1, column 4: ']]>' in text, which XML does not allow (write ]]&gt;)"),
        ("<a><!x></a>", "line 1, column 4: '<!' that starts neither a comment (<!--) nor a CDATA section (<![CDATA[)"),
        ("<a/>\n<b/>", "line 2, column 1: extra content after the root element <a>"),
        ("<a/>x", "line 1, column 5: extra content after the root element <a>"),
        ("<?xml version=\"1.0\"?> x<a/>", "line 1, column 23: text before the root element, which XML does not allow"),
        ("<!DOCTYPE a><!DOCTYPE a><a/>", "line 1, column 13: '<!' that starts neither a comment (<!--) nor the DOCTYPE"),
        ("<!DOCTYPE a [\n<!ENTITY e \"x\">]><a>&e;</a>", "line 2, column 1: a DOCTYPE that declares entities or attribute defaults (<!ENTITY …>, <!ATTLIST …>), which Strata does not read"),
        ("<!DOCTYPE a [<!ATTLIST a x CDATA \"d\">]><a/>", "line 1, column 14: a DOCTYPE that declares entities or attribute defaults (<!ENTITY …>, <!ATTLIST …>), which Strata does not read"),
        ("<!DOCTYPE a [ <?pi x?> ]><a/>", "line 1, column 15: a processing instruction (<?…?>), which a model file does not have"),
        ("<!DOCTYPE a SYSTEM><a/>", "line 1, column 19: a space is required here"),
        ("<!DOCTYPE a", "line 1, column 12: the document ends inside the DOCTYPE"),
        ("<?xml encoding=\"UTF-8\"?><a/>", "line 1, column 7: the XML declaration has version, then optionally encoding and standalone, in this order; found 'encoding'"),
        ("<?xml version=\"2.0\"?><a/>", "line 1, column 15: the XML declaration names version '2.0'; Strata reads XML 1.0"),
        ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><a/>", "line 1, column 30: the XML declaration names the encoding 'ISO-8859-1'; Strata reads UTF-8 only"),
        ("<?xml version=\"1.0\" standalone=\"maybe\"?><a/>", "line 1, column 32: standalone is 'yes' or 'no', not 'maybe'"),
        ("<?xml version=\"1.0\" standalone=\"yes\" encoding=\"UTF-8\"?><a/>", "line 1, column 38: the XML declaration has version, then optionally encoding and standalone, in this order; found 'encoding'"),
        ("<?xml version=\"1.0\"", "line 1, column 20: the document ends inside the XML declaration"),
        ("<a><?pi?></a>", "line 1, column 4: a processing instruction (<?…?>), which a model file does not have"),
        ("<a/><?pi?>", "line 1, column 5: a processing instruction (<?…?>), which a model file does not have"),
    ])
    func eachErrorHasItsPlace(xml: String, expected: String) {
        #expect(failure(xml) == expected)
    }

    /// What is not markup in a comment, a CDATA section or an attribute value is text: the
    /// processing-instruction check does not look inside them.
    @Test func markupInsideCommentsAndCDATAIsText() throws {
        #expect(try parse("<a><!-- <?pi?> --><![CDATA[<?pi?>]]></a>").text == "<?pi?>")
    }

    /// No input may crash or hang the reader: every prefix of a document that uses each
    /// construct fails with a location inside it.
    @Test func everyPrefixOfADocumentFailsCleanly() {
        let xml = "\u{FEFF}<?xml version=\"1.0\"?>\r\n<!DOCTYPE m PUBLIC \"-//x\" \"y\" [<!ELEMENT m ANY>]><!--c-->"
            + "<m a=\"&amp;&#x41;\" b='\t'>é<![CDATA[]]>&lt;<n/></m>"
        let bytes = Array(xml.utf8)
        for count in 0..<bytes.count {
            do {
                _ = try XMLTreeReader.parse(Data(bytes[..<count]))
                Issue.record("the first \(count) bytes read")
            } catch {
                #expect(error.location.line >= 1 && error.location.line <= 3, "\(count): \(error)")
            }
        }
        #expect((try? XMLTreeReader.parse(Data(bytes))) != nil)
    }
}
