import CBaseline
import Foundation
import Strata

/// The data and stores every case starts from, made once per run in a scratch folder, and
/// fresh copies of them for each round.
final class Workbench {
    let folder: URL
    /// The people of the 100,000-row cases.
    let people: [PersonRecord]
    let empty: String
    /// A store holding `people`.
    let full: String
    /// A store holding the first half of `people`: what case 5's import finds already there.
    let half: String
    private var copies = 0

    init(folder: URL, rows: Int) throws {
        self.folder = folder
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        people = PersonRecord.generate(count: rows)
        empty = folder.appendingPathComponent("empty.sqlite").path
        full = folder.appendingPathComponent("full.sqlite").path
        half = folder.appendingPathComponent("half.sqlite").path
        Workbench.remove(empty)
        try PersistentStore.create(at: empty, model: People.model).close()
        try copy(empty, to: full)
        try withBaselineRows(people) { rows, count in try baseline { baseline_insert(full, rows, count, $0, $1) } }
        try copy(empty, to: half)
        try withBaselineRows(Array(people.prefix(rows / 2))) { rows, count in
            try baseline { baseline_insert(half, rows, count, $0, $1) }
        }
    }

    /// A new copy of `template` for one round of one contender.
    func fresh(_ template: String) throws -> String {
        copies += 1
        let path = folder.appendingPathComponent("round-\(copies).sqlite").path
        try copy(template, to: path)
        return path
    }

    func path(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }

    /// Deletes a round's store and its sidecars.
    func discard(_ path: String) {
        Workbench.remove(path)
    }

    private func copy(_ source: String, to destination: String) throws {
        Workbench.remove(destination)
        try FileManager.default.copyItem(atPath: source, toPath: destination)
    }

    static func remove(_ path: String) {
        for file in [path, path + "-wal", path + "-shm", path + "-journal"] {
            try? FileManager.default.removeItem(atPath: file)
        }
    }
}

/// Calls a C baseline function with room for its error message, and throws that message when
/// it returns a result code other than 0.
func baseline(_ call: (UnsafeMutablePointer<CChar>, Int32) -> Int32) throws {
    var message = [CChar](repeating: 0, count: 512)
    let code = message.withUnsafeMutableBufferPointer { call($0.baseAddress!, Int32($0.count)) }
    guard code == 0 else {
        throw CommandFailure(description: "C baseline: \(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)) (SQLite code \(code))")
    }
}
