import CLua
import CLuaBridge
import Foundation
import Strata

// Imports from scripts: `ctx:import("Book", data, {prune = true})` with data a table or JSON
// text, `ctx:import_session()` with `s:import(…)` and `s:remove_deprecated({"Book"}, where)`,
// `ctx:prune_invalid({"Book"})`, and the per-entity hooks `strata.hooks.invalid_reason`,
// `strata.hooks.should_update` and `strata.hooks.after_import`.

/// An import session as a script holds it.
final class LuaImportSession {
    let session: ImportSession

    init(_ session: ImportSession) {
        self.session = session
    }
}

extension LuaState {
    static let importSessionType = "strata.import_session"

    /// Adds `ctx:import`, `ctx:import_session` and `ctx:prune_invalid` to contexts, the session
    /// type, and `strata.hooks`.
    func defineImport() {
        for kind in ["invalid_reason", "should_update", "after_import"] {
            register(kind, in: "strata_hooks") { [unowned self] call in
                let entity = try call.string(at: 1)
                guard lua_type(self.L, 2) == LUA_TFUNCTION else { throw call.argumentError(2, expected: "function") }
                lua_pushvalue(self.L, 2)
                let reference = luaL_ref(self.L, strata_lua_registryindex())
                if let old = self.hookReferences[kind]?[entity] { luaL_unref(self.L, strata_lua_registryindex(), old) }
                self.hookReferences[kind, default: [:]][entity] = reference
                return 0
            }
        }
        defineType(Self.importSessionType, methods: [
            "import": { [unowned self] call in
                let lua = try self.importSession(call)
                let entity = try self.entityName(call, at: 2, in: lua.session.context)
                let json = try self.importData(call, at: 3)
                lua.session.hooks = self.importHooks(on: call)
                let report = try self.guarded(lua.session.context) { try lua.session.import(json, into: entity) }
                self.push(report, on: call)
                return 1
            },
            "remove_deprecated": { [unowned self] call in
                let lua = try self.importSession(call)
                let entities = try self.strings(call, inTableAt: 2, label: "remove_deprecated")
                let arguments = try (4...max(4, call.count)).filter { $0 <= call.count }.map { try self.predicateArgument(call, at: $0) }
                let predicate = try call.optionalString(at: 3).map { try ObjectPredicate(format: $0, arguments: arguments) }
                let count = try self.guarded(lua.session.context) { try lua.session.removeDeprecated(entities, where: predicate) }
                call.push(Int64(count))
                return 1
            },
            "report": { [unowned self] call in
                self.push(try self.importSession(call).session.report, on: call)
                return 1
            },
        ])
    }

    /// The context methods of imports, added to the context type's methods.
    var importMethods: [String: ContextMethod] {
        [
            "import": { [unowned self] call, lua in
                let context = lua.context
                let entity = try self.entityName(call, at: 2, in: context)
                let json = try self.importData(call, at: 3)
                let options = lua_type(self.L, 4) == LUA_TTABLE ? Int32(4) : nil
                let session = try self.makeSession(call, optionsAt: options, in: context)
                let prunes = try options.flatMap { try self.field("prune", of: $0, call: call, as: { call.boolean(at: $0) }) } ?? false
                let report = try self.guarded(context) { () throws -> ImportReport in
                    _ = try session.import(json, into: entity)
                    if prunes { try session.removeDeprecated(session.importedEntityNames) }
                    return session.report
                }
                self.push(report, on: call)
                return 1
            },
            "import_session": { [unowned self] call, lua in
                let options = lua_type(self.L, 2) == LUA_TTABLE ? Int32(2) : nil
                self.push(LuaImportSession(try self.makeSession(call, optionsAt: options, in: lua.context)), type: Self.importSessionType)
                return 1
            },
            "prune_invalid": { [unowned self] call, lua in
                let context = lua.context
                let entities = call.isNil(at: 2) ? context.model.entities.filter { !$0.isAbstract }.map(\.name) : try self.strings(call, inTableAt: 2, label: "prune_invalid")
                let deleted = try context.performAndWait { try context.deleteInvalidObjects(entities) }
                lua_createtable(self.L, Int32(clamping: deleted.count), 0)
                for (position, entry) in deleted.enumerated() {
                    call.push(.table([.string("object"): .string(entry.object.objectID.uriString), .string("entity"): .string(entry.object.entity.name), .string("reason"): .string(entry.reason)]))
                    lua_rawseti(self.L, -2, lua_Integer(position + 1))
                }
                return 1
            },
        ]
    }

    // MARK: - Sessions

    /// A session on `context` with the options at `index` (`identity = {Book = "isbn"}`) and
    /// the script's hooks.
    private func makeSession(_ call: LuaCall, optionsAt index: Int32?, in context: ObjectContext) throws -> ImportSession {
        var identities: [String: ImportIdentity] = [:]
        if let index {
            lua_pushstring(L, "identity")
            lua_rawget(L, index)
            defer { lua_settop(L, -2) }
            let table = lua_gettop(L)
            if lua_type(L, table) == LUA_TTABLE {
                for entity in try tableKeys(call, at: table) {
                    lua_pushstring(L, entity)
                    lua_rawget(L, table)
                    defer { lua_settop(L, -2) }
                    identities[entity] = .attribute(try call.string(at: lua_gettop(L)))
                }
            } else if !call.isNil(at: table) {
                throw LuaError(code: "argument", message: "identity takes a table of attribute names by entity, as {Book = \"isbn\"}")
            }
        }
        let session = context.performAndWait { ImportSession(context: context, identities: identities) }
        session.hooks = importHooks(on: call)
        return session
    }

    private func importSession(_ call: LuaCall) throws(LuaError) -> LuaImportSession {
        guard let session = object(at: 1, type: Self.importSessionType, as: LuaImportSession.self) else { throw call.argumentError(1, expected: "import session") }
        return session
    }

    /// The data at `index`: a table, or JSON text.
    private func importData(_ call: LuaCall, at index: Int32) throws -> JSONValue {
        // Each record's object is charged with its JSON, before the import makes it.
        guard lua_type(L, index) == LUA_TSTRING else { return try call.json(at: index, bytesPerTable: LuaCall.bytesPerObject) }
        let text = try call.string(at: index)
        try call.chargeDecoding(text.utf8, bytesPerObject: LuaCall.bytesPerObject)
        do {
            return try JSONReader.parse(Data(text.utf8))
        } catch {
            throw LuaError(code: "import", message: "the JSON text does not parse: \(error)")
        }
    }

    /// Runs `body` on the context's queue; a failure undoes what it changed in the context.
    private func guarded<T>(_ context: ObjectContext, _ body: () throws -> T) throws -> T {
        try context.performAndWait {
            let savepoint = context.savepoint()
            do {
                return try body()
            } catch {
                context.rollback(to: savepoint)
                throw error
            }
        }
    }

    /// Pushes an import report: `{entities = {Book = {created = 2, …}}, invalid = {…},
    /// unresolved = {…}, ignored_keys = {…}, description = "Book: 2 created"}`.
    private func push(_ report: ImportReport, on call: LuaCall) {
        var entities: [LuaValue: LuaValue] = [:]
        for (entity, states) in report.counts {
            entities[.string(entity)] = .table(Dictionary(uniqueKeysWithValues: states.map { (LuaValue.string($0.key.rawValue), LuaValue.integer(Int64($0.value))) }))
        }
        func list(_ items: [String]) -> LuaValue {
            .table(Dictionary(uniqueKeysWithValues: items.enumerated().map { (LuaValue.integer(Int64($0.offset + 1)), LuaValue.string($0.element)) }))
        }
        call.push(.table([
            "entities": .table(entities), "invalid": list(report.invalid.map(\.description)), "unresolved": list(report.unresolvedLinks),
            "ignored_keys": list(report.ignoredKeys.sorted()), "description": .string(report.description),
        ]))
    }

    // MARK: - Hooks

    /// The script's hooks as an import calls them: each calls its Lua function in a protected
    /// call, whose error stops the import.
    private func importHooks(on call: LuaCall) -> ImportHooks {
        var hooks = ImportHooks()
        // An import's records were charged with its data; between batches, the clock and Ctrl-C.
        hooks.beforeBatch = { _ in try call.charge(instructions: 0) }
        for (entity, reference) in hookReferences["invalid_reason"] ?? [:] {
            hooks.invalidReason[entity] = { [unowned self] object in
                try self.callHook(reference, object: object, json: nil, state: nil, on: call) { index in call.optionalString(at: index) }
            }
        }
        for (entity, reference) in hookReferences["should_update"] ?? [:] {
            hooks.shouldUpdate[entity] = { [unowned self] object, json in
                try self.callHook(reference, object: object, json: json, state: nil, on: call) { index in call.boolean(at: index) }
            }
        }
        for (entity, reference) in hookReferences["after_import"] ?? [:] {
            hooks.afterImport[entity] = { [unowned self] object, json, state in
                try self.callHook(reference, object: object, json: json, state: state, on: call) { _ in () }
            }
        }
        return hooks
    }

    private func callHook<T>(
        _ reference: Int32, object: ManagedObject, json: JSONValue?, state: ImportState?, on call: LuaCall, result: (Int32) throws -> T
    ) throws -> T {
        lua_rawgeti(L, strata_lua_registryindex(), lua_Integer(reference))
        push(object, type: Self.objectType)
        var arguments: Int32 = 1
        if let json {
            call.push(json: json)
            arguments += 1
        }
        if let state {
            call.push(state.rawValue)
            arguments += 1
        }
        try self.call(arguments: arguments, results: 1)
        defer { lua_settop(L, -2) }
        return try result(lua_gettop(L))
    }
}
