import Foundation
import Testing

// The catalogue's text a user writes by hand: predicates (--where, --sort), Lua scripts, and
// model XML.
extension BadInputTests {
    // MARK: - Predicates and key paths

    static let deepPredicate = String(repeating: "(", count: 101) + "title == 1" + String(repeating: ")", count: 101)

    @Test(arguments: [
        (["fetch", "Book", "--where", "nope == 1"],
         "entity 'Book' has no property 'nope' (in nope); properties: isbn, published, rating, title, author, pages, tags"),
        (["fetch", "Book", "--where", "author.nope == 1"],
         "entity 'Author' has no property 'nope' (in author.nope); did you mean 'name'?; properties: born, name, remoteID, books"),
        (["count", "Book", "--where", "title.length == 1"], "entity 'Book', key path title.length: 'title' is an attribute, so nothing can follow it"),
        (["fetch", "Book", "--sort", "nope"], "entity 'Book' has no property 'nope' (in nope); properties: isbn, published, rating, title, author, pages, tags"),
        (["fetch", "Nope"], "{store}: no entity 'Nope'; entities: Author, Book, EBook, Page, Tag"),
    ])
    func aBadPredicateOrKeyPath(command: [String], error: String) throws {
        try Self.refuses(command + ["--store", "{store}"], in: try Setup(), status: 2, error: "strata: " + error)
    }

    /// A predicate that does not parse is a usage error of argument parsing, which shows it
    /// with a caret where it stops, then the option's help and the command's usage.
    @Test(arguments: [
        (["fetch", "Book", "--where", "title =="], "expected a value after '==', found 'the end of the predicate'\n  title ==\n          ^"),
        (["count", "Book", "--where", #"title == "a" AND"#],
         "expected a key path or value, found 'the end of the predicate'\n  title == \"a\" AND\n                  ^"),
        (["fetch", "Book", "--where", #"title == "abc"#], "unterminated string\n  title == \"abc\n           ^"),
        (["query", "Book", "--where", "rating BETWEEN 1"], "BETWEEN needs {low, high}\n  rating BETWEEN 1\n         ^"),
        (["count", "Book", "--where", deepPredicate],
         "the predicate nests deeper than 100 levels (parentheses, NOT, arrays, functions and subqueries)\n  \(deepPredicate)\n  \(String(repeating: " ", count: 100))^"),
        (["delete", "Book", "--where", "title ==", "--yes"], "expected a value after '==', found 'the end of the predicate'\n  title ==\n          ^"),
    ])
    func aPredicateThatDoesNotParse(command: [String], error: String) throws {
        let setup = try Setup()
        let before = Self.checksum(setup.store)
        let result = try StrataRunner.run((command + ["--store", "{store}"]).map(setup.expand))
        #expect(result.status == 2)
        #expect(result.standardError.hasPrefix("Error: The value '\(command[3])' is invalid for '--where <predicate>': \(error)\nHelp:  --where <predicate>"), "\(result.standardError)")
        #expect(result.standardOutput.isEmpty)
        #expect(Self.checksum(setup.store) == before)
    }

    // MARK: - Lua

    /// A script (`run`, from a file) or a chunk (`eval`) that does not compile or fails. What
    /// a failed script changed without saving is discarded.
    @Test(arguments: [
        ("run", "local b = ctx:create('Tag', {name = 'x'})\nctx:save()\nfor i = 1,\n", Int32(2), "{dir}/s.lua:4: unexpected symbol near <eof>"),
        ("run", "ctx:create('Tag', {name = 'x'})\nerror('boom')\n", 1,
         "{dir}/s.lua:2: boom\nstack traceback:\n\t[C]: in function 'error'\n\t{dir}/s.lua:2: in main chunk"),
        ("run", "\u{1B}Lua", 2, "{dir}/s.lua: attempt to load a binary chunk (mode is 't')"),
        ("run", "return " + String(repeating: "{", count: 100_000) + String(repeating: "}", count: 100_000), 2,
         "{dir}/s.lua: C stack overflow"),
        ("eval", "ctx:create('Nope', {})", 1, "eval:1: the model has no entity 'Nope'\nstack traceback:\n\t[C]: in method 'create'\n\teval:1: in main chunk"),
        ("eval", "ctx:create('Tag', {nope = 1})", 1,
         "eval:1: Tag has no property 'nope' (did you mean 'name'?)\nstack traceback:\n\t[C]: in method 'create'\n\teval:1: in main chunk"),
        ("eval", "ctx:first('Book').nope = 7", 1,
         "eval:1: Book has no property 'nope'\nstack traceback:\n\t[C]: in metamethod 'newindex'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
        ("eval", "ctx:create('Book', {title = 't', isbn = '9780000000001', rating = 'high'}); ctx:save()", 1,
         "eval:1: Book.rating is Double: a string that is not a number (\"high\")\nstack traceback:\n\t[C]: in method 'create'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
        ("eval", "ctx:first('Book').tags = 7", 1,
         "eval:1: Book.tags takes a table of objects, not 7\nstack traceback:\n\t[C]: in metamethod 'newindex'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
        ("eval", "ctx:create('Page', {number = 1e400}); ctx:save()", 1,
         "eval:1: Page.number is Integer 32: inf is not a finite number\nstack traceback:\n\t[C]: in method 'create'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
        ("eval", "ctx:create('Tag', {name = 'a\\xff'}); ctx:save()", 1,
         "eval:1: Tag.name is String: the string is not valid UTF-8\nstack traceback:\n\t[C]: in method 'create'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
        // Regression: a uniqueness clash printed SQLite's message, the SQL and its arguments,
        // with exit status 1.
        ("eval", "local a = ctx:first('Author', 'remoteID == 1'); a.remoteID = 2; ctx:save()", 3,
         "eval:1: <Author p1>: another Author already has remoteID 2, which the uniqueness constraint on remoteID forbids\nstack traceback:\n\t[C]: in method 'save'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
        // Regression: a table graph of 2^30 leaves grew the process to 5.8 GB and aborted it.
        ("eval", "local t = {} for i = 1, 30 do t = {t, t} end return #strata.json.encode(t)", 1,
         "eval:1: not enough memory (the limit is 1024 MB; raise it with --memory MB, or 0 for no limit)\nstack traceback:\n\t[C]: in field 'encode'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
        // A coroutine cannot yield across Swift; the transaction's change is undone.
        ("eval", "coroutine.wrap(function() ctx:transaction(function() ctx:create('Tag', {name = 'x'}) coroutine.yield() end) end)() ctx:save()", 1,
         "eval:1: attempt to yield across a C-call boundary\nstack traceback:\n\t[C]: in ?\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
        ("eval", "return ctx:fetch('Book', {where = 'title =='})", 1,
         "eval:1: expected a value after '==', found 'the end of the predicate'\n  title ==\n          ^\nstack traceback:\n\t[C]: in method 'fetch'\n\teval:1: in function <eval:1>\n\teval:1: in main chunk"),
    ])
    func aBadScript(command: String, code: String, status: Int32, error: String) throws {
        let setup = try Setup()
        let script = try setup.write("s.lua", code)
        try Self.refuses(
            [command, command == "run" ? script : code, "--store", "{store}", "--model", "{model}"], in: setup, status: status,
            error: "strata: " + error)
    }

    // MARK: - Model XML

    /// A model file that is not a valid model: `model validate` and `model show` name the
    /// file, line and column or the entity and property, and an import with it leaves the
    /// store alone.
    @Test(arguments: [
        ("truncated", "strata: {dir}/Bad.xcdatamodel/contents: line 21, column 45: the document ends inside an attribute value of <attribute>"),
        ("malformed", "strata: {dir}/Bad.xcdatamodel/contents: line 47, column 24: a name is required here"),
        ("empty", "strata: {dir}/Bad.xcdatamodel/contents: line 1, column 1: the file is empty"),
        ("unknown type",
         "strata: {dir}/Bad.xcdatamodel/contents: line 43, column 129: attribute 'number' has an unknown attributeType 'Integer 128'; known: Undefined, Integer 16, Integer 32, Integer 64, Decimal, Double, Float, String, Boolean, Date, Binary, UUID, URI, Transformable, ObjectID, Composite"),
        ("invalid UTF-8", "strata: {dir}/Bad.xcdatamodel/contents: line 1, column 44: the file is not valid UTF-8"),
        ("100,000 levels", "strata: {dir}/Bad.xcdatamodel/contents: line 1, column 796: elements nest deeper than 256 levels"),
    ])
    func aMalformedModelFile(kind: String, error: String) throws {
        let setup = try Setup()
        let original = try String(contentsOfFile: Self.contents, encoding: .utf8)
        let contents: Data = switch kind {
        case "truncated": Data(original.utf8.prefix(1500))
        case "malformed": Data(original.replacingOccurrences(of: #"<entity name="Tag""#, with: #"<entity name="Tag" <"#).utf8)
        case "empty": Data()
        case "unknown type": Data(original.replacingOccurrences(of: #"attributeType="Integer 32""#, with: #"attributeType="Integer 128""#).utf8)
        case "invalid UTF-8": Data(#"<?xml version="1.0"?><model><entity name="B"#.utf8) + [0xFF] + Data(#""/></model>"#.utf8)
        default: Data(("<?xml version=\"1.0\"?><model>" + String(repeating: "<a>", count: 100_000) + String(repeating: "</a>", count: 100_000) + "</model>").utf8)
        }
        let model = try setup.write("Bad.xcdatamodel/contents", contents)
        for command in [["model", "validate"], ["model", "show"], ["import", "Book", Self.payload, "--store", "{store}"]] {
            try Self.refuses(command + ["--model", (model as NSString).deletingLastPathComponent], in: setup, status: 3, error: error)
        }
    }

    /// A model whose XML reads but whose relationship names an entity it lacks: validation
    /// lists the error, and `create` makes no store.
    @Test func aModelWithAnUnknownDestinationEntity() throws {
        let setup = try Setup()
        let original = try String(contentsOfFile: Self.contents, encoding: .utf8)
        let model = try setup.write(
            "Bad.xcdatamodel/contents", original.replacingOccurrences(of: #"destinationEntity="Page""#, with: #"destinationEntity="Leaf""#))
        let bundle = (model as NSString).deletingLastPathComponent
        let issue = "\(model): error: entity 'Book', property 'pages': the destination entity 'Leaf' does not exist"
        try Self.refuses(["model", "validate", "--model", bundle], in: setup, status: 3, error: "", output: issue + "\nBad: invalid (1 error, 0 warnings)\n")
        try Self.refuses(
            ["create", "--store", "{dir}/New.sqlite", "--model", bundle], in: setup, status: 3,
            error: "strata: \(model): the model has 1 error\n\(issue)")
        #expect(!FileManager.default.fileExists(atPath: setup.path + "/New.sqlite"))
    }
}
