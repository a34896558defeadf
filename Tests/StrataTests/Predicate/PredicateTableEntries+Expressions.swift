import Foundation
@testable import Strata

/// The table's entries on expressions: arithmetic, the built-in functions, lists with
/// variables, literals in other bases, date literals and key paths built from arguments.
extension PredicateTableTests {
    static let expressionEntries: [Entry] = [
        // Arithmetic, with its precedence: `**` before `*` and `/`, before `+` and `-`.
        book("rating + 1 > 4", sql: "b.ZRATING + 1 > 4"),
        book("rating * 2 >= 9", sql: "b.ZRATING * 2 >= 9"),
        book("-rating < -4", sql: "-b.ZRATING < -4"),
        book("- rating <= -4 AND rating - 1 < 4", sql: "b.ZRATING >= 4 AND b.ZRATING < 5"),
        book("rating - 1 / 2 == 2.5", sql: "b.ZRATING = 3"),
        book("(rating + 1) * 2 > 9", sql: "(b.ZRATING + 1) * 2 > 9"),
        book("rating + 1 * 2 > 6", sql: "b.ZRATING > 4"),
        book("rating ** 2 > 10", sql: "b.ZRATING * b.ZRATING > 10"),
        book("2 ** 3 ** 2 == 512 AND rating < 2", sql: "b.ZRATING < 2"),
        book("-2 ** 2 == -4 AND rating >= 4.5", sql: "b.ZRATING >= 4.5"),
        book("10 - 4 - 3 == 3 AND rating == 3", sql: "b.ZRATING = 3"),
        book("rating / 2 == 1.75", sql: "b.ZRATING = 3.5"),
        book("rating / 0 == nil AND published == nil", sql: "b.ZPUBLISHED IS NULL"),
        book("pages.@count + tags.@count == 4", sql: "(SELECT COUNT(*) \(pagesOfB)) + (SELECT COUNT(*) \(tagsOfB)) = 4"),
        book("pages.@count * 2 - tags.@count > 3", sql: "(SELECT COUNT(*) \(pagesOfB)) * 2 - (SELECT COUNT(*) \(tagsOfB)) > 3"),
        book("published + 86400 * 365 > CAST(0, 'NSDate')", sql: "b.ZPUBLISHED + 31536000 > 0"),
        book("(rating) >= 4.5", sql: "b.ZRATING >= 4.5"),
        book("((rating + 1)) > 5 OR (title == 'Dune')", sql: "b.ZRATING > 4 OR b.ZTITLE = 'Dune'"),

        // Functions, by their first word or their selector.
        book("modulus:by:(pages.@count, 2) == 1", sql: "(SELECT COUNT(*) \(pagesOfB)) % 2 = 1"),
        book("modulus(pages.@count, 3) == 0", sql: "(SELECT COUNT(*) \(pagesOfB)) % 3 = 0"),
        book("abs(rating - 3) <= 1", sql: "abs(b.ZRATING - 3) <= 1"),
        book("sqrt(rating) > 2", sql: "b.ZRATING > 4"),
        book("floor(rating) == 4", sql: "b.ZRATING >= 4 AND b.ZRATING < 5"),
        book("ceiling(rating) == 4", sql: "b.ZRATING > 3 AND b.ZRATING <= 4"),
        book("trunc(rating / 2) == 1", sql: "b.ZRATING >= 2 AND b.ZRATING < 4"),
        book("uppercase(title) BEGINSWITH 'THE'", sql: "upper(b.ZTITLE) GLOB 'THE*'"),
        book("lowercase(title) == 'mort'", sql: "lower(b.ZTITLE) = 'mort'"),
        book("add:to:(rating, 1) == 5", sql: "b.ZRATING = 4"),
        book("raise:toPower:(2, pages.@count) == 4", sql: "(SELECT COUNT(*) \(pagesOfB)) = 2"),
        book("bitwiseAnd:with:(pages.@count, 1) == 1", sql: "(SELECT COUNT(*) \(pagesOfB)) % 2 = 1"),
        book("published < now()", sql: "b.ZPUBLISHED < (julianday('now') - 2451910.5) * 86400"),
        book("randomn(1) == 0 AND random() >= 0 AND random() <= 2147483647 AND rating > 4", sql: "b.ZRATING > 4"),
        book("randomn(3) < 3 AND randomn(3) >= 0 AND randomn(0) == nil AND title == 'Dune'", sql: "b.ZTITLE = 'Dune'"),
        book("length(title) == 4", sql: "length(b.ZTITLE) = 4"),
        book("length:(title) > 4 AND length(rating) == nil", sql: "length(b.ZTITLE) > 4"),
        book("noindex(title) BEGINSWITH[c] 'd' OR noindex:(rating) < 2", sql: "b.ZTITLE LIKE 'd%' OR b.ZRATING < 2"),

        // Aggregates of a to-many, and of lists.
        book("sum(pages.number) > 5", sql: "(SELECT TOTAL(p.ZNUMBER) \(pagesOfB)) > 5"),
        book("count(pages) == 2", sql: "(SELECT COUNT(*) \(pagesOfB)) = 2"),
        book("max(pages.number) == 3", sql: "(SELECT MAX(p.ZNUMBER) \(pagesOfB)) = 3"),
        book("min(pages.number) == 1 AND average(pages.number) > 1.5", sql: "(SELECT AVG(p.ZNUMBER) \(pagesOfB)) > 1.5"),
        book("median(pages.number) == 1.5", sql: "(SELECT COUNT(*) \(pagesOfB)) = 2"),
        book("stddev(pages.number) == 0.5", sql: "(SELECT COUNT(*) \(pagesOfB)) = 2"),
        book("average({rating, 5}) > 4.5", sql: "COALESCE((b.ZRATING + 5) / 2.0, 5) > 4.5"),
        book("max({rating, 2}) == 2", sql: "b.ZRATING <= 2 OR b.ZRATING IS NULL"),
        book("count({rating, 1}) == 2 AND sum(rating, 1) >= 5", sql: "b.ZRATING >= 4"),

        // Indexes: a member of a list by its position, FIRST or LAST; SIZE counts any collection.
        book("{3, 4, 5}[1] == rating", sql: "b.ZRATING = 4"),
        book("{'Dune', 'Mort'}[LAST] == title OR {'Dune', 'Mort'}[first] == title", sql: "b.ZTITLE IN ('Mort', 'Dune')"),
        book("{rating, 5}[FIRST] > 4", sql: "b.ZRATING > 4"),
        book("{1, 2}[2] == nil AND {rating}[-1] == nil AND rating < 2", sql: "b.ZRATING < 2"),
        book("{2, 3, 4}[rating - 2] == 3", sql: "b.ZRATING = 3"),
        book("title[0] == 'Dune'", sql: "b.ZTITLE = 'Dune'"),
        book("tags[SIZE] == 2", sql: "(SELECT COUNT(*) \(tagsOfB)) = 2"),
        book("pages[size] + {1, 2, 3}[SIZE] > 4", sql: "(SELECT COUNT(*) \(pagesOfB)) > 1"),

        // mode: the most frequent numbers, a list a value is IN, or that CONTAINS it.
        book("rating IN mode({3, 4, 4, rating})", sql: "b.ZRATING IN (3, 4)"),
        book("mode({rating, 5, 5.0}) CONTAINS rating", sql: "b.ZRATING = 5"),
        book("rating IN mode({FUNCTION('1e999', 'doubleValue'), rating, 3, 3})", sql: "b.ZRATING = 3"),
        book("noindex(author) != nil AND noindex(SELF) == SELF AND {author}[SIZE] == 1 AND rating > 4", sql: "b.ZAUTHOR IS NOT NULL AND b.ZRATING > 4"),
        book("mode({rating, 4, 3}).@count == 1 AND mode({rating, 4, 3})[SIZE] == 1", sql: "b.ZRATING IN (3, 4)"),
        book("sum(mode({rating, 1, 1})) == 1 AND mode({rating, 2, 3}).@max == 3", sql: "b.ZRATING IS NULL OR (b.ZRATING <= 3 AND b.ZRATING <> 2)"),
        book("1 IN mode(pages.number)", sql: """
            (SELECT COUNT(*) \(pagesOfB) AND p.ZNUMBER = 1) > 0 AND NOT EXISTS (SELECT 1 FROM ZPAGE q WHERE q.ZBOOK = b.Z_PK \
            AND q.ZNUMBER IS NOT NULL GROUP BY q.ZNUMBER HAVING COUNT(*) > (SELECT COUNT(*) \(pagesOfB) AND p.ZNUMBER = 1))
            """),

        // FUNCTION: Foundation's methods on strings, numbers and dates, by their selectors.
        book("FUNCTION(title, 'length') == 4", sql: "length(b.ZTITLE) = 4"),
        book("FUNCTION(title, 'uppercaseString') BEGINSWITH 'THE'", sql: "upper(b.ZTITLE) GLOB 'THE*'"),
        book("FUNCTION(title, 'stringByAppendingString:', '!') ENDSWITH 'e!'", sql: "b.ZTITLE GLOB '*e'"),
        book("FUNCTION(title, 'hasPrefix:', 'The') == YES", sql: "b.ZTITLE GLOB 'The*'"),
        book("FUNCTION(title, 'substringToIndex:', 3) ==[c] 'the'", sql: "lower(substr(b.ZTITLE, 1, 3)) = 'the' AND length(b.ZTITLE) >= 3"),
        book("FUNCTION(title, %@) > 10", .value(.string("length")), sql: "length(b.ZTITLE) > 10"),
        book("FUNCTION(rating, 'stringValue') IN {'3', '4.5'}", sql: "b.ZRATING IN (3, 4.5)"),
        book("FUNCTION(rating, 'intValue') == 4", sql: "b.ZRATING >= 4 AND b.ZRATING < 5"),
        book("FUNCTION(FUNCTION(rating, 'stringValue'), 'doubleValue') > 4", sql: "b.ZRATING > 4"),
        book("FUNCTION(published, 'timeIntervalSince1970') > 978307200", sql: "b.ZPUBLISHED > 0"),
        book("FUNCTION(title, 'boolValue') == NO AND FUNCTION(rating, 'length') == nil AND rating < 2", sql: "b.ZRATING < 2"),

        // Aggregates after a list, and keys after a parenthesized key path.
        book("{1, 2, 3}.@count == 3 AND {2, rating}.@max > 4", sql: "b.ZRATING > 4"),
        book("{rating, 1}.@sum >= 5 AND {rating, 1}.@avg < 3 AND {rating, 5}.@min < 4", sql: "b.ZRATING >= 4 AND b.ZRATING < 5 AND b.ZRATING < 4"),
        book("(author).name BEGINSWITH 'U'", sql: "b.ZAUTHOR IN (SELECT a.Z_PK FROM ZAUTHOR a WHERE a.ZNAME GLOB 'U*')"),

        // Lists with variables, and a list that contains the value.
        book("rating BETWEEN {$LOW, $HIGH}", variables: ["LOW": 2, "HIGH": 4], sql: "b.ZRATING BETWEEN 2 AND 4"),
        book("rating IN {$A, 5}", variables: ["A": 3], sql: "b.ZRATING IN (3, 5)"),
        book("{3, 5} CONTAINS rating", sql: "b.ZRATING IN (3, 5)"),
        book("{'Dune', $T} CONTAINS title", variables: ["T": "Mort"], sql: "b.ZTITLE IN ('Dune', 'Mort')"),
        book("rating IN {pages.@count, 5}", sql: "b.ZRATING = (SELECT COUNT(*) \(pagesOfB)) OR b.ZRATING = 5"),

        // An integer and a real compare exactly, as SQLite compares them (past 2⁵³ too).
        book("9007199254740993 > 9007199254740992.0 AND rating < 2", sql: "b.ZRATING < 2"),
        book("9223372036854775807 == 9223372036854775807.0 OR -9007199254740993 > -9007199254740992.0 OR rating > 4.6",
             sql: "b.ZRATING > 4.6"),

        // Integers in other bases.
        book("rating > 0x3", sql: "b.ZRATING > 3"),
        book("pages.@count == 0b10", sql: "(SELECT COUNT(*) \(pagesOfB)) = 2"),
        book("rating < 0o4 AND rating >= 0X1", sql: "b.ZRATING < 4 AND b.ZRATING >= 1"),

        // Dates written as ISO 8601 text.
        book("published > CAST('2000-01-01', 'NSDate')", sql: "b.ZPUBLISHED > -31622400"),
        book("published < CAST(\"2001-01-01T00:00:00+01:00\", \"NSDate\")", sql: "b.ZPUBLISHED < -3600"),

        // Text compared with a date reads as the ISO 8601 date it writes.
        book("published > '2000-01-01'", sql: "b.ZPUBLISHED > -31622400"),
        book("'2001-01-01' == published", sql: "b.ZPUBLISHED = 0"),
        book("published IN {'2001-01-01T00:00:00Z', '1998-02-01'}", sql: "b.ZPUBLISHED IN (0, -92016000)"),

        // Inside SUBQUERY, a key path without the variable is the evaluated object's.
        book("SUBQUERY(pages, $p, $p.number > rating).@count >= 1", sql: "(SELECT COUNT(*) \(pagesOfB) AND p.ZNUMBER > b.ZRATING) >= 1"),
        book("SUBQUERY(tags, $t, $t.name BEGINSWITH 'F' AND rating >= 4).@count == 1",
             sql: "b.ZRATING >= 4 AND (SELECT COUNT(*) \(tagsOfB) AND tg.ZNAME GLOB 'F*') = 1"),

        // Key paths put together from arguments.
        book("%K.%K == %@", .value("author"), .value("name"), .value("Tolkien"), sql: "\(authorName) = 'Tolkien'"),
        book("%K.name BEGINSWITH 'L'", .value("author"), sql: "\(authorName) GLOB 'L*'"),
    ]
}
