// Lua's string.find, match, gmatch and gsub, matching as the Lua 5.4 manual (§6.4.1) says, but
// counting their steps against the run's instruction budget. Lua's own matcher backtracks in C,
// where the count hook never runs: `("a"):rep(30):find(("a*"):rep(10) .. "b")` would run for
// hours, past the budget and deaf to Ctrl-C. Here every step of the matcher is charged by what
// it costs next to an instruction: STEP_WEIGHT for a step (a call of the matcher, a character
// tried: measured at two to four times an instruction), more for a set, whose characters are
// tried one by one, and for a back reference or a plain find, which compare bytes in bulk.

#define _GNU_SOURCE
#include "StrataState.h"

#include <ctype.h>
#include <lauxlib.h>
#include <lua.h>
#include <string.h>

// MARK: - Match state

#define ESCAPE '%'
#define SPECIALS "^$*+?.([%-"
/// As many captures as Lua allows (its LUA_MAXCAPTURES, which lua.h does not export).
#define MAX_CAPTURES 32
/// How deep the matcher may recurse (Lua's MAXCCALLS): deeper is "pattern too complex".
#define MAX_DEPTH 200
#define CAPTURE_OPEN (-1)
#define CAPTURE_POSITION (-2)

typedef struct match_state {
    const char *subject, *subject_end, *pattern_end;
    lua_State *L;
    strata_state *limits;
    int depth_left;
    int level;
    struct {
        const char *start;
        ptrdiff_t length;
    } captures[MAX_CAPTURES];
} match_state;

/// What a step of matching costs, in instructions.
#define STEP_WEIGHT 2
/// The characters of a set that cost an instruction to try.
#define SET_CHARACTERS_PER_INSTRUCTION 8

/// Work worth `instructions`: once a thousand have gathered, the budget is charged (and an
/// interruption and the clock seen).
static void charge_work(match_state *ms, int64_t instructions) {
    ms->limits->pattern_steps += instructions;
    if (ms->limits->pattern_steps >= STRATA_HOOK_INTERVAL) {
        int64_t steps = ms->limits->pattern_steps;
        ms->limits->pattern_steps = 0;
        strata_charge(ms->L, ms->limits, steps, 1);
    }
}

/// One step of matching.
static void step(match_state *ms) {
    charge_work(ms, STEP_WEIGHT);
}

static void prepare(match_state *ms, lua_State *L, const char *s, size_t ls, const char *p, size_t lp) {
    ms->L = L;
    ms->limits = strata_state_of(L);
    ms->subject = s;
    ms->subject_end = s + ls;
    ms->pattern_end = p + lp;
}

static void restart(match_state *ms) {
    ms->level = 0;
    ms->depth_left = MAX_DEPTH;
}

// MARK: - Single characters

static int matches_class(int c, int class) {
    int result;
    switch (tolower(class)) {
        case 'a': result = isalpha(c); break;
        case 'c': result = iscntrl(c); break;
        case 'd': result = isdigit(c); break;
        case 'g': result = isgraph(c); break;
        case 'l': result = islower(c); break;
        case 'p': result = ispunct(c); break;
        case 's': result = isspace(c); break;
        case 'u': result = isupper(c); break;
        case 'w': result = isalnum(c); break;
        case 'x': result = isxdigit(c); break;
        case 'z': result = c == '\0'; break;  // deprecated, but Lua 5.4 still has it
        default: return class == c;
    }
    return isupper(class) ? !result : result;
}

/// Whether `c` is in the set `[...]` from `p` (at its '[') to `last` (at its ']').
static int matches_set(int c, const char *p, const char *last) {
    int inside = 1;
    if (p[1] == '^') {
        inside = 0;
        p++;
    }
    while (++p < last) {
        if (*p == ESCAPE) {
            p++;
            if (matches_class(c, (unsigned char)*p)) return inside;
        } else if (p[1] == '-' && p + 2 < last) {
            p += 2;
            if ((unsigned char)p[-2] <= c && c <= (unsigned char)*p) return inside;
        } else if ((unsigned char)*p == c) {
            return inside;
        }
    }
    return !inside;
}

/// The end of the single-character class at `p`.
static const char *class_end(match_state *ms, const char *p) {
    char c = *p++;
    if (c == ESCAPE) {
        if (p == ms->pattern_end) luaL_error(ms->L, "malformed pattern (ends with '%%')");
        return p + 1;
    }
    if (c == '[') {
        const char *start = p;
        if (*p == '^') p++;
        do {
            if (p == ms->pattern_end) luaL_error(ms->L, "malformed pattern (missing ']')");
            if (*(p++) == ESCAPE && p < ms->pattern_end) p++;
        } while (*p != ']');
        charge_work(ms, (p - start) / SET_CHARACTERS_PER_INSTRUCTION);
        return p + 1;
    }
    return p;
}

/// Whether the subject's character at `s` matches the class from `p` to `end`.
static int matches_one(match_state *ms, const char *s, const char *p, const char *end) {
    if (s >= ms->subject_end) return 0;
    int c = (unsigned char)*s;
    switch (*p) {
        case '.': return 1;
        case ESCAPE: return matches_class(c, (unsigned char)p[1]);
        case '[':
            charge_work(ms, (end - p) / SET_CHARACTERS_PER_INSTRUCTION);
            return matches_set(c, p, end - 1);
        default: return (unsigned char)*p == c;
    }
}

// MARK: - Items

static const char *match(match_state *ms, const char *s, const char *p);

static const char *match_balance(match_state *ms, const char *s, const char *p) {
    if (p >= ms->pattern_end - 1) luaL_error(ms->L, "malformed pattern (missing arguments to '%%b')");
    if (s >= ms->subject_end || *s != *p) return NULL;
    char open = p[0], close = p[1];
    int depth = 1;
    while (++s < ms->subject_end) {
        step(ms);
        if (*s == close) {
            if (--depth == 0) return s + 1;
        } else if (*s == open) {
            depth++;
        }
    }
    return NULL;
}

static const char *match_longest(match_state *ms, const char *s, const char *p, const char *end) {
    ptrdiff_t count = 0;
    while (matches_one(ms, s + count, p, end)) {
        step(ms);
        count++;
    }
    for (; count >= 0; count--) {
        const char *result = match(ms, s + count, end + 1);
        if (result) return result;
    }
    return NULL;
}

static const char *match_shortest(match_state *ms, const char *s, const char *p, const char *end) {
    for (;;) {
        const char *result = match(ms, s, end + 1);
        if (result) return result;
        if (!matches_one(ms, s, p, end)) return NULL;
        s++;
    }
}

static const char *open_capture(match_state *ms, const char *s, const char *p, ptrdiff_t what) {
    int level = ms->level;
    if (level >= MAX_CAPTURES) luaL_error(ms->L, "too many captures");
    ms->captures[level].start = s;
    ms->captures[level].length = what;
    ms->level = level + 1;
    const char *result = match(ms, s, p);
    if (!result) ms->level--;
    return result;
}

static const char *close_capture(match_state *ms, const char *s, const char *p) {
    int level = ms->level - 1;
    while (level >= 0 && ms->captures[level].length != CAPTURE_OPEN) level--;
    if (level < 0) luaL_error(ms->L, "invalid pattern capture");
    ms->captures[level].length = s - ms->captures[level].start;
    const char *result = match(ms, s, p);
    if (!result) ms->captures[level].length = CAPTURE_OPEN;
    return result;
}

/// The capture that the back reference `%<digit>` names.
static int capture_index(match_state *ms, int digit) {
    int index = digit - '1';
    if (index < 0 || index >= ms->level || ms->captures[index].length == CAPTURE_OPEN) {
        luaL_error(ms->L, "invalid capture index %%%d", index + 1);
    }
    return index;
}

static const char *match_reference(match_state *ms, const char *s, int digit) {
    int index = capture_index(ms, digit);
    size_t length = (size_t)ms->captures[index].length;
    charge_work(ms, (int64_t)(length / STRATA_BYTES_PER_INSTRUCTION));
    if ((size_t)(ms->subject_end - s) >= length && memcmp(ms->captures[index].start, s, length) == 0) return s + length;
    return NULL;
}

/// The end of the match of the pattern from `p` at `s`, or NULL.
static const char *match(match_state *ms, const char *s, const char *p) {
    if (ms->depth_left-- == 0) luaL_error(ms->L, "pattern too complex");
    while (s != NULL && p != ms->pattern_end) {
        step(ms);
        if (*p == '(') {
            s = p + 1 < ms->pattern_end && p[1] == ')' ? open_capture(ms, s, p + 2, CAPTURE_POSITION)
                                                      : open_capture(ms, s, p + 1, CAPTURE_OPEN);
            break;
        }
        if (*p == ')') {
            s = close_capture(ms, s, p + 1);
            break;
        }
        if (*p == '$' && p + 1 == ms->pattern_end) {
            if (s != ms->subject_end) s = NULL;
            break;
        }
        if (*p == ESCAPE && p[1] == 'b') {
            s = match_balance(ms, s, p + 2);
            p += 4;
            continue;
        }
        if (*p == ESCAPE && p[1] == 'f') {
            p += 2;
            if (*p != '[') luaL_error(ms->L, "missing '[' after '%%f' in pattern");
            const char *end = class_end(ms, p);
            int before = s == ms->subject ? '\0' : (unsigned char)s[-1];
            int here = s < ms->subject_end ? (unsigned char)*s : '\0';
            if (matches_set(before, p, end - 1) || !matches_set(here, p, end - 1)) s = NULL;
            p = end;
            continue;
        }
        if (*p == ESCAPE && isdigit((unsigned char)p[1])) {
            s = match_reference(ms, s, (unsigned char)p[1]);
            p += 2;
            continue;
        }
        const char *end = class_end(ms, p);
        if (!matches_one(ms, s, p, end)) {
            if (*end == '*' || *end == '?' || *end == '-') {
                p = end + 1;
                continue;
            }
            s = NULL;
            break;
        }
        switch (*end) {
            case '?': {
                const char *result = match(ms, s + 1, end + 1);
                if (result) {
                    s = result;
                    break;
                }
                p = end + 1;
                continue;
            }
            case '+': s = match_longest(ms, s + 1, p, end); break;
            case '*': s = match_longest(ms, s, p, end); break;
            case '-': s = match_shortest(ms, s, p, end); break;
            default:
                s++;
                p = end;
                continue;
        }
        break;
    }
    ms->depth_left++;
    return s;
}

// MARK: - Captures

/// The capture `i` (the whole match from `s` to `e` when the pattern has none): its start in
/// `*start` and its length, or CAPTURE_POSITION with the position pushed.
static ptrdiff_t capture(match_state *ms, int i, const char *s, const char *e, const char **start) {
    if (i >= ms->level) {
        if (i != 0) luaL_error(ms->L, "invalid capture index %%%d", i + 1);
        *start = s;
        return e - s;
    }
    ptrdiff_t length = ms->captures[i].length;
    *start = ms->captures[i].start;
    if (length == CAPTURE_OPEN) luaL_error(ms->L, "unfinished capture");
    if (length == CAPTURE_POSITION) lua_pushinteger(ms->L, (ms->captures[i].start - ms->subject) + 1);
    return length;
}

static void push_capture(match_state *ms, int i, const char *s, const char *e) {
    const char *start;
    ptrdiff_t length = capture(ms, i, s, e, &start);
    if (length != CAPTURE_POSITION) lua_pushlstring(ms->L, start, (size_t)length);
}

/// Pushes every capture (the whole match when there are none and `s` is given).
static int push_captures(match_state *ms, const char *s, const char *e) {
    int count = (ms->level == 0 && s) ? 1 : ms->level;
    luaL_checkstack(ms->L, count, "too many captures");
    for (int i = 0; i < count; i++) push_capture(ms, i, s, e);
    return count;
}

// MARK: - The library functions

/// A 1-based position `position` (negative from the end) as a count of bytes before it.
static size_t start_offset(lua_Integer position, size_t length) {
    if (position > 0) return (size_t)position - 1;
    if (position == 0 || position < -(lua_Integer)length) return 0;
    return length + (size_t)position;
}

static int has_specials(const char *p, size_t length) {
    for (size_t i = 0; i < length; i++) {
        if (memchr(SPECIALS, p[i], sizeof SPECIALS - 1)) return 1;
    }
    return 0;
}

static int find_or_match(lua_State *L, int find) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), ls);
    if (init > ls) {
        lua_pushnil(L);
        return 1;
    }
    if (find && (lua_toboolean(L, 4) || !has_specials(p, lp))) {
        strata_charge(L, strata_state_of(L), 1 + (int64_t)((ls - init) / STRATA_BYTES_PER_INSTRUCTION), 1);
        const char *found = memmem(s + init, ls - init, p, lp);
        if (!found) {
            lua_pushnil(L);
            return 1;
        }
        lua_pushinteger(L, (found - s) + 1);
        lua_pushinteger(L, (lua_Integer)((found - s) + lp));
        return 2;
    }
    match_state ms;
    int anchored = lp > 0 && *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    prepare(&ms, L, s, ls, p, lp);
    const char *start = s + init;
    do {
        restart(&ms);
        const char *end = match(&ms, start, p);
        if (end) {
            if (!find) return push_captures(&ms, start, end);
            lua_pushinteger(L, (start - s) + 1);
            lua_pushinteger(L, end - s);
            return push_captures(&ms, NULL, NULL) + 2;
        }
    } while (start++ < ms.subject_end && !anchored);
    lua_pushnil(L);
    return 1;
}

static int strata_find(lua_State *L) { return find_or_match(L, 1); }
static int strata_match(lua_State *L) { return find_or_match(L, 0); }

typedef struct gmatch_state {
    const char *next, *pattern, *last_match;
    match_state ms;
} gmatch_state;

static int gmatch_next(lua_State *L) {
    gmatch_state *gm = (gmatch_state *)lua_touserdata(L, lua_upvalueindex(3));
    gm->ms.L = L;
    gm->ms.limits = strata_state_of(L);
    for (const char *start = gm->next; start <= gm->ms.subject_end; start++) {
        restart(&gm->ms);
        const char *end = match(&gm->ms, start, gm->pattern);
        if (end && end != gm->last_match) {
            gm->next = gm->last_match = end;
            return push_captures(&gm->ms, start, end);
        }
    }
    return 0;
}

static int strata_gmatch(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    size_t init = start_offset(luaL_optinteger(L, 3, 1), ls);
    // The subject and pattern stay alive as upvalues of the iterator.
    lua_settop(L, 2);
    gmatch_state *gm = (gmatch_state *)lua_newuserdatauv(L, sizeof(gmatch_state), 0);
    if (init > ls) init = ls + 1;
    prepare(&gm->ms, L, s, ls, p, lp);
    gm->next = s + init;
    gm->pattern = p;
    gm->last_match = NULL;
    lua_pushcclosure(L, gmatch_next, 3);
    return 1;
}

/// Adds the replacement string (argument 3) for the match from `s` to `e`, its `%n` read.
static void add_replacement_string(match_state *ms, luaL_Buffer *b, const char *s, const char *e) {
    size_t length;
    const char *text = lua_tolstring(ms->L, 3, &length);
    const char *escape;
    while ((escape = memchr(text, ESCAPE, length)) != NULL) {
        luaL_addlstring(b, text, (size_t)(escape - text));
        escape++;
        if (*escape == ESCAPE) {
            luaL_addchar(b, *escape);
        } else if (*escape == '0') {
            luaL_addlstring(b, s, (size_t)(e - s));
        } else if (isdigit((unsigned char)*escape)) {
            const char *start;
            ptrdiff_t captured = capture(ms, *escape - '1', s, e, &start);
            if (captured == CAPTURE_POSITION) {
                luaL_addvalue(b);
            } else {
                luaL_addlstring(b, start, (size_t)captured);
            }
        } else {
            luaL_error(ms->L, "invalid use of '%c' in replacement string", ESCAPE);
        }
        length -= (size_t)(escape + 1 - text);
        text = escape + 1;
    }
    luaL_addlstring(b, text, length);
}

/// Adds the replacement of the match from `s` to `e`; returns whether it changed the text.
static int add_replacement(match_state *ms, luaL_Buffer *b, const char *s, const char *e, int type) {
    lua_State *L = ms->L;
    if (type == LUA_TFUNCTION) {
        lua_pushvalue(L, 3);
        int count = push_captures(ms, s, e);
        lua_call(L, count, 1);
    } else if (type == LUA_TTABLE) {
        push_capture(ms, 0, s, e);
        lua_gettable(L, 3);
    } else {
        add_replacement_string(ms, b, s, e);
        return 1;
    }
    if (!lua_toboolean(L, -1)) {
        lua_pop(L, 1);
        luaL_addlstring(b, s, (size_t)(e - s));
        return 0;
    }
    if (!lua_isstring(L, -1)) return luaL_error(L, "invalid replacement value (a %s)", luaL_typename(L, -1));
    luaL_addvalue(b);
    return 1;
}

static int strata_gsub(lua_State *L) {
    size_t ls, lp;
    const char *s = luaL_checklstring(L, 1, &ls);
    const char *p = luaL_checklstring(L, 2, &lp);
    int type = lua_type(L, 3);
    lua_Integer limit = luaL_optinteger(L, 4, (lua_Integer)ls + 1);
    luaL_argexpected(L, type == LUA_TNUMBER || type == LUA_TSTRING || type == LUA_TFUNCTION || type == LUA_TTABLE, 3,
                     "string/function/table");
    luaL_Buffer b;
    luaL_buffinit(L, &b);
    int anchored = lp > 0 && *p == '^';
    if (anchored) {
        p++;
        lp--;
    }
    match_state ms;
    prepare(&ms, L, s, ls, p, lp);
    const char *last_match = NULL;
    lua_Integer count = 0;
    int changed = 0;
    while (count < limit) {
        restart(&ms);
        const char *end = match(&ms, s, p);
        if (end && end != last_match) {
            count++;
            changed = add_replacement(&ms, &b, s, end, type) | changed;
            s = last_match = end;
        } else if (s < ms.subject_end) {
            luaL_addchar(&b, *s++);
        } else {
            break;
        }
        if (anchored) break;
    }
    if (!changed) {
        lua_pushvalue(L, 1);
    } else {
        luaL_addlstring(&b, s, (size_t)(ms.subject_end - s));
        luaL_pushresult(&b);
    }
    lua_pushinteger(L, count);
    return 2;
}

// MARK: - Installing

void strata_open_patterns(lua_State *L) {
    const luaL_Reg functions[] = {
        {"find", strata_find}, {"match", strata_match}, {"gmatch", strata_gmatch}, {"gsub", strata_gsub}, {NULL, NULL},
    };
    luaL_setfuncs(L, functions, 0);
}
