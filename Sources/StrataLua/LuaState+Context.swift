import CLua
import Foundation
import Strata

// A context in Lua: `ctx:fetch("Book", "rating > %@", 4)`, `ctx:each(…)`, `ctx:first`,
// `ctx:count`, `ctx:any`, `ctx:query`, `ctx:create`, `ctx:fetch_or_create`, `ctx:delete`,
// `ctx:save`, `ctx:rollback`, `ctx:refresh`, `ctx:has_changes` and `ctx:transaction(fn)`;
// the batch requests are in `LuaState+Batch.swift`, watches in `LuaState+Watch.swift`.

/// A context as Lua holds it, with the transactions open on it.
final class LuaContext {
    let context: ObjectContext
    /// The savepoints of the transactions running, outermost first.
    var transactions: [ObjectContext.Savepoint] = []
    /// The watches set on the context (`ctx:watch`), and the changes waiting for them.
    var watches: [LuaWatch] = []
    let pendingChanges = PendingChanges()

    init(_ context: ObjectContext) {
        self.context = context
    }

    /// Saves through every parent to the store; inside a transaction, its end saves instead.
    func save() throws {
        if transactions.isEmpty { try context.performAndWait { try context.commit() } }
    }

    /// `ctx:refresh([object])`: the object (every object when `id` is nil) is read again from
    /// the store when next used, its unsaved changes dropped, in this context and in every
    /// context it saves through. A save that failed part-way up the chain (a conflict with
    /// another process) leaves its changes in the parents, where a refresh of this context
    /// alone would read them again.
    func refresh(_ id: ObjectID?) {
        var next: ObjectContext? = context
        while let current = next {
            current.performAndWait {
                if let id {
                    current.refresh(current.object(with: id), mergeChanges: false)
                } else {
                    current.rollback()
                    for object in current.registeredObjects { current.refresh(object, mergeChanges: false) }
                }
            }
            next = current.parent
        }
    }
}

extension LuaState {
    static let contextType = "strata.context"
    /// How many objects `ctx:each` reads at a time.
    static let iterationBatch = 500

    typealias ContextMethod = (LuaCall, LuaContext) throws -> Int32

    /// Defines the context type.
    func defineContextType() {
        let methods: [String: ContextMethod] = [
            "fetch": { [unowned self] call, lua in
                let objects = try lua.context.performAndWait { try lua.context.fetch(try self.request(call, in: lua.context)) }
                try call.charge(instructions: objects.count, bytes: objects.count * LuaCall.bytesPerObject)
                self.pushArray(of: objects)
                return 1
            },
            "each": { [unowned self] call, lua in
                let context = lua.context
                let ids = try context.performAndWait { try context.fetchObjectIDs(try self.request(call, in: context)) }
                var position = 0
                var previousBatch: ArraySlice<ObjectID> = []
                var fullReleaseAt = Self.iterationBatch * 4
                self.pushLoop(ObjectIterator {
                    guard position < ids.count else { return [] }
                    let batch = ids[position..<min(position + Self.iterationBatch, ids.count)]
                    position += batch.count
                    // The thread running now: the loop may go on in another coroutine than the one that began it.
                    try LuaCall(L: self.L).charge(instructions: batch.count)
                    defer { previousBatch = batch }
                    return try context.performAndWait {
                        // What the loop body no longer holds and did not change is let go between
                        // batches: the last batch each time, and everything the body reached
                        // besides once the context has grown by half, so that a loop changing
                        // every object stays linear.
                        let held = context.registeredObjectCount
                        if held > fullReleaseAt {
                            context.releaseUnheldObjects()
                            fullReleaseAt = context.registeredObjectCount + max(context.registeredObjectCount / 2, Self.iterationBatch * 4)
                        } else {
                            context.releaseUnheldObjects(among: previousBatch)
                        }
                        return try Self.objects(with: Array(batch), in: context)
                    }
                })
                return 4
            },
            "first": { [unowned self] call, lua in
                var request = try lua.context.performAndWait { try self.request(call, in: lua.context) }
                request.fetchLimit = 1
                if let object = try lua.context.performAndWait({ try lua.context.fetch(request).first }) {
                    self.push(object, type: Self.objectType)
                } else {
                    call.pushNil()
                }
                return 1
            },
            "count": { [unowned self] call, lua in
                let count = try lua.context.performAndWait { try lua.context.count(for: try self.request(call, in: lua.context)) }
                call.push(Int64(count))
                return 1
            },
            "any": { [unowned self] call, lua in
                var request = try lua.context.performAndWait { try self.request(call, in: lua.context) }
                request.fetchLimit = 1
                call.push(try lua.context.performAndWait { try lua.context.count(for: request) } > 0)
                return 1
            },
            "query": { [unowned self] call, lua in
                let (rows, attributes) = try lua.context.performAndWait { try self.query(call, in: lua.context) }
                let values = rows.reduce(0) { $0 + $1.names.count }
                try call.charge(instructions: values, bytes: values * LuaCall.bytesPerValue)
                lua_createtable(self.L, Int32(clamping: rows.count), 0)
                for (position, row) in rows.enumerated() {
                    lua_createtable(self.L, 0, Int32(clamping: row.names.count))
                    for name in row.names {
                        call.push(name)
                        if let attribute = attributes[name] {
                            call.push(row[name]?.attributeValue, of: attribute)
                        } else {
                            call.push(row[name]?.attributeValue)
                        }
                        lua_rawset(self.L, -3)
                    }
                    lua_rawseti(self.L, -2, lua_Integer(position + 1))
                }
                return 1
            },
            "create": { [unowned self] call, lua in
                let entity = try self.entityName(call, at: 2, in: lua.context)
                let object = try lua.context.performAndWait { () throws -> ManagedObject in
                    let object = try lua.context.insert(entity)
                    try self.assign(call, tableAt: 3, to: object)
                    return object
                }
                self.push(object, type: Self.objectType)
                return 1
            },
            "fetch_or_create": { [unowned self] call, lua in
                let object = try lua.context.performAndWait { try self.fetchOrCreate(call, in: lua.context) }
                self.push(object, type: Self.objectType)
                return 1
            },
            "delete": { [unowned self] call, lua in
                let object = try self.managedObject(call, at: 2)
                let reason = call.optionalString(at: 3)
                try lua.context.performAndWait { try lua.context.delete(object, reason: reason) }
                return 0
            },
            "batch_delete": { [unowned self] call, lua in try self.batchDelete(call, lua) },
            "batch_update": { [unowned self] call, lua in try self.batchUpdate(call, lua) },
            "batch_insert": { [unowned self] call, lua in try self.batchInsert(call, lua) },
            "save": { _, lua in
                try lua.save()
                return 0
            },
            // CoreDataMonk's name for it, in `stack:update(function(u) … u:commit() end)`.
            "commit": { _, lua in
                try lua.save()
                return 0
            },
            "rollback": { _, lua in
                lua.context.performAndWait {
                    if let savepoint = lua.transactions.last { lua.context.rollback(to: savepoint) } else { lua.context.rollback() }
                }
                return 0
            },
            "refresh": { [unowned self] call, lua in
                let object = call.isNil(at: 2) ? nil : try self.managedObject(call, at: 2)
                guard lua.transactions.isEmpty else {
                    throw LuaError(code: "context", message: "ctx:refresh cannot run inside ctx:transaction: it would drop the transaction's changes")
                }
                lua.refresh(object?.objectID)
                return 0
            },
            "has_changes": { call, lua in
                call.push(lua.context.performAndWait { lua.context.hasChanges })
                return 1
            },
            "transaction": { [unowned self] call, lua in
                guard lua_type(self.L, 2) == LUA_TFUNCTION else { throw call.argumentError(2, expected: "function") }
                try self.transaction(on: lua, functionAt: 2)
                return 0
            },
        ]
        let all = methods.merging(importMethods) { first, _ in first }.merging(watchMethods) { first, _ in first }
        defineType(Self.contextType, methods: all.mapValues { method in
            { [unowned self] call in
                guard let lua = self.object(at: 1, type: Self.contextType, as: LuaContext.self) else { throw call.argumentError(1, expected: "context") }
                let results = try method(call, lua)
                // A watch's function runs on the script's thread, after the call that let its change in.
                if !lua.watches.isEmpty, !lua.pendingChanges.isEmpty {
                    try self.deliverChanges(of: lua)
                }
                return results
            }
        }, metamethods: [
            "__tostring": { [unowned self] call in
                let lua = self.object(at: 1, type: Self.contextType, as: LuaContext.self)
                call.push("<context \(lua?.context.name ?? "?")>")
                return 1
            },
        ])
    }

    // MARK: - Transactions

    /// Runs the function at `index`: everything it changes is saved together at the end of the
    /// outermost transaction, or undone when it fails, and the error raised again. A failing
    /// transaction within another undoes only its own changes.
    private func transaction(on lua: LuaContext, functionAt index: Int32) throws {
        let context = lua.context
        lua.transactions.append(context.performAndWait { context.savepoint() })
        lua_pushvalue(L, index)
        do {
            try call(arguments: 0, results: 0)
        } catch {
            let savepoint = lua.transactions.removeLast()
            context.performAndWait { context.rollback(to: savepoint) }
            throw error
        }
        lua.transactions.removeLast()
        guard lua.transactions.isEmpty else { return }
        do {
            try context.performAndWait { try context.commit() }
        } catch {
            context.performAndWait { context.rollback() }
            throw error
        }
    }

    // MARK: - Requests

    /// The entity named at `index`, which the model must have.
    func entityName(_ call: LuaCall, at index: Int32, in context: ObjectContext) throws -> String {
        let name = try call.string(at: index)
        guard context.model.entity(named: name) != nil else {
            let suggestion = nearestName(to: name, among: context.model.entities.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
            throw LuaError(code: "entity", message: "the model has no entity '\(name)'" + suggestion)
        }
        return name
    }

    /// The fetch request of a call `(ctx, entity, [format, arguments… | options])`, the format
    /// or options at `index`: options are `where`, `args`, `sort` (`{"name", "-order"}`),
    /// `limit` and `offset`.
    func request(_ call: LuaCall, in context: ObjectContext, predicateAt index: Int32 = 3) throws -> FetchRequest {
        var request = FetchRequest(entityName: try entityName(call, at: 2, in: context))
        if lua_type(L, index) == LUA_TTABLE {
            if let format = try field("where", of: index, call: call, as: { try call.string(at: $0) }) {
                let arguments = try field("args", of: index, call: call, as: { try self.predicateArguments(call, inTableAt: $0) }) ?? []
                request.predicate = try ObjectPredicate(format: format, arguments: arguments)
            }
            request.sortDescriptors = try field("sort", of: index, call: call, as: { position in
                try self.strings(call, inTableAt: position, label: "sort").map { try ObjectSortDescriptor(parsing: $0) }
            }) ?? []
            request.fetchLimit = Int(try field("limit", of: index, call: call, as: { try call.integer(at: $0) }) ?? 0)
            request.fetchOffset = Int(try field("offset", of: index, call: call, as: { try call.integer(at: $0) }) ?? 0)
        } else if !call.isNil(at: index) {
            let format = try call.string(at: index)
            let arguments = try ((index + 1)...max(index + 1, call.count)).filter { $0 <= call.count }.map { try predicateArgument(call, at: $0) }
            request.predicate = try ObjectPredicate(format: format, arguments: arguments)
        }
        return request
    }

    /// The rows of `ctx:query`, and the attributes its selected key paths end at (for the
    /// values of Transformable ones).
    private func query(_ call: LuaCall, in context: ObjectContext) throws -> ([FetchedRow], [String: AttributeDescription]) {
        let entity = try entityName(call, at: 2, in: context)
        guard lua_type(L, 3) == LUA_TTABLE else { throw call.argumentError(3, expected: "table of options") }
        guard let select = try field("select", of: 3, call: call, as: { try self.strings(call, inTableAt: $0, label: "select").joined(separator: ", ") }) else {
            throw LuaError(code: "argument", message: "query: name what to select, as select = {\"name\", \"avg(age) as mean_age\"}")
        }
        let arguments = try field("args", of: 3, call: call, as: { try self.predicateArguments(call, inTableAt: $0) }) ?? []
        let predicate = try field("where", of: 3, call: call, as: { try ObjectPredicate(format: try call.string(at: $0), arguments: arguments) })
        let having = try field("having", of: 3, call: call, as: { try ObjectPredicate(format: try call.string(at: $0), arguments: arguments) })
        let groupBy = try field("group_by", of: 3, call: call, as: { try self.strings(call, inTableAt: $0, label: "group_by") }) ?? []
        let sort = try field("sort", of: 3, call: call, as: { try self.strings(call, inTableAt: $0, label: "sort").map { try ObjectSortDescriptor(parsing: $0) } }) ?? []
        let limit = try field("limit", of: 3, call: call, as: { try call.integer(at: $0) }) ?? 0
        let rows = try context.query(entity, select: select, where: predicate, groupBy: groupBy, having: having, sortedBy: sort, limit: Int(clamping: limit))
        var attributes: [String: AttributeDescription] = [:]
        if let description = context.model.entity(named: entity) {
            for property in try FetchedProperty.list(select) where property.function == nil {
                attributes[property.name] = property.keyPath.flatMap { context.model.attribute(atKeyPath: $0, from: description) }
            }
        }
        return (rows, attributes)
    }

    private func fetchOrCreate(_ call: LuaCall, in context: ObjectContext) throws -> ManagedObject {
        let entity = try entityName(call, at: 2, in: context)
        guard lua_type(L, 3) == LUA_TTABLE, let description = context.model.entity(named: entity) else { throw call.argumentError(3, expected: "table of values") }
        var terms: [String] = [], arguments: [PredicateArgument] = []
        for key in try tableKeys(call, at: 3) {
            guard context.model.attribute(named: key, in: description) != nil else { throw Self.unknownProperty(key, of: description, in: context.model) }
            lua_pushstring(L, key)
            lua_rawget(L, 3)
            defer { lua_settop(L, -2) }
            terms.append("\(key) == %@")
            arguments.append(try predicateArgument(call, at: lua_gettop(L)))
        }
        var request = FetchRequest(entityName: entity, predicate: terms.isEmpty ? nil : try ObjectPredicate(format: terms.joined(separator: " AND "), arguments: arguments))
        request.fetchLimit = 1
        if let existing = try context.fetch(request).first { return existing }
        let object = try context.insert(entity)
        try assign(call, tableAt: 3, to: object)
        return object
    }

    /// Sets each key of the table at `index` on `object` (nothing for nil).
    private func assign(_ call: LuaCall, tableAt index: Int32, to object: ManagedObject) throws {
        guard !call.isNil(at: index) else { return }
        guard lua_type(L, index) == LUA_TTABLE else { throw call.argumentError(index, expected: "table of values") }
        for key in try tableKeys(call, at: index) {
            lua_pushstring(L, key)
            lua_rawget(L, index)
            defer { lua_settop(L, -2) }
            try setProperty(key, of: object, from: call, at: lua_gettop(L))
        }
    }

    /// The objects with `ids`, in that order, their rows read one query per entity.
    private static func objects(with ids: [ObjectID], in context: ObjectContext) throws -> [ManagedObject] {
        var byID: [ObjectID: ManagedObject] = [:]
        for (entity, group) in Dictionary(grouping: ids, by: \.entityName) {
            for object in try context.objects(with: group, entityName: entity) { byID[object.objectID] = object }
        }
        return ids.compactMap { byID[$0] }
    }

    // MARK: - Tables

    /// Pushes a sequence of objects.
    func pushArray(of objects: [ManagedObject]) {
        lua_createtable(L, Int32(clamping: objects.count), 0)
        for (position, object) in objects.enumerated() {
            push(object, type: Self.objectType)
            lua_rawseti(L, -2, lua_Integer(position + 1))
        }
    }

    /// The field `name` of the table at `index`, read without metamethods and converted by
    /// `read` (given the field's stack index); `nil` when it is nil.
    func field<T>(_ name: String, of index: Int32, call: LuaCall, as read: (Int32) throws -> T) throws -> T? {
        lua_pushstring(L, name)
        lua_rawget(L, index)
        defer { lua_settop(L, -2) }
        return call.isNil(at: -1) ? nil : try read(lua_gettop(L))
    }

    /// The strings of the sequence table at `index`.
    func strings(_ call: LuaCall, inTableAt index: Int32, label: String) throws -> [String] {
        if lua_type(L, index) == LUA_TSTRING { return [try call.string(at: index)] }
        guard lua_type(L, index) == LUA_TTABLE else { throw LuaError(code: "argument", message: "\(label) takes a table of strings, not \(call.describe(at: index))") }
        return try (0..<lua_rawlen(L, index)).map { position in
            lua_rawgeti(L, index, lua_Integer(position + 1))
            defer { lua_settop(L, -2) }
            guard let text = call.optionalString(at: -1) else { throw LuaError(code: "argument", message: "\(label): item \(position + 1) is \(call.describe(at: -1)), not a string") }
            return text
        }
    }

    /// The string keys of the table at `index`, sorted, with nothing left on the stack.
    func tableKeys(_ call: LuaCall, at index: Int32) throws -> [String] {
        var keys: [String] = []
        lua_pushnil(L)
        while lua_next(L, index) != 0 {
            lua_settop(L, -2)
            guard lua_type(L, -1) == LUA_TSTRING, let key = call.optionalString(at: -1) else {
                lua_settop(L, -2)
                throw LuaError(code: "argument", message: "a table of values takes string keys, not \(call.describe(at: -1))")
            }
            keys.append(key)
        }
        return keys.sorted()
    }

    // MARK: - ObjectPredicate arguments

    /// The predicate argument at `index`: a string, number, boolean, nil, object, or a
    /// sequence of those (for `IN %@`).
    func predicateArgument(_ call: LuaCall, at index: Int32) throws -> PredicateArgument {
        switch lua_type(L, index) {
        case LUA_TNIL, LUA_TNONE: return nil
        case LUA_TBOOLEAN: return PredicateArgument(.bool(call.boolean(at: index)))
        case LUA_TNUMBER:
            if let integer = try? call.integer(at: index) { return PredicateArgument(.integer(integer)) }
            return PredicateArgument(.double(try call.number(at: index)))
        case LUA_TSTRING: return PredicateArgument(.string(try call.string(at: index)))
        case LUA_TTABLE: return .array(try predicateArguments(call, inTableAt: index).map(\.value))
        default:
            if let object = object(at: index, type: Self.objectType, as: ManagedObject.self) {
                return .object(object.performOnContext { object.objectID })
            }
            throw LuaError(code: "argument", message: "a predicate argument cannot be \(call.describe(at: index))")
        }
    }

    /// The predicate arguments of the sequence table at `index`.
    func predicateArguments(_ call: LuaCall, inTableAt index: Int32) throws -> [PredicateArgument] {
        guard lua_type(L, index) == LUA_TTABLE else { throw LuaError(code: "argument", message: "args takes a table, not \(call.describe(at: index))") }
        return try (0..<lua_rawlen(L, index)).map { position in
            lua_rawgeti(L, index, lua_Integer(position + 1))
            defer { lua_settop(L, -2) }
            return try predicateArgument(call, at: lua_gettop(L))
        }
    }
}
