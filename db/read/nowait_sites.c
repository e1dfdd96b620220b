/*
 * nowait_sites.c - the call sites of nowait offload calls (db/read/nowait_sites.h).
 */
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/nowait_sites.h"

/* One row per call site: distinct (codeptr is the key), in order. */
static const char nowait_sql[] =
	"SELECT codeptr FROM source_raw"
	" WHERE typeof(codeptr) = 'integer' AND entry LIKE '%\\_nowait%' ESCAPE '\\'"
	" ORDER BY 1";

int nowait_sites_read(struct db *db, struct nowait_sites *out, char **err)
{
	sqlite3_stmt *st = db_prepare(db, nowait_sql, err);
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			uint64_t *v = realloc(out->codeptr, ncap * sizeof(*v));
			if (!v) {
				sqlite3_finalize(st);
				return db_fail(err, "out of memory");
			}
			out->codeptr = v;
			cap = ncap;
		}
		out->codeptr[out->n++] = (uint64_t)sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read the nowait call sites: %s", db_errmsg(db));
	return 0;
}

int nowait_sites_has(const struct nowait_sites *s, uint64_t codeptr)
{
	size_t lo = 0, hi = s->n;

	/* Ordered as SQLite orders integers: signed. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int64_t v = (int64_t)s->codeptr[mid];
		if (v == (int64_t)codeptr)
			return 1;
		if (v < (int64_t)codeptr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

void nowait_sites_release(struct nowait_sites *s)
{
	free(s->codeptr);
	s->codeptr = NULL;
	s->n = 0;
}
