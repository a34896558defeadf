#ifndef STRATA_BASELINE_H
#define STRATA_BASELINE_H

#include <stdint.h>

// The raw-SQLite baseline of Strata's benchmarks: what a careful C program does with the same
// store (the ZPERSON table Strata created, WAL, synchronous=NORMAL), with prepared statements
// reused and each case in one transaction. Every function returns 0, or writes SQLite's message
// into `error` (of `error_size` bytes) and returns its result code.

/// One Person row, pre-parsed: the columns ZID, ZNAME, ZAGE, ZSCORE and ZCITY.
typedef struct baseline_person {
    int64_t id;
    const char *name;
    int32_t age;
    double score;
    const char *city;
} baseline_person;

/// What reading rows saw, so that the reads cannot be optimised away and can be compared.
typedef struct baseline_digest {
    int64_t rows;
    int64_t id_sum;
    int64_t age_sum;
    double score_sum;
    int64_t text_bytes;
} baseline_digest;

/// Inserts `count` rows with primary keys from 1 and updates Z_PRIMARYKEY, as a context's save does.
int baseline_insert(const char *path, const baseline_person *rows, int64_t count, char *error, int error_size);

/// Reads every column of every row.
int baseline_fetch_all(const char *path, baseline_digest *digest, char *error, int error_size);

/// Runs `SELECT … WHERE ZCITY = ? AND ZAGE > ?` once per (city, age) pair, reading every column.
int baseline_fetch_matching(const char *path, const char *const *cities, const int32_t *ages, int32_t fetches,
                            baseline_digest *digest, char *error, int error_size);

/// Adds 1 to every row's score: reads each key and score, then updates the row by key.
int baseline_update_scores(const char *path, char *error, int error_size);

/// Runs `sql` in one BEGIN IMMEDIATE transaction: a batch request's statement written by hand.
int baseline_exec(const char *path, const char *sql, char *error, int error_size);

/// Upserts by ZID: updates the row holding a record's id, inserts one when none does.
int baseline_upsert(const char *path, const baseline_person *rows, int64_t count, char *error, int error_size);

#endif
