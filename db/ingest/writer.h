/*
 * writer.h - writing a run's events into the database's tables.
 *
 * db/ingest/ingest.c replays the collector's spool through these calls after the
 * program has ended.  One thread at a time.
 */
#ifndef MAPPROF_DB_WRITER_H
#define MAPPROF_DB_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"
#include "db/spool/spool.h"

struct db_writer;

struct run_info {
	const char *command_json;  /* JSON array of argv */
	const char *cwd;
	long pid;
	const char *host;
	const char *start_time;    /* ISO 8601 UTC */
	int64_t start_ns;          /* CLOCK_MONOTONIC origin */
	const char *runtime;
	const char *collector;     /* collector version */
};

/* A writer on an open database (which stays the caller's).  NULL on error. */
struct db_writer *dbw_attach(struct db *db, char **err);
/* Release the writer (not the database); accepts NULL. */
void dbw_detach(struct db_writer *w);

/* The run's row: 0, 1 when the database already holds a run, -1 on error (dbw_errmsg). */
int dbw_run_info(struct db_writer *w, const struct run_info *ri);
int dbw_env(struct db_writer *w, const char *name, const char *value);
/* A counter of the run (stats table); a later value of the same name replaces it. */
int dbw_stat(struct db_writer *w, const char *name, int64_t value);
/* A row of check_raw (a CHECK frame, db/spool/spool.h): seq -1 for none. */
int dbw_check(struct db_writer *w, const char *kind, int64_t seq, int device, int64_t host_addr,
	      int64_t first, int64_t end, int64_t bytes, const char *note);
int dbw_status(struct db_writer *w, const char *status, const char *detail);
int dbw_end(struct db_writer *w, int64_t end_ns, uint64_t events_lost);
int dbw_device(struct db_writer *w, int num, const char *type, int64_t init_ns, int64_t fini_ns);
int dbw_module(struct db_writer *w, const char *path, uint64_t base, uint64_t low, uint64_t high,
	       const char *build_id, int64_t seen_ns);
int dbw_thread(struct db_writer *w, int id, long tid);
/* The process row (schema.sql process_raw); rank < 0: none. */
int dbw_process(struct db_writer *w, int64_t pid, int64_t ppid, int64_t rank, const char *rank_var,
		const char *started);
int dbw_image(struct db_writer *w, int device, const char *file, uint64_t host_addr,
	      uint64_t bytes, int64_t ns);
int dbw_source(struct db_writer *w, uint64_t codeptr, const char *entry, const char *psource,
	       const char *map_names_json);

/* An OpenACC event's row (acc_event_raw), the fields of a SPOOL_ACC frame (INT64_MIN: NULL). */
int dbw_acc_event(struct db_writer *w, const struct spool_field *f);
/* A late attached pointer slot's hash fix (SPOOL_HASH_FIX's fields): applied by db_finish_run(). */
int dbw_hash_fix(struct db_writer *w, const struct spool_field *f);

/* Transactions around a batch of calls. */
int dbw_begin(struct db_writer *w);
int dbw_commit(struct db_writer *w);

/* Append records (inside a transaction).  Returns 0 or -1. */
int dbw_records(struct db_writer *w, const struct rec *recs, size_t n);

/*
 * The event tables as rows, for db/pages/pagewrite.c: DBW_TABLES of them, each
 * named, its columns listed as in the schema (", " between), the first its
 * INTEGER PRIMARY KEY.  dbw_row(): a record's table (-1: none) and its row,
 * as dbw_records() inserts it: the rowid, v[i] for column i where bit i of
 * *present is set, NULL elsewhere.
 */
#define DBW_TABLES 3
#define DBW_MAX_COLS 14
int dbw_row(const struct rec *r, int64_t *rowid, int64_t *v, uint32_t *present);
const char *dbw_table_name(int t);
const char *dbw_table_columns(int t);
int dbw_table_ncols(int t);

/* The last error message (borrowed). */
const char *dbw_errmsg(struct db_writer *w);

#endif
