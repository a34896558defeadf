#include "baseline.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

// MARK: - Connection

static int fail(sqlite3 *db, int code, char *error, int error_size) {
    snprintf(error, (size_t)error_size, "%s", db ? sqlite3_errmsg(db) : sqlite3_errstr(code));
    return code ? code : SQLITE_ERROR;
}

/// Opens the store as Strata opens it for writing: its journal mode as the file has it (WAL),
/// synchronous=NORMAL, a busy timeout.
static int open_store(const char *path, sqlite3 **db, char *error, int error_size) {
    int rc = sqlite3_open_v2(path, db, SQLITE_OPEN_READWRITE, NULL);
    if (rc != SQLITE_OK) return fail(*db, rc, error, error_size);
    sqlite3_busy_timeout(*db, 5000);
    rc = sqlite3_exec(*db, "PRAGMA synchronous = NORMAL", NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : fail(*db, rc, error, error_size);
}

static int exec(sqlite3 *db, const char *sql, char *error, int error_size) {
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    return rc == SQLITE_OK ? 0 : fail(db, rc, error, error_size);
}

static int prepare(sqlite3 *db, const char *sql, sqlite3_stmt **statement, char *error, int error_size) {
    int rc = sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, statement, NULL);
    return rc == SQLITE_OK ? 0 : fail(db, rc, error, error_size);
}

/// Ends a case: commits when it went well, rolls back otherwise, and closes.
static int finish(sqlite3 *db, int rc, sqlite3_stmt **statements, int count, char *error, int error_size) {
    for (int i = 0; i < count; i++) sqlite3_finalize(statements[i]);
    if (db == NULL) return rc;
    if (rc == 0) rc = exec(db, "COMMIT", error, error_size);
    else sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
    sqlite3_close_v2(db);
    return rc;
}

static void read_person(sqlite3_stmt *statement, baseline_digest *digest) {
    digest->rows += 1;
    digest->id_sum += sqlite3_column_int64(statement, 0);
    sqlite3_column_text(statement, 1);
    digest->text_bytes += sqlite3_column_bytes(statement, 1);
    digest->age_sum += sqlite3_column_int(statement, 2);
    digest->score_sum += sqlite3_column_double(statement, 3);
    sqlite3_column_text(statement, 4);
    digest->text_bytes += sqlite3_column_bytes(statement, 4);
}

static void bind_values(sqlite3_stmt *statement, const baseline_person *row, int first) {
    sqlite3_bind_text(statement, first, row->name, -1, SQLITE_STATIC);
    sqlite3_bind_int(statement, first + 1, row->age);
    sqlite3_bind_double(statement, first + 2, row->score);
    sqlite3_bind_text(statement, first + 3, row->city, -1, SQLITE_STATIC);
}

static int step_done(sqlite3 *db, sqlite3_stmt *statement, char *error, int error_size) {
    int rc = sqlite3_step(statement);
    sqlite3_reset(statement);
    return rc == SQLITE_DONE ? 0 : fail(db, rc, error, error_size);
}

static int set_max_key(sqlite3 *db, sqlite3_int64 max, char *error, int error_size) {
    sqlite3_stmt *statement = NULL;
    int rc = prepare(db, "UPDATE Z_PRIMARYKEY SET Z_MAX = ? WHERE Z_NAME = 'Person'", &statement, error, error_size);
    if (rc == 0) {
        sqlite3_bind_int64(statement, 1, max);
        rc = step_done(db, statement, error, error_size);
    }
    sqlite3_finalize(statement);
    return rc;
}

static int person_entity(sqlite3 *db, int *entity, char *error, int error_size) {
    sqlite3_stmt *statement = NULL;
    int rc = prepare(db, "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'", &statement, error, error_size);
    if (rc == 0) {
        if (sqlite3_step(statement) == SQLITE_ROW) *entity = sqlite3_column_int(statement, 0);
        else rc = fail(db, SQLITE_ERROR, error, error_size);
    }
    sqlite3_finalize(statement);
    return rc;
}

// MARK: - Cases

int baseline_insert(const char *path, const baseline_person *rows, int64_t count, char *error, int error_size) {
    sqlite3 *db = NULL;
    int rc = open_store(path, &db, error, error_size);
    int entity = 0;
    if (rc == 0) rc = exec(db, "BEGIN IMMEDIATE", error, error_size);
    if (rc == 0) rc = person_entity(db, &entity, error, error_size);
    sqlite3_stmt *insert = NULL;
    if (rc == 0) rc = prepare(db, "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZID, ZNAME, ZAGE, ZSCORE, ZCITY) "
                                  "VALUES (?, ?, 1, ?, ?, ?, ?, ?)", &insert, error, error_size);
    for (int64_t i = 0; rc == 0 && i < count; i++) {
        sqlite3_bind_int64(insert, 1, i + 1);
        sqlite3_bind_int(insert, 2, entity);
        sqlite3_bind_int64(insert, 3, rows[i].id);
        bind_values(insert, &rows[i], 4);
        rc = step_done(db, insert, error, error_size);
    }
    if (rc == 0) rc = set_max_key(db, count, error, error_size);
    return finish(db, rc, &insert, 1, error, error_size);
}

static int read_all(sqlite3 *db, sqlite3_stmt *statement, baseline_digest *digest, char *error, int error_size) {
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) read_person(statement, digest);
    sqlite3_reset(statement);
    return rc == SQLITE_DONE ? 0 : fail(db, rc, error, error_size);
}

int baseline_fetch_all(const char *path, baseline_digest *digest, char *error, int error_size) {
    sqlite3 *db = NULL;
    int rc = open_store(path, &db, error, error_size);
    if (rc == 0) rc = exec(db, "BEGIN", error, error_size);
    sqlite3_stmt *select = NULL;
    if (rc == 0) rc = prepare(db, "SELECT ZID, ZNAME, ZAGE, ZSCORE, ZCITY FROM ZPERSON", &select, error, error_size);
    if (rc == 0) rc = read_all(db, select, digest, error, error_size);
    return finish(db, rc, &select, 1, error, error_size);
}

int baseline_fetch_matching(const char *path, const char *const *cities, const int32_t *ages, int32_t fetches,
                            baseline_digest *digest, char *error, int error_size) {
    sqlite3 *db = NULL;
    int rc = open_store(path, &db, error, error_size);
    if (rc == 0) rc = exec(db, "BEGIN", error, error_size);
    sqlite3_stmt *select = NULL;
    if (rc == 0) rc = prepare(db, "SELECT ZID, ZNAME, ZAGE, ZSCORE, ZCITY FROM ZPERSON WHERE ZCITY = ? AND ZAGE > ?",
                              &select, error, error_size);
    for (int32_t i = 0; rc == 0 && i < fetches; i++) {
        sqlite3_bind_text(select, 1, cities[i], -1, SQLITE_STATIC);
        sqlite3_bind_int(select, 2, ages[i]);
        rc = read_all(db, select, digest, error, error_size);
    }
    return finish(db, rc, &select, 1, error, error_size);
}

int baseline_update_scores(const char *path, char *error, int error_size) {
    sqlite3 *db = NULL;
    int rc = open_store(path, &db, error, error_size);
    if (rc == 0) rc = exec(db, "BEGIN IMMEDIATE", error, error_size);
    sqlite3_stmt *statements[2] = {NULL, NULL};
    if (rc == 0) rc = prepare(db, "SELECT Z_PK, ZSCORE FROM ZPERSON", &statements[0], error, error_size);
    if (rc == 0) rc = prepare(db, "UPDATE ZPERSON SET ZSCORE = ?, Z_OPT = Z_OPT + 1 WHERE Z_PK = ?",
                              &statements[1], error, error_size);
    while (rc == 0) {
        int stepped = sqlite3_step(statements[0]);
        if (stepped == SQLITE_DONE) break;
        if (stepped != SQLITE_ROW) {
            rc = fail(db, stepped, error, error_size);
            break;
        }
        sqlite3_bind_double(statements[1], 1, sqlite3_column_double(statements[0], 1) + 1);
        sqlite3_bind_int64(statements[1], 2, sqlite3_column_int64(statements[0], 0));
        rc = step_done(db, statements[1], error, error_size);
    }
    return finish(db, rc, statements, 2, error, error_size);
}

int baseline_exec(const char *path, const char *sql, char *error, int error_size) {
    sqlite3 *db = NULL;
    int rc = open_store(path, &db, error, error_size);
    if (rc == 0) rc = exec(db, "BEGIN IMMEDIATE", error, error_size);
    if (rc == 0) rc = exec(db, sql, error, error_size);
    return finish(db, rc, NULL, 0, error, error_size);
}

int baseline_upsert(const char *path, const baseline_person *rows, int64_t count, char *error, int error_size) {
    sqlite3 *db = NULL;
    int rc = open_store(path, &db, error, error_size);
    int entity = 0;
    sqlite3_int64 max_key = 0;
    if (rc == 0) rc = exec(db, "BEGIN IMMEDIATE", error, error_size);
    if (rc == 0) rc = person_entity(db, &entity, error, error_size);
    sqlite3_stmt *statements[4] = {NULL, NULL, NULL, NULL};
    if (rc == 0) rc = prepare(db, "SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'", &statements[0], error, error_size);
    if (rc == 0 && sqlite3_step(statements[0]) == SQLITE_ROW) max_key = sqlite3_column_int64(statements[0], 0);
    if (rc == 0) rc = prepare(db, "SELECT Z_PK FROM ZPERSON WHERE ZID = ?", &statements[1], error, error_size);
    if (rc == 0) rc = prepare(db, "UPDATE ZPERSON SET ZNAME = ?, ZAGE = ?, ZSCORE = ?, ZCITY = ?, Z_OPT = Z_OPT + 1 "
                                  "WHERE Z_PK = ?", &statements[2], error, error_size);
    if (rc == 0) rc = prepare(db, "INSERT INTO ZPERSON (Z_PK, Z_ENT, Z_OPT, ZID, ZNAME, ZAGE, ZSCORE, ZCITY) "
                                  "VALUES (?, ?, 1, ?, ?, ?, ?, ?)", &statements[3], error, error_size);
    for (int64_t i = 0; rc == 0 && i < count; i++) {
        sqlite3_bind_int64(statements[1], 1, rows[i].id);
        int found = sqlite3_step(statements[1]);
        sqlite3_int64 key = found == SQLITE_ROW ? sqlite3_column_int64(statements[1], 0) : 0;
        sqlite3_reset(statements[1]);
        if (found == SQLITE_ROW) {
            bind_values(statements[2], &rows[i], 1);
            sqlite3_bind_int64(statements[2], 5, key);
            rc = step_done(db, statements[2], error, error_size);
        } else if (found == SQLITE_DONE) {
            sqlite3_bind_int64(statements[3], 1, ++max_key);
            sqlite3_bind_int(statements[3], 2, entity);
            sqlite3_bind_int64(statements[3], 3, rows[i].id);
            bind_values(statements[3], &rows[i], 4);
            rc = step_done(db, statements[3], error, error_size);
        } else {
            rc = fail(db, found, error, error_size);
        }
    }
    if (rc == 0) rc = set_max_key(db, max_key, error, error_size);
    return finish(db, rc, statements, 4, error, error_size);
}
