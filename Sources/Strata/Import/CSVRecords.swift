import Foundation

/// The records of a CSV file for an import: each row after the header made into the JSON
/// record ``ImportSession`` reads, so that CSV imports exactly as the same records in JSON do.
///
/// It reads CSV as `strata export --format csv` writes it (see ``Exporter``), and as
/// `sqlite3 -csv -header` writes it:
///
/// - The header names the keys, as a JSON record's keys: an attribute's name, snake_case
///   name or mapped key; a dotted key (`location.city`) makes nested objects; `author_id` holds
///   a to-one's identity value and `tags_ids` a to-many's, separated by spaces.
/// - An empty field is nil (`null`); a quoted empty field (`""`) is the empty string, as
///   `sqlite3` writes them.
/// - Other values are text, which the import converts by the attribute's type as it converts
///   JSON strings: numbers, booleans (`true`/`false`, `1`/`0`, `yes`/`no`), dates in ISO 8601
///   (or Unix seconds), binary data in base64, UUIDs and URLs as text.
/// - A Transformable attribute's field holds its value's JSON, as the export writes it.
///
/// Each value keeps its field's line and column, so an import's error about a value names
/// them. A row whose number of fields differs from the header's is an error naming its line.
///
/// ```swift
/// var reader = try CSVReader(path: "books.csv")
/// let records = try CSVRecords(header: try reader.nextRow() ?? [], entity: "Book", model: model)
/// while let row = try reader.nextRow() {
///     if let record = try records.record(row) { batch.append(record) }
/// }
/// ```
package struct CSVRecords: Sendable {
    /// What a column holds, found once from its header key.
    private enum Column: Sendable {
        case text
        /// A to-many's identity values, separated by spaces.
        case identityList
        /// A Transformable value's JSON.
        case json
    }

    private let keys: [(path: [String], column: Column, location: SourceLocation)]

    /// The columns of `header` for records of `entity`.
    ///
    /// - Throws: ``ImportError`` for an unknown entity, an empty or repeated header key.
    package init(header: [CSVReader.Field], entity: String, model: ObjectModel) throws(ImportError) {
        guard let description = model.entity(named: entity) else {
            throw ImportError(.unknownEntity(name: entity, known: model.entities.map(\.name)))
        }
        let mapping = try EntityImportMapping(entity: description, model: model, identity: nil)
        var seen: Set<String> = []
        var keys: [(path: [String], column: Column, location: SourceLocation)] = []
        for field in header {
            let key = field.text.trimmingCharacters(in: .whitespaces)
            guard !key.isEmpty else { throw ImportError("the header names no key for this column", entity: entity, at: field.location) }
            guard seen.insert(key.lowercased()).inserted else { throw ImportError("the header names '\(key)' twice", entity: entity, key: key, at: field.location) }
            let path = key.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            keys.append((path, Self.column(for: path, in: mapping), field.location))
        }
        self.keys = keys
    }

    /// The header's keys, in order.
    var keyNames: [String] { keys.map { $0.path.joined(separator: ".") } }

    private static func column(for path: [String], in mapping: EntityImportMapping) -> Column {
        let lowercased = path.map { $0.lowercased() }
        if path.count == 1, mapping.relationships.contains(where: { $0.relationship.isToMany && $0.identityKey.lowercased() == lowercased[0] }) {
            return .identityList
        }
        let isTransformable = mapping.attributes.contains { attribute, keys in
            attribute.type == .transformable
                && (keys.mapped.contains(path) || (path.count == 1 && keys.names.contains { $0.lowercased() == lowercased[0] }))
        }
        return isTransformable ? .json : .text
    }

    /// The record of a row, or `nil` for an empty line (one empty field) of a file whose
    /// header has several keys.
    ///
    /// - Throws: ``ImportError`` naming the line for a row of the wrong length, and the line
    ///   and column of a Transformable value that is not JSON.
    package func record(_ row: [CSVReader.Field]) throws(ImportError) -> JSONValue? {
        let location = row.first?.location
        if row.count == 1, keys.count > 1, row[0].text.isEmpty, !row[0].isQuoted { return nil }
        guard row.count == keys.count else {
            throw ImportError("\(row.count) field\(row.count == 1 ? "" : "s"), but the header has \(keys.count)", at: location)
        }
        var members: [JSONMember] = []
        for (key, field) in zip(keys, row) {
            let value = try Self.value(of: field, as: key.column, key: key.path.joined(separator: "."))
            Self.insert(value, at: key.path[...], into: &members, location: field.location)
        }
        return JSONValue(.object(members), location: location)
    }

    private static func value(of field: CSVReader.Field, as column: Column, key: String) throws(ImportError) -> JSONValue {
        if field.text.isEmpty, !field.isQuoted { return JSONValue(.null, location: field.location) }
        switch column {
        case .text:
            return JSONValue(.string(field.text), location: field.location)
        case .identityList:
            let values = field.text.split(whereSeparator: \.isWhitespace).map { JSONValue(.string(String($0)), location: field.location) }
            return JSONValue(.array(values), location: field.location)
        case .json:
            do {
                var value = try JSONReader.parse(Data(field.text.utf8))
                value.location = field.location
                return value
            } catch {
                throw ImportError(.notJSON(error), key: key, at: field.location)
            }
        }
    }

    /// Puts `value` at the dotted `path` of the record's members, making nested objects.
    private static func insert(_ value: JSONValue, at path: ArraySlice<String>, into members: inout [JSONMember], location: SourceLocation) {
        let key = path.first!
        guard path.count > 1 else {
            members.append(JSONMember(key, value, keyLocation: location))
            return
        }
        var nested: [JSONMember] = []
        var index = members.endIndex
        if let existing = members.firstIndex(where: { $0.key == key }), case .object(let found) = members[existing].value.kind {
            nested = found
            index = existing
        }
        insert(value, at: path.dropFirst(), into: &nested, location: location)
        let object = JSONMember(key, JSONValue(.object(nested), location: location), keyLocation: location)
        if index == members.endIndex { members.append(object) } else { members[index] = object }
    }
}
