/*
 * acc.c - the counts of an OpenACC recording (acc.h).
 */
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/acc.h"

static const char has_sql[] =
	"SELECT COUNT(*) FROM sqlite_schema WHERE type = 'table' AND name = 'acc_event_raw'";

static const char counts_sql[] =
	"SELECT COUNT(*),"
	" SUM(e.event IN ('compute_construct', 'enter_data', 'exit_data', 'update')),"
	" SUM(e.event = 'enqueue_launch'),"
	" SUM(e.event IN ('alloc', 'free', 'create', 'delete', 'enqueue_upload', 'enqueue_download')),"
	" SUM(e.event IN ('enqueue_upload', 'enqueue_download')),"
	" SUM(e.event IN ('alloc', 'free', 'create', 'delete', 'enqueue_upload', 'enqueue_download')"
	"     AND (SELECT d.bytes FROM data_op_raw d WHERE d.seq = e.seq) > 0),"
	" SUM(e.valid_bytes IS NOT NULL AND e.valid_bytes <= 24),"
	" SUM(json_valid(e.detail) AND (json_extract(e.detail, '$.src_file') IS NOT NULL"
	"     OR json_extract(e.detail, '$.line_no') IS NOT NULL)),"
	" SUM(json_valid(e.detail) AND json_extract(e.detail, '$.var_name') IS NOT NULL)"
	" FROM acc_event_raw e";

/* "OpenACC Profiling Interface (LIB)": the collector's runtime string. */
static const char lib_sql[] =
	"SELECT substr(runtime, 30, length(runtime) - 30) FROM run_raw"
	" WHERE id = 1 AND runtime LIKE 'OpenACC Profiling Interface (%)'";

int db_read_acc(struct db *db, struct acc_summary *s, char **err)
{
	sqlite3_stmt *st;
	int rc, has;

	memset(s, 0, sizeof(*s));
	if (!(st = db_prepare(db, has_sql, err)))
		return -1;
	rc = sqlite3_step(st);
	has = rc == SQLITE_ROW && sqlite3_column_int(st, 0) > 0;
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_fail(err, "cannot read the schema: %s", db_errmsg(db));
	if (!has)
		return 0;
	if (!(st = db_prepare(db, counts_sql, err)))
		return -1;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t *v[] = { &s->events, &s->constructs, &s->launches, &s->data_events, &s->transfers,
				 &s->data_bytes, &s->short_info, &s->src_given, &s->var_given };
		for (int i = 0; i < (int)(sizeof(v) / sizeof(v[0])); i++)
			*v[i] = sqlite3_column_int64(st, i);  /* NULL (no row): 0 */
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW)
		return db_fail(err, "cannot read the OpenACC events: %s", db_errmsg(db));
	if (!s->events || !(st = db_prepare(db, lib_sql, err)))
		return s->events ? -1 : 0;
	if ((rc = sqlite3_step(st)) == SQLITE_ROW && sqlite3_column_text(st, 0))
		s->runtime_lib = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return 0;
}

void acc_summary_release(struct acc_summary *s)
{
	free(s->runtime_lib);
	s->runtime_lib = NULL;
}
