/*
 * rowsrc.c - a rowid table's rows, from its pages or from SQLite (see
 * rowsrc.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/pages/pageread.h"
#include "db/pages/rowsrc.h"

struct rowsrc {
	struct db *db;
	const char *table;
	int ncols, ipk;
	sqlite3_stmt *scan;   /* every row in rowid order: used once the pages are not */
	sqlite3_stmt *one;    /* one row by its rowid */
	char *one_sql;
	/* The pages, while 'hold' keeps the read transaction open; NULL: 'scan' only. */
	struct pageread *pr;
	sqlite3_stmt *hold;
	uint64_t rows;        /* rows the pages gave */
	int64_t last;         /* the last one's rowid */
	uint64_t stop;        /* MAPPROF_PAGEREAD=stop:N; 0: never */
};

static int step_error(const struct rowsrc *r, char **err)
{
	return db_fail(err, "cannot read %s from '%s': %s", r->table, r->db->path, sqlite3_errmsg(r->db->sql));
}

static void tell(const struct rowsrc *r, const char *what, const char *why)
{
	const char *v = getenv("MAPPROF_PAGEREAD");

	if (v && !strcmp(v, "tell"))
		fprintf(stderr, "mapprof: %s of '%s' %s: %s\n", r->table, r->db->path, what, why);
}

/* "SELECT c0, c1, ... FROM table": malloc'ed, or NULL. */
static char *select_sql(const char *const *cols, int ncols, const char *table)
{
	size_t n = strlen(table) + 16;
	char *sql, *p;

	for (int i = 0; i < ncols; i++)
		n += strlen(cols[i]) + 2;
	if (!(sql = malloc(n)))
		return NULL;
	p = sql + sprintf(sql, "SELECT ");
	for (int i = 0; i < ncols; i++)
		p += sprintf(p, "%s%s", i ? ", " : "", cols[i]);
	sprintf(p, " FROM %s", table);
	return sql;
}

/* The pages, where the file and the table allow them. */
static void pages_open(struct rowsrc *r, const char *const *cols, int ipk)
{
	const char *v = getenv("MAPPROF_PAGEREAD"), *why = "cannot open a read transaction";

	if (v && !strcmp(v, "0"))
		return;
	if (db_table_changed(r->db, r->table))
		why = "changed through this connection: its changes may not be in the file yet";
	else if (sqlite3_prepare_v2(r->db->sql, "SELECT 1 FROM sqlite_master", -1, &r->hold, NULL) == SQLITE_OK &&
		 sqlite3_step(r->hold) == SQLITE_ROW)
		r->pr = pr_open(r->db->sql, r->table, cols, r->ncols, ipk, &why);
	if (!r->pr) {
		tell(r, "not read from its pages", why);
		sqlite3_finalize(r->hold);
		r->hold = NULL;
		return;
	}
	if (v && !strncmp(v, "stop:", 5))
		r->stop = strtoull(v + 5, NULL, 10);
}

struct rowsrc *rowsrc_open(struct db *db, const char *table, const char *const *cols, int ncols, int ipk,
			   char **err)
{
	struct rowsrc *r = calloc(1, sizeof(*r));
	char *sql, *scan_sql = NULL;

	if (!r || ncols < 1 || ncols > PR_MAX_COLS || ipk < 0 || ipk >= ncols) {
		db_fail(err, "cannot read %s: %s", table, r ? "columns out of range" : "out of memory");
		free(r);
		return NULL;
	}
	r->db = db;
	r->table = table;
	r->ncols = ncols;
	r->ipk = ipk;
	/* (asprintf() leaves its pointer undefined when it fails.) */
	sql = select_sql(cols, ncols, table);
	if (sql && asprintf(&scan_sql, "%s ORDER BY %s", sql, cols[ipk]) < 0)
		scan_sql = NULL;
	if (scan_sql && asprintf(&r->one_sql, "%s WHERE %s = ?1", sql, cols[ipk]) < 0)
		r->one_sql = NULL;
	if (r->one_sql)
		r->scan = db_prepare(db, scan_sql, err);
	else
		db_fail(err, "out of memory");
	free(sql);
	free(scan_sql);
	if (!r->scan) {
		rowsrc_close(r);
		return NULL;
	}
	pages_open(r, cols, ipk);
	return r;
}

/*
 * The pages given up ('why'): the rest from SQLite's own scan, which visits
 * the pages in the same order, past the rows they gave (a seek to the last
 * rowid would land elsewhere in a damaged tree).  0, or -1 with *err.
 */
static int give_up(struct rowsrc *r, const char *why, char **err)
{
	int rc = SQLITE_ROW;

	tell(r, "read by SQLite from here", why);
	pr_close(r->pr);
	r->pr = NULL;
	for (uint64_t i = 0; i < r->rows && (rc = sqlite3_step(r->scan)) == SQLITE_ROW; i++)
		;
	if (r->rows && rc == SQLITE_ROW && sqlite3_column_int64(r->scan, r->ipk) != r->last)
		return db_fail(err, "cannot read %s from '%s': its rows read differently from its pages"
			       " (a damaged file?)", r->table, r->db->path);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? db_fail(err, "cannot read %s from '%s': rows vanished", r->table,
						   r->db->path)
					 : step_error(r, err);
	return 0;
}

/*
 * Row 'rowid', read by SQLite, into c: 1; 0 when SQLite's seek does not
 * find it (a damaged tree: the caller gives the pages up); -1 with *err.
 */
static int read_one(struct rowsrc *r, int64_t rowid, struct dbval *c, char **err)
{
	int rc;

	if (!r->one && !(r->one = db_prepare(r->db, r->one_sql, err)))
		return -1;
	sqlite3_bind_int64(r->one, 1, rowid);
	if ((rc = sqlite3_step(r->one)) == SQLITE_ROW)
		db_fetch_values(r->one, c, r->ncols);
	sqlite3_reset(r->one);
	if (rc == SQLITE_ROW || rc == SQLITE_DONE)
		return rc == SQLITE_ROW;
	return step_error(r, err);
}

int rowsrc_next(struct rowsrc *r, struct dbval *c, char **err)
{
	int rc;

	while (r->pr) {
		int64_t v[PR_MAX_COLS], rowid;
		uint32_t nulls;
		const char *why;
		if (r->stop && r->rows == r->stop) {
			if (give_up(r, "stopped by MAPPROF_PAGEREAD", err) < 0)
				return -1;
			break;
		}
		rc = pr_next(r->pr, &rowid, v, &nulls, &why);
		if (rc == 1) {
			for (int i = 0; i < r->ncols; i++) {
				c[i].i = v[i];
				c[i].r = 0;
				c[i].type = nulls >> i & 1 ? SQLITE_NULL : SQLITE_INTEGER;
			}
		} else if (rc == PR_ODD) {
			if ((rc = read_one(r, rowid, c, err)) < 0)
				return -1;
			if (!rc) {
				if (give_up(r, "a row SQLite does not find by its rowid", err) < 0)
					return -1;
				break;
			}
		} else if (rc == 0) {
			return 0;
		} else {
			if (give_up(r, why, err) < 0)
				return -1;
			break;
		}
		r->last = rowid;
		r->rows++;
		return 1;
	}
	rc = sqlite3_step(r->scan);
	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return step_error(r, err);
	db_fetch_values(r->scan, c, r->ncols);
	return 1;
}

void rowsrc_close(struct rowsrc *r)
{
	if (!r)
		return;
	pr_close(r->pr);
	sqlite3_finalize(r->hold);
	sqlite3_finalize(r->one);
	sqlite3_finalize(r->scan);
	free(r->one_sql);
	free(r);
}
