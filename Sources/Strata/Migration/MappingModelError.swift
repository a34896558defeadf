/// Why a mapping model could not be read: the file, the element (`XDDEVENTITYMAPPING z109`
/// for an object of `xcmapping.xml`) and what is wrong with it.
///
/// ```swift
/// do {
///     _ = try MappingModel.load(contentsOf: url)
/// } catch {
///     print(error)   // Model1_to_Model2.xcmappingmodel/xcmapping.xml: XDDEVENTITYMAPPING z109: …
/// }
/// ```
public struct MappingModelError: Error, Sendable, CustomStringConvertible {
    /// The file.
    public var path: String
    /// The element of the file, when one is at fault.
    public var element: String?
    /// Where in the file, when the file is not well-formed XML.
    public var location: SourceLocation?
    /// What is wrong.
    public var message: String
    /// The error underneath, kept as it was (a model or predicate that cannot be read).
    public var underlying: (any Error & Sendable)?

    /// An error about `path` (and `element` in it), keeping the error underneath as it was.
    init(path: String, element: String? = nil, location: SourceLocation? = nil, message: String, underlying: (any Error & Sendable)? = nil) {
        self.path = path
        self.element = element
        self.location = location
        self.message = message
        self.underlying = underlying
    }

    public var description: String {
        "\(path): " + (location.map { "\($0): " } ?? "") + (element.map { "\($0): " } ?? "") + message
    }
}
