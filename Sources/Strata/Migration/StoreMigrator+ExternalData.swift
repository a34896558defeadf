import Foundation

#if canImport(Glibc)
import Glibc
#endif

// A store's external binary data lives in `.<StoreName>_SUPPORT` beside it, and goes where the
// store goes: a backup gets a folder of its own (hard links to the same files, so that later
// writes to the store, which only ever add and remove files, leave the backup's whole), and the
// files a migrated store no longer names are removed.

extension StoreMigrator {
    /// Gives the backup `backup` of the store at `store` a copy of the store's support folder,
    /// under the backup's own name (`.Library.sqlite.20261122T101500Z_SUPPORT`): each file hard
    /// linked, or copied where links are not possible. Nothing when the store has no folder.
    static func copySupportFolder(of store: String, to backup: String) throws {
        guard let from = StoreFileLocation(store)?.support, let to = StoreFileLocation(backup)?.support else { return }
        let fileManager = FileManager.default
        var isFolder: ObjCBool = false
        guard fileManager.fileExists(atPath: from, isDirectory: &isFolder), isFolder.boolValue else { return }
        try? fileManager.removeItem(atPath: to)
        guard let walker = fileManager.enumerator(atPath: from) else { return }
        try fileManager.createDirectory(atPath: to, withIntermediateDirectories: true)
        while let relative = walker.nextObject() as? String {
            let source = (from as NSString).appendingPathComponent(relative), target = (to as NSString).appendingPathComponent(relative)
            if fileManager.fileExists(atPath: source, isDirectory: &isFolder), isFolder.boolValue {
                try fileManager.createDirectory(atPath: target, withIntermediateDirectories: true)
            } else if link(source, target) != 0 {
                try fileManager.copyItem(atPath: source, toPath: target)
            }
        }
    }

    /// Removes a backup made by this migration, with its support folder.
    static func removeBackup(at path: String) {
        try? FileManager.default.removeItem(atPath: path)
        if let support = StoreFileLocation(path)?.support { try? FileManager.default.removeItem(atPath: support) }
    }

    /// Removes the files of the store's external data folder that no row of `layout`'s
    /// external data columns names. A file a row names is never touched; what cannot be read
    /// leaves every file in place.
    static func removeUnreferencedExternalData(ofStoreAt path: String, layout: StoreLayout, model: ObjectModel) {
        guard let folder = ExternalBinaryStorage.folder(ofStoreAt: path),
            let files = try? FileManager.default.contentsOfDirectory(atPath: folder), !files.isEmpty
        else { return }
        var referenced: Set<String> = []
        do {
            let database = try Database(path: path, configuration: .readOnly)
            defer { database.close() }
            var columns: Set<String> = []
            for entity in layout.entities {
                guard let description = model.entity(named: entity.name) else { continue }
                for attribute in description.attributes where attribute.allowsExternalBinaryDataStorage && !attribute.isTransient {
                    if let column = entity.attributeColumns[attribute.name] { columns.insert("\(entity.tableName).\(column)") }
                }
            }
            for qualified in columns.sorted() {
                let parts = qualified.split(separator: ".").map(String.init)
                try database.cachedStatement("SELECT \(parts[1]) FROM \(parts[0]) WHERE substr(\(parts[1]), 1, 1) = x'02'").forEachRow([]) { row in
                    if case .blob(let stored) = row.value(at: 0), let name = ExternalBinaryStorage.fileName(in: stored) { referenced.insert(name) }
                    return true
                }
            }
        } catch {
            return
        }
        for name in files where !referenced.contains(name) && !name.hasPrefix(".") {
            try? FileManager.default.removeItem(atPath: (folder as NSString).appendingPathComponent(name))
        }
    }
}
