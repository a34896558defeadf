import Foundation
import Strata
import Testing

/// What a store holds, table by table, read as the next user of a store left by a killed
/// process reads it: a read-write connection (which recovers a `-wal` a writer left), SQLite's
/// integrity check, and every row of every table in order.
struct StoreState: Equatable {
    /// Each table's rows (all columns, ordered by every column), as SQL writes their values;
    /// `Z_METADATA` is left out (its plist is compared through ``versionHashes``).
    var tables: [String: [String]]
    /// The entity version hashes the store's metadata records: which model made it.
    var versionHashes: [String: Data]

    /// What `PRAGMA integrity_check` said, kept apart from the rows so that two states compare
    /// by their data.
    private(set) var integrity: [String] = []
    /// Entities whose `Z_PRIMARYKEY.Z_MAX` is below a primary key their table holds: a key
    /// the next insert would hand out again.
    private(set) var keyReuse: [String] = []

    static func == (lhs: StoreState, rhs: StoreState) -> Bool {
        lhs.tables == rhs.tables && lhs.versionHashes == rhs.versionHashes
    }

    /// Reads the store at `path`, which must exist.
    init(path: String) throws {
        #expect(FileManager.default.fileExists(atPath: path), "\(path) is missing")
        var configuration = Database.Configuration()
        configuration.createsFile = false
        configuration.journalMode = nil
        let database = try Database(path: path, configuration: configuration)
        defer { database.close() }
        integrity = try database.rows("PRAGMA integrity_check").compactMap { $0.first?.stringValue }
        versionHashes = try StoreMetadata(reading: database).entityVersionHashes
        tables = [:]
        for table in try database.tableNames() where table != "Z_METADATA" {
            let columns = try database.columns(of: table).count
            let order = (1...max(columns, 1)).map(String.init).joined(separator: ", ")
            tables[table] = try database.rows("SELECT * FROM \"\(table)\" ORDER BY \(order)").map { row in
                row.map(\.description).joined(separator: "|")
            }
        }
        for row in try database.rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM Z_PRIMARYKEY") {
            guard let entity = row[0].int64Value, let name = row[1].stringValue else { continue }
            let limit = row[2].int64Value ?? 0
            let table = "Z" + name.uppercased()
            guard tables[table] != nil else { continue }
            let highest = try database.scalar("SELECT max(Z_PK) FROM \"\(table)\" WHERE Z_ENT = ?", [.integer(entity)])?.int64Value ?? 0
            if highest > limit { keyReuse.append("\(name): Z_MAX \(limit) below Z_PK \(highest)") }
        }
    }

    /// Whether the integrity check passed and no key can be handed out twice.
    var isSound: Bool { integrity == ["ok"] && keyReuse.isEmpty }

    /// The problems ``isSound`` found, for a failing expectation's message.
    var problems: String { (integrity == ["ok"] ? [] : ["integrity_check: " + integrity.prefix(5).joined(separator: "; ")]).joined() + keyReuse.joined(separator: "; ") }

    /// The rows of the table of `entity` (a root entity).
    func rows(of entity: String) -> [String] { tables["Z" + entity.uppercased()] ?? [] }
}
