import Foundation
import Testing
@testable import Strata

@Suite struct PredicateParserTests {
    /// Format strings and the canonical form Strata writes back; reparsing gives an equal predicate.
    @Test(arguments: [
        ("title == 'The Hobbit'", "title == \"The Hobbit\""),
        ("title = \"x\"", "title == \"x\""),
        ("rating != 3", "rating != 3"), ("rating <> 3", "rating != 3"),
        ("rating < 3", "rating < 3"), ("rating <= 3", "rating <= 3"), ("rating =< 3", "rating <= 3"),
        ("rating > 3.5", "rating > 3.5"), ("rating >= -2", "rating >= -2"), ("rating => 1e2", "rating >= 100.0"),
        ("rating BETWEEN {1, 5}", "rating BETWEEN {1, 5}"),
        ("title IN {'a', \"b\"}", "title IN {\"a\", \"b\"}"),
        ("title beginswith[c] 'the'", "title BEGINSWITH[c] \"the\""),
        ("title ENDSWITH[d] 'x'", "title ENDSWITH[d] \"x\""),
        ("title CONTAINS[cd] 'ring'", "title CONTAINS[cd] \"ring\""),
        ("title LIKE 'Th?*'", "title LIKE \"Th?*\""), ("isbn MATCHES '[0-9]{13}'", "isbn MATCHES \"[0-9]{13}\""),
        ("a == 1 AND b == 2 OR c == 3", "a == 1 AND b == 2 OR c == 3"),
        ("a == 1 AND (b == 2 OR c == 3)", "a == 1 AND (b == 2 OR c == 3)"),
        ("NOT a == 1 && !(b == 2) || c == 3", "NOT a == 1 AND NOT b == 2 OR c == 3"),
        ("ANY tags.name == 'x'", "ANY tags.name == \"x\""), ("SOME tags.name == 'x'", "ANY tags.name == \"x\""),
        ("ALL pages.number > 0", "ALL pages.number > 0"), ("NONE tags.name == 'x'", "NONE tags.name == \"x\""),
        ("author.name == 'Tolkien'", "author.name == \"Tolkien\""),
        ("pages.@count > 2", "pages.@count > 2"), ("books.@sum.rating >= 9", "books.@sum.rating >= 9"),
        ("books.@avg.rating < 4", "books.@avg.rating < 4"), ("@count > 1", "@count > 1"),
        ("SUBQUERY(tags, $t, $t.name BEGINSWITH 'f').@count > 0", "SUBQUERY(tags, $t, $t.name BEGINSWITH \"f\").@count > 0"),
        ("TRUEPREDICATE", "TRUEPREDICATE"), ("falsepredicate", "FALSEPREDICATE"),
        ("flag == YES OR flag == true OR flag == NO OR flag == FALSE", "flag == YES OR flag == YES OR flag == NO OR flag == NO"),
        ("author == nil AND isbn != NULL", "author == nil AND isbn != nil"),
        ("published > CAST(0, \"NSDate\")", "published > CAST(0.0, \"NSDate\")"),
        ("published > CAST(published, \"NSDate\")", "published > CAST(published, \"NSDate\")"),
        // Regression (found by fuzz-predicate): 51 NOTs, written `NOT (NOT (…))`, nested past
        // the parser's limit of 100 levels.
        (String(repeating: "!", count: 51) + "TRUEPREDICATE", String(repeating: "NOT ", count: 51) + "TRUEPREDICATE"),
        ("NOT (a == 1 AND NOT b == 2)", "NOT (a == 1 AND NOT b == 2)"),
        // Regression (found by fuzz-predicate): the key path after a SUBQUERY lost its '#'s.
        ("SUBQUERY(tags, $t, $t.name == 'x').#or.#0r.@count > 1", "SUBQUERY(tags, $t, $t.name == \"x\").#or.#0r.@count > 1"),
        ("#\u{301}x == 1", "#\u{301}x == 1"),
        ("SELF IN {1, 2}", "SELF IN {1, 2}"), ("uuid == $UUID", "uuid == $UUID"),
        ("title == 'it\\'s \\u00e9'", "title == \"it's é\""), ("#in == 1", "#in == 1"),
        // Regression (found by fuzz-predicate): a key that starts with a digit was written
        // without its '#', and read back as a number.
        ("#2 == x", "#2 == x"), ("author.#1st == 1", "author.#1st == 1"),
        // Regression (found by fuzz-predicate): a string starting with a combining mark, or
        // ending with a prepended one, made one character with its quote and did not read back.
        (#"title == "\u0ac7an""#, "title == \"\u{0AC7}an\""), ("title == '\u{0600}'", "title == \"\u{0600}\""),
        // Regression (found by fuzz-predicate): a backslash followed by a combining mark is one
        // character, which escaping by characters left unescaped.
        (#"name == "a\\\u06D6b""#, "name == \"a\\\\\u{06D6}b\""), ("name == 'a\r\nb'", #"name == "a\r\nb""#),
        ("títlé == 'é' AND ાx == 1", "títlé == \"é\" AND ાx == 1"),
    ])
    func parsesAndWritesBack(format: String, expected: String) throws {
        let predicate = try ObjectPredicate(format: format)
        #expect(predicate.description == expected)
        #expect(try ObjectPredicate(format: predicate.description) == predicate)
    }

    /// Regression (found by fuzz-predicate): a date argument printed as `CAST(0.0, "NSDate")`,
    /// which read back as a cast of a number rather than the date.
    @Test func aConstantCastIsTheDateItNames() throws {
        let date = Date(timeIntervalSinceReferenceDate: -1.5)
        let argument = try ObjectPredicate(format: "published < %@", arguments: [.date(date)])
        #expect(try ObjectPredicate(format: "published < CAST(-1.5, 'NSDate')") == argument)
        #expect(try ObjectPredicate(format: argument.description) == argument)
    }

    @Test func precedenceIsOrThenAndThenNot() throws {
        let predicate = try ObjectPredicate(format: "a == 1 OR b == 2 AND NOT c == 3")
        guard case .or(let terms) = predicate, case .and(let inner) = terms[1], case .not = inner[1] else {
            Issue.record("parsed as \(predicate)")
            return
        }
    }

    @Test func argumentsFillPlaceholdersInOrder() throws {
        let predicate = try ObjectPredicate(format: "%K >= %@ AND title BEGINSWITH[c] %@ AND number == %d AND price < %f", "rating", 4.0, "the", 7, 9.5)
        #expect(predicate.description == "rating >= 4.0 AND title BEGINSWITH[c] \"the\" AND number == 7 AND price < 9.5")
        let list = try ObjectPredicate(format: "name IN %@", ["a", "b"])
        #expect(list.description == "name IN {\"a\", \"b\"}")
    }

    @Test func variablesAreSubstituted() throws {
        let template = try ObjectPredicate(format: "author.name == $NAME OR rating > $MIN")
        #expect(template.variables == ["NAME", "MIN"])
        #expect(try template.substituting(["NAME": "Tolkien", "MIN": 4]).description == "author.name == \"Tolkien\" OR rating > 4")
        #expect(throws: PredicateSubstitutionError(missing: ["MIN"])) { try template.substituting(["NAME": "x"]) }
        let subquery = try ObjectPredicate(format: "SUBQUERY(tags, $t, $t.name == $NAME).@count > 0")
        #expect(subquery.variables == ["NAME"])
    }

    /// Each class of syntax error, with its message and the caret's place.
    @Test(arguments: [
        ("name == AND rating > 3", "expected a value after '==', found 'AND'", 8),
        ("name == 'x' rating > 3", "expected AND, OR or the end of the predicate, found 'rating'", 12),
        ("(name == 'x'", "expected ')' to close '(', found 'the end of the predicate'", 12),
        ("name 'x'", "expected a comparison operator (==, !=, <, <=, >, >=, BETWEEN, IN, CONTAINS, BEGINSWITH, ENDSWITH, LIKE, MATCHES), found '\"x\"'", 5),
        ("name == 'x", "unterminated string", 8),
        ("name == %x", "unknown argument; known: %@, %K, %d, %i, %ld, %f", 8),
        ("name == %@", "no argument left for '%@'", 8),
        ("rating BETWEEN 3", "BETWEEN needs {low, high}", 7),
        ("name ==[x] 'a'", "expected c, d or cd between '[' and ']', found 'x'", 8),
        ("books.@total > 1", "expected count, sum, avg, min or max after '@', found 'total'", 7),
        ("name == ", "expected a value after '==', found 'the end of the predicate'", 8),
        ("name ~ 'x'", "unexpected character '~'", 5),
        ("sqrt(1, 2) > 0", "sqrt takes 1 argument, found 2", 0),
        ("rating > now(1)", "now takes 0 arguments, found 1", 9),
        ("sum() > 0", "sum needs a collection or values", 0),
        ("FUNCTION(title, 'hasPrefix:') == YES", "hasPrefix: takes 1 argument, found 0", 0),
        ("FUNCTION(title, length) > 1", "expected the method's name as a string, found 'length'", 16),
        ("FUNCTION(title 'length') > 1", "expected ',' after FUNCTION's receiver, found '\"length\"'", 15),
        ("$x := 5 == 5", "'$x :=' assigns a variable, which only NSExpression's evaluation in a context does; "
            + "a fetch takes its variables as substitution variables (--var x=VALUE)", 3),
        ("pages[FIRST].number == 1", "only an aggregate (@count, @sum, @avg, @min, @max) may follow a list or a function's value, found 'number'", 13),
        ("{1}.@count.x == 1", "nothing may follow '@count' of a list", 4),
        ("{1, 2}[FIRST > 1", "expected ']' to close the index, found '>'", 13),
        ("rating > 0b102", "'0b102' is not a number in base 2", 9),
        ("(rating + 1 > 2", "expected ')' to close '(', found 'the end of the predicate'", 15),
        ("rating * > 2", "expected a value after '*', found '>'", 9),
        ("SUBQUERY(tags, t, t == 1).@count > 0", "expected a $variable in SUBQUERY, found 't'", 15),
        ("CAST(1, \"NSString\") > 0", "CAST supports \"NSDate\", found '\"NSString\"'", 8),
        ("published > CAST('yesterday', 'NSDate')", "CAST(…, \"NSDate\") reads seconds since 2001-01-01 or an ISO 8601 date (2000-01-31, 2000-01-31T12:00:00Z), found \"yesterday\"", 17),
        ("author. == 'x'", "expected a key after '.', found '=='", 8),
        ("# == 1", "expected a name after '#'", 0),
        ("rating > 1e", "'1e' is not a number", 9),
        // Regression (found by fuzz-predicate): a literal past Double's range was read as
        // infinity, which the predicate then wrote back as the key `inf`.
        ("rating > 1e999", "'1e999' is out of the range of a number", 9),
        ("name == $", "expected a variable name after '$'", 8),
        ("name == '\\u00g1'", "expected four hexadecimal digits after '\\u'", 9),
        // The offset counts characters, though the tokenizer reads scalars.
        ("ti\u{301}tle == 'e\u{301}' ~", "unexpected character '~'", 13),
    ])
    func syntaxErrorsPointAtTheToken(format: String, message: String, offset: Int) {
        do {
            _ = try ObjectPredicate(format: format)
            Issue.record("\(format) parsed")
        } catch {
            #expect(error.message == message)
            #expect(error.offset == offset)
            #expect(error.description == "\(message)\n  \(format)\n  \(String(repeating: " ", count: offset))^")
        }
    }

    @Test func unknownFunctionsAndMethodsAreRefusedWithTheOnesThereAre() {
        for (format, start, known, offset) in [
            ("rating > frobnicate(1)", "unknown function 'frobnicate'; known: add, from, multiply", "sqrt", 9),
            ("FUNCTION(SELF, 'fullName') == 'x'", "FUNCTION cannot call 'fullName': Strata calls Foundation's methods by name, and knows length, ", "doubleValue", 15),
        ] {
            #expect { try ObjectPredicate(format: format) } throws: { error in
                guard let error = error as? PredicateSyntaxError else { return false }
                return error.message.hasPrefix(start) && error.message.contains(known) && !error.message.contains("FUNCTION,") && error.offset == offset
            }
        }
    }

    @Test(arguments: [
        ("rating + 1 > 4", "rating + 1 > 4"),
        ("(rating + 1) * 2 > 9", "(rating + 1) * 2 > 9"),
        ("rating+1*2>6", "rating + 1 * 2 > 6"),
        ("2 ** 3 ** 2 == 512", "2 ** 3 ** 2 == 512"),
        ("(2 ** 3) ** 2 == 64", "(2 ** 3) ** 2 == 64"),
        ("(-2) ** 2 == 4", "(-2) ** 2 == 4"),
        ("-2 ** 2 == -4", "-2 ** 2 == -4"),
        ("-rating < -4", "-rating < -4"),
        ("-(rating + 1) < 0", "-(rating + 1) < 0"),
        ("0 - -5 == 5", "0 - -5 == 5"),
        ("10 - (4 - 3) == 9", "10 - (4 - 3) == 9"),
        ("10 - 4 - 3 == 3", "10 - 4 - 3 == 3"),
        ("a / (b * c) > 1", "a / (b * c) > 1"),
        ("modulus:by:(pages.@count, 2) == 1", "modulus(pages.@count, 2) == 1"),
        ("SQRT(x) > 2 AND now() > published", "sqrt(x) > 2 AND now() > published"),
        ("sum({1, 2.5}) == 3.5 AND avg(books.rating) > 4", "sum({1, 2.5}) == 3.5 AND average(books.rating) > 4"),
        ("rating BETWEEN {$LOW, $HIGH + 1}", "rating BETWEEN {$LOW, $HIGH + 1}"),
        ("{28, 33} CONTAINS age", "{28, 33} CONTAINS age"),
        ("flags == 0x1F OR flags == 0o17 OR flags == 0b101", "flags == 31 OR flags == 15 OR flags == 5"),
        ("published > CAST('2000-01-01', 'NSDate')", "published > CAST(-31622400.0, \"NSDate\")"),
        ("(a + b > 1) AND (c == 2)", "a + b > 1 AND c == 2"),
        ("tags[size] > 1 AND {1, 2}[first] == rating", "count(tags) > 1 AND {1, 2}[FIRST] == rating"),
        ("(rating + 1)[0] == 2 AND $LIST[LAST] == title AND {1, 2}[rating - 1] > 1",
         "(rating + 1)[0] == 2 AND $LIST[LAST] == title AND {1, 2}[rating - 1] > 1"),
        ("FUNCTION(title, 'length') > 2 AND FUNCTION(name, 'stringByAppendingString:', '!') == 'a!'",
         "FUNCTION(title, \"length\") > 2 AND FUNCTION(name, \"stringByAppendingString:\", \"!\") == \"a!\""),
        ("(-2)[0] ** 2 == 4 AND {1, 2}[#size] == 1 AND first == last", "(-2)[0] ** 2 == 4 AND {1, 2}[#size] == 1 AND #first == #last"),
        ("3 IN mode:(pages.number) AND mode({1, 1, 2}) CONTAINS rating", "3 IN mode(pages.number) AND mode({1, 1, 2}) CONTAINS rating"),
        ("randomn(3) < random() AND noindex(title) == length:(title)", "randomn(3) < random() AND noindex(title) == length(title)"),
    ])
    func expressionsPrintAsTheyReadAndReadBackTheSame(format: String, description: String) throws {
        let predicate = try ObjectPredicate(format: format)
        #expect(predicate.description == description)
        #expect(try ObjectPredicate(format: predicate.description) == predicate)
    }

    /// Regression: each level of nesting was a call on the stack, and 20,000 `(` or NOTs (a
    /// hostile `--where`) overflowed it and crashed the process. They are a syntax error at the
    /// token past the limit; 100 levels still parse.
    @Test func nestingPastTheLimitIsAnErrorNotACrash() throws {
        let message = "the predicate nests deeper than 100 levels (parentheses, NOT, arrays, functions and subqueries)"
        for format in [
            String(repeating: "(", count: 20_000) + "TRUEPREDICATE" + String(repeating: ")", count: 20_000),
            String(repeating: "NOT ", count: 20_000) + "TRUEPREDICATE",
            "name IN " + String(repeating: "{", count: 20_000) + "1" + String(repeating: "}", count: 20_000),
        ] {
            #expect { try ObjectPredicate(format: format) } throws: { error in
                guard let error = error as? PredicateSyntaxError else { return false }
                return error.message == message && error.offset > 0
            }
        }
        // A comparison's operands are a level of their own.
        #expect((try? ObjectPredicate(format: String(repeating: "(", count: 99) + "name == 'x'" + String(repeating: ")", count: 99))) != nil)
        #expect((try? ObjectPredicate(format: String(repeating: "NOT ", count: 100) + "TRUEPREDICATE")) != nil)
        do {
            _ = try ObjectPredicate(format: String(repeating: "(", count: 101) + "TRUEPREDICATE" + String(repeating: ")", count: 101))
            Issue.record("101 levels parsed")
        } catch {
            #expect(error.offset == 100)
        }
    }

    @Test func keysAreCheckedAgainstTheEntity() throws {
        let model = try ModelLoader.load(Fixtures.exampleModel).currentVersion.model
        let book = try #require(model.entity(named: "Book"))
        try ObjectPredicate(format: "author.name == 'x' AND pages.@count > 1 AND ANY tags.name == 'y' AND SUBQUERY(pages, $p, $p.number > 3).@count > 0").checkKeys(for: book, in: model)
        try ObjectPredicate(format: "author.books.@avg.rating > 3").checkKeys(for: book, in: model)
        #expect { try ObjectPredicate(format: "titel == 'x'").checkKeys(for: book, in: model) } throws: { error in
            String(describing: error) == "entity 'Book' has no property 'titel' (in titel); did you mean 'title'?; properties: isbn, published, rating, title, author, pages, tags"
        }
        #expect { try ObjectPredicate(format: "author.nmae == 'x'").checkKeys(for: book, in: model) } throws: { error in
            String(describing: error).hasPrefix("entity 'Author' has no property 'nmae' (in author.nmae); did you mean 'name'?")
        }
        #expect { try ObjectPredicate(format: "title.length > 3").checkKeys(for: book, in: model) } throws: { error in
            String(describing: error) == "entity 'Book', key path title.length: 'title' is an attribute, so nothing can follow it"
        }
        #expect { try ObjectPredicate(format: "author.@count > 3").checkKeys(for: book, in: model) } throws: { error in
            String(describing: error) == "entity 'Author', key path author.@count: @count needs a to-many relationship before it"
        }
    }
}
