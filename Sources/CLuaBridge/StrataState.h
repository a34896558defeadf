#ifndef STRATA_STATE_H
#define STRATA_STATE_H

// What the bridge's C files share about a state (not part of the bridge's Swift interface).

#include <lua.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "CLuaBridge.h"

/// What a state keeps beside Lua's own: its memory count, limits, and whether Swift is
/// running (allocations then never fail, since a memory error would long-jump over Swift).
typedef struct strata_state {
    size_t used;
    strata_lua_limits limits;
    int64_t executed;
    /// Set by another thread or a signal handler: a lock-free atomic is safe for both, where
    /// a `volatile sig_atomic_t` is safe only for a signal handler on the same thread.
    atomic_int interrupted;
    int swift_depth;
    /// Pattern-matching steps not yet counted against the budget.
    int64_t pattern_steps;
} strata_state;

/// Instructions between two checks of the budget and of an interruption.
#define STRATA_HOOK_INTERVAL 1000

strata_state *strata_state_of(lua_State *L);

/// Counts `count` more instructions against the run's budget, and raises "interrupted" or
/// "instruction budget exceeded" at the function `level` levels up when the run must stop.
void strata_charge(lua_State *L, strata_state *state, int64_t count, int level);

/// Replaces string.find, match, gmatch and gsub (and so the methods of strings) by versions
/// whose matching counts its steps against the instruction budget; the `string` table is on
/// top of the stack.
void strata_open_patterns(lua_State *L);

#endif
