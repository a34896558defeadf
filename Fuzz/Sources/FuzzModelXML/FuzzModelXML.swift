import Foundation
import Strata

// libFuzzer target: the input is the `contents` XML of an `.xcdatamodel`. Reading it may fail
// (a thrown ModelError is fine); a model that reads is validated and hashed, must write back
// as XML that reads to an equal model (what XcodeModelWriter promises, though it may add the
// <model> settings Xcode needs), and, when validation finds no error, must create an empty
// store without trapping.

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzModelXML(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let model: ObjectModel
    do {
        model = try XcodeModelReader.read(Data(bytes: data, count: size), path: "contents")
    } catch {
        return 0
    }
    let issues = model.validate()
    _ = model.entityVersionHashes()

    let written = XcodeModelWriter.contents(of: model)
    let reread: ObjectModel
    do {
        reread = try XcodeModelReader.read(Data(written.utf8), path: "written")
    } catch {
        fatalError("the XML written for a model that read does not read back: \(error)\n\(written)")
    }
    // The writer fills in the <model> settings Xcode needs (documentVersion, type, …) when the
    // model has none; the model's own settings must come back as they were.
    var settled = model
    settled.xcodeSettings.merge(reread.xcodeSettings) { own, _ in own }
    guard reread == settled else {
        fatalError("the XML written for a model reads back as another model\n\(written)")
    }

    guard !issues.contains(where: { $0.severity == .error }) else { return 0 }
    if let stack = try? DataStack(model: model, modelName: "Fuzz", store: .inMemory) {
        stack.cleanUp()
    }
    return 0
}
