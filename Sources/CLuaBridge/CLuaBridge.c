#include "CLuaBridge.h"
#include "StrataState.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

const char *strata_lua_release(void) {
    return LUA_RELEASE;
}

// MARK: - States

strata_state *strata_state_of(lua_State *L) {
    void *ud = NULL;
    lua_getallocf(L, &ud);
    return (strata_state *)ud;
}

static void *strata_alloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    strata_state *state = (strata_state *)ud;
    size_t old = ptr ? osize : 0;
    if (nsize == 0) {
        free(ptr);
        state->used -= old;
        return NULL;
    }
    if (state->limits.memory > 0 && state->swift_depth == 0 && nsize > old && state->used + state->held - old + nsize > state->limits.memory) {
        // Lua answers a refusal with a full collection before it gives up: at the limit, a
        // loop of failing allocations is a loop of collections, which no instruction counts.
        state->executed += (int64_t)(state->used / STRATA_GC_BYTES_PER_INSTRUCTION);
        return NULL;
    }
    void *block = realloc(ptr, nsize);
    if (block) {
        state->used = state->used - old + nsize;
        // Making bytes is work: counted here (and raised at the next check, since an
        // allocator may not raise), so that every function that makes something pays for it.
        if (nsize > old) state->executed += (int64_t)((nsize - old) / STRATA_BYTES_PER_INSTRUCTION);
    }
    return block;
}

/// Raises `message` at the line of the function `level` levels up (0 in a hook, which has no
/// frame of its own, so luaL_error's level 1 would name the caller's line).
int strata_limit_error(lua_State *L, int level, const char *message) {
    luaL_where(L, level);
    lua_pushstring(L, message);
    lua_concat(L, 2);
    return lua_error(L);
}

static int64_t monotonic_nanoseconds(void) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
}

enum strata_stop strata_check(strata_state *state, int64_t count) {
    if (state->stop != STRATA_GO_ON) return state->stop;
    if (atomic_exchange_explicit(&state->interrupted, 0, memory_order_relaxed)) return state->stop = STRATA_INTERRUPTED;
    state->executed += count;
    if (state->limits.instructions > 0 && state->executed > state->limits.instructions) return state->stop = STRATA_OVER_BUDGET;
    int64_t deadline = atomic_load_explicit(&state->deadline, memory_order_relaxed);
    if (deadline > 0 && state->executed >= state->next_clock_check) {
        state->next_clock_check = state->executed + STRATA_HOOK_INTERVAL;
        if (monotonic_nanoseconds() > deadline) return state->stop = STRATA_OVER_TIME;
    }
    return STRATA_GO_ON;
}

void strata_stop_message(strata_state *state, enum strata_stop stop, char *message, size_t size) {
    switch (stop) {
        case STRATA_INTERRUPTED: snprintf(message, size, "interrupted"); break;
        case STRATA_OVER_BUDGET:
            snprintf(message, size, "instruction budget exceeded (%lld instructions)", (long long)state->limits.instructions);
            break;
        case STRATA_OVER_TIME: snprintf(message, size, "time limit exceeded (%g s)", (double)state->limits.milliseconds / 1000); break;
        case STRATA_GO_ON: snprintf(message, size, "running"); break;
    }
}

void strata_charge(lua_State *L, strata_state *state, int64_t count, int level) {
    enum strata_stop stop = strata_check(state, count);
    if (stop == STRATA_GO_ON) return;
    char message[96];
    strata_stop_message(state, stop, message, sizeof message);
    strata_limit_error(L, level, message);
}

int strata_lua_charge(lua_State *L, int64_t instructions, size_t bytes, char *message, size_t size) {
    strata_state *state = strata_state_of(L);
    enum strata_stop stop = strata_check(state, instructions);
    if (stop != STRATA_GO_ON) {
        strata_stop_message(state, stop, message, size);
        return STRATA_LUA_STOP;
    }
    size_t held = state->held;
    state->held = bytes > SIZE_MAX - held ? SIZE_MAX : held + bytes;
    if (state->limits.memory > 0 && state->used + state->held > state->limits.memory) {
        // What Lua holds may be garbage, which a collection tells. It cannot raise here:
        // Swift runs, so allocations do not fail, and finalizers' errors become warnings.
        state->executed += (int64_t)(state->used / STRATA_GC_BYTES_PER_INSTRUCTION);
        lua_gc(L, LUA_GCCOLLECT, 0);
        if (state->used + state->held > state->limits.memory) {
            // Not made after all.
            state->held = held;
            snprintf(message, size, "not enough memory");
            return STRATA_LUA_OUT_OF_MEMORY;
        }
    }
    return STRATA_LUA_GO_ON;
}

size_t strata_lua_held(lua_State *L) {
    return strata_state_of(L)->held;
}

void strata_lua_set_held(lua_State *L, size_t bytes) {
    strata_state_of(L)->held = bytes;
}

static void strata_hook(lua_State *L, lua_Debug *ar) {
    (void)ar;
    strata_charge(L, strata_state_of(L), STRATA_HOOK_INTERVAL, 0);
}

lua_State *strata_lua_newstate(void) {
    strata_state *state = calloc(1, sizeof(strata_state));
    if (!state) return NULL;
    lua_State *L = lua_newstate(strata_alloc, state);
    if (!L) {
        free(state);
        return NULL;
    }
    lua_sethook(L, strata_hook, LUA_MASKCOUNT, STRATA_HOOK_INTERVAL);
    return L;
}

void strata_lua_close(lua_State *L) {
    strata_state *state = strata_state_of(L);
    state->swift_depth = 1;  // closing frees; nothing may fail
    lua_close(L);
    free(state);
}

void strata_lua_set_limits(lua_State *L, strata_lua_limits limits) {
    strata_state *state = strata_state_of(L);
    state->limits = limits;
    state->executed = 0;
    state->pattern_steps = 0;
    state->held = 0;
    state->stop = STRATA_GO_ON;
    state->next_clock_check = 0;
    atomic_store_explicit(&state->deadline, limits.milliseconds > 0 ? monotonic_nanoseconds() + limits.milliseconds * 1000000 : 0,
                          memory_order_relaxed);
    // An interruption meant for a run that has ended is not the new run's.
    atomic_store_explicit(&state->interrupted, 0, memory_order_relaxed);
}

size_t strata_lua_memory_in_use(lua_State *L) {
    return strata_state_of(L)->used;
}

int strata_lua_should_stop(lua_State *L) {
    strata_state *state = strata_state_of(L);
    if (atomic_load_explicit(&state->interrupted, memory_order_relaxed)) return 1;
    int64_t deadline = atomic_load_explicit(&state->deadline, memory_order_relaxed);
    return deadline > 0 && monotonic_nanoseconds() > deadline;
}

void strata_lua_interrupt(lua_State *L) {
    atomic_store_explicit(&strata_state_of(L)->interrupted, 1, memory_order_relaxed);
}

// MARK: - Libraries

/// `load` that reads text chunks only (a bytecode chunk can break the interpreter); the
/// original `load` is its upvalue.
static int strata_load_text(lua_State *L) {
    if (lua_gettop(L) < 3) lua_settop(L, 3);
    lua_pushliteral(L, "t");
    lua_replace(L, 3);
    lua_pushvalue(L, lua_upvalueindex(1));
    lua_insert(L, 1);
    lua_call(L, lua_gettop(L) - 1, LUA_MULTRET);
    // load catches what its reader function raises, a stop included.
    strata_charge(L, strata_state_of(L), 1, 1);
    return lua_gettop(L);
}

/// `setmetatable` as the manual describes it, but refusing a metatable with a `__gc` field.
/// Lua runs finalizers with hooks off, so a `__gc` that loops would escape the instruction
/// budget and Ctrl-C, and hang the process when it closes the state. A field added after
/// `setmetatable` never makes the object finalizable (Lua 5.4 manual, §2.5.3).
static int strata_setmetatable(lua_State *L) {
    int type = lua_type(L, 2);
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_argexpected(L, type == LUA_TNIL || type == LUA_TTABLE, 2, "nil or table");
    if (luaL_getmetafield(L, 1, "__metatable") != LUA_TNIL) return luaL_error(L, "cannot change a protected metatable");
    lua_pushliteral(L, "__gc");
    if (type == LUA_TTABLE && lua_rawget(L, 2) != LUA_TNIL) {
        return luaL_error(L, "setmetatable: a metatable with __gc is not allowed (finalizers would run outside the instruction budget)");
    }
    lua_settop(L, 2);
    lua_setmetatable(L, 1);
    return 1;
}

static int strata_open(lua_State *L) {
    int unsafe = lua_toboolean(L, 1);
    const luaL_Reg libraries[] = {
        {LUA_GNAME, luaopen_base}, {LUA_TABLIBNAME, luaopen_table}, {LUA_STRLIBNAME, luaopen_string},
        {LUA_MATHLIBNAME, luaopen_math}, {LUA_UTF8LIBNAME, luaopen_utf8}, {LUA_COLIBNAME, luaopen_coroutine},
        {LUA_IOLIBNAME, luaopen_io}, {LUA_OSLIBNAME, luaopen_os}, {NULL, NULL},
    };
    for (const luaL_Reg *library = libraries; library->name; library++) {
        int isSystem = library->func == luaopen_io || library->func == luaopen_os;
        if (isSystem && !unsafe) continue;
        luaL_requiref(L, library->name, library->func, 1);
        lua_pop(L, 1);
    }
    if (!unsafe) {
        lua_pushnil(L);
        lua_setglobal(L, "dofile");
        lua_pushnil(L);
        lua_setglobal(L, "loadfile");
        // Bytecode only leads to load, which refuses it; without dump there is none to make.
        lua_getglobal(L, "string");
        lua_pushnil(L);
        lua_setfield(L, -2, "dump");
        lua_pop(L, 1);
    }
    // Matching runs in C, where the count hook does not: ours counts its steps itself.
    lua_getglobal(L, "string");
    strata_open_patterns(L);
    lua_pop(L, 1);
    lua_getglobal(L, "load");
    lua_pushcclosure(L, strata_load_text, 1);
    lua_setglobal(L, "load");
    lua_pushcfunction(L, strata_setmetatable);
    lua_setglobal(L, "setmetatable");
    strata_open_limits(L);
    return 0;
}

int strata_lua_open_libraries(lua_State *L, int unsafe) {
    lua_pushcfunction(L, strata_open);
    lua_pushboolean(L, unsafe);
    return lua_pcall(L, 1, 0, 0);
}

// MARK: - Errors

static const char *const error_metatable = "strata.error";

static int strata_error_tostring(lua_State *L) {
    lua_getfield(L, 1, "message");
    if (!lua_isstring(L, -1)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "error");
    }
    return 1;
}

/// The metatable of Strata's error tables, made on first use.
static void push_error_metatable(lua_State *L) {
    if (luaL_newmetatable(L, error_metatable)) {
        lua_pushcfunction(L, strata_error_tostring);
        lua_setfield(L, -2, "__tostring");
    }
}

void strata_lua_push_error(lua_State *L, const char *code, const char *message) {
    lua_createtable(L, 0, 3);
    lua_pushstring(L, code);
    lua_setfield(L, -2, "code");
    lua_pushstring(L, message);
    lua_setfield(L, -2, "message");
    push_error_metatable(L);
    lua_setmetatable(L, -2);
}

int strata_lua_is_error(lua_State *L, int index, const char **code, const char **message) {
    if (!lua_istable(L, index) || !lua_getmetatable(L, index)) return 0;
    luaL_getmetatable(L, error_metatable);
    int is = lua_rawequal(L, -1, -2);
    lua_pop(L, 2);
    if (!is) return 0;
    index = lua_absindex(L, index);
    lua_pushliteral(L, "code");
    lua_rawget(L, index);
    *code = lua_tostring(L, -1);
    lua_pushliteral(L, "message");
    lua_rawget(L, index);
    *message = lua_tostring(L, -1);
    // Both strings stay alive in the table; only the stack slots go.
    lua_pop(L, 2);
    return 1;
}

// MARK: - Calling Lua

int strata_lua_load(lua_State *L, const char *chunk, size_t length, const char *name) {
    return luaL_loadbufferx(L, chunk, length, name, "t");
}

/// The message handler of protected calls: turns any error into a Strata error table (code
/// "lua" for Lua's own errors) and adds the traceback of the Lua frames.
static int strata_message_handler(lua_State *L) {
    const char *code = NULL, *message = NULL;
    if (!strata_lua_is_error(L, 1, &code, &message)) {
        const char *text = luaL_tolstring(L, 1, NULL);
        strata_lua_push_error(L, "lua", text);
        lua_replace(L, 1);
        lua_settop(L, 1);
    }
    luaL_traceback(L, L, NULL, 1);
    lua_setfield(L, 1, "traceback");
    return 1;
}

int strata_lua_pcall(lua_State *L, int nargs, int nresults) {
    strata_state *state = strata_state_of(L);
    int depth = state->swift_depth;
    state->swift_depth = 0;
    int base = lua_gettop(L) - nargs;
    lua_pushcfunction(L, strata_message_handler);
    lua_insert(L, base);
    int status = lua_pcall(L, nargs, nresults, base);
    lua_remove(L, base);
    state->swift_depth = depth;
    return status;
}

// MARK: - Swift functions

static strata_lua_dispatch swift_dispatch = NULL;

void strata_lua_set_dispatch(strata_lua_dispatch dispatch) {
    swift_dispatch = dispatch;
}

/// Pushes "chunk:line:" of the script's innermost frame, skipping Strata's own Lua glue (the
/// chunks named "=strata…"), or "" when there is none.
static void push_script_position(lua_State *L) {
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); level++) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0) continue;
        if (strncmp(ar.source, "=strata", 7) == 0) continue;
        lua_pushfstring(L, "%s:%d: ", ar.short_src, ar.currentline);
        return;
    }
    lua_pushliteral(L, "");
}

static int strata_trampoline(lua_State *L) {
    strata_state *state = strata_state_of(L);
    size_t held = state->held;
    state->swift_depth += 1;
    int results = swift_dispatch(L, lua_touserdata(L, lua_upvalueindex(1)));
    state->swift_depth -= 1;
    // What the function held for the script, Swift let go of when it returned.
    state->held = held;
    // Swift's allocations may not fail (see strata_alloc): what a Swift function made past the
    // ceiling (a huge result, say) fails here, its frames gone, unless a collection makes room.
    if (state->swift_depth == 0 && state->limits.memory > 0 && state->used + state->held > state->limits.memory) {
        state->executed += (int64_t)(state->used / STRATA_GC_BYTES_PER_INSTRUCTION);
        lua_gc(L, LUA_GCCOLLECT, 0);
        if (state->used + state->held > state->limits.memory) {
            lua_settop(L, 0);
            return luaL_error(L, "not enough memory");
        }
    }
    // What the function's allocations cost (counted by the allocator) may end the run. An
    // error may be the stop's own doing (SQLite ends a statement when the run must stop, see
    // strata_lua_should_stop): the clock is read then, so that the stop's message wins.
    if (results == STRATA_LUA_RAISE) state->next_clock_check = state->executed;
    strata_charge(L, state, 1, 1);
    if (results == STRATA_LUA_RAISE) {
        // The message names the script's line that made the call, as luaL_error's do.
        const char *code = NULL, *message = NULL;
        if (strata_lua_is_error(L, -1, &code, &message)) {
            push_script_position(L);
            lua_pushstring(L, message);
            lua_concat(L, 2);
            lua_setfield(L, -2, "message");
        }
        return lua_error(L);
    }
    return results;
}

void strata_lua_push_function(lua_State *L, void *box) {
    lua_pushlightuserdata(L, box);
    lua_pushcclosure(L, strata_trampoline, 1);
}

// MARK: - Swift objects as userdata

static strata_lua_releaser swift_release = NULL;

void strata_lua_set_release(strata_lua_releaser release) {
    swift_release = release;
}

static int strata_object_gc(lua_State *L) {
    void **slot = (void **)lua_touserdata(L, 1);
    if (slot && *slot) {
        swift_release(*slot);
        *slot = NULL;
    }
    return 0;
}

int strata_lua_new_type(lua_State *L, const char *type) {
    if (!luaL_newmetatable(L, type)) return 0;
    lua_pushcfunction(L, strata_object_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushstring(L, type);
    lua_setfield(L, -2, "__name");
    // Scripts see the type's name, not the metatable: a __gc they could replace would run
    // outside the instruction budget (see strata_setmetatable).
    lua_pushstring(L, type);
    lua_setfield(L, -2, "__metatable");
    return 1;
}

/// The registry's table of userdata by object, with weak values: one userdata per object.
static const char *const object_cache = "strata.objects";

void strata_lua_push_object(lua_State *L, void *object, const char *type) {
    if (luaL_getsubtable(L, LUA_REGISTRYINDEX, object_cache) == 0) {
        lua_createtable(L, 0, 1);
        lua_pushliteral(L, "v");
        lua_setfield(L, -2, "__mode");
        lua_setmetatable(L, -2);
    }
    lua_pushlightuserdata(L, object);
    if (lua_rawget(L, -2) == LUA_TUSERDATA) {
        // Already pushed: the userdata holds the object once.
        swift_release(object);
        lua_remove(L, -2);
        return;
    }
    lua_pop(L, 1);
    void **slot = (void **)lua_newuserdatauv(L, sizeof(void *), 1);
    *slot = object;
    luaL_setmetatable(L, type);
    lua_pushlightuserdata(L, object);
    lua_pushvalue(L, -2);
    lua_rawset(L, -4);
    lua_remove(L, -2);
}

void *strata_lua_to_object(lua_State *L, int index, const char *type) {
    void **slot = (void **)luaL_testudata(L, index, type);
    return slot ? *slot : NULL;
}

// MARK: - Macros and variadic functions, as functions

void strata_lua_pop(lua_State *L, int n) { lua_pop(L, n); }
void strata_lua_newtable(lua_State *L) { lua_newtable(L); }
const char *strata_lua_tolstring(lua_State *L, int index, size_t *length) { return lua_tolstring(L, index, length); }
int strata_lua_upvalueindex(int i) { return lua_upvalueindex(i); }
int strata_lua_registryindex(void) { return LUA_REGISTRYINDEX; }
int strata_lua_isinteger(lua_State *L, int index) { return lua_isinteger(L, index); }
void strata_lua_collect(lua_State *L) { lua_gc(L, LUA_GCCOLLECT, 0); }
