import Foundation
import Testing
@testable import Strata

/// The Foundation methods `FUNCTION(…)` calls, read as `NSString` and `NSNumber` read them.
@Suite struct ExpressionMethodTests {
    @Test(arguments: [
        // NSString's numbers: leading white space and a sign, then as many digits as there are.
        (ExpressionMethod.intValue, DatabaseValue.text(" 12abc"), DatabaseValue.integer(12)),
        (.intValue, .text("abc"), .integer(0)),
        (.intValue, .text("-7"), .integer(-7)),
        (.intValue, .text("99999999999"), .integer(Int64(Int32.max))),
        (.integerValue, .text("99999999999"), .integer(99_999_999_999)),
        (.doubleValue, .text("3.5e2x"), .real(350)),
        (.doubleValue, .text("1e"), .real(1)),
        (.doubleValue, .text("."), .real(0)),
        (.floatValue, .text("0.1"), .real(Double(Float(0.1)))),
        (.floatValue, .real(0.1), .real(Double(Float(0.1)))),
        (.boolValue, .text(" +00y"), .integer(1)),
        (.boolValue, .text("007"), .integer(1)),
        (.boolValue, .text("no"), .integer(0)),
        (.boolValue, .text("0"), .integer(0)),
        // NSNumber's: a whole real is written without a fraction; intValue truncates.
        (.stringValue, .real(3), .text("3")),
        (.stringValue, .real(4.5), .text("4.5")),
        (.intValue, .real(-2.7), .integer(-2)),
        (.boolValue, .real(0.5), .integer(1)),
        // Strings, counted in UTF-16 code units as NSString counts them.
        (.length, .text("é😀"), .integer(3)),
        (.capitalizedString, .text("the left hand"), .text("The Left Hand")),
        (.lastPathComponent, .text("/usr/share/man/man1/strata.1"), .text("strata.1")),
        (.pathExtension, .text("notes.tar.gz"), .text("gz")),
        // The wrong kind of receiver, and nil, give nil.
        (.length, .integer(5), .null),
        (.timeIntervalSince1970, .text("2001"), .null),
        (.uppercaseString, .null, .null),
        (.timeIntervalSince1970, .real(0), .real(978_307_200)),
    ])
    func methodsReadTheirReceiverAsFoundationDoes(method: ExpressionMethod, receiver: DatabaseValue, result: DatabaseValue) {
        #expect(method.apply(to: receiver, []) == result)
    }

    @Test func methodsWithArgumentsGiveNilWhereFoundationWouldRaise() {
        #expect(ExpressionMethod.prefix.apply(to: .text("Dune"), [.integer(2)]) == .text("Du"))
        #expect(ExpressionMethod.suffix.apply(to: .text("Dune"), [.integer(4)]) == .text(""))
        #expect(ExpressionMethod.suffix.apply(to: .text("Dune"), [.integer(5)]) == .null)
        #expect(ExpressionMethod.prefix.apply(to: .text("😀"), [.integer(1)]) == .null)
        #expect(ExpressionMethod.hasPrefix.apply(to: .text("Dune"), [.text("")]) == .integer(0))
        #expect(ExpressionMethod.contains.apply(to: .text("Dune"), [.text("un")]) == .integer(1))
        #expect(ExpressionMethod.appending.apply(to: .text("Dune"), [.integer(2)]) == .null)
        #expect(ExpressionMethod.appending.apply(to: .text("Dune"), []) == .null)
    }
}
