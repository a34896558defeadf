import Foundation
import Strata
import Testing
import StrataTestSupport

/// `strata fetch` and `strata query` on the real Core Data stores, checked against SQL written
/// here by hand, and on stores made here for what the real ones lack.
@Suite(.enabled(if: StrataRunner.fixturesAvailable, "shared/fixtures/coredata not found: fixture test skipped"))
struct FetchCommandTests {
    static let stores = StrataRunner.sharedFixtures.appendingPathComponent("real-stores")
    static let books = stores.appendingPathComponent("CoreDataBooks.sqlite").path

    private func sql(_ path: String, _ text: String) throws -> [[DatabaseValue]] {
        let database = try Database(path: path, configuration: .readOnly)
        defer { database.close() }
        return try database.rows(text)
    }

    private func json(_ text: String) throws -> [[String: Any]] {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [[String: Any]])
    }

    @Test func fetchPrintsWhatSQLSelectsInOrder() throws {
        let before = try Data(contentsOf: URL(fileURLWithPath: Self.books))
        let result = try StrataRunner.run([
            "fetch", "Book", "--store", Self.books, "--where", "author BEGINSWITH[c] 'b'", "--sort", "copyright:desc", "--limit", "3",
            "--offset", "1", "--format", "json",
        ])
        #expect(result.status == 0, "\(result.standardError)")
        let objects = try json(result.standardOutput)
        let expected = try sql(Self.books, "SELECT Z_PK, ZTITLE FROM ZBOOK WHERE lower(ZAUTHOR) LIKE 'b%' ORDER BY ZCOPYRIGHT DESC LIMIT 3 OFFSET 1")
        #expect(objects.map { $0["title"] as? String } == expected.map { $0[1].stringValue })
        let keys: [String?] = objects.map { object in (object["uri"] as? String)?.components(separatedBy: "/").last }
        #expect(keys == expected.map { row in "p\(row[0].int64Value ?? 0)" })
        #expect(objects.first.map { Set($0.keys) } == ["uri", "title", "author", "copyright", "contents"])
        #expect(try Data(contentsOf: URL(fileURLWithPath: Self.books)) == before)
    }

    /// A predicate that starts with `-` is the value of --where, not an option; arithmetic and a
    /// date written as ISO 8601 text select what SQL selects.
    @Test func wherePredicatesMayStartWithADashAndUseArithmeticAndDates() throws {
        let since2000 = "SELECT ZTITLE FROM ZBOOK WHERE ZCOPYRIGHT > -31622400 ORDER BY ZTITLE"
        for predicate in ["-copyright < 31622400", "copyright > CAST('2000-01-01', 'NSDate')", "(copyright + 31622400) / 86400 > 0"] {
            let result = try StrataRunner.run(["fetch", "Book", "--store", Self.books, "--where", predicate, "--sort", "title", "--select", "title", "--format", "json"])
            #expect(result.status == 0, "\(predicate): \(result.standardError)")
            let titles = try json(result.standardOutput).map { $0["title"] as? String }
            #expect(titles == (try sql(Self.books, since2000)).map { $0[0].stringValue }, "\(predicate)")
            #expect(titles.count == 5)
        }
        let counted = try StrataRunner.run(["count", "Book", "--store", Self.books, "--where", "-copyright > 0"])
        #expect(counted.standardOutput == "\(try sql(Self.books, "SELECT count(*) FROM ZBOOK WHERE ZCOPYRIGHT < 0")[0][0].int64Value!)\n", "\(counted.standardError)")
    }

    /// Regressions of the table: a 60-character URI began every row even with --select, the
    /// text NULL read as nil, tabs and wide characters broke the columns, binary data printed
    /// as base64, and an empty result printed a header alone.
    @Test func tablesShowWhatEachValueIs() throws {
        let folder = try TemporaryFolder()
        let path = try folder.libraryStore(titles: ["NULL", "tab\there", "日本語の本", "plain"])
        let chosen = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "title,isbn", "--sort", "isbn"])
        #expect(chosen.status == 0, "\(chosen.standardError)")
        #expect(chosen.standardOutput == """
            title       isbn
            "NULL"      0123456780
            tab\\there   0123456781
            日本語の本  0123456782
            plain       0123456783

            """)
        let whole = try StrataRunner.run(["fetch", "Book", "--store", path, "--where", "title == 'plain'"])
        #expect(whole.standardOutput.hasPrefix("object   isbn        published  rating  title  author\nBook/p4  0123456783  NULL"), "\(whole.standardOutput)")
        let none = try StrataRunner.run(["fetch", "Book", "--store", path, "--where", "title == 'none'", "--select", "title"])
        #expect(none.standardOutput == "title\n(0 rows)\n")

        let model = folder.url.appendingPathComponent("Docs.json")
        try #"{"entities": [{"name": "Doc", "attributes": [{"name": "name", "type": "string"}, {"name": "body", "type": "binary"}]}]}"#
            .write(to: model, atomically: true, encoding: .utf8)
        let docs = folder.url.appendingPathComponent("Docs.sqlite").path
        let store = try PersistentStore.create(at: docs, model: try ModelLoader.load(model).currentVersion.model)
        try store.withConnection { try store.database.inTransaction { _ = try store.insert("Doc", values: ["name": .text("a"), "body": .blob(Data(repeating: 7, count: 3000))]) } }
        store.close()
        let table = try StrataRunner.run(["fetch", "Doc", "--store", docs, "--select", "name,body"])
        #expect(table.standardOutput == "name  body\na     <3000 bytes>\n", "\(table.standardError)")
        let json = try StrataRunner.run(["fetch", "Doc", "--store", docs, "--select", "body", "--format", "json"])
        #expect(json.standardOutput.contains(Data(repeating: 7, count: 3000).base64EncodedString()))
    }

    /// On a terminal, a table is cut to the terminal's width, the widest column first.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no /dev/ptmx: the terminal test is skipped"))
    func onATerminalATableFitsTheWidth() throws {
        let folder = try TemporaryFolder()
        let path = try folder.libraryStore(titles: ["A title much longer than the terminal is wide, by far", "Short"])
        let terminal = try PseudoTerminal()
        var size = winsize(ws_row: 24, ws_col: 30, ws_xpixel: 0, ws_ypixel: 0)
        #expect(ioctl(terminal.primary, UInt(TIOCSWINSZ), &size) == 0)
        let process = Process()
        process.executableURL = StrataRunner.binary
        process.arguments = ["fetch", "Book", "--store", path, "--select", "isbn,title", "--sort", "isbn", "--no-pager"]
        (process.standardInput, process.standardOutput, process.standardError) = (terminal.secondary, terminal.secondary, terminal.secondary)
        try process.run()
        let shown = try terminal.read(until: "Short\r\n")
        process.waitUntilExit()
        #expect(shown == "isbn        title\r\n0123456780  A title much long…\r\n0123456781  Short\r\n", "\(shown.debugDescription)")
    }

    /// Regression: a long table scrolled past with no pager. On a terminal it goes through
    /// $PAGER (a sed that marks each line, here); --no-pager prints straight to the terminal.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx"), "no /dev/ptmx: the terminal test is skipped"))
    func onATerminalATableGoesThroughThePager() throws {
        let folder = try TemporaryFolder()
        let path = try folder.libraryStore(titles: ["One", "Two"])
        for (extra, expected) in [([String](), "> title\r\n> One\r\n> Two\r\n"), (["--no-pager"], "title\r\nOne\r\nTwo\r\n")] {
            let terminal = try PseudoTerminal()
            let process = Process()
            process.executableURL = StrataRunner.binary
            process.arguments = ["fetch", "Book", "--store", path, "--select", "title", "--sort", "isbn"] + extra
            process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }.merging(["PAGER": "sed 's/^/> /'"]) { $1 }
            (process.standardInput, process.standardOutput, process.standardError) = (terminal.secondary, terminal.secondary, terminal.secondary)
            try process.run()
            let shown = try terminal.read(until: "Two\r\n")
            process.waitUntilExit()
            #expect(process.terminationStatus == 0)
            #expect(shown == expected, "\(shown.debugDescription)")
        }
    }

    /// Regression: on a terminal, `strata fetch` showed nothing and `q` did nothing, since the
    /// pager ran outside the terminal's foreground process group and was stopped as soon as it
    /// read the keyboard. Here strata leads a session whose controlling terminal is the pseudo
    /// terminal, as a shell runs it, and the pager waits for a key from /dev/tty as `less` does.
    @Test(.enabled(if: FileManager.default.fileExists(atPath: "/dev/ptmx") && FileManager.default.isExecutableFile(atPath: "/usr/bin/setsid"),
        "no /dev/ptmx or setsid: the terminal test is skipped"))
    func aPagerThatReadsTheKeyboardGetsIt() throws {
        let folder = try TemporaryFolder()
        let path = try folder.libraryStore(titles: ["One", "Two"])
        let terminal = try PseudoTerminal()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/setsid")
        process.arguments = ["--ctty", "--wait", StrataRunner.binary.path, "fetch", "Book", "--store", path, "--select", "title", "--sort", "isbn"]
        let pager = #"sed 's/^/> /'; read key < /dev/tty; echo "left with $key""#
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("STRATA_") }.merging(["PAGER": pager]) { $1 }
        (process.standardInput, process.standardOutput, process.standardError) = (terminal.secondary, terminal.secondary, terminal.secondary)
        try process.run()
        var shown = try terminal.read(until: "> Two\r\n")
        try terminal.send("q\n")
        shown += try terminal.read(until: "left with q\r\n")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(shown.hasSuffix("> title\r\n> One\r\n> Two\r\nq\r\nleft with q\r\n"), "\(shown.debugDescription)")
    }

    @Test func toOnesPrintAsTheDestinationsURI() throws {
        let path = Self.stores.appendingPathComponent("TavantTrade.sqlite").path
        let model = StrataRunner.sharedFixtures.appendingPathComponent("models/TavantTrade.xcdatamodeld").path
        let result = try StrataRunner.run(["fetch", "FeedbackSubCategory", "--store", path, "--model", model, "--format", "ndjson", "--sort", "name"])
        #expect(result.status == 0, "\(result.standardError)")
        let lines = result.standardOutput.split(separator: "\n")
        let expected = try sql(path, "SELECT ZNAME, ZCATEGORY FROM ZFEEDBACKSUBCATEGORY ORDER BY ZNAME, Z_PK")
        #expect(lines.count == expected.count && lines.count == 79)
        for (line, row) in zip(lines, expected) {
            let object = try #require(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["name"] as? String == row[0].stringValue)
            #expect((object["category"] as? String)?.hasSuffix("/FeedbackCategory/p\(row[1].int64Value ?? -1)") == true)
        }
    }

    @Test func includeListsAManyToManyAsURIs() throws {
        let path = Self.stores.appendingPathComponent("FinalCutLibrary.sqlite").path
        let result = try StrataRunner.run(["fetch", "Collection", "--store", path, "--include", "childCollections", "--select", "name", "--format", "json"])
        #expect(result.status == 0, "\(result.standardError)")
        let objects = try json(result.standardOutput)
        #expect(objects.count == 15)
        let links = try sql(path, "SELECT Z_3PARENTCOLLECTIONS, Z_3CHILDCOLLECTIONS FROM Z_3CHILDCOLLECTIONS")
        let columns = try sql(path, "PRAGMA table_info(Z_3CHILDCOLLECTIONS)").compactMap { $0[1].stringValue }
        #expect(columns.count == 2, "\(columns)")
        var printed: Set<[Int64]> = []
        for object in objects {
            let owner = Int64((object["uri"] as? String)?.components(separatedBy: "/p").last ?? "") ?? -1
            for child in object["childCollections"] as? [String] ?? [] {
                printed.insert([owner, Int64(child.components(separatedBy: "/p").last ?? "") ?? -1])
            }
        }
        let stored = Set(links.map { [$0[0].int64Value ?? 0, $0[1].int64Value ?? 0] })
        let reversed = Set(links.map { [$0[1].int64Value ?? 0, $0[0].int64Value ?? 0] })
        #expect(!printed.isEmpty)
        #expect(printed == stored || printed == reversed)
    }

    @Test func queryGroupsAndFiltersAsSQLDoes() throws {
        for format in ["csv", "json"] {
            let result = try StrataRunner.run([
                "query", "Book", "--store", Self.books, "--select", "author, count(*) as n, max(copyright) as latest", "--group-by", "author",
                "--having", "n >= 2", "--sort", "n:desc", "--sort", "author", "--format", format,
            ])
            #expect(result.status == 0, "\(result.standardError)")
            let expected = try sql(Self.books, "SELECT ZAUTHOR, COUNT(*) AS n FROM ZBOOK GROUP BY ZAUTHOR HAVING n >= 2 ORDER BY n DESC, ZAUTHOR")
            if format == "csv" {
                let lines = result.standardOutput.components(separatedBy: "\r\n").dropLast()
                #expect(lines.first == "author,n,latest")
                let printed: [String] = lines.dropFirst().map { line in line.components(separatedBy: ",").prefix(2).joined(separator: ",") }
                let wanted: [String] = expected.map { row in "\(row[0].stringValue ?? ""),\(row[1].int64Value ?? 0)" }
                #expect(printed == wanted)
            } else {
                let rows = try json(result.standardOutput)
                #expect(rows.map { $0["author"] as? String } == expected.map { $0[0].stringValue })
                #expect(rows.map { $0["n"] as? Int } == expected.map { ($0[1].int64Value).map(Int.init) })
            }
        }
        let total = try StrataRunner.run(["query", "Collection", "--store", Self.stores.appendingPathComponent("FinalCutEvent.sqlite").path, "--select", "count(*)"])
        #expect(total.standardOutput == "count\n53\n", "\(total.standardError)")
    }

    @Test func csvQuotesWhatNeedsQuoting() throws {
        let folder = try TemporaryFolder()
        let path = try folder.libraryStore(titles: ["Plain", "Comma, and \"quotes\"", "Two\nlines"])
        let result = try StrataRunner.run(["fetch", "Book", "--store", path, "--select", "title", "--sort", "isbn", "--format", "csv"])
        #expect(result.status == 0, "\(result.standardError)")
        #expect(result.standardOutput.hasPrefix("uri,title\r\n"))
        #expect(result.standardOutput.contains(",Plain\r\n"))
        #expect(result.standardOutput.contains(",\"Comma, and \"\"quotes\"\"\"\r\n"))
        #expect(result.standardOutput.contains(",\"Two\nlines\"\r\n"))
    }

    @Test func templatesRunWithTheirVariables() throws {
        let folder = try TemporaryFolder()
        let bundle = StrataRunner.sharedFixtures.appendingPathComponent("models/SwiftGen.xcdatamodeld").path
        let model = try ModelLoader.load(URL(fileURLWithPath: bundle)).currentVersion.model
        let path = folder.url.appendingPathComponent("SwiftGen.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        try store.withConnection {
            try store.database.inTransaction {
                let secondary = try store.insert("SecondaryEntity", values: ["name": .text("needle owner")])
                try store.insert("MainEntity", values: ["string": .text("plain")], toOne: ["oneToOne": RowReference(entityName: "SecondaryEntity", primaryKey: secondary)])
                try store.insert("MainEntity", values: ["string": .text("needle")])
                try store.insert("MainEntity", values: ["string": .text("other")])
            }
        }
        store.close()
        let base: [String] = ["fetch", "--store", path, "--model", bundle, "--template", "ObjectIDFetchRequest", "--select", "string", "--format", "csv", "--sort", "string"]
        let found = try StrataRunner.run(base + ["--var", "NAME=needle owner", "--var", "NEEDLE='needle'"])
        #expect(found.status == 0, "\(found.standardError)")
        let strings: [String] = found.standardOutput.components(separatedBy: "\r\n").dropFirst().compactMap { line in line.components(separatedBy: ",").last }
        #expect(strings == ["needle", "plain", ""])
        let narrowed = try StrataRunner.run(base + ["--var", "NAME=x", "--var", "NEEDLE=needle", "--where", "string != 'plain'"])
        #expect(narrowed.standardOutput.hasSuffix(",needle\r\n"), "\(narrowed.standardError)")
        let counted = try StrataRunner.run(["count", "--store", path, "--model", bundle, "--template", "ObjectIDFetchRequest", "--var", "NAME=needle owner", "--var", "NEEDLE=other"])
        #expect(counted.standardOutput == "2\n", "\(counted.standardError)")
        let missing = try StrataRunner.run(base + ["--var", "NAME=x"])
        #expect(missing.status == 2)
        #expect(missing.standardError == "strata: fetch request template 'ObjectIDFetchRequest': no value for $NEEDLE\n")
        let unknown = try StrataRunner.run(base.map { $0 == "ObjectIDFetchRequest" ? "ObjectIDFetchRequests" : $0 })
        #expect(unknown.status == 2)
        #expect(unknown.standardError.contains("no fetch request template 'ObjectIDFetchRequests'; did you mean 'ObjectIDFetchRequest'?"), "\(unknown.standardError)")
    }

    /// Lists in a template: `{$LOW, $HIGH}` filled from --var, and a --var that is a list.
    @Test func templateListsTakeVariablesAndVariablesTakeLists() throws {
        let folder = try TemporaryFolder()
        let path = try folder.libraryStore(titles: ["Zero", "One", "Two", "Three"])
        let source = StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld")
        let bundle = folder.url.appendingPathComponent("Library.xcdatamodeld")
        try FileManager.default.copyItem(at: source, to: bundle)
        let contents = bundle.appendingPathComponent("Library.xcdatamodel/contents")
        let template = #"<fetchRequest name="Picked" entity="Book" predicateString="rating BETWEEN {$LOW, $HIGH} OR isbn IN $ISBNS"/>"#
        try String(contentsOf: contents, encoding: .utf8).replacingOccurrences(of: "</model>", with: template + "\n</model>")
            .write(to: contents, atomically: true, encoding: .utf8)
        let store = try PersistentStore.open(at: path, model: try ModelLoader.load(bundle).currentVersion.model)
        try store.withConnection { try store.database.execute("UPDATE ZBOOK SET ZRATING = Z_PK") }
        store.close()
        let base: [String] = ["fetch", "--store", path, "--model", bundle.path, "--template", "Picked", "--select", "title", "--sort", "title", "--format", "csv"]
        let result = try StrataRunner.run(base + ["--var", "LOW=2", "--var", "HIGH=3", "--var", "ISBNS={'0123456783', '9'}"])
        #expect(result.status == 0, "\(result.standardError)")
        let titles: [Substring] = result.standardOutput.components(separatedBy: "\r\n").dropFirst().compactMap { line in line.split(separator: ",").last }
        #expect(titles == ["One", "Three", "Two"])
        let broken = try StrataRunner.run(base + ["--var", "LOW=2", "--var", "HIGH=3", "--var", "ISBNS={'0123456783', }"])
        #expect(broken.status == 2)
        #expect(broken.standardError.hasPrefix("Error: --var 'ISBNS={'0123456783', }': VALUE is not a list: expected a key path or value, found '}'"), "\(broken.standardError)")
    }

    @Test(arguments: [
        (["fetch", "Book", "--sort", "titel"], "strata: entity 'Book' has no property 'titel' (in titel); did you mean 'title'?"),
        (["fetch", "Book", "--sort", "title:up"], "Error: The value 'title:up' is invalid for '--sort <key[:desc]>': sort key 'title:up': unknown modifier 'up' (use asc, desc or nocase)"),
        (["fetch", "Book", "--select", "title,,author"], "Error: The value 'title,,author' is invalid for '--select <a,b,…>': item 2 is empty"),
        (["query", "Book", "--select", "avg(title)"], "strata: avg(title): avg needs a numeric attribute; 'title' is a string attribute"),
        (["query", "Book", "--select", "title, count(*)", "--group-by", "author"], "strata: 'title' is fetched but neither grouped nor aggregated"),
        (["query", "Book", "--select", "author, count(*)", "--having", "n > 1"], "Error: --having needs --group-by"),
        (["query", "Book", "--select", "sum(*)"], "Error: The value 'sum(*)' is invalid for '--select <list>': select list, column 1 ('sum(*)'): only count takes '*'"),
        (["query", "Book", "--select", "title, count(*)"], "Error: --select: 'title' is beside an aggregate but neither grouped nor aggregated"),
        (["fetch"], "strata: name the ENTITY, or a --template"),
        (["fetch", "Book", "--select", "."], "strata: '.' is not a key path"),
        (["fetch", "Book", "--include", ""], "strata: '' is not a key path"),
        (["fetch", "Book", "--limit", "0"], "Error: --limit must be at least 1"),
        (["fetch", "Book", "--var", "A=1"], "Error: --var needs --template"),
        // Each matched nothing with exit status 0.
        (["count", "Book", "--where", "title MATCHES '(unclosed'"], "strata: MATCHES '(unclosed' is not a valid ICU regular expression"),
        (["fetch", "Book", "--where", "copyright > 'soon'"], "strata: 'Book.copyright' is a date compared with the text \"soon\", which is no ISO 8601 date"),
        (["fetch", "Book", "--where", "FUNCTION(SELF, 'fullTitle') == 'x'"],
         "Error: The value 'FUNCTION(SELF, 'fullTitle') == 'x'' is invalid for '--where <predicate>': FUNCTION cannot call 'fullTitle': Strata calls Foundation's methods by name"),
    ])
    func mistakesAreUsageErrors(arguments: [String], message: String) throws {
        let result = try StrataRunner.run(arguments + ["--store", Self.books])
        #expect(result.status == 2)
        #expect(result.standardOutput.isEmpty)
        #expect(result.standardError.hasPrefix(message), "\(result.standardError)")
    }
}

extension TemporaryFolder {
    /// A store of the example Library model holding books with `titles` (ISBNs in order).
    func libraryStore(titles: [String]) throws -> String {
        let model = try ModelLoader.load(StrataRunner.repositoryRoot.appendingPathComponent("examples/Library/Library.xcdatamodeld")).currentVersion.model
        let path = url.appendingPathComponent("Library.sqlite").path
        let store = try PersistentStore.create(at: path, model: model)
        let context = ObjectContext(store: store, name: "seed")
        try context.performAndWait {
            for (index, title) in titles.enumerated() {
                let book = try context.insert("Book")
                try book.setValue(title, forKey: "title")
                try book.setValue("012345678\(index)", forKey: "isbn")
            }
            try context.save()
        }
        store.close()
        return path
    }
}
