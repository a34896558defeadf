import Foundation
import Strata
import StrataLua

/// The shell's dot-commands: a line that starts with `.` and a letter (`.5` stays a number).
/// They run on the session's thread, as chunks do, through the same context: their Lua goes
/// through ``ScriptSession/run(_:name:arguments:)``; an error is printed on one line, without
/// the Lua traceback a chunk's error has.
enum ShellDotCommand {
    /// What a dot-command asks of the shell's loop.
    enum Outcome {
        case proceed
        case quit
    }

    static let names = ["help", "entities", "describe", "count", "save", "rollback", "quit"]

    static let help = """
        .help                       this help
        .entities                   the entities, with their numbers of objects
        .describe ENTITY            an entity's attributes and relationships
        .count ENTITY [PREDICATE]   how many objects of ENTITY (match PREDICATE)
        .save                       save the changes (ctx:save())
        .rollback                   discard the unsaved changes (ctx:rollback())
        .quit                       leave the shell (as Ctrl-D does)
        = EXPR                      print the values of EXPR (as a bare expression does)
        Lua: ctx:fetch(entity[, predicate, args...]), ctx:first, ctx:each, ctx:count,
        ctx:create(entity, {attribute = value}), ctx:save(); obj.attribute, obj:delete();
        stack; strata. Tab completes names, methods, attributes and entities.
        """

    /// The command on `line`, when it is one: its name and the rest of the line.
    static func parse(_ line: String) -> (name: String, argument: String)? {
        guard let match = line.wholeMatch(of: /\s*\.([A-Za-z][A-Za-z_]*)(?:\s+(.*))?/) else { return nil }
        return (String(match.1), match.2.map { $0.trimmingCharacters(in: .whitespaces) } ?? "")
    }

    /// Runs the command `name` with `argument`; prints what it finds, or its error.
    static func run(_ name: String, argument: String, session: ScriptSession) -> Outcome {
        do throws(LuaError) {
            switch name {
            case "help":
                print(help)
            case "entities":
                try entities(session: session)
            case "describe":
                try describe(argument, session: session)
            case "count":
                let words = argument.split(separator: " ", maxSplits: 1).map(String.init)
                guard let entity = words.first else { throw LuaError(code: "usage", message: "usage: .count ENTITY [PREDICATE]") }
                try session.run("local entity, predicate = ... print(ctx:count(entity, predicate))", name: "=.count",
                                arguments: [.string(entity), words.count > 1 ? .string(words[1]) : .nil])
            case "save":
                try session.run("ctx:save()", name: "=.save")
            case "rollback":
                try session.run("ctx:rollback()", name: "=.rollback")
            case "quit":
                return .quit
            default:
                throw LuaError(code: "usage", message: "no command .\(name) (.help lists them)")
            }
        } catch {
            // A dot-command is the shell's, not the user's Lua: its traceback, and the place
            // in its chunk (`.count:1:`), would name only the shell's own code.
            var message = error.message[...]
            if let place = message.prefixMatch(of: #/\.[A-Za-z_]+:\d+: /#) { message = message[place.range.upperBound...] }
            StrataCLI.printError("strata: " + message)
        }
        return .proceed
    }

    /// Each entity with its number of objects.
    private static func entities(session: ScriptSession) throws(LuaError) {
        let entities = session.stack.mainContext.model.entities
        let width = entities.map(\.name.count).max() ?? 0
        for entity in entities {
            // Counted through ctx, as a chunk counts.
            let counted = try session.lua.run("return ctx:count(...)", name: "=.entities", arguments: [.string(entity.name)])
            let count = counted.first.map { value -> String in
                if case .integer(let count) = value { return String(count) }
                return "?"
            } ?? "?"
            print(entity.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + count + (entity.isAbstract ? "  (abstract)" : ""))
        }
    }

    /// The attributes of `name` with their types and whether they are optional, and its
    /// relationships with their destinations and kinds.
    private static func describe(_ name: String, session: ScriptSession) throws(LuaError) {
        let model = session.stack.mainContext.model
        guard !name.isEmpty else { throw LuaError(code: "usage", message: "usage: .describe ENTITY") }
        guard let entity = model.entity(named: name) else {
            throw LuaError(code: "entity", message: "the model has no entity '\(name)' (it has \(model.entities.map(\.name).joined(separator: ", ")))")
        }
        var header = entity.name
        if let parent = entity.superentityName { header += " : " + parent }
        if entity.isAbstract { header += " (abstract)" }
        print(header)
        let attributes = model.allAttributes(of: entity), relationships = model.allRelationships(of: entity)
        let width = (attributes.map(\.name.count) + relationships.map(\.name.count)).max() ?? 0
        func line(_ name: String, _ kind: String, _ notes: String) -> String {
            "  " + name.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + kind.padding(toLength: 20, withPad: " ", startingAt: 0) + "  " + notes
        }
        for attribute in attributes {
            print(line(attribute.name, attribute.type.rawValue, (attribute.isOptional ? "optional" : "required") + (attribute.isTransient ? ", transient" : "")))
        }
        for relationship in relationships {
            print(line(relationship.name, "-> " + relationship.destinationEntityName,
                       (relationship.isToMany ? "to-many" : "to-one") + ", " + (relationship.isOptional ? "optional" : "required")))
        }
    }
}
