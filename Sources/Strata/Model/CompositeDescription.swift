/// A composite type of a model (Xcode's `<composite>`, Core Data's
/// `NSCompositeAttributeDescription` elements): named attributes that a `Composite` attribute
/// holds together as one value, such as a `magnitude` of `richter` and `depth`.
///
/// ```swift
/// let magnitude = CompositeDescription(name: "Magnitude", attributes: [
///     AttributeDescription(name: "richter", type: .double), AttributeDescription(name: "depth", type: .double),
/// ])
/// var attribute = AttributeDescription(name: "magnitude", type: .composite)
/// attribute.compositeName = "Magnitude"
/// ```
public struct CompositeDescription: Sendable, Equatable {
    /// The composite's name, which a `Composite` attribute's ``AttributeDescription/compositeName`` gives.
    public var name: String
    /// Its elements, in model order; an element may itself be a `Composite` attribute.
    public var attributes: [AttributeDescription]

    /// A composite named `name` of `attributes`.
    public init(name: String, attributes: [AttributeDescription]) {
        self.name = name
        self.attributes = attributes
    }
}
