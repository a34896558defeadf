import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An element of a parsed XML document, with its attributes, child elements and the line and
/// column where its start tag ends, and its text: model files keep everything in attributes,
/// Core Data's XML stores (an `.xcmappingmodel`'s `xcmapping.xml`) keep values as text.
struct XMLTreeElement: Sendable {
    var name: String
    var attributes: [String: String]
    var children: [XMLTreeElement]
    var location: SourceLocation
    /// The element's own text, its children's left out.
    var text = ""

    func children(named name: String) -> [XMLTreeElement] {
        children.filter { $0.name == name }
    }

    func firstChild(named name: String) -> XMLTreeElement? {
        children.first { $0.name == name }
    }
}

/// An XML syntax error with the place the parser stopped.
struct XMLSyntaxError: Error, Sendable {
    var message: String
    var location: SourceLocation
}

/// Reads an XML document into a tree of ``XMLTreeElement``s with Foundation's `XMLParser`.
enum XMLTreeReader {
    /// How deep elements may nest. Model files nest five levels; a hostile file 100,000 deep
    /// built a tree whose recursive release overflowed the stack and crashed the process.
    static let maximumDepth = 256

    static func parse(_ data: Data) throws(XMLSyntaxError) -> XMLTreeElement {
        try checkStartsLikeXML(data)
        try checkUTF8(data)
        try checkNoProcessingInstructions(data)
        let builder = TreeBuilder()
        let parser = XMLParser(data: data)
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let succeeded = parser.parse()
        if let failure = builder.failure {
            let message = failure.message
                ?? (failure.openElement == nil && builder.root != nil
                    ? "extra content after the root element <\(builder.root!.name)>"
                    : describe(code: failure.code, openElement: failure.openElement))
            throw XMLSyntaxError(message: message, location: failure.location)
        }
        guard succeeded, let root = builder.root else {
            throw XMLSyntaxError(
                message: describe(code: (parser.parserError as NSError?)?.code ?? 0, openElement: builder.stack.last),
                location: SourceLocation(line: parser.lineNumber, column: parser.columnNumber))
        }
        return root
    }

    /// Fails with a clear message for the files that are not XML at all: empty ones, and ones
    /// whose first character is not `<` (libxml2 only says "the document is empty").
    private static func checkStartsLikeXML(_ data: Data) throws(XMLSyntaxError) {
        var location = SourceLocation(line: 1, column: 1)
        for byte in data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...] {
            switch byte {
            case UInt8(ascii: "<"): return
            case UInt8(ascii: "\n"): location = SourceLocation(line: location.line + 1, column: 1)
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): location.column += 1
            default: throw XMLSyntaxError(message: "not XML: expected '<'", location: location)
            }
        }
        throw XMLSyntaxError(message: "the file is empty", location: location)
    }

    /// Fails at the first byte that is not UTF-8. Model files are UTF-8, as Xcode writes them,
    /// and Foundation's `XMLParser` traps on an element or attribute name that does not decode.
    private static func checkUTF8(_ data: Data) throws(XMLSyntaxError) {
        var location = SourceLocation(line: 1, column: 1)
        var bytes = data.makeIterator()
        var decoder = UTF8()
        while true {
            switch decoder.decode(&bytes) {
            case .scalarValue("\n"): location = SourceLocation(line: location.line + 1, column: 1)
            case .scalarValue: location.column += 1
            case .emptyInput: return
            case .error: throw XMLSyntaxError(message: "the file is not valid UTF-8", location: location)
            }
        }
    }

    /// Fails at a processing instruction (`<?target …?>`) other than the XML declaration that
    /// opens the file. Model files have none, and Foundation's `XMLParser` crashes on one
    /// without data (`<?x?>`). Runs after ``checkUTF8(_:)``: a column counts lead bytes.
    private static func checkNoProcessingInstructions(_ data: Data) throws(XMLSyntaxError) {
        let bytes = data.starts(with: [0xEF, 0xBB, 0xBF]) ? data.dropFirst(3) : data[...]
        var location = SourceLocation(line: 1, column: 1)
        var opening: (index: Data.Index, location: SourceLocation)?
        for index in bytes.indices {
            let byte = bytes[index]
            if byte == UInt8(ascii: "?"), let opening, opening.index == index - 1 {
                let rest = bytes[(index + 1)...]
                let isDeclaration = opening.index == bytes.startIndex && rest.starts(with: "xml".utf8)
                    && rest.dropFirst(3).first.map { [0x20, 0x09, 0x0D, 0x0A].contains($0) } == true
                if !isDeclaration {
                    throw XMLSyntaxError(message: "a processing instruction (<?…?>), which a model file does not have", location: opening.location)
                }
            }
            if byte == UInt8(ascii: "<") { opening = (index, location) }
            if byte == UInt8(ascii: "\n") {
                location = SourceLocation(line: location.line + 1, column: 1)
            } else if byte & 0xC0 != 0x80 {
                location.column += 1
            }
        }
    }

    /// Words for the libxml2 error numbers that `XMLParser` reports, for the errors hand-edited
    /// model files tend to have.
    private static func describe(code: Int, openElement: XMLTreeElement?) -> String {
        switch code {
        case 4: return "the document is empty"
        case 5: return "the document ends inside <\(openElement?.name ?? "?")>"
        case 9: return "a character that XML does not allow"
        case 23: return "an entity reference is missing its ';'"
        case 26: return "an undeclared entity (write &amp; for a literal '&')"
        case 33, 34: return "an attribute value is missing its quotes"
        case 38: return "'<' inside an attribute value (write &lt;)"
        case 39, 40, 41: return "an attribute without a quoted value"
        case 42: return "an attribute is written twice"
        case 45: return "an unfinished comment"
        case 65: return "a space is required here"
        case 68: return "a name is required here"
        case 73: return "'>' is required here"
        case 75: return "'=' is required after an attribute name"
        case 76:
            guard let open = openElement else { return "a closing tag does not match" }
            return "the closing tag does not match <\(open.name)> opened at \(open.location)"
        case 77: return "a tag is not finished"
        case 85: return "the document is not well-balanced"
        case 86: return "extra content after the document's root element"
        default: return "malformed XML (libxml2 error \(code))"
        }
    }
}

private final class TreeBuilder: NSObject, XMLParserDelegate {
    var stack: [XMLTreeElement] = []
    var root: XMLTreeElement?
    /// The first error, with the place and open element at the moment the parser met it
    /// (afterwards the parser has moved on), and the builder's own words for an error it found.
    var failure: (code: Int, location: SourceLocation, openElement: XMLTreeElement?, message: String?)?

    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard failure == nil else { return }
        failure = (
            (parseError as NSError).code, SourceLocation(line: parser.lineNumber, column: parser.columnNumber),
            stack.last, nil
        )
    }

    func parser(
        _ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName: String?, attributes: [String: String] = [:]
    ) {
        guard stack.count < XMLTreeReader.maximumDepth else {
            failure = (
                0, SourceLocation(line: parser.lineNumber, column: parser.columnNumber), stack.last,
                "elements nest deeper than \(XMLTreeReader.maximumDepth) levels"
            )
            parser.abortParsing()
            return
        }
        stack.append(
            XMLTreeElement(
                name: elementName, attributes: attributes, children: [],
                location: SourceLocation(line: parser.lineNumber, column: parser.columnNumber)))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let element = stack.popLast() else { return }
        if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }
}
