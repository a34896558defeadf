import CLua
import CLuaBridge
import Foundation
import Strata

// Watching results from scripts: `ctx:watch("Book", "rating >= 4", function(changes) … end)`
// follows the results as saves and merges change them (a `FetchedResultsController`), and
// `ctx:poll([seconds])` takes in other processes' saves and hands the changes waiting to their
// functions. Changes also reach them
// after every call of a context method, on the script's thread.

/// A watch a script set: the results it follows, its function in the registry, and the
/// changes that wait for the script's thread.
final class LuaWatch {
    let controller: FetchedResultsController
    let function: Int32
    let context: LuaContext
    var isStopped = false

    init(controller: FetchedResultsController, function: Int32, context: LuaContext) {
        (self.controller, self.function, self.context) = (controller, function, context)
    }
}

/// The changes watches heard on the context's queue, waiting for the script's thread.
final class PendingChanges: @unchecked Sendable {
    private let condition = NSCondition()
    private var changes: [(controller: ObjectIdentifier, change: ResultsChange)] = []

    var isEmpty: Bool {
        condition.withLock { changes.isEmpty }
    }

    func append(_ controller: ObjectIdentifier, _ change: ResultsChange) {
        condition.withLock {
            changes.append((controller, change))
            condition.broadcast()
        }
    }

    func takeAll() -> [(controller: ObjectIdentifier, change: ResultsChange)] {
        condition.withLock {
            defer { changes = [] }
            return changes
        }
    }

    /// Waits up to `seconds` for a change.
    func wait(seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.withLock {
            while changes.isEmpty, condition.wait(until: deadline) {}
        }
    }
}

extension LuaState {
    static let watchType = "strata.watch"

    /// The context methods of watches, added to the context type's methods.
    var watchMethods: [String: ContextMethod] {
        [
            "watch": { [unowned self] call, lua in
                try self.watch(call, on: lua)
                return 1
            },
            "poll": { [unowned self] call, lua in
                let seconds = call.isNil(at: 2) ? 0 : try call.number(at: 2)
                // Saves of other processes come in only by looking at the store: every 50 ms
                // while waiting, besides the merges of other contexts, which come by themselves.
                let deadline = Date(timeIntervalSinceNow: seconds)
                repeat {
                    try lua.context.performAndWait { _ = try lua.context.mergeExternalChanges() }
                    guard lua.pendingChanges.isEmpty else { break }
                    lua.pendingChanges.wait(seconds: min(0.05, deadline.timeIntervalSinceNow))
                } while deadline.timeIntervalSinceNow > 0
                call.push(Int64(try self.deliverChanges(of: lua)))
                return 1
            },
        ]
    }

    /// Defines the watch type: `w:stop()`, `w:count()`, `w:objects()`.
    func defineWatchType() {
        defineType(Self.watchType, methods: [
            "stop": { [unowned self] call in
                let watch = try self.watch(call)
                self.stop(watch)
                return 0
            },
            "count": { [unowned self] call in
                let watch = try self.watch(call)
                call.push(Int64(watch.context.context.performAndWait { watch.controller.snapshot.objectIDs.count }))
                return 1
            },
            "objects": { [unowned self] call in
                let watch = try self.watch(call)
                self.pushArray(of: watch.context.context.performAndWait { watch.controller.fetchedObjects })
                return 1
            },
        ])
    }

    /// `ctx:watch(entity, [format | options], function)`: options are those of `ctx:fetch`
    /// (`where`, `args`, `sort`) and `section`, a key path naming each object's section.
    private func watch(_ call: LuaCall, on lua: LuaContext) throws {
        let context = lua.context
        let functionIndex = call.count
        guard functionIndex >= 3, lua_type(L, functionIndex) == LUA_TFUNCTION else {
            throw call.argumentError(functionIndex, expected: "function (called with each change)")
        }
        var request: FetchRequest
        var section: String?
        if lua_type(L, 3) == LUA_TTABLE {
            request = try self.request(call, in: context)
            section = try field("section", of: 3, call: call, as: { try call.string(at: $0) })
        } else {
            request = FetchRequest(entityName: try entityName(call, at: 2, in: context))
            if functionIndex > 3 { request.predicate = try ObjectPredicate(format: try call.string(at: 3)) }
        }
        let controller = FetchedResultsController(fetchRequest: request, context: context, sectionNameKeyPath: section)
        try context.performAndWait {
            try controller.performFetch()
            controller.onChange = { [weak lua] change in
                guard let lua else { return }
                lua.pendingChanges.append(ObjectIdentifier(controller), change)
            }
        }
        lua_pushvalue(L, functionIndex)
        let watch = LuaWatch(controller: controller, function: luaL_ref(L, strata_lua_registryindex()), context: lua)
        lua.watches.append(watch)
        push(watch, type: Self.watchType)
    }

    private func watch(_ call: LuaCall) throws -> LuaWatch {
        guard let watch = object(at: 1, type: Self.watchType, as: LuaWatch.self) else { throw call.argumentError(1, expected: "watch") }
        return watch
    }

    private func stop(_ watch: LuaWatch) {
        guard !watch.isStopped else { return }
        watch.isStopped = true
        watch.context.context.performAndWait { watch.controller.onChange = nil }
        watch.context.watches.removeAll { $0 === watch }
        luaL_unref(L, strata_lua_registryindex(), watch.function)
    }

    /// Calls each watch's function with the changes waiting for it, in the order they came:
    /// a table of `inserted`, `updated` and `moved` objects, `deleted` object URIs, and
    /// `count`, the number of objects in the results now. Returns how many changes it handed.
    @discardableResult
    func deliverChanges(of lua: LuaContext) throws -> Int {
        let waiting = lua.pendingChanges.takeAll()
        var delivered = 0
        for (controllerID, change) in waiting {
            guard let watch = lua.watches.first(where: { ObjectIdentifier($0.controller) == controllerID }) else { continue }
            let context = lua.context
            let (inserted, updated, moved, count) = context.performAndWait {
                (change.inserted.map { context.object(with: $0.id) }, change.updated.map { context.object(with: $0.id) },
                 change.moved.map { context.object(with: $0.id) }, watch.controller.snapshot.objectIDs.count)
            }
            lua_rawgeti(L, strata_lua_registryindex(), lua_Integer(watch.function))
            lua_createtable(L, 0, 5)
            for (name, objects) in [("inserted", inserted), ("updated", updated), ("moved", moved)] {
                pushArray(of: objects)
                lua_setfield(L, -2, name)
            }
            lua_createtable(L, Int32(clamping: change.deleted.count), 0)
            for (position, deleted) in change.deleted.enumerated() {
                lua_pushstring(L, deleted.id.uriString)
                lua_rawseti(L, -2, lua_Integer(position + 1))
            }
            lua_setfield(L, -2, "deleted")
            lua_pushinteger(L, lua_Integer(count))
            lua_setfield(L, -2, "count")
            try call(arguments: 1, results: 0)
            delivered += 1
        }
        return delivered
    }
}
