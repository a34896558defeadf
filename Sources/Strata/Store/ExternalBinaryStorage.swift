import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Core Data's storage of Binary attributes marked `allowsExternalBinaryDataStorage`: the
/// column holds a marker byte, then either the value itself or the name of a file in
/// `.<StoreName>_SUPPORT/_EXTERNAL_DATA/` beside the store.
///
/// ```text
/// 01 <bytes>                      the value, kept in the row
/// 02 <file name, UTF-8> 00        the value is the file's content (38 bytes for a UUID name)
/// ```
///
/// What was confirmed and what was not: no store of the shared corpus has such an attribute
/// with data, so none of the format is confirmed on a store Core Data wrote. The markers, the
/// NUL after the name, the folder, the file named by an upper-case UUID string, and the size
/// above which a value goes to a file (131,072 bytes: a longer value goes to a file, a value of
/// that size or less stays in the row) follow Core Data's framework as public disassemblies of
/// it show it (`_PFExternalReferenceData`, the save plan's `0x20000` threshold), and agree with
/// what developers report (the folder since 2011, "about 128 KB" measured). Core Data reads a
/// value whose first byte is not `01` as a file reference; Strata reads a value with neither
/// marker as the data itself (what older Strata wrote), never as a file.
struct ExternalBinaryStorage: Sendable {
    static let inlineMarker: UInt8 = 0x01
    static let fileMarker: UInt8 = 0x02
    /// The largest value kept in the row: one byte more goes to a file.
    static let largestInlineCount = 131_072

    /// `.<StoreName>_SUPPORT/_EXTERNAL_DATA` beside the store file; `nil` for a store in
    /// memory, which keeps every value in its row.
    let folder: String?

    /// The storage of the store at `path` (its symbolic links followed), or of a store in memory.
    init(storePath path: String, isInMemory: Bool) {
        folder = isInMemory ? nil : Self.folder(ofStoreAt: path)
    }

    init(folder: String?) {
        self.folder = folder
    }

    /// The folder of external data files of the store at `path`: `_EXTERNAL_DATA` in the
    /// store's support folder.
    static func folder(ofStoreAt path: String) -> String? {
        StoreFileLocation(path).map { ($0.support as NSString).appendingPathComponent("_EXTERNAL_DATA") }
    }

    // MARK: - Writing

    /// The column value for `data`: the data behind the inline marker, or, for a value longer
    /// than ``largestInlineCount`` (unless `inline`), the reference to a new file written and
    /// synced to disk first, which `database` removes if its transaction rolls back.
    func storedValue(of data: Data, inline: Bool = false, database: Database) throws -> Data {
        guard !inline, data.count > Self.largestInlineCount, let folder else { return Data([Self.inlineMarker]) + data }
        let name = UUID().uuidString
        let file = (folder as NSString).appendingPathComponent(name)
        try Self.write(data, to: file, in: folder)
        database.removeOnRollback(file)
        var stored = Data([Self.fileMarker])
        stored.append(Data(name.utf8))
        stored.append(0)
        return stored
    }

    /// Writes `data` as `file` through a temporary name, synced before and after the rename, so
    /// that the file is whole on disk before any row names it.
    private static func write(_ data: Data, to file: String, in folder: String) throws {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let partial = (folder as NSString).appendingPathComponent(".\((file as NSString).lastPathComponent).partial")
        do {
            try data.write(to: URL(fileURLWithPath: partial))
            sync(partial)
            guard rename(partial, file) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            sync(folder)
        } catch {
            try? FileManager.default.removeItem(atPath: partial)
            throw StoreError.fileOperation(path: file, cause: error)
        }
    }

    private static func sync(_ path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return }
        fsync(descriptor)
        close(descriptor)
    }

    // MARK: - Reading

    /// The name of the file a column value refers to, if it is a file reference.
    static func fileName(in stored: Data) -> String? {
        guard stored.first == fileMarker, let end = stored.dropFirst().firstIndex(of: 0) else { return nil }
        let name = String(decoding: stored[stored.index(after: stored.startIndex)..<end], as: UTF8.self)
        // A name is a file in the folder, never a path out of it.
        guard !name.isEmpty, !name.contains("/"), name != ".", name != ".." else { return nil }
        return name
    }

    /// The value a column holds: the bytes after the inline marker, or the content of the
    /// file a reference names; a value with neither marker, as it is.
    ///
    /// - Throws: ``ExternalDataError`` when the file is missing or cannot be read, naming it and
    ///   `place` (the attribute and object).
    func data(ofStored stored: Data, place: String) throws(ExternalDataError) -> Data {
        switch stored.first {
        case Self.inlineMarker?: return stored.dropFirst()
        case Self.fileMarker?:
            guard let name = Self.fileName(in: stored) else { return stored }
            guard let folder else { throw ExternalDataError(file: name, place: place, reason: .noFolder) }
            let file = (folder as NSString).appendingPathComponent(name)
            guard FileManager.default.fileExists(atPath: file) else { throw ExternalDataError(file: file, place: place, reason: .missing) }
            do {
                return try Data(contentsOf: URL(fileURLWithPath: file))
            } catch {
                throw ExternalDataError(file: file, place: place, reason: .unreadable(error))
            }
        default: return stored
        }
    }
}

extension ExternalBinaryStorage {
    /// The SQL that reads `column` (an SQL term, `t0.ZCOVER`) of an attribute that allows
    /// external storage as the data it stands for; `key` is the row's `Z_PK` (or `NULL`) and
    /// `place` the attribute (`Book.cover`), which a missing file's error names.
    func readingSQL(_ column: String, key: String, place: String) -> String {
        let folder = folder.map { "'" + $0.replacingOccurrences(of: "'", with: "''") + "'" } ?? "NULL"
        return "strata_external_data(\(column), \(key), \(folder), '\(place.replacingOccurrences(of: "'", with: "''"))')"
    }
}
