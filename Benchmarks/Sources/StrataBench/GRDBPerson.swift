import GRDB

/// The GRDB contender: a record type mapped onto the table Strata's store keeps people in.
struct GRDBPerson: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "ZPERSON"

    var key: Int64
    var entity: Int64
    var version: Int64
    var id: Int64
    var name: String
    var age: Int32
    var score: Double
    var city: String

    enum CodingKeys: String, CodingKey {
        case key = "Z_PK", entity = "Z_ENT", version = "Z_OPT", id = "ZID", name = "ZNAME", age = "ZAGE"
        case score = "ZSCORE", city = "ZCITY"
    }

    /// A queue on the store, with Strata's synchronous setting.
    static func queue(_ path: String) throws -> DatabaseQueue {
        var configuration = Configuration()
        configuration.prepareDatabase { try $0.execute(sql: "PRAGMA synchronous = NORMAL") }
        return try DatabaseQueue(path: path, configuration: configuration)
    }

    static func insert(_ people: [PersonRecord], into path: String) throws {
        try queue(path).write { db in
            let entity = try Int64.fetchOne(db, sql: "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'") ?? 1
            for (index, person) in people.enumerated() {
                try GRDBPerson(key: Int64(index + 1), entity: entity, version: 1, id: person.id, name: person.name,
                               age: person.age, score: person.score, city: person.city).insert(db)
            }
            try db.execute(sql: "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'Person'", arguments: [people.count])
        }
    }

    /// Case 4's edit: every person's score raised by one, each row's version with it, as Core
    /// Data stores keep `Z_OPT`.
    static func raiseScores(in path: String) throws {
        try queue(path).write { db in
            for var person in try GRDBPerson.fetchAll(db) {
                person.score += 1
                person.version += 1
                try person.update(db, columns: [CodingKeys.score.rawValue, CodingKeys.version.rawValue])
            }
        }
    }

    static func fetchAll(from path: String) throws -> [GRDBPerson] {
        try queue(path).read { db in try GRDBPerson.fetchAll(db) }
    }
}
