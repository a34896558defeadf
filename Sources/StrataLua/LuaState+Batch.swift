import CLua
import Strata

// Batch requests in Lua: rows written in SQL on the store, no object made, each returning how
// many objects it wrote. They run at once on the stack's root context, outside any
// `ctx:transaction`, and every context that merges the root's saves hears of them:
//
//     ctx:batch_insert("Tag", {{name = "fantasy"}, {name = "classic"}})
//     ctx:batch_update("Book", {rating = 0}, "rating < %@", 1)
//     ctx:batch_delete("Book", "title BEGINSWITH %@", "DRAFT")   -- pages go by cascade

extension LuaState {
    /// `ctx:batch_delete(entity, [where, args… | options])`: the objects deleted, cascades included.
    func batchDelete(_ call: LuaCall, _ lua: LuaContext) throws -> Int32 {
        let request = try lua.context.performAndWait { try self.request(call, in: lua.context) }
        let root = Self.storeContext(of: lua.context)
        call.push(Int64(try root.performAndWait { try root.execute(BatchDeleteRequest(fetchRequest: request)).count }))
        return 1
    }

    /// `ctx:batch_update(entity, {values}, [where, args… | options])`: the objects changed.
    func batchUpdate(_ call: LuaCall, _ lua: LuaContext) throws -> Int32 {
        let context = lua.context
        let (request, values) = try context.performAndWait { () throws -> (FetchRequest, [String: AttributeValue?]) in
            let request = try self.request(call, in: context, predicateAt: 4)
            return (request, try self.attributeValues(call, tableAt: 3, of: request.entityName, in: context))
        }
        let root = Self.storeContext(of: context)
        call.push(Int64(try root.performAndWait { try root.execute(BatchUpdateRequest(fetchRequest: request, propertiesToUpdate: values)).count }))
        return 1
    }

    /// `ctx:batch_insert(entity, {{values}, …})`: the objects inserted.
    func batchInsert(_ call: LuaCall, _ lua: LuaContext) throws -> Int32 {
        let context = lua.context
        let entity = try entityName(call, at: 2, in: context)
        guard lua_type(L, 3) == LUA_TTABLE else { throw call.argumentError(3, expected: "table of tables of values") }
        let objects = try (0..<lua_rawlen(L, 3)).map { position in
            lua_rawgeti(L, 3, lua_Integer(position + 1))
            defer { lua_settop(L, -2) }
            guard lua_type(L, -1) == LUA_TTABLE else {
                throw LuaError(code: "argument", message: "batch_insert: item \(position + 1) is \(call.describe(at: -1)), not a table of values")
            }
            return try attributeValues(call, tableAt: lua_gettop(L), of: entity, in: context)
        }
        let root = Self.storeContext(of: context)
        call.push(Int64(try root.performAndWait { try root.execute(BatchInsertRequest(entityName: entity, objects: objects)).count }))
        return 1
    }

    /// The values of the table at `index` by attribute name, converted for `entity`'s attributes.
    private func attributeValues(_ call: LuaCall, tableAt index: Int32, of entity: String, in context: ObjectContext) throws -> [String: AttributeValue?] {
        guard lua_type(L, index) == LUA_TTABLE else { throw call.argumentError(index, expected: "table of values") }
        guard let description = context.model.entity(named: entity) else { return [:] }
        var values: [String: AttributeValue?] = [:]
        for key in try tableKeys(call, at: index) {
            guard let attribute = context.model.attribute(named: key, in: description) else { throw Self.unknownProperty(key, of: description, in: context.model) }
            lua_pushstring(L, key)
            lua_rawget(L, index)
            defer { lua_settop(L, -2) }
            values[key] = .some(try call.attributeValue(at: lua_gettop(L), for: attribute, of: entity))
        }
        return values
    }

    /// The context at the root of `context`'s chain, on the store: where batch requests run.
    private static func storeContext(of context: ObjectContext) -> ObjectContext {
        var root = context
        while let parent = root.parent { root = parent }
        return root
    }
}
