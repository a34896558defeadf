import ArgumentParser
import Foundation
import Strata

/// The options that choose what a read command looks at: an entity's objects narrowed by a
/// predicate, or a model's fetch request template with its variables.
struct PredicateOptions: ParsableArguments {
    @Option(
        name: .customLong("where"), parsing: .unconditional,
        help: ArgumentHelp("Only objects that satisfy this predicate, in Core Data's format.", valueName: "predicate"),
        transform: PredicateArgument.predicate)
    var predicate: ObjectPredicate?

    @Option(help: ArgumentHelp("Run the model's fetch request template of this name (ENTITY may then be left out).", valueName: "name"))
    var template: String?

    @Option(
        name: .customLong("var"),
        help: ArgumentHelp(
            "A value for a $VARIABLE of the template's predicate; repeatable. VALUE is read as a number, YES/NO, nil, a quoted string, or a list such as {1, 2, 'three'}; anything else is a string.",
            valueName: "name=value"))
    var variables: [String] = []

    func validate() throws {
        if template == nil, !variables.isEmpty { throw ValidationError("--var needs --template") }
        for variable in variables {
            guard let equals = variable.firstIndex(of: "=") else { throw ValidationError("--var '\(variable)': expected NAME=VALUE") }
            let value = String(variable[variable.index(after: equals)...])
            if PredicateValue.looksLikeList(value), case .failure(let error) = PredicateValue.list(value) {
                throw ValidationError("--var '\(variable)': VALUE is not a list: \(error)")
            }
        }
    }

    /// The request for `entity` (or the template's); the --where predicate narrows a
    /// template's own.
    func makeRequest(entity: String?, model: ObjectModel) throws -> FetchRequest {
        var request: FetchRequest
        if let template {
            request = try model.fetchRequest(fromTemplate: template, substitutionVariables: substitutionVariables)
            if let entity, entity != request.entityName {
                throw CLIError.refused(.templateEntity(template: template, fetches: request.entityName, entity: entity))
            }
        } else if let entity {
            request = FetchRequest(entityName: entity)
        } else {
            throw CLIError.missing(.entityOrTemplate)
        }
        if let predicate {
            request.predicate = request.predicate.map { .and([$0, predicate]) } ?? predicate
        }
        return request
    }

    private var substitutionVariables: [String: PredicateValue] {
        Dictionary(variables.map { entry in
            let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            return (String(parts[0]).trimmingCharacters(in: CharacterSet(charactersIn: "$")), PredicateValue(commandLine: String(parts[1])))
        }, uniquingKeysWith: { _, last in last })
    }
}

/// The options that shape a fetch's results, shared by `strata fetch` and `strata query`.
struct RequestOptions: ParsableArguments {
    @OptionGroup var selection: PredicateOptions

    @Option(
        name: .customLong("sort"),
        help: ArgumentHelp("Order by this key path; repeat for more keys. Add :desc to reverse, :nocase to ignore case.", valueName: "key[:desc]"),
        transform: PredicateArgument.sortKey)
    var sortKeys: [ObjectSortDescriptor] = []

    // Parsed unconditionally, as the other numeric options are: `--limit -1` is a value that
    // validate() refuses by name, not an option left without its value.
    @Option(parsing: .unconditional, help: ArgumentHelp("At most this many results.", valueName: "n"))
    var limit: Int?

    @Option(parsing: .unconditional, help: ArgumentHelp("Skip this many results first.", valueName: "n"))
    var offset: Int?

    @OptionGroup var output: FormatOptions<RowFormat>

    var format: RowFormat { output.format }

    @Flag(help: "Print a table on a terminal straight to it, not through $STRATA_PAGER, $PAGER or less.")
    var noPager = false

    func validate() throws {
        if let limit, limit < 1 { throw ValidationError("--limit must be at least 1") }
        if let offset, offset < 0 { throw ValidationError("--offset cannot be negative") }
    }

    var template: String? { selection.template }

    /// The request for `entity` (or the template's) with the options applied.
    func makeRequest(entity: String?, model: ObjectModel) throws -> FetchRequest {
        var request = try selection.makeRequest(entity: entity, model: model)
        request.sortDescriptors += sortKeys
        if let limit { request.fetchLimit = limit }
        if let offset { request.fetchOffset = offset }
        return request
    }
}

/// How `fetch`, `query`, `sql` and `history` print rows.
enum RowFormat: String, CaseIterable, ExpressibleByArgument, FormatChoice {
    case table
    case json
    case ndjson
    case csv

    static let defaultFormat = RowFormat.table
    static let formatHelp = "How to print the results: an aligned table, a JSON array, one JSON object per line, or CSV with a header."
}

extension PredicateValue {
    /// A value given on the command line: an integer or a decimal number, `YES`/`NO`/`true`/
    /// `false`, `nil`/`null`, a string in single or double quotes; anything else is a string.
    init(commandLine text: String) {
        let lowered = text.lowercased()
        if Self.looksLikeList(text), case .success(let list) = Self.list(text) {
            self = list
        } else if let integer = Int64(text) {
            self = .integer(integer)
        } else if let number = Double(text), number.isFinite, text.contains(where: \.isNumber) {
            self = .double(number)
        } else if ["yes", "true"].contains(lowered) {
            self = .bool(true)
        } else if ["no", "false"].contains(lowered) {
            self = .bool(false)
        } else if ["nil", "null"].contains(lowered) {
            self = .null
        } else if text.count >= 2, let quote = text.first, quote == "'" || quote == "\"", text.last == quote {
            self = .string(String(text.dropFirst().dropLast()))
        } else {
            self = .string(text)
        }
    }

    static func looksLikeList(_ text: String) -> Bool {
        text.hasPrefix("{") && text.hasSuffix("}")
    }

    /// `{1, 2, 'three'}` as a list, read as the predicate format reads one; the problem with
    /// it otherwise.
    static func list(_ text: String) -> Result<PredicateValue, ValidationError> {
        do {
            if case .comparison(let comparison) = try ObjectPredicate(format: "SELF IN " + text), case .value(let list) = comparison.right {
                return .success(list)
            }
            return .failure(ValidationError("only constants may be listed, such as {1, 2, 'three'}"))
        } catch {
            return .failure(ValidationError(error.message))
        }
    }
}
