/// What stands around the root element: the XML declaration, comments and a DOCTYPE before it,
/// comments after it.
extension XMLTreeReader {
    /// Reads what comes before the root element and leaves the cursor at its `<`. Fails with
    /// words of its own for the files that are not XML at all, empty ones and ones whose first
    /// character is not `<`.
    mutating func readProlog() throws(XMLSyntaxError) {
        if scanner.isAt("<?xml"), let after = scanner.peek(5), XMLScanner.isWhitespace(after) {
            try readXMLDeclaration()
        } else {
            try scanner.skipWhitespace()
            guard let byte = scanner.current else { throw scanner.error("the file is empty") }
            guard byte == UInt8(ascii: "<") else { throw scanner.error("not XML: expected '<'") }
        }
        var hasDoctype = false
        while true {
            try scanner.skipWhitespace()
            guard let byte = scanner.current else { throw scanner.error("the document has no root element") }
            guard byte == UInt8(ascii: "<") else { throw scanner.error("text before the root element, which XML does not allow") }
            switch scanner.peek(1) {
            case UInt8(ascii: "?"):
                throw Self.processingInstruction(at: scanner.location)
            case UInt8(ascii: "!"):
                if scanner.isAt("<!--") {
                    try readComment()
                } else if scanner.isAt("<!DOCTYPE"), !hasDoctype {
                    try readDoctype()
                    hasDoctype = true
                } else {
                    throw scanner.error("'<!' that starts neither a comment (<!--) nor the DOCTYPE")
                }
            default:
                return
            }
        }
    }

    /// Reads what follows the root element: comments and white space only.
    mutating func readEpilog(after root: XMLTreeElement) throws(XMLSyntaxError) {
        while true {
            try scanner.skipWhitespace()
            guard scanner.current != nil else { return }
            if scanner.isAt("<!--") {
                try readComment()
            } else if scanner.isAt("<?") {
                throw Self.processingInstruction(at: scanner.location)
            } else {
                throw scanner.error("extra content after the root element <\(root.name)>")
            }
        }
    }

    // MARK: - The XML declaration

    /// Reads `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>`, at its `<`: a version
    /// 1.x (read as 1.0, as section 4.3.4 allows), then optionally the encoding, which must be
    /// UTF-8, the only one Strata reads, and standalone, `yes` or `no`, in that order.
    private mutating func readXMLDeclaration() throws(XMLSyntaxError) {
        scanner.skip(5)
        var expected = ["version", "encoding", "standalone"][...]
        while true {
            let spaced = try scanner.skipWhitespace()
            if scanner.isAt("?>") {
                guard expected.first != "version" else { throw scanner.error("the XML declaration has no version") }
                scanner.skip(2)
                return
            }
            guard scanner.current != nil else { throw scanner.error("the document ends inside the XML declaration") }
            guard spaced else { throw scanner.error("a space is required here") }
            let location = scanner.location
            let name = try scanner.readName()
            guard let position = expected.firstIndex(of: name), expected.first != "version" || name == "version" else {
                throw scanner.error(
                    "the XML declaration has version, then optionally encoding and standalone, in this order; found '\(name)'",
                    at: location)
            }
            expected = expected[(position + 1)...]
            try scanner.skipWhitespace()
            guard scanner.current == UInt8(ascii: "=") else { throw scanner.error("'=' is required after an attribute name") }
            scanner.skip(1)
            try scanner.skipWhitespace()
            let valueLocation = scanner.location
            let value = try readLiteral(in: "the XML declaration")
            switch name {
            case "version":
                guard value.hasPrefix("1."), value.utf8.count > 2, value.utf8.dropFirst(2).allSatisfy({ (0x30...0x39).contains($0) }) else {
                    throw scanner.error("the XML declaration names version '\(value)'; Strata reads XML 1.0", at: valueLocation)
                }
            case "encoding":
                guard ["utf-8", "utf8"].contains(value.lowercased()) else {
                    throw scanner.error("the XML declaration names the encoding '\(value)'; Strata reads UTF-8 only", at: valueLocation)
                }
            default:
                guard value == "yes" || value == "no" else {
                    throw scanner.error("standalone is 'yes' or 'no', not '\(value)'", at: valueLocation)
                }
            }
        }
    }

    /// Reads a quoted literal at the cursor, whose text is taken as it is (no references).
    private mutating func readLiteral(in construct: String) throws(XMLSyntaxError) -> String {
        guard let quote = scanner.current, quote == UInt8(ascii: "\"") || quote == UInt8(ascii: "'") else {
            guard scanner.current != nil else { throw scanner.error("the document ends inside \(construct)") }
            throw scanner.error("a quoted value is required here")
        }
        scanner.skip(1)
        var text: [UInt8] = []
        try scanner.copyText(to: &text) { $0 == quote }
        guard scanner.current == quote else { throw scanner.error("the document ends inside \(construct)") }
        scanner.skip(1)
        return String(decoding: text, as: UTF8.self)
    }

    // MARK: - The DOCTYPE

    /// Reads the DOCTYPE, at its `<`: the root's name, the external DTD's identifiers (Core Data
    /// XML stores name `file:///System/Library/DTDs/CoreData.dtd`), which are not read, and an
    /// internal subset. libxml2 applied an internal subset's entities and attribute defaults;
    /// no model file or mapping model has them (inferred from Xcode's files and the corpus), so
    /// rather than change a document's meaning by ignoring them, the reader refuses them, and
    /// skips element and notation declarations, which change nothing a non-validating reader
    /// reports.
    private mutating func readDoctype() throws(XMLSyntaxError) {
        scanner.skip(9)
        guard try scanner.skipWhitespace() else { throw scanner.error("a space is required here") }
        _ = try scanner.readName()
        if try scanner.skipWhitespace(), scanner.isAt("SYSTEM") || scanner.isAt("PUBLIC") {
            let isPublic = scanner.isAt("PUBLIC")
            scanner.skip(6)
            guard try scanner.skipWhitespace() else { throw scanner.error("a space is required here") }
            if isPublic {
                let location = scanner.location
                let identifier = try readLiteral(in: "the DOCTYPE")
                guard identifier.utf8.allSatisfy(Self.isPublicIdentifierCharacter) else {
                    throw scanner.error("a public identifier with a character it may not have", at: location)
                }
                guard try scanner.skipWhitespace() else { throw scanner.error("a space is required here") }
            }
            _ = try readLiteral(in: "the DOCTYPE")
            try scanner.skipWhitespace()
        }
        if scanner.current == UInt8(ascii: "[") {
            scanner.skip(1)
            try readInternalSubset()
            try scanner.skipWhitespace()
        }
        guard scanner.current == UInt8(ascii: ">") else {
            guard scanner.current != nil else { throw scanner.error("the document ends inside the DOCTYPE") }
            throw scanner.error("'>' is required here")
        }
        scanner.skip(1)
    }

    /// Reads the declarations between the DOCTYPE's `[` and `]`, and the `]`.
    private mutating func readInternalSubset() throws(XMLSyntaxError) {
        while true {
            try scanner.skipWhitespace()
            if scanner.isAt("]") {
                scanner.skip(1)
                return
            } else if scanner.isAt("<!--") {
                try readComment()
            } else if scanner.isAt("<!ELEMENT") || scanner.isAt("<!NOTATION") {
                try skipDeclaration()
            } else if scanner.isAt("<!ENTITY") || scanner.isAt("<!ATTLIST") || scanner.isAt("%") {
                throw scanner.error("a DOCTYPE that declares entities or attribute defaults (<!ENTITY …>, <!ATTLIST …>), which Strata does not read")
            } else if scanner.isAt("<?") {
                throw Self.processingInstruction(at: scanner.location)
            } else if scanner.current == nil {
                throw scanner.error("the document ends inside the DOCTYPE")
            } else {
                throw scanner.error("a DOCTYPE declaration Strata does not know: expected <!ELEMENT, <!NOTATION, a comment or ']'")
            }
        }
    }

    /// Moves past an element or notation declaration, at its `<`, to after its `>`; quoted
    /// literals may hold a `>`.
    private mutating func skipDeclaration() throws(XMLSyntaxError) {
        var ignored: [UInt8] = []
        while true {
            try scanner.copyText(to: &ignored) { $0 == UInt8(ascii: ">") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "'") }
            ignored.removeAll(keepingCapacity: true)
            switch scanner.current {
            case nil:
                throw scanner.error("the document ends inside the DOCTYPE")
            case UInt8(ascii: ">"):
                scanner.skip(1)
                return
            default:
                _ = try readLiteral(in: "the DOCTYPE")
            }
        }
    }

    /// PubidChar, section 2.3.
    private static func isPublicIdentifierCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x20, 0x0D, 0x0A, UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "-'()+,./:=?;!*#@$_%".utf8.contains(byte)
        }
    }
}
