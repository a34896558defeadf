/// Turns a predicate's format text into the `NSPredicate` objects Core Data keeps in a store's
/// `Z_MODELCACHE`: the predicates of fetched properties and fetch request templates.
///
/// The store writes the model cache; whoever creates or migrates a store chooses whether the
/// predicates in it are archived, and how, by passing an archiver. Strata's own is
/// ``PredicateArchiver/objectPredicates``, which parses the text as `ObjectPredicate` does:
///
/// ```swift
/// let store = try PersistentStore.create(at: "Library.sqlite", model: model, predicates: .objectPredicates)
/// ```
///
/// Without one (`predicates: nil`), the cache holds `$null` for every such predicate, and a
/// tool that reads the cache (Core Data, or Strata opening the store without its model) sees
/// fetched properties and templates without one; Strata's copy of the model in the store's
/// metadata keeps them either way.
///
/// It is a value holding a function rather than a protocol so that the archive it writes into
/// stays internal to Strata, and so that it is passed, never registered: there is no global
/// archiver to set.
public struct PredicateArchiver: Sendable {
    /// Writes the predicate of `text` into `writer` and returns the reference to its root
    /// object, or `nil` when `text` does not parse or holds a form Strata does not archive (the
    /// caller then discards whatever was written and archives `$null`).
    let archive: @Sendable (_ text: String, _ writer: inout KeyedArchiveWriter) -> PropertyListValue?

    init(_ archive: @escaping @Sendable (_ text: String, _ writer: inout KeyedArchiveWriter) -> PropertyListValue?) {
        self.archive = archive
    }

    /// The predicate of `text` in `writer`, or `nil` with `writer` unchanged when it cannot be
    /// archived.
    func archived(_ text: String, into writer: inout KeyedArchiveWriter) -> PropertyListValue? {
        var attempt = writer
        guard let reference = archive(text, &attempt) else { return nil }
        writer = attempt
        return reference
    }
}
