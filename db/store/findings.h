/*
 * findings.h - the rows of the findings tables, written back into the run's
 * database by 'mapprof report' so that SQL users see them (tables
 * finding_raw, finding_event_raw, finding_summary_raw; views findings,
 * finding_events, finding_summary: docs/database.md).
 *
 * Plain rows only: what a finding is, and which rows it makes, is decided by
 * report/ (report/findings/findings_store.c).  A struct findings_writer holds one
 * transaction that replaces every stored finding, so running report twice
 * leaves the same rows.
 */
#ifndef MAPPROF_DB_FINDINGS_H
#define MAPPROF_DB_FINDINGS_H

#include <stdint.h>

struct db;
struct findings_writer;

/*
 * Create the findings tables and views when the database lacks them (it was
 * recorded by an older mapprof): runs the "report: findings tables" block of
 * db/schema.sql.  0, or -1 with *err set.
 */
int db_findings_ensure(struct db *db, char **err);

/* A row of finding_raw.  Everything is borrowed for the call. */
struct finding_row {
	int id;
	const char *kind;             /* "duplicate_transfer", ... */
	const char *flavour;          /* NULL or "": none */
	const char *fingerprint;
	uint64_t occurrences;
	uint64_t bytes;
	int64_t savings_ns;
	const int *devices;           /* stored as a JSON array */
	int ndevices;
	const uint64_t *locations;    /* stored as a JSON array */
	int nlocations;
	int has_origins;              /* 0: origins is NULL in the table */
	const uint64_t *origins;
	int norigins;
	uint64_t data_addr;           /* 0: NULL in the table */
	uint64_t data_bytes;
	int64_t first_seq;
};

/* A row of finding_summary_raw. */
struct finding_summary_row {
	const char *kind;             /* a finding kind, or "all" */
	uint64_t findings;
	uint64_t occurrences;
	uint64_t bytes;
	int64_t savings_ns;
	int has_run;                  /* 0: duration_ns and predicted_speedup are NULL */
	int64_t duration_ns;
	double predicted_speedup;     /* <= 0: NULL */
};

/*
 * Start replacing the stored findings: creates the tables when missing,
 * begins a transaction and deletes the rows stored before.  NULL with *err
 * set (the database unchanged).
 */
struct findings_writer *findings_writer_open(struct db *db, char **err);

/*
 * Add one row of finding_raw / finding_event_raw / finding_summary_raw.
 * Event rows are written in batches, in the order given: their 'role' (a
 * static name) must outlive the writer.  0, or -1 with *err set: then only
 * findings_writer_free() is left to call.
 */
int findings_writer_finding(struct findings_writer *w, const struct finding_row *r, char **err);
int findings_writer_event(struct findings_writer *w, int finding, int64_t occurrence,
			  const char *role, int64_t seq, char **err);
int findings_writer_summary(struct findings_writer *w, const struct finding_summary_row *r,
			    char **err);

/*
 * The event rows of a long run as pages (db/pages/finding_pages.h), before the
 * finding rows: each(arg) calls findings_writer_event() for every row, in
 * order, about nrows of them, and returns 0 (else what failed, *err set).
 * The transaction so far is committed first, the rows then committed on
 * their own, and a transaction begun again for the rest.  0 when the rows
 * are stored; 1 when not done, each() not called (few rows,
 * MAPPROF_PAGEWRITE=0, a file or a moment that does not allow it): write
 * them as before; -1 with *err
 * set (nothing of them stored).  A report stopped before its last commit
 * may leave rows whose findings were not stored: no summary row says so
 * (db/store/finding_rows.h reads none), and the next report deletes them.
 */
int findings_writer_pages(struct findings_writer *w, uint64_t nrows, int (*each)(void *arg), void *arg,
			  char **err);

/* Write what waits and commit.  0, or -1 with *err set (nothing stored). */
int findings_writer_commit(struct findings_writer *w, char **err);

/* Roll back what was not committed and free.  Accepts NULL. */
void findings_writer_free(struct findings_writer *w);

#endif
