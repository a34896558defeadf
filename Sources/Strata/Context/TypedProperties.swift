import Foundation

/// A Swift type an attribute can be read as and written from in a typed ``ManagedObject``
/// subclass: `String`, the integer and floating-point types, `Bool`, `Date`, `Data`, `UUID`,
/// `URL`, `Decimal`, and optionals of them.
public protocol AttributeRepresentable {
    /// The value an attribute holds (`nil` when unset), or `nil` when it is not of this type.
    init?(attributeValue: AttributeValue?)
    /// The attribute value this value stands for.
    var attributeValue: AttributeValue? { get }
}

extension Optional: AttributeRepresentable where Wrapped: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard let attributeValue else {
            self = .none
            return
        }
        guard let wrapped = Wrapped(attributeValue: attributeValue) else { return nil }
        self = .some(wrapped)
    }

    public var attributeValue: AttributeValue? { self?.attributeValue ?? nil }
}

extension String: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .string(let value)? = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue? { .string(self) }
}

extension Bool: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .boolean(let value)? = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue? { .boolean(self) }
}

extension Date: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .date(let value)? = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue? { .date(self) }
}

extension Data: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .binary(let value)? = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue? { .binary(self) }
}

extension UUID: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .uuid(let value)? = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue? { .uuid(self) }
}

extension URL: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .uri(let value)? = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue? { .uri(self) }
}

extension Decimal: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .decimal(let value)? = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue? { .decimal(self) }
}

extension Double: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .double(let value)? = attributeValue else { return nil }
        self = value
    }
    public var attributeValue: AttributeValue? { .double(self) }
}

extension Float: AttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .double(let value)? = attributeValue else { return nil }
        self = Float(value)
    }
    public var attributeValue: AttributeValue? { .double(Double(self)) }
}

/// Integer types read an integer attribute when its value fits them.
public protocol IntegerAttributeRepresentable: AttributeRepresentable, FixedWidthInteger {}

extension IntegerAttributeRepresentable {
    public init?(attributeValue: AttributeValue?) {
        guard case .integer(let value)? = attributeValue, let exact = Self(exactly: value) else { return nil }
        self = exact
    }
    public var attributeValue: AttributeValue? { Int64(exactly: self).map(AttributeValue.integer) }
}

extension Int: IntegerAttributeRepresentable {}
extension Int16: IntegerAttributeRepresentable {}
extension Int32: IntegerAttributeRepresentable {}
extension Int64: IntegerAttributeRepresentable {}

// MARK: - Property wrappers

/// An attribute of a typed ``ManagedObject`` subclass:
///
/// ```swift
/// final class Book: ManagedObject {
///     @Attribute("title") var title: String?
///     @Attribute("rating") var rating: Double
/// }
/// ```
///
/// Reading a non-optional attribute that is not set, or writing a value out of the model's
/// range, stops the program naming entity and attribute, as Core Data raises; the untyped
/// ``ManagedObject/setValue(_:forKey:)`` reports such mistakes as errors instead.
@propertyWrapper
public struct Attribute<Value: AttributeRepresentable> {
    /// The attribute's name in the model.
    public var key: String { name.string }
    // Eight bytes in each object rather than a `String`'s sixteen (see `PropertyName`).
    @usableFromInline let name: PropertyName

    /// Binds the property to the attribute named `key` in the model: what a typed subclass
    /// writes, `@Attribute("title")`. The literal's bytes are kept as they are.
    @inlinable
    public init(_ key: StaticString) {
        name = PropertyName(key)
    }

    /// Binds the property to the attribute named `key` in the model, a name that is not a
    /// literal. Each distinct name is kept once for the life of the program, looked up each
    /// time an object is made: a literal costs nothing there.
    @_disfavoredOverload
    @inlinable
    public init(_ key: String) {
        name = PropertyName(interning: key)
    }

    @available(*, unavailable, message: "@Attribute is only for ManagedObject subclasses")
    public var wrappedValue: Value {
        get { fatalError() }
        set { fatalError() }
    }

    // Inlinable so that a subclass's module specializes it for its own types: generic, each
    // read would look up the types' metadata at run time and project the key paths.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, Attribute<Value>>
    ) -> Value {
        get { read(object[keyPath: storageKeyPath].name, of: object) }
        set {
            do {
                try object.setAttribute(newValue.attributeValue, named: object[keyPath: storageKeyPath].name)
            } catch {
                preconditionFailure(error.description)
            }
        }
    }

    /// The attribute `name` of `object` as a `Value`: what ``Attribute`` and
    /// ``DerivedAttribute`` read.
    @inlinable
    static func read(_ name: PropertyName, of object: ManagedObject) -> Value {
        do {
            guard let value = Value(attributeValue: try object.attributeValue(named: name)) else {
                preconditionFailure("\(object.entity.name).\(name.string) is not set or is not a \(Value.self)")
            }
            return value
        } catch .forgottenObject {
            // A view may still show an object its context forgot (a reset at logout): it
            // reads as it was last seen, rather than stopping the app.
            guard let value = Value(attributeValue: object.lastSeenAttributeValue(forKey: name.string)) else {
                preconditionFailure(ContextError.forgottenObject(object.objectID).description)
            }
            return value
        } catch {
            preconditionFailure(error.description)
        }
    }
}

/// A derived attribute of a typed ``ManagedObject`` subclass, read-only as Core Data's are:
/// `@DerivedAttribute("pagesCount") var pagesCount: Int64?`. The store computes its value from
/// the model's derivation expression when objects are saved; ``ManagedObject/setValue(_:forKey:)``
/// refuses to set it.
@propertyWrapper
public struct DerivedAttribute<Value: AttributeRepresentable> {
    /// The attribute's name in the model.
    public var key: String { name.string }
    @usableFromInline let name: PropertyName

    /// Binds the property to the derived attribute named `key` in the model, kept as
    /// ``Attribute`` keeps its name.
    @inlinable
    public init(_ key: StaticString) {
        name = PropertyName(key)
    }

    /// Binds the property to the derived attribute named `key` in the model, a name that is
    /// not a literal, kept as ``Attribute/init(_:)-(String)`` keeps it.
    @_disfavoredOverload
    @inlinable
    public init(_ key: String) {
        name = PropertyName(interning: key)
    }

    @available(*, unavailable, message: "@DerivedAttribute is only for ManagedObject subclasses")
    public var wrappedValue: Value {
        fatalError()
    }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object, wrapped wrappedKeyPath: KeyPath<Object, Value>,
        storage storageKeyPath: KeyPath<Object, DerivedAttribute<Value>>
    ) -> Value {
        Attribute<Value>.read(object[keyPath: storageKeyPath].name, of: object)
    }
}

/// A to-one relationship of a typed ``ManagedObject`` subclass: `@ToOne("author") var author: Author?`.
@propertyWrapper
public struct ToOne<Destination: ManagedObject> {
    /// The relationship's name in the model.
    public let key: String

    @inlinable
    /// Binds the property to the to-one relationship named `key` in the model.
    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@ToOne is only for ManagedObject subclasses")
    public var wrappedValue: Destination? {
        get { fatalError() }
        set { fatalError() }
    }

    // Inlinable so that a subclass's module specializes it for its own types: generic, each
    // read would look up the types' metadata at run time and project the key paths.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, Destination?>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, ToOne<Destination>>
    ) -> Destination? {
        get { object[object[keyPath: storageKeyPath].key] as? Destination }
        set {
            do {
                try object.setValue(newValue, forKey: object[keyPath: storageKeyPath].key)
            } catch {
                preconditionFailure(error.description)
            }
        }
    }
}

/// A to-many relationship of a typed ``ManagedObject`` subclass: `@ToMany("pages") var pages: [Page]`,
/// in order for an ordered relationship.
@propertyWrapper
public struct ToMany<Destination: ManagedObject> {
    /// The relationship's name in the model.
    public let key: String

    @inlinable
    /// Binds the property to the to-many relationship named `key` in the model.
    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@ToMany is only for ManagedObject subclasses")
    public var wrappedValue: [Destination] {
        get { fatalError() }
        set { fatalError() }
    }

    // Inlinable so that a subclass's module specializes it for its own types: generic, each
    // read would look up the types' metadata at run time and project the key paths.
    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object, wrapped wrappedKeyPath: ReferenceWritableKeyPath<Object, [Destination]>,
        storage storageKeyPath: ReferenceWritableKeyPath<Object, ToMany<Destination>>
    ) -> [Destination] {
        get { (object[object[keyPath: storageKeyPath].key] as? [ManagedObject] ?? []).compactMap { $0 as? Destination } }
        set {
            do {
                try object.setValue(newValue as [ManagedObject], forKey: object[keyPath: storageKeyPath].key)
            } catch {
                preconditionFailure(error.description)
            }
        }
    }
}

/// A fetched property of a typed ``ManagedObject`` subclass, read-only:
/// `@Fetched("unreadChapters") var unreadChapters: [Chapter]`. It reads
/// ``ManagedObject/fetchedObjects(forProperty:)``: fetched on first access and kept until the
/// object is refreshed. (Not `FetchedProperty`, which is a value a dictionary fetch selects.)
@propertyWrapper
public struct Fetched<Destination: ManagedObject> {
    /// The fetched property's name in the model.
    public let key: String

    @inlinable
    /// Binds the property to the fetched property named `key` in the model.
    public init(_ key: String) {
        self.key = key
    }

    @available(*, unavailable, message: "@Fetched is only for ManagedObject subclasses")
    public var wrappedValue: [Destination] {
        fatalError()
    }

    @inlinable
    public static subscript<Object: ManagedObject>(
        _enclosingInstance object: Object, wrapped wrappedKeyPath: KeyPath<Object, [Destination]>,
        storage storageKeyPath: KeyPath<Object, Fetched<Destination>>
    ) -> [Destination] {
        do {
            return try object.fetchedObjects(forProperty: object[keyPath: storageKeyPath].key).compactMap { $0 as? Destination }
        } catch .forgottenObject {
            // As a to-many of an object its context forgot: nothing, rather than stopping the app.
            return []
        } catch {
            preconditionFailure(error.description)
        }
    }
}
