import CLua

/// How a script is about to use the standard streams, for a program that keeps a status line
/// on the terminal (``LuaState/standardStreamsWillBeUsed``).
public enum StandardStreamUse: Sendable, Equatable {
    /// A write to standard output or standard error through `io`, and whether the text ends
    /// with a newline.
    case write(toStandardError: Bool, endsLine: Bool)
    /// The script lends the terminal out: it reads standard input (`io.read`, `io.lines()`,
    /// `io.stdin:read`), or runs a command (`os.execute`) that may read or write it.
    case lend
    /// The read or the command is over.
    case takeBack
}

extension LuaState {
    /// Makes `io`'s writes to the standard streams, its reads of standard input and
    /// `os.execute` call ``standardStreamsWillBeUsed`` first (and, for a read or a command,
    /// again when it is over, also when it fails).
    func installStandardStreamHooks() throws(LuaError) {
        pushFunction(name: "strata_stream_use") { [unowned self] call in
            switch try call.string(at: 1) {
            case "write": self.standardStreamsWillBeUsed(.write(toStandardError: call.boolean(at: 2), endsLine: call.boolean(at: 3)))
            case "lend": self.standardStreamsWillBeUsed(.lend)
            default: self.standardStreamsWillBeUsed(.takeBack)
            }
            return 0
        }
        lua_setglobal(L, "strata_stream_use")
        try run("""
            local notify, stdout, stderr, stdin = strata_stream_use, io.stdout, io.stderr, io.stdin
            local select, type, pcall, error, pack, unpack = select, type, pcall, error, table.pack, table.unpack
            strata_stream_use = nil
            local function writing(file, ...)
              if file ~= stdout and file ~= stderr then return end
              for i = select("#", ...), 1, -1 do
                local value = select(i, ...)
                if value ~= "" then return notify("write", file == stderr, type(value) == "string" and value:sub(-1) == "\\n") end
              end
            end
            local function lending(body, ...)
              notify("lend")
              local results = pack(pcall(body, ...))
              notify("return")
              if not results[1] then error(results[2], 0) end
              return unpack(results, 2, results.n)
            end
            local methods = getmetatable(stdout).__index
            local write, fileWrite, read, fileRead = io.write, methods.write, io.read, methods.read
            local lines, fileLines, execute = io.lines, methods.lines, os.execute
            function io.write(...) writing(io.output(), ...) return write(...) end
            function methods.write(file, ...) writing(file, ...) return fileWrite(file, ...) end
            function io.read(...)
              if io.input() ~= stdin then return read(...) end
              return lending(read, ...)
            end
            function methods.read(file, ...)
              if file ~= stdin then return fileRead(file, ...) end
              return lending(fileRead, file, ...)
            end
            function io.lines(name, ...)
              if name ~= nil or io.input() ~= stdin then return lines(name, ...) end
              local nextLine = lines(nil, ...)
              return function() return lending(nextLine) end
            end
            function methods.lines(file, ...)
              if file ~= stdin then return fileLines(file, ...) end
              local nextLine = fileLines(file, ...)
              return function() return lending(nextLine) end
            end
            function os.execute(...) return lending(execute, ...) end
            """, name: "=strata.io")
    }
}
