import CSQLite
import Foundation

// Core Data registers SQL functions and collations on its connections; its stores may call them
// from triggers (derived attributes, persistent history) and its fetches call them for string
// operators. Strata registers the same names with the same arities, so that Strata can write to
// such stores and use the functions in its own SQL. Core Data's exact encodings are not public;
// where Strata's meaning is its own, the comment on the function says so.

extension Database {
    func registerCoreDataFunctions() throws(DatabaseError) {
        // NSCoreDataLike(value, pattern, options): 1 when `value` matches the LIKE pattern
        // (`*`, `?`), with NSComparisonPredicate options (1 = [c], 2 = [d]). A match over budget
        // fails the statement (see `defineFunction`).
        try defineFunction("NSCoreDataLike", arity: 3) { arguments throws(StringMatchError) -> DatabaseValue in
            guard let value = arguments[0].stringValue, let pattern = arguments[1].stringValue else { return .null }
            let options = CoreDataStringMatching.Options(rawValue: arguments[2].int64Value ?? 0)
            return .boolean(try CoreDataStringMatching.like(value, pattern: pattern, options: options))
        }
        // NSCoreDataMatches(value, regex, options): 1 when the ICU regular expression matches the
        // whole value. A pattern ICU refuses, or a match over budget, fails the statement: read as
        // 0, `NOT` of it selected every row (and `delete` deleted them).
        try defineFunction("NSCoreDataMatches", arity: 3) { arguments throws(StringMatchError) -> DatabaseValue in
            guard let value = arguments[0].stringValue, let pattern = arguments[1].stringValue else { return .null }
            let options = CoreDataStringMatching.Options(rawValue: arguments[2].int64Value ?? 0)
            return .boolean(try CoreDataStringMatching.matches(value, pattern: pattern, options: options))
        }
        // strata_like(value, pattern, options, place) and strata_matches(…): Strata's own, the two
        // above with the compared attribute (`Book.title`) for the error's message.
        try defineFunction("strata_like", arity: 4) { arguments throws(StringMatchError) -> DatabaseValue in
            guard let value = arguments[0].stringValue, let pattern = arguments[1].stringValue else { return .null }
            let options = CoreDataStringMatching.Options(rawValue: arguments[2].int64Value ?? 0)
            return .boolean(try CoreDataStringMatching.like(value, pattern: pattern, options: options, place: arguments[3].stringValue))
        }
        try defineFunction("strata_matches", arity: 4) { arguments throws(StringMatchError) -> DatabaseValue in
            guard let value = arguments[0].stringValue, let pattern = arguments[1].stringValue else { return .null }
            let options = CoreDataStringMatching.Options(rawValue: arguments[2].int64Value ?? 0)
            return .boolean(try CoreDataStringMatching.matches(value, pattern: pattern, options: options, place: arguments[3].stringValue))
        }
        // NSCoreDataStringSearch(value, needle, compareOptions, _): Strata reads the third argument
        // as NSString.CompareOptions bits (1 case-insensitive, 4 backwards, 8 anchored,
        // 128 diacritic-insensitive, 256 width-insensitive): 1 when `needle` occurs in `value`
        // (anchored: at the start; anchored and backwards: at the end); never for an empty needle,
        // which Foundation finds nowhere. The fourth is ignored.
        try defineFunction("NSCoreDataStringSearch", arity: 4) { arguments in
            guard let value = arguments[0].stringValue, let needle = arguments[1].stringValue else { return .null }
            let bits = UInt(truncatingIfNeeded: arguments[2].int64Value ?? 0)
            let options = String.CompareOptions(rawValue: bits).intersection([
                .caseInsensitive, .backwards, .anchored, .diacriticInsensitive, .widthInsensitive,
            ])
            return .boolean(!needle.isEmpty && value.range(of: needle, options: options) != nil)
        }
        try defineFunction("NSCoreDataToUpper", arity: 1) { $0[0].stringValue.map { .text($0.uppercased()) } ?? $0[0] }
        try defineFunction("NSCoreDataToLower", arity: 1) { $0[0].stringValue.map { .text($0.lowercased()) } ?? $0[0] }
        // NSCoreDataCanonical(value): Strata's meaning: lower case without accents, the form
        // [cd] comparisons compare.
        try defineFunction("NSCoreDataCanonical", arity: 1) { arguments in
            arguments[0].stringValue.map { .text(CoreDataStringMatching.fold($0, [.caseInsensitive, .diacriticInsensitive])) }
                ?? arguments[0]
        }
        // NSCoreDataStringCompare(a, b, operator, options, _): Strata's meaning: the comparison
        // `a operator b` with NSPredicate operator numbers (0 <, 1 <=, 2 >, 3 >=, 4 ==, 5 !=) after
        // folding both sides by the options (1 = [c], 2 = [d]).
        try defineFunction("NSCoreDataStringCompare", arity: 5) { arguments in
            guard let left = arguments[0].stringValue, let right = arguments[1].stringValue else { return .null }
            let options = CoreDataStringMatching.Options(rawValue: arguments[3].int64Value ?? 0)
            let a = CoreDataStringMatching.fold(left, options), b = CoreDataStringMatching.fold(right, options)
            switch arguments[2].int64Value ?? 4 {
            case 0: return .boolean(a < b)
            case 1: return .boolean(a <= b)
            case 2: return .boolean(a > b)
            case 3: return .boolean(a >= b)
            case 5: return .boolean(a != b)
            default: return .boolean(a == b)
            }
        }
        // NSCoreDataNow(): the current time as seconds since 2001-01-01, as dates are stored.
        try defineFunction("NSCoreDataNow", arity: 0, isDeterministic: false) { _ in .real(Date().timeIntervalSinceReferenceDate) }
        // strata_function(name, arguments…): Strata's own, the built-in function `name` of
        // Core Data's expressions (`sqrt:`, `add:to:`), as ExpressionFunction applies it in
        // memory; NULL for an unknown name. Not deterministic, since `now` is not.
        try defineFunction("strata_function", arity: -1, isDeterministic: false) { arguments in
            guard let name = arguments.first?.stringValue, let function = ExpressionFunction(rawValue: name) else { return .null }
            return function.apply(Array(arguments.dropFirst()))
        }
        // A function whose effect lies in Core Data's object graph, not in the database (Codable
        // conversion): Strata returns the value it converts unchanged.
        try defineFunction("NSCoreDataConvertTransformableToCodable", arity: 3) { $0[0] }
        try registerExternalDataFunctions()
        // The callbacks of derived-attribute triggers, (table, Z_ENT, Z_PK, attribute, new
        // value): a save records them (``recordingDerivedValues(_:)``) to bring the objects it
        // holds up to date. Their result is not used.
        let reports = derivedValueReports
        for name in ["NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", "NSCoreDataDATriggerUpdatedAffectedObjectValue"] {
            try defineFunction(name, arity: 5, isDeterministic: false) { arguments in
                if reports.isRecording, let table = arguments[0].stringValue, let entity = arguments[1].int64Value,
                    let key = arguments[2].int64Value, let attribute = arguments[3].stringValue {
                    reports.changes.append(DerivedValueChange(
                        table: table, entityNumber: Int(entity), primaryKey: key, attribute: attribute, value: arguments[4]))
                }
                return .null
            }
        }
        // NSCoreDataDATriggerMergeableString(table, Z_ENT, Z_PK, attribute, value): a trigger
        // sets the derived column to its result; Strata's is the value itself (Core Data's
        // merges concurrent edits of a string it tracks, which Strata does not).
        try defineFunction("NSCoreDataDATriggerMergeableString", arity: 5, isDeterministic: false) { $0[4] }
        // Callbacks of other triggers (persistent history) that tell Core Data's contexts what
        // changed. Strata's contexts refetch what they need, so these do nothing and return NULL.
        for (name, arity) in [
            ("NSCoreDataTriggerUpdateAffectedObjectValue", 5),
            ("NSPersistentHistoryBatchDeleteUpdateTrigger", -1), ("NSPersistentHistoryBatchDeleteUpdateTriggerDataBlobOperator", -1),
        ] {
            try defineFunction(name, arity: Int32(arity), isDeterministic: false) { _ in .null }
        }

        try defineCollation("NSCollateNoCase", CoreDataStringMatching.caseInsensitiveOrder)
        try defineCollation("NSCollateNumericallyNoCase") { $0.compare($1, options: [.caseInsensitive, .numeric]) }
        try defineCollation("NSCollateLocaleSensitive") { $0.compare($1, locale: Locale.current) }
        try defineCollation("NSCollateLocaleSensitiveNoCase") { $0.compare($1, options: .caseInsensitive, locale: Locale.current) }
        try defineCollation("NSCollateFinderlike") { $0.localizedStandardCompare($1) }
    }

    // MARK: - Registering Swift closures

    /// Registers `body` as the SQL function `name` taking `arity` arguments (-1: any number).
    /// A deterministic function gives the same result for the same arguments, which lets SQLite
    /// use it in indexes and factor it out of loops.
    ///
    /// An error that `body` throws (a ``StringMatchError``, an ``ExternalDataError``) fails the
    /// statement (`sqlite3_result_error`) with its description as SQLite's message, and becomes
    /// the ``DatabaseError/functionFailure`` of the error the statement throws: the query stops,
    /// and a write in it is not made.
    func defineFunction<Failure: Error>(
        _ name: String, arity: Int32, isDeterministic: Bool = true, _ body: @escaping ([DatabaseValue]) throws(Failure) -> DatabaseValue
    ) throws(DatabaseError) {
        let box = Unmanaged.passRetained(FunctionBox({ arguments throws in try body(arguments) }, failures: functionFailures)).toOpaque()
        let code = sqlite3_create_function_v2(
            handle, name, arity, SQLITE_UTF8 | (isDeterministic ? SQLITE_DETERMINISTIC : 0), box,
            { context, count, values in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)).takeUnretainedValue()
                let arguments = (0..<Int(count)).map { DatabaseValue(sqliteValue: values?[$0]) }
                do {
                    sqlite3_result(context, try box.body(arguments))
                } catch {
                    box.failures.latest = error
                    sqlite3_result_error(context, String(describing: error), -1)
                }
            },
            nil, nil,
            { box in box.map { Unmanaged<FunctionBox>.fromOpaque($0).release() } })
        guard code == SQLITE_OK else { throw error(code: code) }
    }

    /// Registers `compare` as the collation `name`.
    func defineCollation(_ name: String, _ compare: @escaping (String, String) -> ComparisonResult) throws(DatabaseError) {
        let box = Unmanaged.passRetained(CollationBox(compare)).toOpaque()
        let code = sqlite3_create_collation_v2(
            handle, name, SQLITE_UTF8, box,
            { box, leftCount, left, rightCount, right in
                let collation = Unmanaged<CollationBox>.fromOpaque(box!).takeUnretainedValue()
                let a = String(decoding: UnsafeRawBufferPointer(start: left, count: Int(leftCount)), as: UTF8.self)
                let b = String(decoding: UnsafeRawBufferPointer(start: right, count: Int(rightCount)), as: UTF8.self)
                return Int32(collation.compare(a, b).rawValue)
            },
            { box in box.map { Unmanaged<CollationBox>.fromOpaque($0).release() } })
        guard code == SQLITE_OK else { throw error(code: code) }
    }
}

private final class FunctionBox {
    let body: ([DatabaseValue]) throws -> DatabaseValue
    let failures: FunctionFailures
    init(_ body: @escaping ([DatabaseValue]) throws -> DatabaseValue, failures: FunctionFailures) {
        self.body = body
        self.failures = failures
    }
}

/// The error a connection's SQL function threw last, kept until the failed statement's
/// ``DatabaseError`` takes it as its cause (SQLite itself keeps only the message).
final class FunctionFailures {
    var latest: (any Error)?
}

/// A derived value that a trigger of Core Data's wrote: the row (its table, `Z_ENT` and
/// `Z_PK`), the derived attribute's name and its new value.
struct DerivedValueChange: Sendable, Equatable {
    var table: String
    var entityNumber: Int
    var primaryKey: Int64
    var attribute: String
    var value: DatabaseValue
}

/// The derived values triggers reported on a connection while a save records them.
final class DerivedValueReports {
    var isRecording = false
    var changes: [DerivedValueChange] = []
}

extension Database {
    /// Runs `body` and returns, with its result, the derived values that Core Data's triggers
    /// reported while it ran, in the order they were written (a later one for the same row
    /// and attribute replaces an earlier one).
    func recordingDerivedValues<T>(_ body: () throws -> T) rethrows -> (result: T, changes: [DerivedValueChange]) {
        let wasRecording = derivedValueReports.isRecording, earlier = derivedValueReports.changes.count
        derivedValueReports.isRecording = true
        defer {
            derivedValueReports.isRecording = wasRecording
            if !wasRecording { derivedValueReports.changes = [] }
        }
        let result = try body()
        return (result, Array(derivedValueReports.changes[earlier...]))
    }
}

private final class CollationBox {
    let compare: (String, String) -> ComparisonResult
    init(_ compare: @escaping (String, String) -> ComparisonResult) { self.compare = compare }
}

extension DatabaseValue {
    /// The value an `sqlite3_value` holds: a column of a row (``Statement/column(_:)``) or an
    /// argument of an SQL function.
    init(sqliteValue value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT: self = .text(String(sqliteText: value))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            self = count > 0 ? .blob(Data(bytes: sqlite3_value_blob(value), count: count)) : .blob(Data())
        default: self = .null
        }
    }

    static func boolean(_ value: Bool) -> DatabaseValue { .integer(value ? 1 : 0) }
}

func sqlite3_result(_ context: OpaquePointer?, _ value: DatabaseValue) {
    switch value {
    case .null: sqlite3_result_null(context)
    case .integer(let integer): sqlite3_result_int64(context, integer)
    case .real(let real): sqlite3_result_double(context, real)
    case .text(let text): sqlite3_result_text(context, text, -1, sqliteTransient)
    case .blob(let data):
        data.withUnsafeBytes { bytes in
            sqlite3_result_blob64(context, bytes.baseAddress, UInt64(bytes.count), sqliteTransient)
        }
    }
}
