/*
 * checks.c - reading check_raw (db/read/checks.h).
 */
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/checks.h"

static const char rows_sql[] =
	"SELECT c.kind, COALESCE(c.seq, -1), COALESCE(c.device, -1), COALESCE(c.host_addr, 0),"
	"       COALESCE(c.first_byte, 0), COALESCE(c.end_byte, 0), COALESCE(c.bytes, 0), c.note,"
	"       COALESCE(d.codeptr, 0), COALESCE(d.map_index, -1), COALESCE(d.kind, 0),"
	"       COALESCE(d.bytes, 0), COALESCE(t.kind, 0)"
	"  FROM check_raw c"
	"  LEFT JOIN data_op_raw d ON d.seq = c.seq"
	"  LEFT JOIN target_raw t ON t.id = d.target_id"
	" WHERE c.kind IS NOT NULL"
	" ORDER BY c.id";

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? strdup((const char *)s) : NULL;
}

/* 1 when the database has the table, 0 when not, -1 on a read error. */
static int has_table(struct db *db, char **err)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'check_raw'",
				      err);
	int rc;

	if (!st)
		return -1;
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(err, "cannot read the schema: %s", db_errmsg(db));
	return rc == SQLITE_ROW;
}

static int read_ran(struct db *db, int *ran, char **err)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT value FROM stats_raw WHERE name = 'check'", err);
	int rc;

	*ran = 0;
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*ran = sqlite3_column_int64(st, 0) != 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(err, "cannot read the stats: %s", db_errmsg(db));
	return 0;
}

int checks_read(struct db *db, struct check_row **rows, size_t *n, int *ran, char **err)
{
	sqlite3_stmt *st;
	size_t cap = 0;
	int rc, has;

	*rows = NULL;
	*n = 0;
	if (read_ran(db, ran, err) < 0 || (has = has_table(db, err)) < 0)
		return -1;
	if (!has || !(st = db_prepare(db, rows_sql, err)))
		return has ? -1 : 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct check_row *r;
		if (*n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct check_row *v = realloc(*rows, ncap * sizeof(*v));
			if (!v)
				break;
			*rows = v;
			cap = ncap;
		}
		r = &(*rows)[(*n)++];
		memset(r, 0, sizeof(*r));
		r->kind = dup_col(st, 0);
		r->seq = sqlite3_column_int64(st, 1);
		r->device = sqlite3_column_int(st, 2);
		r->host_addr = (uint64_t)sqlite3_column_int64(st, 3);
		r->first = (uint64_t)sqlite3_column_int64(st, 4);
		r->end = (uint64_t)sqlite3_column_int64(st, 5);
		r->bytes = (uint64_t)sqlite3_column_int64(st, 6);
		r->note = dup_col(st, 7);
		r->codeptr = (uint64_t)sqlite3_column_int64(st, 8);
		r->map_index = sqlite3_column_int(st, 9);
		r->op_kind = sqlite3_column_int(st, 10);
		r->op_bytes = (uint64_t)sqlite3_column_int64(st, 11);
		r->target_kind = sqlite3_column_int(st, 12);
		if (!r->kind)
			break;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW) {
		check_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return db_fail(err, "out of memory");
	}
	if (rc != SQLITE_DONE) {
		check_rows_free(*rows, *n);
		*rows = NULL;
		*n = 0;
		return db_fail(err, "cannot read the checks: %s", db_errmsg(db));
	}
	return 0;
}

void check_rows_free(struct check_row *rows, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(rows[i].kind);
		free(rows[i].note);
	}
	free(rows);
}
