import CLua
import Foundation
import Strata

// Managed objects in Lua: `b.title`, `b.title = "x"` (checked against the model), to-one
// relationships as objects, to-many ones and fetched properties as proxies (`#b.pages`,
// `b.pages:each()`, `b.pages[1]`, and for a to-many `b.pages:add(p)`, `b.pages:remove(p)`),
// `b:id()`, `b:entity()`, `b:delete([reason])`, `b:to_table()`, and `tostring(b)`.

/// The members of a to-many relationship, or the objects of a fetched property, of one
/// object, as Lua sees them.
final class ToManyProxy {
    let object: ManagedObject
    let relationship: String
    /// Whether it is a fetched property, whose objects are read only.
    let isFetched: Bool

    init(object: ManagedObject, relationship: String, isFetched: Bool = false) {
        self.object = object
        self.relationship = relationship
        self.isFetched = isFetched
    }

    /// The objects, read on the object's context's queue.
    func members() throws -> [ManagedObject] {
        try object.performOnContext {
            isFetched ? try object.fetchedObjects(forProperty: relationship) : try object.objects(forKey: relationship)
        }
    }

    /// Refuses a change to a fetched property, as assigning it is refused.
    func checkChangeable() throws {
        guard isFetched else { return }
        // setValue names the property and why it cannot change.
        try object.performOnContext { try object.setValue(nil, forKey: relationship) }
    }
}

/// Objects handed to a `for … in` loop one at a time, a batch at a time; the loop's closing
/// value, so that leaving the loop early lets go of what it read.
final class ObjectIterator {
    private var pending: [ManagedObject] = []
    private let nextBatch: () throws -> [ManagedObject]
    private var isDone = false

    /// An iterator over `objects`.
    convenience init(_ objects: [ManagedObject]) {
        var given: [ManagedObject]? = objects
        self.init { defer { given = nil } ; return given ?? [] }
    }

    /// An iterator that asks `nextBatch` for more until it gives none.
    init(batches nextBatch: @escaping () throws -> [ManagedObject]) {
        self.nextBatch = nextBatch
    }

    func next() throws -> ManagedObject? {
        while pending.isEmpty, !isDone {
            pending = try nextBatch().reversed()
            isDone = pending.isEmpty
        }
        return pending.popLast()
    }

    func close() {
        pending = []
        isDone = true
    }
}

extension LuaState {
    static let objectType = "strata.object"
    static let toManyType = "strata.tomany"
    static let iteratorType = "strata.iterator"

    /// Defines the types of objects, to-many proxies and iterators.
    func defineObjectTypes() {
        defineType(Self.objectType, methods: [
            "id": { [unowned self] call in
                let object = try self.managedObject(call, at: 1)
                call.push(object.performOnContext { object.objectID.uriString })
                return 1
            },
            "entity": { [unowned self] call in
                call.push(try self.managedObject(call, at: 1).entity.name)
                return 1
            },
            "delete": { [unowned self] call in
                let object = try self.managedObject(call, at: 1)
                let reason = call.optionalString(at: 2)
                try object.performOnContext { () throws -> Void in
                    guard let context = object.managedObjectContext else { return }
                    try context.delete(object, reason: reason)
                }
                return 0
            },
            "to_table": { [unowned self] call in
                let object = try self.managedObject(call, at: 1)
                let json = try object.performOnContext { try Self.table(of: object) }
                call.push(json: json)
                return 1
            },
        ], index: { [unowned self] call in
            let object = try self.managedObject(call, at: 1)
            let key = try call.string(at: 2)
            return try object.performOnContext { () throws -> Int32 in
                try self.pushProperty(key, of: object, on: call)
                return 1
            }
        }, metamethods: [
            "__newindex": { [unowned self] call in
                let object = try self.managedObject(call, at: 1)
                let key = try call.string(at: 2)
                try object.performOnContext { try self.setProperty(key, of: object, from: call, at: 3) }
                return 0
            },
            "__tostring": { [unowned self] call in
                let object = try self.managedObject(call, at: 1)
                call.push(object.performOnContext { object.description })
                return 1
            },
        ])
        defineType(Self.toManyType, methods: [
            "each": { [unowned self] call in
                let proxy = try self.toMany(call, at: 1)
                self.pushLoop(ObjectIterator(try proxy.members()))
                return 4
            },
            "add": { [unowned self] call in
                let proxy = try self.toMany(call, at: 1)
                let member = try self.managedObject(call, at: 2)
                try proxy.checkChangeable()
                try proxy.object.performOnContext { try proxy.object.add(member, toKey: proxy.relationship) }
                return 0
            },
            "remove": { [unowned self] call in
                let proxy = try self.toMany(call, at: 1)
                let member = try self.managedObject(call, at: 2)
                try proxy.checkChangeable()
                try proxy.object.performOnContext { try proxy.object.remove(member, fromKey: proxy.relationship) }
                return 0
            },
        ], index: { [unowned self] call in
            let proxy = try self.toMany(call, at: 1)
            let position = try call.integer(at: 2)
            let members = try proxy.members()
            if position >= 1, position <= members.count { self.push(members[Int(position) - 1], type: Self.objectType) } else { call.pushNil() }
            return 1
        }, metamethods: [
            "__len": { [unowned self] call in
                let proxy = try self.toMany(call, at: 1)
                call.push(Int64(try proxy.members().count))
                return 1
            },
        ])
        defineType(Self.iteratorType, methods: [:], metamethods: [
            "__call": { [unowned self] call in
                guard let iterator = self.object(at: 1, type: Self.iteratorType, as: ObjectIterator.self) else { throw call.argumentError(1, expected: "iterator") }
                if let object = try iterator.next() { self.push(object, type: Self.objectType) } else { call.pushNil() }
                return 1
            },
            "__close": { [unowned self] call in
                self.object(at: 1, type: Self.iteratorType, as: ObjectIterator.self)?.close()
                return 0
            },
        ])
    }

    /// Pushes what a generic `for` takes: the iterator, no state, no control value, and the
    /// iterator again as the value closed when the loop ends.
    func pushLoop(_ iterator: ObjectIterator) {
        push(iterator, type: Self.iteratorType)
        lua_pushnil(L)
        lua_pushnil(L)
        lua_pushvalue(L, -3)
    }

    /// The object at `index`, or an argument error.
    func managedObject(_ call: LuaCall, at index: Int32) throws(LuaError) -> ManagedObject {
        guard let object = object(at: index, type: Self.objectType, as: ManagedObject.self) else { throw call.argumentError(index, expected: "object") }
        return object
    }

    private func toMany(_ call: LuaCall, at index: Int32) throws(LuaError) -> ToManyProxy {
        guard let proxy = object(at: index, type: Self.toManyType, as: ToManyProxy.self) else { throw call.argumentError(index, expected: "to-many relationship") }
        return proxy
    }

    // MARK: - Properties

    private func pushProperty(_ key: String, of object: ManagedObject, on call: LuaCall) throws {
        guard let model = object.managedObjectContext?.model else { throw LuaError(code: "object", message: "\(object.objectID) is no longer in a context") }
        if let attribute = model.attribute(named: key, in: object.entity) {
            call.push(try object.attributeValue(forKey: attribute.name), of: attribute)
        } else if let relationship = model.relationship(named: key, in: object.entity) {
            if relationship.isToMany {
                push(ToManyProxy(object: object, relationship: key), type: Self.toManyType)
            } else if let related = try object.value(forKey: key) as? ManagedObject {
                push(related, type: Self.objectType)
            } else {
                call.pushNil()
            }
        } else if model.fetchedProperty(named: key, in: object.entity) != nil {
            push(ToManyProxy(object: object, relationship: key, isFetched: true), type: Self.toManyType)
        } else {
            throw Self.unknownProperty(key, of: object.entity, in: model)
        }
    }

    /// Sets `key` of `object` to the value at `index`, checked against the model.
    func setProperty(_ key: String, of object: ManagedObject, from call: LuaCall, at index: Int32) throws {
        guard let model = object.managedObjectContext?.model else { throw LuaError(code: "object", message: "\(object.objectID) is no longer in a context") }
        if let attribute = model.attribute(named: key, in: object.entity) {
            try object.setValue(try call.attributeValue(at: index, for: attribute, of: object.entity.name), forKey: key)
        } else if let relationship = model.relationship(named: key, in: object.entity) {
            if relationship.isToMany {
                guard call.isNil(at: index) || lua_type(L, index) == LUA_TTABLE else {
                    throw LuaError(code: "value", message: "\(object.entity.name).\(key) takes a table of objects, not \(call.describe(at: index))")
                }
                try object.setValue(try objects(inTableAt: index, call: call, for: "\(object.entity.name).\(key)"), forKey: key)
            } else if call.isNil(at: index) {
                try object.setValue(nil, forKey: key)
            } else {
                guard let related = self.object(at: index, type: Self.objectType, as: ManagedObject.self) else {
                    throw LuaError(code: "value", message: "\(object.entity.name).\(key) takes an object, not \(call.describe(at: index))")
                }
                try object.setValue(related, forKey: key)
            }
        } else if model.fetchedProperty(named: key, in: object.entity) != nil {
            // Refused, naming the property: its value is the result of its fetch request.
            try object.setValue(nil, forKey: key)
        } else {
            throw Self.unknownProperty(key, of: object.entity, in: model)
        }
    }

    /// The objects of the sequence table at `index` (empty for nil).
    func objects(inTableAt index: Int32, call: LuaCall, for label: String) throws(LuaError) -> [ManagedObject] {
        guard !call.isNil(at: index) else { return [] }
        var objects: [ManagedObject] = []
        let count = lua_rawlen(L, index)
        for position in 0..<count {
            lua_rawgeti(L, index, lua_Integer(position + 1))
            defer { lua_settop(L, -2) }
            guard let object = object(at: -1, type: Self.objectType, as: ManagedObject.self) else {
                throw LuaError(code: "value", message: "\(label): item \(position + 1) is \(call.describe(at: -1)), not an object")
            }
            objects.append(object)
        }
        return objects
    }

    /// The object's attributes by name, and its relationships as the URIs of their objects.
    static func table(of object: ManagedObject) throws -> JSONValue {
        guard let model = object.managedObjectContext?.model else { return .object([]) }
        var members: [JSONMember] = []
        for attribute in model.allAttributes(of: object.entity) {
            members.append(JSONMember(attribute.name, try object.attributeValue(forKey: attribute.name).map { attribute.jsonValue(of: $0, taggingNulls: true) } ?? .null))
        }
        for relationship in model.allRelationships(of: object.entity) {
            let related = relationship.isToMany ? try object.objects(forKey: relationship.name) : [try object.value(forKey: relationship.name) as? ManagedObject].compactMap { $0 }
            let uris = related.map { JSONValue.string($0.objectID.uriString) }
            members.append(JSONMember(relationship.name, relationship.isToMany ? .array(uris) : uris.first ?? .null))
        }
        return .object(members)
    }

    static func unknownProperty(_ key: String, of entity: EntityDescription, in model: ObjectModel) -> LuaError {
        let known = model.allAttributes(of: entity).map(\.name) + model.allRelationships(of: entity).map(\.name)
            + model.allFetchedProperties(of: entity).map(\.name)
        return LuaError(
            code: "property",
            message: "\(entity.name) has no property '\(key)'" + (nearestName(to: key, among: known).map { " (did you mean '\($0)'?)" } ?? ""))
    }
}

extension ManagedObject {
    /// Runs `body` on the queue of the object's context (at once when there is none).
    func performOnContext<T>(_ body: () throws -> T) rethrows -> T {
        guard let context = managedObjectContext else { return try body() }
        return try context.performAndWait(body)
    }
}
