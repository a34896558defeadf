import Foundation
import Testing
@testable import Strata

/// JSON values that Swift's lenient readings took for something else are refused (issue 31):
/// `"0x10"` is no decimal number (Double("0x10") is 16), and a zone offset beyond ±18:00 is no
/// zone (`+99:00` shifted the date by 99 hours).
@Suite struct JSONValueStrictnessTests {
    @Test(arguments: [AttributeType.integer16, .integer64, .double, .float, .decimal])
    func aHexadecimalStringIsNotANumber(type: AttributeType) throws {
        for text in ["0x10", "0X1p3", "inf", "nan", "1e", "--1", ""] {
            let result = AttributeValue.fromJSON(JSONValue(.string(text)), type: type)
            guard case .failure(let mismatch) = result else {
                Issue.record("\(text) read as \(result) for \(type)")
                continue
            }
            #expect(mismatch.reason.hasSuffix("that is not a decimal number") || mismatch.reason.hasSuffix("that is not a number"), "\(text): \(mismatch.reason)")
        }
        #expect((try? AttributeValue.fromJSON(JSONValue(.string(" 16 ")), type: type).get())?.numericValue == 16)
        #expect((try? AttributeValue.fromJSON(JSONValue(.string("1.6e1")), type: type).get())?.numericValue == 16)
    }

    @Test func zoneOffsetsLieWithinEighteenHours() {
        #expect(ISO8601Text.date(from: "2024-05-01T12:00:00+99:00") == nil)
        #expect(ISO8601Text.date(from: "2024-05-01T12:00:00-18:01") == nil)
        #expect(ISO8601Text.date(from: "2024-05-01T12:00:00+05:60") == nil)
        #expect(ISO8601Text.date(from: "2024-05-01T12:00:00+18:00") == ISO8601Text.date(from: "2024-04-30T18:00:00Z"))
        #expect(ISO8601Text.date(from: "2024-05-01T12:00:00-0230") == ISO8601Text.date(from: "2024-05-01T14:30:00Z"))
        let result = AttributeValue.fromJSON(JSONValue(.string("2024-05-01T12:00:00+99:00")), type: .date)
        guard case .failure(let mismatch) = result else { Issue.record("read as \(result)"); return }
        #expect(mismatch.reason == #""2024-05-01T12:00:00+99:00" is not an ISO 8601 date"#)
    }
}
