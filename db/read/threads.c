/*
 * threads.c - the run's threads.
 */
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/threads.h"

/* The process id: process_raw's (the process this database recorded), else run_raw's. */
static const char threads_sql[] =
	"SELECT t.id, t.tid, t.tid = COALESCE((SELECT pid FROM process_raw WHERE id = 1),"
	"                                     (SELECT pid FROM run_raw WHERE id = 1))"
	"  FROM thread_raw t WHERE typeof(t.id) = 'integer' ORDER BY t.id";

int thread_rows_read(struct db *db, struct thread_rows *out, char **err)
{
	sqlite3_stmt *st = db_prepare(db, threads_sql, err);
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (out->n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct thread_row *v = realloc(out->v, ncap * sizeof(*v));
			if (!v) {
				sqlite3_finalize(st);
				return db_fail(err, "out of memory");
			}
			out->v = v;
			cap = ncap;
		}
		out->v[out->n++] = (struct thread_row){ sqlite3_column_int(st, 0), sqlite3_column_int64(st, 1),
							sqlite3_column_int(st, 2) == 1 };
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read the threads: %s", db_errmsg(db));
	return 0;
}

const struct thread_row *thread_rows_find(const struct thread_rows *t, int thread)
{
	/* Few threads: a linear scan. */
	for (size_t i = 0; i < t->n; i++)
		if (t->v[i].thread == thread)
			return &t->v[i];
	return NULL;
}

const char *thread_role(const struct thread_row *r)
{
	return r && r->initial ? "initial thread" : "OpenMP thread";
}

void thread_rows_release(struct thread_rows *t)
{
	free(t->v);
	t->v = NULL;
	t->n = 0;
}
