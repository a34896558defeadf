import Strata

/// An error of a Lua script, or one that Strata raises in a script.
///
/// In Lua it is a table `{code = …, message = …}` whose `__tostring` gives the message; a
/// script catches it with `pcall` and reads `err.code`. In Swift it carries the traceback of
/// the Lua frames the error went through.
///
/// ```swift
/// do {
///     try lua.run("error('no pages')", name: "fix.lua")
/// } catch let error as LuaError {
///     print(error)   // fix.lua:1: no pages
/// }
/// ```
public struct LuaError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of error: `lua` for Lua's own errors (`error(…)`, a bad index), `syntax`
    /// for a chunk that does not compile, `memory`, or a Strata code such as `fetch`,
    /// `validation`, `argument`, or `conflict` (a save of objects another context or process
    /// changed since they were read: `ctx:refresh()`, then read and change them again).
    public var code: String
    /// The message, with the chunk and line where Lua gave them.
    public var message: String
    /// The Lua frames the error went through, innermost first, as `luaL_traceback` writes them.
    public var traceback: String?

    public init(code: String, message: String, traceback: String? = nil) {
        self.code = code
        self.message = message
        self.traceback = traceback
    }

    public var description: String { message }
}

extension LuaError {
    /// The code a script sees for an error of Strata's API.
    static func code(for error: any Error) -> String {
        switch error {
        case is PredicateSyntaxError, is PredicateKeyError, is PredicateCompileError: "predicate"
        case is FetchRequestError: "fetch"
        case is BatchRequestError: "batch"
        case let error as ContextError:
            switch error {
            case .validation: "validation"
            // A stale save: a script retries it after `ctx:refresh()`, telling it apart by this code.
            case .conflict: "conflict"
            case .uniquenessConflict: "uniqueness"
            case .stringMatching: "predicate"
            default: "context"
            }
        // A bad strata.invalidIf stops an import or a prune: scripts have seen it as "import",
        // whether the import met it (inside an ImportError) or a prune did.
        case let error as ImportError:
            switch error.problem {
            case .invalidIf(let rule): code(for: rule)
            case .doesNotFit, .notJSON, .unknownEntity, .unknownIdentity: "import"
            }
        case is InvalidIfError, is JSONSyntaxError: "import"
        case is StoreError, is DatabaseError: "store"
        default: "strata"
        }
    }
}
