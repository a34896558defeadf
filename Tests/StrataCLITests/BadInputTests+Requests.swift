import Foundation
import Testing

// Requests that `strata` refuses before it changes anything (``CLIError``'s cases): what is
// missing, a store or file that is not there, SQL that writes without --write, a deletion
// that needs --yes. Each ends in its status with one line on standard error.
extension BadInputTests {
    @Test(arguments: [
        // An input that was not given.
        (["fetch", "--store", "{store}"], Int32(2), "strata: name the ENTITY, or a --template"),
        // No store where one was named.
        (["migrate", "--model", "{model}", "--store", "{dir}/none.sqlite"], 1, "strata: {dir}/none.sqlite: no such store; pass --store PATH"),
        (["import", "Book", "{dir}/one.json", "--store", "{dir}/none.sqlite"], 1,
         "strata: {dir}/none.sqlite: no such store; pass --create (with --model) to make one"),
        (["diff", "{dir}/none.sqlite", "{store}"], 2, "strata: {dir}/none.sqlite: no such store"),
        // Files that cannot be read: an option's is a usage error, an argument's a failure.
        (["sql", "--file", "{dir}/none.sql", "--store", "{store}"], 2, "strata: --file {dir}/none.sql: no such file, or it cannot be read"),
        (["run", "{dir}/none.lua", "--store", "{store}"], 1, "strata: cannot read the script {dir}/none.lua: no such file"),
        (["import", "Book", "{dir}/none.json", "--store", "{store}"], 1, "strata: {dir}/none.json: no such file"),
        (["import", "Book", "{dir}", "--store", "{store}"], 1, "strata: {dir}: is a folder, not a JSON file"),
        // Requests refused as given.
        (["sql", "DELETE FROM ZBOOK", "--store", "{store}"], 2,
         "strata: statement 1 writes to the store, which strata sql opens read-only; pass --write to run it (bypassing Core Data's bookkeeping)\n  DELETE FROM ZBOOK"),
        (["fetch", "Book", "--select", "author.", "--store", "{store}"], 2, "strata: 'author.' is not a key path"),
        // Deletions that a user confirms, where nobody can be asked.
        (["delete", "Book", "--all", "--store", "{store}"], 2, "strata: delete --all removes every Book object; pass --yes to confirm"),
        (["reset", "--store", "{store}"], 2, "strata: reset removes every object in {store}; pass --yes to confirm"),
    ])
    func aRequestRefusedBeforeAnythingChanges(command: [String], status: Int32, error: String) throws {
        let setup = try Setup()
        try setup.write("one.json", #"{"isbn": "9780000000001", "title": "One"}"#)
        let before = Self.checksum(setup.store)
        let result = try StrataRunner.run(command.map(setup.expand))
        #expect(result.standardError == setup.expand(error) + "\n")
        #expect(result.status == status)
        #expect(Self.checksum(setup.store) == before)
        #expect(!FileManager.default.fileExists(atPath: setup.path + "/none.sqlite"))
    }
}
