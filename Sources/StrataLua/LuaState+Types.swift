import CLua
import CLuaBridge

// Swift objects in Lua: a userdata per object (the same one while it lives, so that `==`
// holds), of a type whose metatable holds its methods and metamethods, all Swift functions.

extension LuaState {
    /// A Swift function as a method or metamethod of a type.
    typealias Method = (LuaCall) throws -> Int32

    /// Defines the userdata type `name`: `methods` are what `value:method(…)` finds, `index`
    /// answers other keys (`book.title`), and `metamethods` are set as they are (`__newindex`,
    /// `__tostring`, `__len`, `__close`, …).
    func defineType(_ name: String, methods: [String: Method], index: Method? = nil, metamethods: [String: Method] = [:]) {
        _ = Self.installRelease
        typeMethods[name] = methods.keys.sorted()
        strata_lua_new_type(L, name)
        strata_lua_newtable(L)
        for (method, body) in methods.sorted(by: { $0.key < $1.key }) {
            lua_pushstring(L, method)
            pushFunction(name: method, body)
            lua_rawset(L, -3)
        }
        if let index {
            // Methods first, then the type's own look-up; made in Lua so that a method is a plain table read.
            lua_pushvalue(L, -1)
            pushFunction(name: "\(name).__index", index)
            do {
                try callChunk(
                    "local methods, lookup = ... return function(self, key) local method = methods[key] if method ~= nil then return method end return lookup(self, key) end",
                    name: "=\(name)", arguments: 2, results: 1)
            } catch {
                preconditionFailure("the index function of \(name) does not run: \(error)")
            }
            lua_setfield(L, -3, "__index")
            lua_settop(L, -2)
        } else {
            lua_setfield(L, -2, "__index")
        }
        for (metamethod, body) in metamethods {
            pushFunction(name: metamethod, body)
            lua_setfield(L, -2, metamethod)
        }
        lua_settop(L, -2)
    }

    /// Pushes the userdata of `object` of the type `name` (see ``defineType(_:methods:index:metamethods:)``).
    func push(_ object: AnyObject, type name: String) {
        strata_lua_push_object(L, Unmanaged.passRetained(object).toOpaque(), name)
    }

    /// The object of the userdata at `index`, when it is of the type `name` and of class `T`.
    func object<T: AnyObject>(at index: Int32, type name: String, as _: T.Type = T.self) -> T? {
        strata_lua_to_object(L, index, name).flatMap { Unmanaged<AnyObject>.fromOpaque($0).takeUnretainedValue() as? T }
    }

    /// Installs, once, how userdata let go of their objects.
    private static let installRelease: Void = {
        strata_lua_set_release { object in
            if let object { Unmanaged<AnyObject>.fromOpaque(object).release() }
        }
    }()
}
