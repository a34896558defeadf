#include <stdio.h>
#include <histedit.h>

// libedit's el_set and history are variadic, and stdin/stdout/stderr are mutable globals,
// neither of which Swift can use: the calls `strata shell` makes, as plain functions.

/// The prompts: "strata> " for a new chunk, ">> " for the continuation of an incomplete one.
static inline char *strata_el_prompt_first(EditLine *el) {
    (void)el;
    return (char *)"strata> ";
}

static inline char *strata_el_prompt_continuation(EditLine *el) {
    (void)el;
    return (char *)">> ";
}

/// A line editor on the standard streams, with emacs key bindings, reading ~/.editrc.
static inline EditLine *strata_el_init(const char *program) {
    EditLine *el = el_init(program, stdin, stdout, stderr);
    if (!el) return NULL;
    el_set(el, EL_EDITOR, "emacs");
    el_set(el, EL_PROMPT, strata_el_prompt_first);
    el_source(el, NULL);
    return el;
}

/// Shows the continuation prompt when `continuation` is set, else the first one.
static inline void strata_el_set_continuation(EditLine *el, int continuation) {
    el_set(el, EL_PROMPT, continuation ? strata_el_prompt_continuation : strata_el_prompt_first);
}

/// A function bound to a key: it gets the editor and the key, and returns what to redraw
/// (CC_REFRESH, CC_REDISPLAY, CC_ERROR…).
typedef unsigned char (*strata_el_key_function)(EditLine *, int);

/// Binds tab to `complete` (named strata-complete, for ~/.editrc).
static inline void strata_el_bind_completion(EditLine *el, strata_el_key_function complete) {
    el_set(el, EL_ADDFN, "strata-complete", "Complete the name before the cursor", complete);
    el_set(el, EL_BIND, "^I", "strata-complete", NULL);
}

/// Keeps `data` with the editor, for its key functions.
static inline void strata_el_set_client_data(EditLine *el, void *data) {
    el_set(el, EL_CLIENTDATA, data);
}

/// What strata_el_set_client_data kept, or NULL.
static inline void *strata_el_client_data(EditLine *el) {
    void *data = NULL;
    if (el_get(el, EL_CLIENTDATA, &data) != 0) return NULL;
    return data;
}

/// Makes `history` the editor's history (the up and down keys).
static inline void strata_el_set_history(EditLine *el, History *history_) {
    el_set(el, EL_HIST, history, history_);
}

/// Keeps at most `size` entries, without repeating the last one.
static inline void strata_history_configure(History *history_, int size) {
    HistEvent event;
    history(history_, &event, H_SETSIZE, size);
    history(history_, &event, H_SETUNIQUE, 1);
}

/// Adds `line` as the newest entry.
static inline void strata_history_enter(History *history_, const char *line) {
    HistEvent event;
    history(history_, &event, H_ENTER, line);
}

/// Reads (`save` 0) or writes (`save` 1) the history file `path`; returns -1 on failure.
static inline int strata_history_file(History *history_, const char *path, int save) {
    HistEvent event;
    return history(history_, &event, save ? H_SAVE : H_LOAD, path);
}

/// Makes standard output line-buffered (so that print, io.write and the log interleave in
/// order), before anything was written to it.
static inline void strata_stdout_line_buffered(void) {
    setvbuf(stdout, NULL, _IOLBF, BUFSIZ);
}
