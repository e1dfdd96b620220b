/*
 * finding_rows.c - stored finding operations in time order.
 */
#include <stdio.h>
#include <stdlib.h>

#include "db/db_internal.h"
#include "db/store/finding_rows.h"

struct finding_rows {
	struct db *db;
	sqlite3_stmt *st;
};

struct finding_rows *finding_rows_open(struct db *db, int *max_finding, char **err)
{
	struct finding_rows *r;
	sqlite3_stmt *st;
	int have = 0;

	*max_finding = -1;
	if (err)
		*err = NULL;
	st = db_prepare(db, "SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'"
			" AND name IN ('finding_raw', 'finding_event_raw', 'finding_summary_raw')", err);
	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		have = sqlite3_column_int(st, 0) == 3;
	sqlite3_finalize(st);
	if (!have)
		return NULL;
	/* A report stores a summary row per kind, findings or not. */
	st = db_prepare(db, "SELECT EXISTS (SELECT 1 FROM finding_summary_raw)", err);
	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int(st, 0) == 1)
		*max_finding = 0;
	sqlite3_finalize(st);
	if (*max_finding < 0)
		return NULL;
	st = db_prepare(db, "SELECT COALESCE(MAX(id), 0) FROM finding_raw", err);
	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW)
		*max_finding = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	if (*max_finding <= 0)
		return NULL;
	r = calloc(1, sizeof(*r));
	if (!r) {
		db_fail(err, "out of memory");
		return NULL;
	}
	r->db = db;
	r->st = db_prepare(db, "SELECT d.begin_ns, e.seq, e.finding, e.occurrence,"
			   " (SELECT f.kind FROM finding_raw f WHERE f.id = e.finding)"
			   " FROM finding_event_raw e JOIN data_op_raw d ON d.seq = e.seq"
			   " WHERE e.finding BETWEEN 1 AND (SELECT MAX(id) FROM finding_raw)"
			   " ORDER BY d.begin_ns, e.seq, e.finding, e.occurrence", err);
	if (!r->st) {
		free(r);
		return NULL;
	}
	return r;
}

int finding_rows_next(struct finding_rows *r, struct finding_row_op *op, char **err)
{
	int rc = sqlite3_step(r->st);
	const char *kind;

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return db_fail(err, "cannot read the stored findings: %s", db_errmsg(r->db));
	op->begin_ns = sqlite3_column_int64(r->st, 0);
	op->seq = sqlite3_column_int64(r->st, 1);
	op->finding = sqlite3_column_int(r->st, 2);
	op->occurrence = sqlite3_column_int64(r->st, 3);
	kind = (const char *)sqlite3_column_text(r->st, 4);
	snprintf(op->kind, sizeof(op->kind), "%s", kind ? kind : "");
	return 1;
}

void finding_rows_close(struct finding_rows *r)
{
	if (!r)
		return;
	sqlite3_finalize(r->st);
	free(r);
}
