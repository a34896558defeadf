#ifndef STRATA_CLUABRIDGE_H
#define STRATA_CLUABRIDGE_H

/// The Lua release Strata was built against, such as "Lua 5.4.6" (the LUA_RELEASE macro,
/// which Swift cannot see).
const char *strata_lua_release(void);

#endif
