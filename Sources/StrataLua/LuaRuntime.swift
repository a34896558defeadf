import CLuaBridge

/// Facts about the Lua interpreter that Strata embeds for its scripts.
public enum LuaRuntime {
    /// The Lua release Strata is built with, such as `Lua 5.4.6`.
    public static var release: String { String(cString: strata_lua_release()) }
}
