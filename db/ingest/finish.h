/*
 * finish.h - completing a recorded database after the program ended.
 */
#ifndef MAPPROF_DB_FINISH_H
#define MAPPROF_DB_FINISH_H

#include <stdint.h>

#include "db/db.h"

struct run_end {
	int exit_status;    /* exit code, or 128+N when killed by signal N */
	int signal;         /* N, or 0 */
	int64_t wall_ns;    /* start to exit as 'mapprof record' timed it */
	int64_t peak_rss_kb;  /* ru_maxrss of the program */
	int64_t user_ns, sys_ns;  /* the program's CPU time (ru_utime, ru_stime); 0: unknown */
	int64_t expand_ns, expand_cpu_ns;  /* record's expansion of the spool: wall and CPU time; 0: none */
	int expand_early;   /* ... done as the program ended, once its collector had finished */
	int64_t calls_late; /* offload calls after the collector finished (db/spool/ring.h calls_late) */
	const char *lost_why; /* the spool could not be expanded: why (or NULL) */
	const char *unfinished_why; /* the run never finished (no end in the spool): why, or NULL
				       for "the program ended before the collector could finish" */
	const char *no_collector_why; /* the collector never loaded: why, when known (the program could
					 not start), or NULL for the usual reasons */
	int exit_unknown;   /* exit_status, signal, wall_ns, peak_rss_kb and the CPU times are not known (recover) */
};

/*
 * Before the program starts: the run's row says the recording is under way
 * ('recording', no command yet) and where its events are, so that a
 * database whose 'mapprof record' was killed says how to recover them.  The
 * spool's RUN frame fills the row in.  replaces: the database this one
 * will replace once finished (record -f), or NULL.  0 or -1 (*err set).
 */
int db_mark_recording(struct db *db, const char *spool_path, const char *replaces, char **err);

/*
 * The database 'replaces' named (db_mark_recording: 'mapprof record -f'
 * writes beside an existing database, and renames over it once finished),
 * malloc'ed, and forgotten (in the caller's transaction); NULL when none.
 * 'mapprof recover' renames what it finished over that path.
 */
char *db_take_replaces(struct db *db);

/*
 * Apply the collector's hash fixes (hash_fix_raw: pointers attached after
 * their struct was copied), pair every delete with the allocation it frees,
 * derive the host's device number from what the runtime reported, store how
 * the program ended and mark a run whose collector never started (no RUN
 * frame came: the row has no command).  Idempotent.  0 or -1 (*err set).
 */
int db_finish_run(struct db *db, const struct run_end *end, char **err);

/*
 * Apply hash fixes, pair deletes and derive the host device when 'mapprof
 * record' did not (the collector was loaded by hand).  Does nothing on a
 * database already done.
 */
int db_pair_deletes_if_needed(struct db *db, char **err);

/* Inside a transaction: fill delete_pair_raw from the table and mark the database paired. */
int db_pair_deletes(struct db *db, char **err);

/*
 * Pairing as the events are replayed (db/ingest/ingest.c), the same pairs as
 * db_pair_deletes() without sorting the table when the events come in
 * order: create, add every replayed record (inside the transaction), then
 * finish, which inserts what is left, or falls back to db_pair_deletes().
 */
struct delete_pairer;
struct rec;
struct delete_pairer *db_pairer_new(struct db *db, char **err);
/* 0, or -1 when an insert failed (SQLite's message). */
int db_pairer_add(struct delete_pairer *p, const struct rec *r, size_t n);
int db_pairer_finish(struct delete_pairer *p, char **err);
/*
 * Pairs to fn (db/pages/pagewrite.c's table) instead of SQL inserts: fn returns
 * 0, 1 when it cannot take the pair (out of delete_seq order: pairing then
 * gives up, and db_pairer_finish() pairs the whole table in SQL), or -1 on
 * an error (add and drain return -1, the message is fn's to keep).
 */
void db_pairer_sink(struct delete_pairer *p, int (*fn)(void *ctx, int64_t delete_seq, int64_t alloc_seq),
		    void *ctx);
/* Pair what still waits in the window (after the last record); 0 or -1. */
int db_pairer_drain(struct delete_pairer *p);
/*
 * The records given will hold their times as timestamp counter ticks, to
 * be turned into ns later (a monotone map): the pairing is the same unless
 * two ends of one address the ns may make equal come in the order their
 * tie-break reverses.  db_pairer_tie_gap() then says the smallest such gap
 * in ticks (UINT64_MAX: none); the caller checks it against the ns a tick.
 */
void db_pairer_ticks(struct delete_pairer *p);
uint64_t db_pairer_tie_gap(const struct delete_pairer *p);
void db_pairer_free(struct delete_pairer *p);

/* Inside a transaction: run.host_device from what the runtime reported. */
int db_set_host_device(struct db *db, char **err);

struct record_counts {
	long long lost;
	char *status;          /* malloc'ed */
	char *status_detail;   /* malloc'ed or NULL */
};

/* How the recording went, for the closing message of 'mapprof record'. */
int db_record_counts(struct db *db, struct record_counts *out);
void record_counts_release(struct record_counts *c);

#endif
