#include "CLuaBridge.h"
#include <lua.h>

const char *strata_lua_release(void) {
    return LUA_RELEASE;
}
