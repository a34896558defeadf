import Foundation
import Strata
import StrataFuzzSupport

// libFuzzer target: the input is a JSON import payload, imported twice into a new empty
// in-memory store of the fuzz model: the first pass creates, the second updates the same
// objects and removes what it did not see. Syntax errors, import errors and failed saves are
// fine; only traps, sanitizer reports and hangs are bugs.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSONImport(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let json: JSONValue
    do {
        json = try JSONReader.parse(Data(bytes: data, count: size))
    } catch {
        return 0
    }
    let (stack, context) = FuzzModel.newStack()
    defer { stack.cleanUp() }
    context.performAndWait {
        for pass in 0..<2 {
            let session = ImportSession(context: context)
            do {
                try session.import(json, into: "Author")
                if pass == 1 { _ = try session.removeDeprecated(["Author", "Book", "Tag"]) }
                try context.save()
            } catch {
                context.rollback()
            }
        }
    }
    return 0
}
