/// A named index over one or more properties, for the store to speed up fetches.
public struct FetchIndexDescription: Sendable, Equatable {
    /// One indexed property, or expression, of a ``FetchIndexDescription``.
    public struct Element: Sendable, Equatable {
        /// The property's name, or the expression's text when ``expressionType`` is set.
        public var property: String
        /// For an expression element, the type of the expression's value as Xcode names it
        /// (`Integer 64`, `String`, …); `nil` for a property element.
        public var expressionType: String?
        /// `Binary` (a B-tree) or `R-Tree`, as Xcode writes it.
        public var kind: String = "Binary"
        public var isAscending: Bool = true

        public init(property: String, kind: String = "Binary", isAscending: Bool = true) {
            self.property = property
            self.kind = kind
            self.isAscending = isAscending
        }

        /// An element that indexes the value of `expression`, of type `expressionType`.
        public init(expression: String, expressionType: String, kind: String = "Binary", isAscending: Bool = true) {
            self.init(property: expression, kind: kind, isAscending: isAscending)
            self.expressionType = expressionType
        }
    }

    public var name: String
    public var elements: [Element]

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
