import ArgumentParser
import Foundation
import Strata

/// `strata eval`: runs a line of Lua on the stack of a store, printing its values.
struct EvalCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "eval",
        abstract: "Run a line of Lua on a store and print its values.",
        discussion: """
            CODE is an expression, whose values are printed one per line: strings, numbers \
            and booleans as Lua's tostring writes them (strata eval 'ctx:count("Book")'), \
            tables and objects as the shell shows them (strata eval 'ctx:first("Book")'); or \
            statements, which print what they print and, in the same way, the values they \
            return (strata eval 'for b in ctx:each("Book") do print(b.title) end'). A long \
            list shows its first --max-items items (50) and how many more. --format json \
            prints the values instead as one JSON document, whole: a value as itself, several \
            as an array, objects as their to_table(). It runs \
            as strata run runs a script: \
            with the globals ctx, stack and strata, sandboxed, and saving only what it saves. \
            A store of another version of the --model bundle is refused unless --migrate is \
            given; --read-only opens the store read-only, and a save is then an error.
            """)

    @OptionGroup var options: StoreOptions

    @OptionGroup var scriptOptions: ScriptOptions

    @Argument(help: ArgumentHelp("Lua code: an expression, or statements.", valueName: "code"))
    var code: String

    @Option(help: "How to print the values: as text, one per line (tables and objects as the shell shows them), or as one JSON document.")
    var format: EvalFormat = .text

    enum EvalFormat: String, CaseIterable, ExpressibleByArgument {
        case text, json
    }

    func validate() throws {
        try scriptOptions.validate(with: options)
    }

    func run() async throws {
        let code = code
        let printing: ScriptSession.Printing = format == .json ? .json : .linePerValue
        try await ScriptSession.with(storeOptions: options, scriptOptions: scriptOptions) { session in
            try session.showingActivity("running eval") {
                try session.evaluate(code, name: "=eval", printing: printing)
            }
        }
    }
}
