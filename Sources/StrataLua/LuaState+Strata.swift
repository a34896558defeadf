import CLua
import Foundation
import Logging
import Strata

// Strata's API in a script: the globals `ctx` (a context), `stack` (its stack) and `strata`
// (`strata.json.encode/decode`, `strata.log.info(…)` and the other levels,
// `strata.set_log_level("verbose")`, `strata.model`).

extension LuaState {
    static let stackType = "strata.stack"

    /// Makes Strata's API available to scripts: `ctx` is `context`, `stack` is `stack` (when
    /// given), and the `strata` module; see the README's Lua section for the whole API.
    ///
    /// ```swift
    /// let lua = try LuaState()
    /// lua.installStrata(context: stack.mainContext, stack: stack)
    /// try lua.run("for b in ctx:each('Book') do b.rating = b.rating + 1 end ctx:save()", name: "=bump")
    /// ```
    public func installStrata(context: ObjectContext, stack: DataStack? = nil) {
        defineObjectTypes()
        defineImport()
        defineContextType()
        defineWatchType()
        defineStackType()
        installModule(model: context.model)
        scriptConnection = { [weak context] in context?.store.database }
        push(LuaContext(context), type: Self.contextType)
        lua_setglobal(L, "ctx")
        if let stack {
            push(stack, type: Self.stackType)
            lua_setglobal(L, "stack")
        }
    }

    // MARK: - The strata module

    private func installModule(model: ObjectModel) {
        register("encode", in: "strata_json") { call in
            let pretty = call.boolean(at: 2)
            call.push(JSONWriter.string(from: try call.json(at: 1), pretty: pretty))
            return 1
        }
        register("decode", in: "strata_json") { call in
            let text = try call.string(at: 1)
            try call.chargeDecoding(text.utf8)
            do {
                call.push(json: try JSONReader.parse(Data(text.utf8)))
            } catch let error as JSONSyntaxError {
                throw LuaError(code: "json", message: "strata.json.decode: \(error)")
            }
            return 1
        }
        let log = ScriptLog()
        for level in LogLevel.allCases {
            register(level.rawValue, in: "strata_log") { call in
                let message = try (1...max(1, call.count)).filter { $0 <= call.count }.map { try call.string(at: $0) }.joined(separator: " ")
                log.logger.log(level: level.loggerLevel, "\(message)")
                return 0
            }
        }
        register("set_log_level", in: "strata_module") { call in
            let name = try call.string(at: 1)
            guard let level = LogLevel(rawValue: name.lowercased()) else {
                throw LuaError(code: "argument", message: "unknown log level '\(name)': use one of \(LogLevel.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            log.logger.logLevel = level.loggerLevel
            return 0
        }
        let modelJSON = (try? JSONReader.parse(Data(JSONModelWriter.string(for: model).utf8))) ?? .object([])
        LuaCall(L: L).push(json: modelJSON)
        lua_setglobal(L, "strata_model")
        do {
            try run("""
                strata = strata_module
                strata.json, strata.log, strata.model, strata.hooks = strata_json, strata_log, strata_model, strata_hooks
                strata_module, strata_json, strata_log, strata_model, strata_hooks = nil, nil, nil, nil, nil
                \(Self.inspectSource)
                """, name: "=strata")
        } catch {
            preconditionFailure("the strata module does not install: \(error)")
        }
    }

    /// `strata.inspect(value[, limit])`: a value as the shell shows a result. An object loads
    /// and shows its attributes (`<Tag p1 {name="Epic"}>`), a list one item per line and then
    /// how many, a table as `{key = value, …}` to three levels; strings inside tables are
    /// quoted. A list or table shows at most `limit` items (default `strata.list_limit`, 50;
    /// 0 or `false` for all) and says how many more (`… 199,950 more`): a fetch of many
    /// objects prints a screenful, not megabytes, and loads only the objects it shows.
    static let inspectSource = #"""
        strata.list_limit = 50
        do
          local function isobject(value)
            if type(value) ~= "userdata" then return false end
            local ok, method = pcall(function() return value.to_table end)
            return ok and type(method) == "function"
          end
          local function grouped(number)
            local text, replaced = tostring(number), 0
            repeat text, replaced = text:gsub("^(%d+)(%d%d%d)", "%1,%2") until replaced == 0
            return text
          end
          local function show(value, depth, limit)
            if isobject(value) then
              pcall(value.to_table, value)
              return tostring(value)
            end
            if type(value) == "string" then return depth > 0 and string.format("%q", value) or value end
            local meta = getmetatable(value)
            if type(value) ~= "table" or (meta and meta.__tostring) then return tostring(value) end
            if depth >= 3 then return "{…}" end
            local count, parts, keys = #value, {}, {}
            for key in pairs(value) do
              if not (math.type(key) == "integer" and key >= 1 and key <= count) then keys[#keys + 1] = key end
            end
            local total = count + #keys
            local shown = limit and math.min(total, limit) or total
            for index = 1, math.min(count, shown) do parts[#parts + 1] = show(value[index], depth + 1, limit) end
            if shown > count then
              table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
              for index = 1, shown - count do
                local key = keys[index]
                local name = type(key) == "string" and key:match("^[%a_][%w_]*$") and key or "[" .. show(key, depth + 1, limit) .. "]"
                parts[#parts + 1] = name .. " = " .. show(value[key], depth + 1, limit)
              end
            end
            local more = total > shown and ("… " .. grouped(total - shown) .. " more") or nil
            if depth == 0 and count > 0 and #keys == 0 then
              if more then parts[#parts + 1] = more end
              return table.concat(parts, "\n") .. string.format("\n(%s item%s)", grouped(count), count == 1 and "" or "s")
            end
            if more then parts[#parts + 1] = more end
            return "{" .. table.concat(parts, ", ") .. "}"
          end
          function strata.inspect(value, limit)
            if limit == nil then limit = strata.list_limit end
            if not limit or math.type(limit) ~= "integer" or limit <= 0 then limit = nil end
            return show(value, 0, limit)
          end
        end
        """#

    // MARK: - The stack

    private func defineStackType() {
        let stackOf = { [unowned self] (call: LuaCall) throws(LuaError) -> DataStack in
            guard let stack = self.object(at: 1, type: Self.stackType, as: DataStack.self) else { throw call.argumentError(1, expected: "stack") }
            return stack
        }
        defineType(Self.stackType, methods: [
            "description": { call in
                call.push(try stackOf(call).description)
                return 1
            },
            "reset": { call in
                try stackOf(call).resetStore()
                return 0
            },
            "update": { [unowned self] call in
                let stack = try stackOf(call)
                guard lua_type(self.L, 2) == LUA_TFUNCTION else { throw call.argumentError(2, expected: "function") }
                // CoreDataMonk's beginUpdate: changes are kept only when the function commits them.
                let update = stack.beginUpdateContext()
                defer { update.context.performAndWait { update.discard() } }
                try self.callWithContext(update.context, functionAt: 2)
                return 0
            },
            "background": { [unowned self] call in
                let stack = try stackOf(call)
                guard lua_type(self.L, 2) == LUA_TFUNCTION else { throw call.argumentError(2, expected: "function") }
                let worker = stack.newWorkerContext(name: "lua")
                try self.callWithContext(worker, functionAt: 2)
                try worker.performAndWait { if worker.hasChanges { try worker.commit() } }
                return 0
            },
        ], metamethods: [
            "__tostring": { call in
                call.push(try stackOf(call).description)
                return 1
            },
        ])
    }

    /// Calls the function at `index` with a context object for `context`.
    private func callWithContext(_ context: ObjectContext, functionAt index: Int32) throws {
        lua_pushvalue(L, index)
        push(LuaContext(context), type: Self.contextType)
        try call(arguments: 1, results: 0)
    }
}

/// The logger of a state's scripts, which `strata.set_log_level` changes.
private final class ScriptLog {
    var logger: Logger = {
        var logger = Logger(label: "strata.script")
        logger.logLevel = .info
        return logger
    }()
}
