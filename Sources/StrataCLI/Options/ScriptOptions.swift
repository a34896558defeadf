import ArgumentParser
import StrataLua

/// The options of the commands that run Lua (`run`, `eval`, `shell`): what a script may do and
/// how much it may use.
struct ScriptOptions: ParsableArguments {
    @Flag(name: .customLong("allow-io"), help: "Give scripts the io and os libraries, dofile and loadfile: files, processes and the environment.")
    var allowsIO = false

    @Flag(help: "Create the store when it is missing (as strata setup does); without it, a missing store is an error, so that a mistyped --store is not taken for a new store.")
    var create = false

    @Flag(help: "Migrate a store made with another version of the --model bundle to the chosen version first, as strata migrate does, keeping the old store as <store>.<UTC time>.bak; without it, such a store is refused.")
    var migrate = false

    @Option(
        name: .customLong("budget"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop a script (in the shell, each chunk) after this many Lua instructions, about a hundred million a second; 0 for no limit. Work done in C counts at what it costs: a pattern-matching step 2, copying or allocating 64 bytes 1, a full garbage collection 1 per 64 bytes of the heap, and in Strata 1 per value converted, record imported or object fetched.",
            valueName: "n"))
    var maxInstructions: Int64 = LuaState.Options().instructionBudget ?? 0

    @Option(
        name: .customLong("memory"),
        parsing: .unconditional,
        help: ArgumentHelp("The memory the Lua interpreter may hold, in MB; 0 for no limit.", valueName: "MB"))
    var maxMemory: Int = (LuaState.Options().memoryLimit ?? 0) >> 20

    @Option(
        name: .customLong("timeout"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Stop a script (in the shell, each chunk) after this many seconds, which bounds what --budget cannot count (garbage collection, work at the --memory limit, waiting for the store); 0 for no limit. By default \(Int(Self.defaultTimeout)) for run, eval and a shell reading a pipe, none for a shell on a terminal (where Ctrl-C stops a chunk).",
            valueName: "seconds"))
    var timeout: Double?

    @Option(
        name: .customLong("max-items"),
        parsing: .unconditional,
        help: ArgumentHelp(
            "Show at most this many items of a list or table that the shell or eval prints (and strata.inspect shows), then how many more; 0 for all. In a script: strata.list_limit.",
            valueName: "n"))
    var maxItems: Int = Self.defaultMaxItems

    /// A screenful: what the shell and eval show of a long list unless --max-items says otherwise.
    static let defaultMaxItems = 50

    /// The time limit of `run`, `eval` and a piped `shell`: ten minutes, far beyond a seed
    /// script's usual run, and far below a CI job's own limit (hours), so that a runaway ends
    /// with an error naming --timeout rather than a killed job.
    static let defaultTimeout: Double = 600

    /// The largest --memory: a petabyte, far beyond any machine, and no overflow in bytes.
    static let maximumMemory = 1 << 30

    func validate() throws {
        if maxInstructions < 0 { throw ValidationError("--budget must be a number of instructions, or 0 for no limit") }
        if maxMemory < 0 || maxMemory > Self.maximumMemory {
            throw ValidationError("--memory must be a number of MB from 1 to \(Self.maximumMemory), or 0 for no limit")
        }
        if maxItems < 0 { throw ValidationError("--max-items must be a number of items, or 0 for all") }
        if let timeout, !(timeout >= 0 && timeout <= 1e9) {
            throw ValidationError("--timeout must be a number of seconds, or 0 for no limit")
        }
    }

    /// The time limit in seconds (0 for none): --timeout, else none when a user at a terminal
    /// types the chunks (`interactive`), else ``defaultTimeout``.
    func timeLimit(interactive: Bool) -> Double {
        timeout ?? (interactive ? 0 : Self.defaultTimeout)
    }

    /// Refuses what cannot go together with the store's options: a store opened read-only is
    /// neither created nor migrated, and a migration needs the bundle (--model) to go to.
    func validate(with storeOptions: StoreOptions) throws {
        if storeOptions.readOnly, create { throw ValidationError("--read-only opens an existing store; it cannot be used with --create") }
        if storeOptions.readOnly, migrate { throw ValidationError("--read-only changes nothing; it cannot be used with --migrate") }
        if migrate, storeOptions.modelPath == nil {
            throw ValidationError("--migrate needs --model (or STRATA_MODEL): the model bundle whose version to migrate the store to")
        }
    }

    /// The options of the Lua state.
    func luaOptions(interactive: Bool) -> LuaState.Options {
        var options = LuaState.Options()
        options.allowsSystemAccess = allowsIO
        options.instructionBudget = maxInstructions == 0 ? nil : maxInstructions
        options.memoryLimit = maxMemory == 0 ? nil : maxMemory << 20
        let seconds = timeLimit(interactive: interactive)
        options.timeLimit = seconds > 0 ? .seconds(seconds) : nil
        return options
    }
}
