import Foundation
import Strata
import StrataLua

/// What tab completes in `strata shell`: global names, methods after `name:`, fields after
/// `name.` (an object's properties, a table's keys), entity names in the first string argument
/// of `ctx:fetch("…`, `ctx:count('…` and the like, and the dot-commands with their entities.
///
/// Lua is only asked through protected calls (``LuaState/run(_:name:arguments:)``), which
/// index values and read metatables but call no function of the script's.
struct ShellCompletion {
    let session: ScriptSession

    /// The context methods whose first argument is an entity's name.
    static let entityMethods: Set<String> = ["fetch", "each", "first", "count", "any", "query", "create", "fetch_or_create"]

    static let keywords = [
        "and", "break", "do", "else", "elseif", "end", "false", "for", "function", "goto", "if", "in", "local", "nil", "not",
        "or", "repeat", "return", "then", "true", "until", "while",
    ]

    /// Looks up the value at a dotted path from _G (raising nothing), and describes it for
    /// completion after `.` or `:`: "object\n<entity>", "type\n<metatable name>", or "keys"
    /// then its string keys (of the table, or of a string's methods), one a line.
    static let lookUp = """
        local path, separator = ...
        local value = _G
        if path ~= "" then
          for part in string.gmatch(path, "[^.]+") do
            if value == nil then return "" end
            value = value[part]
          end
        end
        local meta = getmetatable and getmetatable(value)
        -- Strata's types show their name in place of their metatable.
        local kind = type(meta) == "string" and meta or type(meta) == "table" and rawget(meta, "__name") or nil
        if kind == "strata.object" and separator == "." then return "object\\n" .. value:entity() end
        if type(kind) == "string" then return "type\\n" .. kind end
        if type(value) == "string" then value = string end
        if type(value) ~= "table" then return "" end
        local names = {"keys"}
        for key, field in next, value do
          if type(key) == "string" and string.find(key, "^[%a_][%w_]*$") and (separator == "." or type(field) == "function") then
            names[#names + 1] = key
          end
        end
        return table.concat(names, "\\n")
        """

    /// The completions of `line`, the text before the cursor.
    func complete(_ line: String) -> LineEditor.Completion {
        let model = session.stack.mainContext.model
        // A dot-command, or its entity.
        if let match = line.wholeMatch(of: /\s*\.([a-z]*)/) {
            return LineEditor.Completion(word: String(match.1), candidates: ShellDotCommand.names)
        }
        if let match = line.wholeMatch(of: /\s*\.(?:count|describe)\s+([A-Za-z0-9_]*)/) {
            return LineEditor.Completion(word: String(match.1), candidates: model.entities.map(\.name))
        }
        // An entity's name in the first argument of a fetch.
        if let match = line.firstMatch(of: /:\s*([a-z_]+)\s*\(\s*["']([A-Za-z0-9_]*)$/), Self.entityMethods.contains(String(match.1)) {
            return LineEditor.Completion(word: String(match.2), candidates: model.entities.map(\.name))
        }
        // A method or a field: `path:word`, `path.word`.
        if let match = line.firstMatch(of: /([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)([.:])([A-Za-z0-9_]*)$/) {
            let word = String(match.3), separator = String(match.2)
            // Not a field of a number (1.5) or of a name inside a string.
            let start = line[..<match.range.lowerBound]
            guard start.last.map({ !$0.isNumber && $0 != "." }) ?? true else { return LineEditor.Completion(word: word, candidates: []) }
            return LineEditor.Completion(word: word, candidates: members(of: String(match.1), separator: separator, model: model))
        }
        // A global name.
        if let match = line.firstMatch(of: /[A-Za-z_][A-Za-z0-9_]*$/) {
            let start = line[..<match.range.lowerBound]
            guard start.last.map({ !$0.isNumber }) ?? true else { return LineEditor.Completion(word: String(match.0), candidates: []) }
            return LineEditor.Completion(word: String(match.0), candidates: members(of: "", separator: ".", model: model) + Self.keywords)
        }
        return LineEditor.Completion(word: "", candidates: [])
    }

    /// The names that may follow `path` and `separator` ("." or ":"); `path` "" is _G.
    private func members(of path: String, separator: String, model: ObjectModel) -> [String] {
        let found: [LuaValue]
        do {
            found = try session.lua.run(Self.lookUp, name: "=completion", arguments: [.string(path), .string(separator)])
        } catch {
            return []
        }
        guard case .string(let description)? = found.first else { return [] }
        let lines = description.split(separator: "\n").map(String.init)
        switch lines.first {
        case "object":
            guard lines.count > 1, let entity = model.entity(named: lines[1]) else { return [] }
            return model.allAttributes(of: entity).map(\.name) + model.allRelationships(of: entity).map(\.name)
        case "type":
            return lines.count > 1 ? session.lua.methodNames(ofType: lines[1]) : []
        case "keys":
            return Array(lines.dropFirst())
        default:
            return []
        }
    }
}
