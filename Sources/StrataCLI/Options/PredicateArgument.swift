import ArgumentParser
import Strata

/// The one reader of the predicates and sort keys that options take (`--where`,
/// `--prune-where`, `--having`, `--sort`), given to each as its `transform:`, so that a
/// predicate that does not parse is a usage error of argument parsing (exit status 2) showing
/// where it stops.
///
/// Only the syntax is read here: the key paths a predicate or sort key names are checked
/// against the model by the library once the store is open, which only then is known.
enum PredicateArgument {
    /// A predicate in Core Data's format.
    @Sendable static func predicate(_ text: String) throws -> ObjectPredicate {
        try ObjectPredicate(format: text)
    }

    /// A sort key: a key path, then `:desc` to reverse it or `:nocase` to ignore case.
    @Sendable static func sortKey(_ text: String) throws -> ObjectSortDescriptor {
        try ObjectSortDescriptor(parsing: text)
    }
}
