import Foundation

/// Navigates an `NSKeyedArchiver` archive held in a property list: objects by UID, their
/// class names, and the archived forms of strings, arrays, sets and dictionaries. Core Data's
/// model cache and Xcode 3's binary models are such archives.
struct KeyedArchive {
    /// Why an archive could not be read: what is wrong, and the error of the layer below (the
    /// property list's, the DEFLATE stream's) when that was the cause. The cause is kept as a
    /// value and worded only in ``description``.
    struct Failure: Error, CustomStringConvertible {
        /// What is wrong in the archive's terms, or, beside an ``underlying`` cause, what the
        /// archive's reader adds to it (the size of the blob); `nil` when the cause says it all.
        var message: String?
        var underlying: (any Error)?

        init(message: String, underlying: (any Error)? = nil) {
            self.message = message
            self.underlying = underlying
        }

        /// A failure of the layer below, with `note` (if any) added in parentheses to its words.
        init(underlying: any Error, note: String? = nil) {
            message = note
            self.underlying = underlying
        }

        /// The message; the cause's own words when there is one, the message after it in
        /// parentheses.
        var description: String {
            switch (message, underlying) {
            case (let message?, nil): message
            case (nil, let underlying?): "\(underlying)"
            case (let message?, let underlying?): "\(underlying) (\(message))"
            case (nil, nil): "the archive cannot be read"
            }
        }
    }

    /// The archive's `$objects`: `$null` first, then every object, referred to by their index.
    let objects: [PropertyListValue]
    /// The index of the root object in ``objects`` (`$top.root`).
    let rootIndex: Int
    /// The archive's root object (`$top.root`).
    let root: PropertyListValue

    init(_ plist: PropertyListValue) throws(Failure) {
        guard plist["$archiver"]?.stringValue == "NSKeyedArchiver", let objects = plist["$objects"]?.arrayValue else {
            throw Failure(message: "not an NSKeyedArchiver archive")
        }
        self.objects = objects
        guard case .uid(let rootIndex)? = plist["$top"]?["root"], rootIndex < UInt64(objects.count) else {
            throw Failure(message: "the archive has no root object")
        }
        self.rootIndex = Int(rootIndex)
        root = objects[Int(rootIndex)]
    }

    /// The archive in `data`, a binary property list.
    init(data: Data) throws(Failure) {
        let plist: PropertyListValue
        do {
            plist = try BinaryPropertyListReader.read(data)
        } catch {
            throw Failure(underlying: error)
        }
        try self.init(plist)
    }

    /// The object a UID refers to; `nil` for `$null` and for values that are not references.
    func object(_ reference: PropertyListValue?) -> PropertyListValue? {
        guard case .uid(let index)? = reference else { return reference }
        guard index < UInt64(objects.count) else { return nil }
        let object = objects[Int(index)]
        return object.stringValue == "$null" ? nil : object
    }

    /// The class name of an archived object (`NSEntityDescription`, …).
    func className(of object: PropertyListValue) -> String? {
        self.object(object["$class"])?["$classname"]?.stringValue
    }

    func string(_ reference: PropertyListValue?) -> String? {
        let value = object(reference)
        return value?.stringValue ?? value?["NS.string"]?.stringValue
    }

    /// The elements of an archived array or set.
    func array(_ reference: PropertyListValue?) -> [PropertyListValue] {
        (object(reference)?["NS.objects"]?.arrayValue ?? []).compactMap(object)
    }

    /// The pairs of an archived dictionary: `NSDictionary`'s `NS.keys`/`NS.objects`, or the
    /// `values` of Core Data's `NSKnownKeysDictionary` with the keys of its search mapping.
    func dictionary(_ reference: PropertyListValue?) -> [(key: String, value: PropertyListValue)] {
        guard let dictionary = object(reference) else { return [] }
        let keys: [PropertyListValue], values: [PropertyListValue]
        if let archivedKeys = dictionary["NS.keys"]?.arrayValue {
            keys = archivedKeys
            values = dictionary["NS.objects"]?.arrayValue ?? []
        } else {
            keys = object(object(dictionary["searchMapping"])?["keys"])?["NS.objects"]?.arrayValue ?? []
            values = object(dictionary["values"])?["NS.objects"]?.arrayValue ?? []
        }
        return zip(keys, values).compactMap { key, value in
            guard let name = string(key), let resolved = object(value) else { return nil }
            return (name, resolved)
        }
    }

    /// The pairs of an archived dictionary whose values are strings; others are left out.
    func stringDictionary(_ reference: PropertyListValue?) -> [String: String] {
        var result: [String: String] = [:]
        for (key, value) in dictionary(reference) {
            if let text = string(value) { result[key] = text }
        }
        return result
    }
}
