#ifndef STRATA_STATE_H
#define STRATA_STATE_H

// What the bridge's C files share about a state (not part of the bridge's Swift interface).

#include <lua.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "CLuaBridge.h"

/// Why a run stops. Once set, a stop holds until the next run: every check raises it again,
/// and pcall, xpcall, coroutine.resume, coroutine.close and load, which catch errors, raise it
/// again, so that a script cannot catch its own end and go on.
enum strata_stop { STRATA_GO_ON = 0, STRATA_INTERRUPTED, STRATA_OVER_BUDGET, STRATA_OVER_TIME };

/// What a state keeps beside Lua's own: its memory count, limits, and whether Swift is
/// running (allocations then never fail, since a memory error would long-jump over Swift).
typedef struct strata_state {
    size_t used;
    /// The bytes that Swift holds for the running Swift function (a JSON tree, an import's
    /// records), counted with `used` against the memory limit until the function returns.
    size_t held;
    strata_lua_limits limits;
    int64_t executed;
    /// When the run must end, in CLOCK_MONOTONIC nanoseconds; 0 for never. Atomic since
    /// strata_lua_should_stop reads it on whichever thread runs an SQLite statement.
    _Atomic int64_t deadline;
    /// `executed` at which the clock is read next: reading it on every charge would cost more
    /// than the charges.
    int64_t next_clock_check;
    /// Set by another thread or a signal handler: a lock-free atomic is safe for both, where
    /// a `volatile sig_atomic_t` is safe only for a signal handler on the same thread.
    atomic_int interrupted;
    enum strata_stop stop;
    int swift_depth;
    /// Pattern-matching steps not yet counted against the budget.
    int64_t pattern_steps;
} strata_state;

/// Instructions between two checks of the budget and of an interruption.
#define STRATA_HOOK_INTERVAL 1000
/// The instructions a byte is worth when Lua allocates it, and when C code reads or writes it
/// in bulk: copying 64 bytes costs about what one instruction does. Allocation is where most
/// C functions (string.rep, table.concat, string.format, `..`) do their work, so every C
/// function that makes something pays for its size.
#define STRATA_BYTES_PER_INSTRUCTION 64
/// The instructions a full garbage collection is worth, per byte of the heap: a low estimate
/// (a heap of a few long strings is walked at once, one of small tables at about 16 bytes an
/// instruction), so that a script that collects now and then is not stopped by it; the time
/// limit bounds what it leaves out.
#define STRATA_GC_BYTES_PER_INSTRUCTION 64

strata_state *strata_state_of(lua_State *L);

/// Counts `count` more instructions against the run's budget, and raises "interrupted" or
/// "instruction budget exceeded" at the function `level` levels up when the run must stop.
void strata_charge(lua_State *L, strata_state *state, int64_t count, int level);

/// Counts `count` more instructions and checks an interruption, the budget and the clock,
/// without raising: returns why the run must stop, or STRATA_GO_ON.
enum strata_stop strata_check(strata_state *state, int64_t count);

/// Writes the message of the stop `stop` ("instruction budget exceeded (…)") into `message`.
void strata_stop_message(strata_state *state, enum strata_stop stop, char *message, size_t size);

/// Raises `message` at the line of the function `level` levels up.
int strata_limit_error(lua_State *L, int level, const char *message);

/// Wraps the functions of the opened libraries that catch errors (so that a stop cannot be
/// caught) or do work that no instruction counts (charging them by size).
void strata_open_limits(lua_State *L);

/// Replaces string.find, match, gmatch and gsub (and so the methods of strings) by versions
/// whose matching counts its steps against the instruction budget; the `string` table is on
/// top of the stack.
void strata_open_patterns(lua_State *L);

#endif
