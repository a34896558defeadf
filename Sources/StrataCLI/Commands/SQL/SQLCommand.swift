import ArgumentParser
import Foundation
import Strata

/// `strata sql`: SQL of the user's own on the store, read-only unless `--write`, its rows
/// printed as `fetch` prints objects. The escape hatch for what the commands do not ask.
struct SQLCommand: AsyncParsableCommand, ReadsModelOrStore {
    static let configuration = CommandConfiguration(
        commandName: "sql",
        abstract: "Run SQL on a store, read-only unless --write, printing rows as fetch does.",
        discussion: """
            Runs SQL on the store's SQLite file: the argument, else --file, else standard \
            input (as psql -c, -f and a pipe). Several statements may be separated by ';'; \
            they run in order, and each that returns rows prints them in the --format of \
            fetch (table, json, ndjson, csv). Values are SQLite's own: Core Data's dates are \
            seconds since 2001-01-01 (add 978307200 for Unix time), UUIDs and binary data \
            blobs (their size in a table, base64 in JSON and CSV). The tables are Core Data's: \
            strata inspect ENTITY names an entity's table and columns.

            The store is opened read-only (as sqlite3 -readonly), so that a statement that \
            writes (INSERT, UPDATE, DELETE, CREATE, a PRAGMA that sets) is refused before it \
            runs, exit status 2, naming --write. With --write all the statements run in one \
            transaction, committed when the last has run and rolled back when one fails; they \
            write past what Strata and Core Data keep: Z_OPT (optimistic locking) is not \
            raised, Z_PRIMARYKEY's Z_MAX is not moved on for rows inserted, persistent history \
            records nothing, and neither validation, delete rules, inverse relationships nor \
            derived attributes apply. A note on standard error says so, and the number of rows \
            changed follows.

            An error of SQLite's is exit status 3, with its code and message, the line of the \
            SQL it is on and a caret under the token SQLite stopped at.
            """)

    @OptionGroup var options: StoreOptions

    @Argument(help: ArgumentHelp("The SQL to run; several statements separated by ';'. Default: --file, else standard input.", valueName: "sql"))
    var sql: String?

    @Option(name: .customLong("file"), help: ArgumentHelp("Read the SQL from this file.", valueName: "path"), completion: .file())
    var file: String?

    @Flag(help: "Let the SQL write to the store, in one transaction, bypassing Core Data's bookkeeping (Z_OPT, Z_PRIMARYKEY, persistent history), validation and derived attributes.")
    var write = false

    @OptionGroup var output: FormatOptions<RowFormat>

    @Flag(help: "Print a table on a terminal straight to it, not through $STRATA_PAGER, $PAGER or less.")
    var noPager = false

    func validate() throws {
        if sql != nil, file != nil { throw ValidationError("give the SQL as an argument or with --file, not both") }
        if write, options.readOnly { throw ValidationError("--write and --read-only contradict each other; give one") }
    }

    func run() async throws {
        let script = try readScript()
        guard !script.allSatisfy(\.isWhitespace) else {
            throw CLIError.missing(.sql)
        }
        if write {
            let store = try options.openStoreForWriting(creatingIfMissing: false)
            defer { store.close() }
            StrataCLI.printError(
                "strata: --write: the SQL writes to \(store.path) directly, in one transaction; Z_OPT is not raised, Z_PRIMARYKEY's Z_MAX not moved on, persistent history not recorded, and validation, delete rules, inverses and derived attributes do not apply")
            let before = store.database.totalChangedRowCount
            try store.database.inTransaction { try run(script, on: store.database) }
            let changed = store.database.totalChangedRowCount - before
            StrataCLI.printError("strata: \(changed) \(changed == 1 ? "row" : "rows") changed")
        } else {
            let (store, _) = try options.openStoreForReading()
            defer { store.close() }
            try run(script, on: store.database)
        }
    }

    /// Runs each statement of `script`, printing the rows of those that return some.
    private func run(_ script: String, on database: Database) throws {
        var printed = 0
        do {
            try database.forEachStatement(in: script) { statement, number in
                if !write, !statement.isReadOnly {
                    throw CLIError.refused(.sqlWrites(statement: (number, statement.sql)))
                }
                let columns = statement.columnNames
                guard !columns.isEmpty else { return try statement.execute() }
                var writer = RowWriter(columns: columns, format: output.format, pages: !noPager && printed == 0)
                printed += 1
                let format = output.format
                try statement.forEachRow { row in
                    writer.write((0..<Int32(columns.count)).map { ValueFormatting.row(row.value(at: $0), format: format) })
                    return true
                }
                writer.finish()
            }
        } catch DatabaseError.SQLITE_READONLY where !write {
            // A statement SQLite let through as reading, which wrote all the same.
            throw CLIError.refused(.sqlWrites(statement: nil))
        } catch let error as DatabaseError {
            throw SQLScriptError(cause: error)
        }
    }

    private func readScript() throws -> String {
        if let sql, sql != "-" { return sql }
        if let file {
            guard let data = FileManager.default.contents(atPath: file) else { throw CLIError.unreadableFile(path: file, role: .sql, problem: .unreadable) }
            return String(decoding: data, as: UTF8.self)
        }
        return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
    }
}
