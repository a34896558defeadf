import Foundation

extension ManagedObject {
    /// The value of the Transformable attribute `key`, as the archive the store keeps holds it
    /// (``AttributeDescription/transformableValue(storedData:)``); `nil` when it is not set.
    ///
    /// ```swift
    /// if case .array(let tags)? = try book.transformableValue(forKey: "tags") {
    ///     print(tags.compactMap(\.stringValue))          // ["fantasy", "classic"]
    /// }
    /// ```
    ///
    /// ``value(forKey:)`` hands out the archive's bytes, as the attribute's ``AttributeValue`` holds them.
    ///
    /// - Throws: ``StoreError/unknownProperty(path:entity:property:known:)`` inside ``ContextError/store(_:)``, or
    ///   ``ContextError/wrongType(entity:property:value:expected:)`` when `key` is not a
    ///   Transformable attribute.
    public func transformableValue(forKey key: String) throws(ContextError) -> TransformableValue? {
        let attribute = try transformableAttribute(key)
        guard case .binary(let data)? = try attributeValue(forKey: key) else { return nil }
        return attribute.transformableValue(storedData: data)
    }

    /// Sets the Transformable attribute `key` to `value`, archived as the attribute keeps its
    /// values (``AttributeDescription/storedData(for:)``), or clears it.
    ///
    /// ```swift
    /// try book.setTransformableValue(.array([.string("fantasy"), .string("classic")]), forKey: "tags")
    /// ```
    ///
    /// - Throws: ``ContextError/transformableValue(entity:property:_:)`` when the value cannot
    ///   be kept (any but a value read from the attribute, when it has an app's own transformer),
    ///   and the errors of ``transformableValue(forKey:)``.
    public func setTransformableValue(_ value: TransformableValue?, forKey key: String) throws(ContextError) {
        let attribute = try transformableAttribute(key)
        guard let value else { return try setAttribute(nil, forKey: key) }
        let data: Data
        do {
            data = try attribute.storedData(for: value)
        } catch {
            throw .transformableValue(entity: entity.name, property: key, error)
        }
        try setAttribute(.binary(data), forKey: key)
    }

    private func transformableAttribute(_ key: String) throws(ContextError) -> AttributeDescription {
        let model = try requireContext().model
        guard let attribute = model.attribute(named: key, in: entity) else {
            if model.relationship(named: key, in: entity) != nil {
                throw .wrongType(entity: entity.name, property: key, value: "a transformable value", expected: "an object or objects")
            }
            throw .unknown(property: key, of: entity, in: try requireContext())
        }
        guard attribute.type == .transformable else {
            throw .wrongType(entity: entity.name, property: key, value: "a transformable value", expected: "a \(attribute.type.rawValue) value")
        }
        return attribute
    }
}
