import Foundation

/// Reads an XML document into a tree of ``XMLTreeElement``s, in one pass over its UTF-8 bytes.
///
/// A non-validating XML 1.0 reader for what model files (`.xcdatamodel/contents`) and mapping
/// models (`xcmapping.xml`) contain: an XML declaration, comments, a DOCTYPE naming an external
/// DTD (never read), elements, attributes, text, CDATA sections, character references and the
/// five predefined entities. What such files never have is refused with the place it starts:
/// processing instructions, entity and attribute-list declarations (see
/// `readDoctype()`), text other than UTF-8. Namespaces are not processed: names are kept as
/// written. It replaced Foundation's `XMLParser`, whose libxml2 (with ICU and liblzma) every
/// `strata` process loaded at start-up; its messages and locations are kept where tests pin
/// them, and are more exact elsewhere.
struct XMLTreeReader {
    /// How deep elements may nest. Model files nest five levels; a hostile file 100,000 deep
    /// would build a tree whose recursive release overflows the stack and crashes the process.
    static let maximumDepth = 256

    /// Reads `data`, a whole document.
    static func parse(_ data: Data) throws(XMLSyntaxError) -> XMLTreeElement {
        var reader = XMLTreeReader(scanner: XMLScanner(data))
        try reader.readProlog()
        let root = try reader.readRootElement()
        try reader.readEpilog(after: root)
        return root
    }

    /// The cursor over the document, which the prolog's and epilog's reading moves too.
    var scanner: XMLScanner
    /// The elements whose start tag has been read and whose end tag has not, outermost first,
    /// with the bytes of their own text so far.
    private var open: [(element: XMLTreeElement, text: [UInt8])] = []

    private init(scanner: XMLScanner) {
        self.scanner = scanner
    }

    // MARK: - Elements

    /// Reads the root element, at its `<`, and everything in it. Loops rather than recurses, so
    /// that deep nesting costs no stack.
    private mutating func readRootElement() throws(XMLSyntaxError) -> XMLTreeElement {
        if let root = try readStartTag() { return root }
        while !open.isEmpty {
            guard let byte = scanner.current else {
                throw scanner.error("the document ends inside <\(open[open.count - 1].element.name)>")
            }
            switch byte {
            case UInt8(ascii: "<"):
                switch scanner.peek(1) {
                case UInt8(ascii: "/"):
                    if let root = try readEndTag() { return root }
                case UInt8(ascii: "!"):
                    try readCommentOrCDATA()
                case UInt8(ascii: "?"):
                    throw Self.processingInstruction(at: scanner.location)
                default:
                    if let root = try readStartTag() { return root }
                }
            case UInt8(ascii: "&"):
                try scanner.readReference(into: &open[open.count - 1].text)
            case UInt8(ascii: "]") where scanner.isAt("]]>"):
                throw scanner.error("']]>' in text, which XML does not allow (write ]]&gt;)")
            default:
                try scanner.copyText(to: &open[open.count - 1].text) {
                    $0 == UInt8(ascii: "<") || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "]")
                }
                if scanner.current == UInt8(ascii: "]"), !scanner.isAt("]]>") {
                    open[open.count - 1].text.append(UInt8(ascii: "]"))
                    scanner.skip(1)
                }
            }
        }
        preconditionFailure("the loop returns the root when it closes")
    }

    /// Reads a start tag, at its `<`: opens the element, or for an empty-element tag (`<a/>`)
    /// closes it at once; returns the element when it is the root and closed.
    private mutating func readStartTag() throws(XMLSyntaxError) -> XMLTreeElement? {
        scanner.skip(1)
        let name = try scanner.readName()
        var attributes: [String: String] = [:]
        var value: [UInt8] = []
        while true {
            let spaced = try scanner.skipWhitespace()
            switch scanner.current {
            case nil:
                throw scanner.error("the document ends inside the tag <\(name)>")
            case UInt8(ascii: ">"):
                let element = try opened(name, attributes)
                scanner.skip(1)
                open.append((element, []))
                return nil
            case UInt8(ascii: "/"):
                let element = try opened(name, attributes)
                scanner.skip(1)
                guard scanner.current == UInt8(ascii: ">") else { throw scanner.error("'>' is required here") }
                scanner.skip(1)
                return close(element)
            default:
                guard spaced else {
                    try scanner.checkCharacter()
                    throw scanner.error("a space is required here")
                }
                let attributeLocation = scanner.location
                let attribute = try scanner.readName()
                try scanner.skipWhitespace()
                guard scanner.current == UInt8(ascii: "=") else {
                    guard scanner.current != nil else { throw scanner.error("the document ends inside the tag <\(name)>") }
                    throw scanner.error("'=' is required after an attribute name")
                }
                scanner.skip(1)
                try scanner.skipWhitespace()
                value.removeAll(keepingCapacity: true)
                try readAttributeValue(into: &value, tag: name)
                guard attributes.updateValue(String(decoding: value, as: UTF8.self), forKey: attribute) == nil else {
                    throw scanner.error("the attribute '\(attribute)' is written twice", at: attributeLocation)
                }
            }
        }
    }

    /// The element a start tag that ends at the cursor opens, if elements do not nest too deep.
    private func opened(_ name: String, _ attributes: [String: String]) throws(XMLSyntaxError) -> XMLTreeElement {
        guard open.count < Self.maximumDepth else {
            throw scanner.error("elements nest deeper than \(Self.maximumDepth) levels")
        }
        return XMLTreeElement(name: name, attributes: attributes, children: [], location: scanner.location)
    }

    /// Reads a quoted attribute value, at its quote, normalized as section 3.3.3 says for an
    /// attribute without a declared type: a reference's character is kept as it is, a literal
    /// tab or line end becomes a space.
    private mutating func readAttributeValue(into value: inout [UInt8], tag: String) throws(XMLSyntaxError) {
        guard let quote = scanner.current, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            guard scanner.current != nil else { throw scanner.error("the document ends inside the tag <\(tag)>") }
            throw scanner.error("an attribute without a quoted value")
        }
        scanner.skip(1)
        while true {
            try scanner.copyText(to: &value, spacing: true) {
                $0 == quote || $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<")
            }
            switch scanner.current {
            case nil: throw scanner.error("the document ends inside an attribute value of <\(tag)>")
            case UInt8(ascii: "&"): try scanner.readReference(into: &value)
            case UInt8(ascii: "<"): throw scanner.error("'<' inside an attribute value (write &lt;)")
            default:
                scanner.skip(1)
                return
            }
        }
    }

    /// Reads an end tag, at its `<`, which must close the innermost open element; returns the
    /// element when it is the root.
    private mutating func readEndTag() throws(XMLSyntaxError) -> XMLTreeElement? {
        let start = scanner.location
        scanner.skip(2)
        let name = try scanner.readName()
        let (closing, text) = open.removeLast()
        var element = closing
        guard name == element.name else {
            throw scanner.error(
                "the closing tag </\(name)> does not match <\(element.name)> opened at \(element.location)", at: start)
        }
        try scanner.skipWhitespace()
        guard scanner.current == UInt8(ascii: ">") else {
            guard scanner.current != nil else { throw scanner.error("the document ends inside the closing tag </\(name)>") }
            throw scanner.error("'>' is required here")
        }
        scanner.skip(1)
        element.text = String(decoding: text, as: UTF8.self)
        return close(element)
    }

    /// Adds a closed element to the open one around it; returns it when there is none: it is
    /// the root.
    private mutating func close(_ element: XMLTreeElement) -> XMLTreeElement? {
        guard !open.isEmpty else { return element }
        open[open.count - 1].element.children.append(element)
        return nil
    }

    /// Reads a comment or a CDATA section in an element, at its `<!`; a CDATA section's text is
    /// the element's.
    private mutating func readCommentOrCDATA() throws(XMLSyntaxError) {
        if scanner.isAt("<!--") {
            try readComment()
        } else if scanner.isAt("<![CDATA[") {
            scanner.skip(9)
            guard try scanner.copy(until: "]]>", to: &open[open.count - 1].text) else {
                throw scanner.error("the document ends inside a CDATA section in <\(open[open.count - 1].element.name)>")
            }
            scanner.skip(3)
        } else {
            throw scanner.error("'<!' that starts neither a comment (<!--) nor a CDATA section (<![CDATA[)")
        }
    }

    /// Reads a comment, at its `<!--`. XML does not allow `--` inside one.
    mutating func readComment() throws(XMLSyntaxError) {
        scanner.skip(4)
        guard try scanner.skip(until: "--") else { throw scanner.error("an unfinished comment") }
        guard scanner.peek(2) == UInt8(ascii: ">") else {
            throw scanner.error("'--' inside a comment, which XML does not allow")
        }
        scanner.skip(3)
    }

    /// The error for a processing instruction (`<?target …?>`) other than the XML declaration
    /// that opens the file: model files have none.
    static func processingInstruction(at location: SourceLocation) -> XMLSyntaxError {
        XMLSyntaxError(message: "a processing instruction (<?…?>), which a model file does not have", location: location)
    }
}
