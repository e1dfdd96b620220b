/*
 * process.h - which process of a recorded command a database holds
 * (schema.sql process_raw), and how it ended.
 */
#ifndef MAPPROF_DB_PROCESS_H
#define MAPPROF_DB_PROCESS_H

#include <stdint.h>

#include "db/db.h"

/* How a process ended, as 'mapprof record' learned it. */
struct process_end {
	const char *ended;     /* 'exited', 'killed', 'exec', 'unknown' */
	int has_status;        /* exit_status/signal are known */
	int exit_status;       /* exit code, or 128+N */
	int signal;            /* N, or 0 */
	const char *detail;    /* replaces the run's status detail when it is 'incomplete', or NULL */
	int complete;          /* every event is in the database: an 'incomplete' run only because its
				  collector did not finish becomes 'complete' */
	const char *recording; /* names the 'mapprof record' the process belongs to */
};

/*
 * Store how the process ended (a row is made from run_raw.pid when the
 * collector wrote none).  0 or -1 (*err).
 */
int db_process_end(struct db *db, const struct process_end *e, char **err);

/* The process row, for naming databases and for reports. */
struct process_row {
	int64_t pid, ppid;
	int64_t rank;          /* -1: none */
	char *started;         /* malloc'ed or NULL, like the strings below */
	char *ended;
	char *argv_json;
	char *recording;
	int has_status;
	int exit_status, exit_signal;
	int has_end;           /* the collector finished (run.end_ns is set) */
	char *ranks;           /* 'record --ranks' (MAPPROF_RANKS of env): the ranks the job recorded, or NULL */
	int64_t world_size;    /* the job's ranks (MAPPROF_WORLD_SIZE of env); 0: not known */
};

/*
 * Read it.  0; 1 when the database has no process row (recorded before
 * there was one: pid from the run, rank -1); -1 on error (*err).
 */
int db_process_read(struct db *db, struct process_row *out, char **err);
void process_row_release(struct process_row *p);

#endif

/* What a merged report needs of one stored finding (borrowed for the callback). */
struct finding_digest {
	const char *kind, *flavour, *fingerprint;
	uint64_t occurrences, bytes;
	int64_t savings_ns;
	const char *variable;  /* NULL: unknown */
	const char *file;      /* of its first location; NULL: unknown */
	int line;
};

/* A process's totals for a merged report. */
struct process_totals {
	uint64_t data_ops, kernels, findings;
	int64_t savings_ns, duration_ns;
	char *status;          /* malloc'ed or NULL */
};

/*
 * Call fn for each finding 'mapprof report' stored in db (in id order), and
 * fill *t.  0, or -1 (*err); a nonzero return of fn stops with that value.
 */
int db_finding_digests(struct db *db, struct process_totals *t,
		       int (*fn)(const struct finding_digest *, void *), void *arg, char **err);
/* 1 when a report stored its findings in db ('mapprof report', 'record --analyse'), else 0. */
int db_findings_stored(struct db *db);
