import Testing
@testable import StrataLua

@Suite struct LuaRuntimeTests {
    @Test func linksLua54() {
        #expect(LuaRuntime.release.hasPrefix("Lua 5.4"))
    }
}
