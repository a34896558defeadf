#include <sqlite3.h>

// sqlite3_db_config is variadic, which Swift cannot call: one fixed-argument wrapper per use.

/// Keeps the connection from checkpointing the write-ahead log when it closes.
static inline int strata_sqlite3_skip_checkpoint_on_close(sqlite3 *db) {
    return sqlite3_db_config(db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, (int *)0);
}
