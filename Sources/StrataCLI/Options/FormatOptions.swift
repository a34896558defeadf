import ArgumentParser

/// A command's output formats: the values of `--format`, each of which is also a flag of its own
/// (`--json` for `--format json`), as `sqlite3 -json` and `psql --csv` take them.
protocol FormatChoice: EnumerableFlag, ExpressibleByArgument, RawRepresentable<String>, CaseIterable, Equatable {
    /// The format used when neither `--format` nor a flag names one.
    static var defaultFormat: Self { get }
    /// What `--format` does, for its help.
    static var formatHelp: String { get }
}

extension FormatChoice {
    static func help(for value: Self) -> ArgumentHelp? {
        ArgumentHelp("Short for --format \(value.rawValue).")
    }
}

/// `--format NAME` and its shorthand flags, shared by every command that prints in a choice of
/// formats. A flag and `--format` may both be given when they agree; two different formats
/// are a usage error, not a silent choice of the last one.
struct FormatOptions<Format: FormatChoice>: ParsableArguments {
    @Option(name: .customLong("format"), help: ArgumentHelp(Format.formatHelp + " Default: \(Format.defaultFormat.rawValue).", valueName: "format"))
    var named: Format?

    @Flag var shorthands: [Format] = []

    func validate() throws {
        let flags = shorthands.reduce(into: [Format]()) { if !$0.contains($1) { $0.append($1) } }
        if flags.count > 1 {
            throw ValidationError("--\(flags[0].rawValue) and --\(flags[1].rawValue) ask for two formats; give one")
        }
        if let flag = flags.first, let named, named != flag {
            throw ValidationError("--\(flag.rawValue) and --format \(named.rawValue) ask for two formats; give one")
        }
    }

    /// The format asked for, else the command's default.
    var format: Format { shorthands.first ?? named ?? Format.defaultFormat }
}
