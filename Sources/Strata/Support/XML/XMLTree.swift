/// An element of a parsed XML document, with its attributes, child elements and the line and
/// column where its start tag ends, and its text: model files keep everything in attributes,
/// Core Data's XML stores (an `.xcmappingmodel`'s `xcmapping.xml`) keep values as text.
struct XMLTreeElement: Sendable {
    /// The name as written, a namespace prefix included (`a:b`).
    var name: String
    /// The attributes by name as written, their values with references replaced and literal
    /// tabs and line ends made spaces (XML 1.0 section 3.3.3); `xmlns` declarations are
    /// attributes like any other.
    var attributes: [String: String]
    var children: [XMLTreeElement]
    /// Where the start tag ends: its `>`, or the `/` of `/>`.
    var location: SourceLocation
    /// The element's own text, CDATA sections included, its children's left out; line ends
    /// are LF (XML 1.0 section 2.11).
    var text = ""

    func children(named name: String) -> [XMLTreeElement] {
        children.filter { $0.name == name }
    }

    func firstChild(named name: String) -> XMLTreeElement? {
        children.first { $0.name == name }
    }
}

/// An XML syntax error with the place the reader stopped.
struct XMLSyntaxError: Error, Sendable {
    var message: String
    var location: SourceLocation
}
