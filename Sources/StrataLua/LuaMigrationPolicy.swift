import CLua
import CLuaBridge
import Foundation
import Strata

/// A migration policy written in Lua: what takes the place of the custom
/// `NSEntityMigrationPolicy` classes a mapping model names (`strata migrate --policy FILE`).
///
/// The script returns a table of hooks by entity mapping name (`BookToBook`) or by the policy
/// class it replaces (`MHWBookToBookPolicy`), each a table with
/// `create_destination_instances(source, manager)` and, if it likes,
/// `create_relationships(destination, manager)`, as Core Data calls the class's overrides.
/// `source` is an object of the store being migrated (read it, never change it); `manager`
/// makes destination objects:
///
/// - `manager:default_destination(source)`: what `NSEntityMigrationPolicy` itself does (an
///   object of the destination entity with the mapping's attribute values, associated with
///   `source`), returned; `manager:default_relationships(destination)` likewise.
/// - `manager:insert("Author")`: a new destination object.
/// - `manager:associate(source, destination)`: `destination` was made from `source` by this
///   entity mapping (relationship expressions find it, it gets its relationships later).
/// - `manager:copy_value(source, "fileURL", destination)`: the attribute's stored value as it
///   is (a Transformable's archive byte for byte), under the same name or the one given fifth.
/// - `manager:destination_instances("UserToUser", sources)`: the objects an entity mapping
///   made from `sources` (a table of objects, or one object).
/// - `manager:mapping()`: `{name =, source =, destination =, policy =, user_info = {…}}`.
///
/// ```lua
/// local authors = {}
/// return {
///   BookToBook = {
///     create_destination_instances = function(book, manager)
///       local copy = manager:default_destination(book)
///       local name = book.authorName
///       if name then
///         authors[name] = authors[name] or manager:insert("Author")
///         authors[name].name = name
///         copy.authors:add(authors[name])
///       end
///     end,
///   },
/// }
/// ```
///
/// The script runs in the sandbox, with its budget; an error stops the migration and the store
/// stays as it was. The policy is used by one migration at a time.
public final class LuaMigrationPolicy: MigrationPolicy, @unchecked Sendable {
    private let lua: LuaState
    /// Registry references of the hooks, by entity mapping or class name, then by hook name.
    private var hooks: [String: [String: Int32]] = [:]

    /// The policy the script `source` (named `name` in messages, `@path` for a file) returns.
    ///
    /// - Throws: ``LuaError``: `syntax` for a script that does not compile, `policy` for one
    ///   that does not return a table of hook tables, or the error it raised.
    public init(script source: String, name: String, options: LuaState.Options = LuaState.Options()) throws(LuaError) {
        lua = try LuaState(options: options)
        lua.defineObjectTypes()
        lua.defineMigrationManagerType()
        let L = lua.L
        try lua.callChunk(source, name: name, arguments: 0, results: 1)
        defer { lua_settop(L, -2) }
        let shownName = name.hasPrefix("@") || name.hasPrefix("=") ? String(name.dropFirst()) : name
        guard lua_type(L, -1) == LUA_TTABLE else {
            throw LuaError(code: "policy", message: "\(shownName): a migration policy returns a table of hooks by entity mapping name, as { BookToBook = { create_destination_instances = function(source, manager) … end } }")
        }
        lua_pushnil(L)
        while lua_next(L, -2) != 0 {
            defer { lua_settop(L, -2) }
            guard lua_type(L, -2) == LUA_TSTRING, lua_type(L, -1) == LUA_TTABLE else {
                throw LuaError(code: "policy", message: "\(shownName): each entry of the returned table names an entity mapping and holds a table of hooks")
            }
            let mapping = String(cString: strata_lua_tolstring(L, -2, nil))
            for hook in ["create_destination_instances", "create_relationships"] {
                lua_getfield(L, -1, hook)
                if lua_type(L, -1) == LUA_TFUNCTION {
                    hooks[mapping, default: [:]][hook] = luaL_ref(L, strata_lua_registryindex())
                } else {
                    lua_settop(L, -2)
                }
            }
            if hooks[mapping] == nil {
                throw LuaError(code: "policy", message: "\(shownName): the hooks of \(mapping) have neither create_destination_instances nor create_relationships")
            }
        }
    }

    /// The entity mappings and policy classes the script has hooks for.
    public var hookedNames: [String] { hooks.keys.sorted() }

    public func handles(_ mapping: MappingModel.EntityMapping) -> Bool {
        hooks(for: mapping) != nil
    }

    public func createDestinationInstances(forSource source: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws {
        guard let reference = hooks(for: mapping)?["create_destination_instances"] else {
            try manager.createDefaultDestinationInstance(forSource: source, mapping: mapping)
            return
        }
        try call(reference, with: source, mapping: mapping, manager: manager)
    }

    public func createRelationships(forDestination destination: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws {
        guard let reference = hooks(for: mapping)?["create_relationships"] else {
            try manager.createDefaultRelationships(forDestination: destination, mapping: mapping)
            return
        }
        try call(reference, with: destination, mapping: mapping, manager: manager)
    }

    private func hooks(for mapping: MappingModel.EntityMapping) -> [String: Int32]? {
        hooks[mapping.name] ?? mapping.policyClassName.flatMap { hooks[$0] }
    }

    private func call(_ reference: Int32, with object: ManagedObject, mapping: MappingModel.EntityMapping, manager: MigrationManager) throws {
        let L = lua.L
        lua_rawgeti(L, strata_lua_registryindex(), lua_Integer(reference))
        lua.push(object, type: LuaState.objectType)
        lua.push(LuaMigrationManager(manager: manager, mapping: mapping), type: LuaState.migrationManagerType)
        try lua.call(arguments: 2, results: 0)
    }
}

/// The manager as a policy's hooks hold it: the migration's, and the entity mapping running.
final class LuaMigrationManager {
    let manager: MigrationManager
    let mapping: MappingModel.EntityMapping

    init(manager: MigrationManager, mapping: MappingModel.EntityMapping) {
        self.manager = manager
        self.mapping = mapping
    }
}

extension LuaState {
    static let migrationManagerType = "strata.migration_manager"

    /// Defines the type of the `manager` a migration policy's hooks get.
    func defineMigrationManagerType() {
        defineType(Self.migrationManagerType, methods: [
            "insert": { [unowned self] call in
                let lua = try self.migrationManager(call)
                self.push(try lua.manager.insertDestinationObject(try call.string(at: 2)), type: Self.objectType)
                return 1
            },
            "associate": { [unowned self] call in
                let lua = try self.migrationManager(call)
                lua.manager.associate(source: try self.managedObject(call, at: 2), destination: try self.managedObject(call, at: 3), mapping: lua.mapping.name)
                return 0
            },
            "destination_instances": { [unowned self] call in
                let lua = try self.migrationManager(call)
                let name = try call.string(at: 2)
                let single = self.object(at: 3, type: Self.objectType, as: ManagedObject.self)
                let sources = try single.map { [$0] } ?? self.objects(inTableAt: 3, call: call, for: "destination_instances")
                self.pushArray(of: lua.manager.destinationInstances(forEntityMappingNamed: name, sourceInstances: sources))
                return 1
            },
            "copy_value": { [unowned self] call in
                let lua = try self.migrationManager(call)
                let source = try self.managedObject(call, at: 2), key = try call.string(at: 3), destination = try self.managedObject(call, at: 4)
                try lua.manager.copyValue(forKey: key, from: source, to: destination, as: call.optionalString(at: 5))
                return 0
            },
            "default_destination": { [unowned self] call in
                let lua = try self.migrationManager(call)
                let destination = try lua.manager.createDefaultDestinationInstance(forSource: try self.managedObject(call, at: 2), mapping: lua.mapping)
                self.push(destination, type: Self.objectType)
                return 1
            },
            "default_relationships": { [unowned self] call in
                let lua = try self.migrationManager(call)
                try lua.manager.createDefaultRelationships(forDestination: try self.managedObject(call, at: 2), mapping: lua.mapping)
                return 0
            },
            "mapping": { [unowned self] call in
                let mapping = try self.migrationManager(call).mapping
                var table: [LuaValue: LuaValue] = [
                    "name": .string(mapping.name), "kind": .string(mapping.kind.rawValue),
                    "user_info": .table(Dictionary(uniqueKeysWithValues: mapping.userInfo.map { (LuaValue.string($0.key), LuaValue.string($0.value)) })),
                ]
                if let source = mapping.sourceEntityName { table["source"] = .string(source) }
                if let destination = mapping.destinationEntityName { table["destination"] = .string(destination) }
                if let policy = mapping.policyClassName { table["policy"] = .string(policy) }
                call.push(.table(table))
                return 1
            },
        ])
    }

    private func migrationManager(_ call: LuaCall) throws(LuaError) -> LuaMigrationManager {
        guard let manager = object(at: 1, type: Self.migrationManagerType, as: LuaMigrationManager.self) else { throw call.argumentError(1, expected: "migration manager") }
        return manager
    }
}
