#ifndef STRATA_CLUABRIDGE_H
#define STRATA_CLUABRIDGE_H

// The C side of Strata's Lua bindings. Lua reports errors by long-jumping, which must never
// cross a Swift frame: Swift functions exposed to Lua run behind a C trampoline and report an
// error by pushing it and returning STRATA_LUA_RAISE, and the trampoline raises it; Swift
// calls into Lua only through the protected calls here. The Lua API's macros and variadic
// functions, which Swift cannot see, are wrapped as plain functions.

#include <stddef.h>
#include <stdint.h>

typedef struct lua_State lua_State;

/// What a Swift function returns to say "raise the value on top of the stack".
#define STRATA_LUA_RAISE (-1)

/// The Lua release Strata was built against, such as "Lua 5.4.6" (the LUA_RELEASE macro).
const char *strata_lua_release(void);

// MARK: - States

/// Limits a state enforces while Lua code runs; 0 means none.
typedef struct strata_lua_limits {
    /// Instructions a run may execute before it fails with "instruction budget exceeded".
    int64_t instructions;
    /// Bytes the state may hold before an allocation fails with "not enough memory"; what
    /// Swift holds for the script (see strata_lua_charge) counts too.
    size_t memory;
    /// Milliseconds of wall-clock time a run may take before it fails with "time limit
    /// exceeded": the bound on what no instruction counts (garbage collection, work at the
    /// memory limit, a long call into Swift).
    int64_t milliseconds;
} strata_lua_limits;

/// A new state with Strata's allocator (which keeps count of memory), or NULL.
lua_State *strata_lua_newstate(void);
void strata_lua_close(lua_State *L);
/// Sets the limits for the run that starts (its deadline counted from now), resets the
/// instruction count, and clears a stop and an interruption that arrived after the last run
/// ended.
void strata_lua_set_limits(lua_State *L, strata_lua_limits limits);
/// The bytes the state holds now.
size_t strata_lua_memory_in_use(lua_State *L);
/// Makes the running script fail with "interrupted" at its next instruction check: safe to
/// call from a signal handler or another thread.
void strata_lua_interrupt(lua_State *L);
/// Whether the running script must stop because it was interrupted or its time is up, without
/// counting anything: safe to call on any thread (SQLite asks it while a statement runs).
int strata_lua_should_stop(lua_State *L);

/// What strata_lua_charge answers.
#define STRATA_LUA_GO_ON 0
/// The run must stop (interrupted, over its budget or its time): `message` says why.
#define STRATA_LUA_STOP 1
/// What Swift holds for the script would pass the memory limit.
#define STRATA_LUA_OUT_OF_MEMORY 2
/// Counts work that Swift does for a script: `instructions` against the budget (with the
/// time limit and an interruption checked), and `bytes` that Swift holds for it against the
/// memory limit until the Swift function that the script called returns. Never raises (Swift
/// calls it): answers STRATA_LUA_GO_ON, or why not with the message in `message`.
int strata_lua_charge(lua_State *L, int64_t instructions, size_t bytes, char *message, size_t size);
/// The bytes Swift holds for the script now (see strata_lua_charge), and setting them back:
/// for Swift that charges outside a Swift function (a run's results), where no trampoline
/// does it on return.
size_t strata_lua_held(lua_State *L);
void strata_lua_set_held(lua_State *L, size_t bytes);

/// Opens the sandbox's libraries (base without dofile and loadfile, and a load that reads
/// text only; table, string, math, utf8, coroutine), and io and os when `unsafe` is set.
/// Returns LUA_OK or an error code with the message on the stack.
int strata_lua_open_libraries(lua_State *L, int unsafe);

// MARK: - Calling Lua

/// Loads `chunk` as text (never bytecode) under `name`, as luaL_loadbufferx does.
int strata_lua_load(lua_State *L, const char *chunk, size_t length, const char *name);
/// Calls the function below `nargs` arguments in protected mode; on error leaves the error
/// value with a traceback of the Lua frames in `*traceback` (a string on the stack below it
/// is not used: the traceback is pushed after the error, so 2 values are left).
int strata_lua_pcall(lua_State *L, int nargs, int nresults);

// MARK: - Swift functions

/// How a state calls back into Swift: `box` names the Swift function.
typedef int (*strata_lua_dispatch)(lua_State *L, void *box);
/// The function every trampoline calls; set once, before any state runs.
void strata_lua_set_dispatch(strata_lua_dispatch dispatch);
/// Pushes a Lua function that calls the Swift function `box` through the dispatcher.
void strata_lua_push_function(lua_State *L, void *box);

// MARK: - Swift objects as userdata

/// How a state lets go of a Swift object its userdata held (set once, like the dispatcher).
typedef void (*strata_lua_releaser)(void *object);
void strata_lua_set_release(strata_lua_releaser release);
/// Makes (when missing) the metatable of the userdata type `type`, whose __gc lets go of the
/// object, and leaves it on the stack; returns 1 when it was made.
int strata_lua_new_type(lua_State *L, const char *type);
/// Pushes the userdata of `object` (a retained Swift object, which the userdata now owns) of
/// type `type`: the same userdata for the same object while it lives, so that `==` holds.
void strata_lua_push_object(lua_State *L, void *object, const char *type);
/// The object of the userdata at `index` when it is of type `type`, else NULL.
void *strata_lua_to_object(lua_State *L, int index, const char *type);

// MARK: - Macros and variadic functions, as functions

void strata_lua_pop(lua_State *L, int n);
void strata_lua_newtable(lua_State *L);
const char *strata_lua_tolstring(lua_State *L, int index, size_t *length);
int strata_lua_upvalueindex(int i);
int strata_lua_registryindex(void);
int strata_lua_isinteger(lua_State *L, int index);
/// Pushes a Strata error: a table {code = code, message = message} whose __tostring gives
/// the message.
void strata_lua_push_error(lua_State *L, const char *code, const char *message);
/// Whether the value at `index` is a Strata error table; then `*code` and `*message` point to
/// its strings (valid while the value is on the stack).
int strata_lua_is_error(lua_State *L, int index, const char **code, const char **message);
/// Runs a full garbage collection.
void strata_lua_collect(lua_State *L);

#endif
