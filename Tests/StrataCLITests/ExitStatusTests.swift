import Foundation
import Strata
@testable import StrataCLI
// Swift Testing has an ExitStatus of its own (for exit tests): the scoped import names strata's.
@testable import enum StrataCLI.ExitStatus
import StrataLua
import Testing

/// `ExitStatus(for:)` is the one place that maps an error to `strata`'s exit status: the
/// statuses the README promises, and the errors it leaves to the argument parser.
@Suite struct ExitStatusTests {
    struct Foreign: Error {}

    @Test func eachKindOfErrorEndsInTheStatusTheREADMEPromises() {
        let cases: [(any Error, ExitStatus)] = [
            (CLIError.missing(.entityOrTemplate), .usage),
            (CLIError.unreadableFile(path: "/x.sql", role: .sql, problem: .missing), .usage),
            (CLIError.unreadableFile(path: "/x.lua", role: .script, problem: .missing), .failure),
            (CLIError.nothingDeleted(.validation([])), .dataError),
            (CLIError.nothingDeleted(.store(.locked(path: "/x.sqlite"))), .failure),
            (CLIError.importCompletedWithProblems(invalid: 1, dryRun: false), .completedWithProblems),
            (CLIError.importInterrupted, .interrupted),
            (ContextError.store(.unknownEntity(path: "/x.sqlite", name: "Bok", known: ["Book"])), .usage),
            (ContextError.store(.locked(path: "/x.sqlite")), .dataError),
            (StoreError.notFound(path: "/x.sqlite"), .failure),
            (StoreError.notSQLite(path: "/x.sqlite"), .dataError),
            (StoreError.unknownEntity(path: "/x.sqlite", name: "Bok", known: ["Book"]), .usage),
            (ModelError.unknownVersion(name: "M 9", bundle: "M.xcdatamodeld", available: ["M"]), .usage),
            (MigrationError.store(.locked(path: "/x.sqlite")), .failure),
            (MigrationError.customStepFailed(path: "/x.sqlite", error: LuaError(code: "syntax", message: "m.lua:1: bad")), .usage),
            (LuaError(code: "validation", message: "Book.title is required"), .dataError),
            (LuaError(code: "runtime", message: "s.lua:3: boom"), .failure),
        ]
        for (error, status) in cases { #expect(ExitStatus(for: error) == status, "\(error)") }
    }

    /// `strata diff` ends in 1 when the stores differ, so its own failures are 2.
    @Test func aDiffThatCannotRunIsAUsageErrorUnlessTheDataIsAtFault() {
        #expect(ExitStatus(for: DiffTrouble(error: StoreError.locked(path: "/a.sqlite"))) == .usage)
        #expect(ExitStatus(for: DiffTrouble(error: Foreign())) == .usage)
        #expect(ExitStatus(for: DiffTrouble(error: StoreError.notSQLite(path: "/a.sqlite"))) == .dataError)
    }

    @Test func anErrorThatIsNotStratasIsLeftToTheParser() {
        #expect(ExitStatus(for: Foreign()) == nil)
    }

    @Test func aScriptsErrorIsPrintedWithItsTraceback() {
        let lua = LuaError(code: "runtime", message: "s.lua:3: boom", traceback: "stack traceback:\n\ts.lua:3")
        #expect(StrataCLI.message(for: lua) == "s.lua:3: boom\nstack traceback:\n\ts.lua:3")
        #expect(StrataCLI.message(for: MigrationError.customStepFailed(path: "/x.sqlite", error: lua)).hasSuffix("\nstack traceback:\n\ts.lua:3"))
        #expect(StrataCLI.message(for: CLIError.declined(.delete(entity: "Book", all: false))) == "nothing deleted")
    }
}
