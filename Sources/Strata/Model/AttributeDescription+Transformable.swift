import Foundation

extension AttributeDescription {
    /// The value transformer names under which Core Data keeps a Transformable attribute's
    /// values as `NSKeyedArchiver` archives: none (Core Data's default, `NSKeyedUnarchiveFromData`,
    /// spelt out or not) and the secure transformer, by its registered name or its class name,
    /// as Xcode writes either. An empty name, which Xcode leaves once a name is cleared (Simplenote's
    /// `recent_searches`), is taken for none: inferred, not seen on a store.
    static let keyedArchiveTransformerNames: Set<String> = [
        "", "NSKeyedUnarchiveFromData", "NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer",
    ]

    /// The names of Core Data's secure transformer, which unarchives only the classes of its
    /// `allowedTopLevelClasses`: NSArray, NSDictionary, NSSet, NSString, NSNumber, NSDate,
    /// NSData, NSURL, NSUUID and NSNull (as Apple documents it; not tried on a device).
    static let secureTransformerNames: Set<String> = ["NSSecureUnarchiveFromData", "NSSecureUnarchiveFromDataTransformer"]

    /// Whether Core Data keeps this Transformable attribute's values as `NSKeyedArchiver`
    /// archives, which Strata reads and writes as ``TransformableValue``s. With another
    /// transformer (an app's own class) the values are opaque: read as an ``ArchivedObject``
    /// or ``TransformableValue/bytes(_:)`` and written back only as such.
    var storesKeyedArchives: Bool {
        valueTransformerName.map(Self.keyedArchiveTransformerNames.contains) ?? true
    }

    /// The value that `data`, the bytes a store holds for this Transformable attribute, stands
    /// for. With an app's own transformer, the whole value is an ``ArchivedObject`` when the
    /// bytes are a keyed archive; bytes that are not one are ``TransformableValue/bytes(_:)``.
    public func transformableValue(storedData data: Data) -> TransformableValue {
        if storesKeyedArchives, let value = try? TransformableValue(keyedArchive: data) { return value }
        if !storesKeyedArchives, let object = try? ArchivedObject(archive: data) { return .object(object) }
        return .bytes(data)
    }

    /// The bytes the store keeps for `value` of this Transformable attribute, as
    /// ``TransformableValue/storedData(valueTransformerName:)`` makes them.
    public func storedData(for value: TransformableValue) throws(TransformableValueError) -> Data {
        try value.storedData(valueTransformerName: valueTransformerName)
    }
}

extension TransformableValue {
    /// The bytes a store keeps for this value of a Transformable attribute whose value
    /// transformer is `valueTransformerName`: an ``ArchivedObject``'s archive and
    /// ``bytes(_:)`` as they are, other values archived (``keyedArchive()``).
    ///
    /// - Throws: ``TransformableValueError`` for a value that is not an archived object or bytes
    ///   when the transformer is an app's own, which Strata cannot run; for an ordered set under
    ///   the secure transformer, which the app could not read back; and for a value that cannot
    ///   be archived.
    public func storedData(valueTransformerName: String?) throws(TransformableValueError) -> Data {
        switch self {
        case .bytes(let data): return data
        case .object(let object): return object.archive
        default:
            guard valueTransformerName.map(AttributeDescription.keyedArchiveTransformerNames.contains) ?? true else {
                throw TransformableValueError(
                    "the values go through the value transformer \(valueTransformerName ?? ""), which Strata cannot run: only a value read from such an attribute ({\"$archive\": …} or {\"$bytes\": …}) can be written")
            }
            if let valueTransformerName, AttributeDescription.secureTransformerNames.contains(valueTransformerName), let path = orderedSetPath() {
                throw TransformableValueError(at: path, "\(valueTransformerName) reads only NSArray, NSDictionary, NSSet, NSString, NSNumber, NSDate, NSData, NSURL, NSUUID and NSNull: the app could not read an ordered set back")
            }
            return try keyedArchive()
        }
    }

    /// Where the first ordered set in the value is (`""` for the whole value), if any.
    private func orderedSetPath(_ path: String = "") -> String? {
        switch self {
        case .orderedSet: return path
        case .array(let values): return values.indices.lazy.compactMap { values[$0].orderedSetPath(path + "[\($0)]") }.first
        case .set(let values): return values.lazy.compactMap { $0.orderedSetPath(path + "[]") }.first
        case .dictionary(let entries):
            return entries.keys.sorted().lazy.compactMap { entries[$0]!.orderedSetPath(path + "." + $0) }.first
        default: return nil
        }
    }
}
