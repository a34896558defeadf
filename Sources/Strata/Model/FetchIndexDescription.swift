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
        /// Whether the index sorts this element ascending (the default) or descending (`order`).
        public var isAscending: Bool = true

        /// An element that indexes the property named `property`.
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

    /// The index's name, which with the entity's name names the store index (`Z_<Entity>_<name>`).
    public var name: String
    /// The indexed properties and expressions, in the order the index sorts by them.
    public var elements: [Element]

    /// An index named `name` over `elements`.
    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
