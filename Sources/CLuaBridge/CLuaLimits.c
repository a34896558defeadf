// What keeps the standard libraries inside a run's limits, beside the count hook (which counts
// Lua instructions only) and the allocator (which counts the bytes Lua makes):
//
// - Functions that catch errors (pcall, xpcall, coroutine.resume and close) raise a stop again,
//   so that a script cannot catch the end of its budget, its time or an interruption and go on:
//   `while true do pcall(f) end` would otherwise run for ever with f ending each time.
// - C functions whose work no instruction and no allocation counts pay for it before they run:
//   string.rep by repetition (`(""):rep(1e15)` makes nothing and loops a quadrillion times),
//   table.move and table.concat by element, table.insert and remove by the elements they
//   shift, table.sort by comparison, utf8's functions by byte decoded, and collectgarbage by
//   the heap it walks. The rule is the allocator's: work costs an instruction per step that
//   takes about as long as one (a copy of 64 bytes, a decoded character, an element moved).

#include "StrataState.h"

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <limits.h>
#include <string.h>

// MARK: - Functions that catch errors

/// Runs the original (upvalue 1, a C function) in this function's frame, so that its errors
/// name it as Lua's own do and pcall stays as yieldable as it is, then raises a stop that the
/// call caught. (After a yield inside pcall, Lua finishes with pcall's own continuation and
/// this check is skipped: the stop holds, so the next check raises it.)
static int strata_catching(lua_State *L) {
    int results = lua_tocfunction(L, lua_upvalueindex(1))(L);
    strata_charge(L, strata_state_of(L), 1, 1);
    return results;
}

// MARK: - Functions that work in C

enum work { WORK_REP, WORK_CONCAT, WORK_MOVE, WORK_SHIFT, WORK_SORT, WORK_DECODE, WORK_COLLECT };

/// The integer argument at `index`, or `fallback` when it is missing or not an integer (the
/// original function then says what is wrong).
static lua_Integer integer_argument(lua_State *L, int index, lua_Integer fallback) {
    int isInteger = 0;
    lua_Integer value = lua_tointegerx(L, index, &isInteger);
    return isInteger ? value : fallback;
}

static size_t length_argument(lua_State *L, int index) {
    int type = lua_type(L, index);
    return type == LUA_TSTRING || type == LUA_TTABLE ? lua_rawlen(L, index) : 0;
}

/// `a * b`, at most INT64_MAX / 4, so that the budget's sum cannot overflow.
static int64_t capped_product(int64_t a, int64_t b) {
    const int64_t cap = INT64_MAX / 4;
    if (a <= 0 || b <= 0) return 0;
    return a > cap / b ? cap : a * b;
}

/// What the call on the stack will cost, in instructions, by what the function does.
static int64_t cost(lua_State *L, enum work work) {
    switch (work) {
        case WORK_REP: {
            // Each repetition is a call of memcpy: a quarter of an instruction when it copies
            // into the result (whose bytes the allocator charges), a whole one when the result
            // is empty and nothing else is charged. A result of more than INT_MAX bytes is
            // refused before any work ("resulting string too large").
            int64_t count = integer_argument(L, 2, 0);
            int64_t piece = (int64_t)(length_argument(L, 1) + length_argument(L, 3));
            if (count <= 0) return 0;
            if (piece == 0) return count;
            return capped_product(count, piece) > INT_MAX ? 0 : count / 4;
        }
        case WORK_CONCAT: {
            int64_t length = (int64_t)length_argument(L, 1);
            int64_t first = integer_argument(L, 3, 1), last = integer_argument(L, 4, length);
            // It stops at the first missing element: past the table's end, at most one more.
            if (last > length + 1) last = length + 1;
            return last >= first ? last - first + 1 : 0;
        }
        case WORK_MOVE: {
            int64_t first = integer_argument(L, 2, 1), last = integer_argument(L, 3, 0);
            return last >= first && first > INT64_MIN / 2 ? last - first + 1 : 0;
        }
        case WORK_SHIFT: return (int64_t)length_argument(L, 1);
        case WORK_SORT: {
            int64_t count = (int64_t)length_argument(L, 1), rounds = 1;
            while ((int64_t)1 << rounds < count && rounds < 62) rounds++;
            return capped_product(count, rounds);
        }
        case WORK_DECODE: return (int64_t)length_argument(L, 1) / 8;
        case WORK_COLLECT: {
            const char *option = lua_type(L, 1) == LUA_TSTRING ? lua_tostring(L, 1) : "collect";
            if (strcmp(option, "count") == 0 || strcmp(option, "isrunning") == 0) return 0;
            return (int64_t)(strata_state_of(L)->used / STRATA_GC_BYTES_PER_INSTRUCTION);
        }
    }
    return 0;
}

/// Charges the call's cost (upvalue 2 says which work), then runs the original (upvalue 1, a
/// C function of Lua's libraries, which use no upvalues) in this function's frame.
static int strata_charged(lua_State *L) {
    enum work work = (enum work)lua_tointeger(L, lua_upvalueindex(2));
    strata_charge(L, strata_state_of(L), 1 + cost(L, work), 1);
    return lua_tocfunction(L, lua_upvalueindex(1))(L);
}

// MARK: - Installing

/// Replaces the function `name` of the table on top of the stack (the globals when `library`
/// is NULL) by a closure of `wrapper` over it, with `work` as its second upvalue when >= 0.
static void wrap(lua_State *L, const char *library, const char *name, lua_CFunction wrapper, int work) {
    if (library) {
        lua_getglobal(L, library);
    } else {
        lua_pushglobaltable(L);
    }
    if (lua_getfield(L, -1, name) != LUA_TFUNCTION || !lua_tocfunction(L, -1)) {
        lua_pop(L, 2);
        return;
    }
    if (work >= 0) {
        lua_pushinteger(L, work);
        lua_pushcclosure(L, wrapper, 2);
    } else {
        lua_pushcclosure(L, wrapper, 1);
    }
    lua_setfield(L, -2, name);
    lua_pop(L, 1);
}

void strata_open_limits(lua_State *L) {
    wrap(L, NULL, "pcall", strata_catching, -1);
    wrap(L, NULL, "xpcall", strata_catching, -1);
    wrap(L, LUA_COLIBNAME, "resume", strata_catching, -1);
    wrap(L, LUA_COLIBNAME, "close", strata_catching, -1);
    wrap(L, NULL, "collectgarbage", strata_charged, WORK_COLLECT);
    wrap(L, LUA_STRLIBNAME, "rep", strata_charged, WORK_REP);
    wrap(L, LUA_TABLIBNAME, "concat", strata_charged, WORK_CONCAT);
    wrap(L, LUA_TABLIBNAME, "move", strata_charged, WORK_MOVE);
    wrap(L, LUA_TABLIBNAME, "insert", strata_charged, WORK_SHIFT);
    wrap(L, LUA_TABLIBNAME, "remove", strata_charged, WORK_SHIFT);
    wrap(L, LUA_TABLIBNAME, "sort", strata_charged, WORK_SORT);
    wrap(L, LUA_UTF8LIBNAME, "len", strata_charged, WORK_DECODE);
    wrap(L, LUA_UTF8LIBNAME, "codepoint", strata_charged, WORK_DECODE);
    wrap(L, LUA_UTF8LIBNAME, "offset", strata_charged, WORK_DECODE);
}
