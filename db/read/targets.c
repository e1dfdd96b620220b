/*
 * targets.c - the target constructs in begin order.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/sound.h"
#include "db/read/targets.h"

static const char targets_sql[] =
	"SELECT id, thread, COALESCE(device, -1), COALESCE(kind, 0), begin_ns, dur_ns, COALESCE(codeptr, 0)"
	"  FROM target_raw"
	" WHERE typeof(thread) = 'integer' AND (" BAD_TIME("target_raw") ") IS 0"
	"   AND (device IS NULL OR device" DB_DEVICE_RANGE_SQL ")"
	" ORDER BY begin_ns, id";

struct target_stream {
	struct db *db;
	sqlite3_stmt *st;
};

struct target_stream *target_stream_open(struct db *db, char **err)
{
	struct target_stream *s = calloc(1, sizeof(*s));

	if (!s) {
		db_fail(err, "out of memory");
		return NULL;
	}
	s->db = db;
	if (!(s->st = db_prepare(db, targets_sql, err))) {
		free(s);
		return NULL;
	}
	return s;
}

int target_stream_next(struct target_stream *s, struct target_row *row, char **err)
{
	int rc = sqlite3_step(s->st);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return db_fail(err, "cannot read the target constructs: %s", db_errmsg(s->db));
	row->id = sqlite3_column_int64(s->st, 0);
	row->thread = sqlite3_column_int(s->st, 1);
	row->device = sqlite3_column_int(s->st, 2);
	row->kind = sqlite3_column_int(s->st, 3);
	row->begin_ns = sqlite3_column_int64(s->st, 4);
	row->end_ns = row->begin_ns + sqlite3_column_int64(s->st, 5);
	row->codeptr = (uint64_t)sqlite3_column_int64(s->st, 6);
	return 1;
}

void target_stream_close(struct target_stream *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->st);
	free(s);
}

const char *target_kind_words(int kind)
{
	switch (kind & 7) {
	case 1:
		return "target";
	case 2:
		return "target enter data";
	case 3:
		return "target exit data";
	case 4:
		return "target update";
	default:
		return "target construct";
	}
}

static const char clock_sql[] =
	"SELECT CASE WHEN typeof(start_ns) = 'integer' AND start_ns >= 0 THEN start_ns ELSE -1 END,"
	"       COALESCE(CAST(strftime('%s', start_time) AS INTEGER), -1), COALESCE(host, '')"
	"  FROM run_raw WHERE id = 1";

int run_clock_read(struct db *db, struct run_clock *c, char **err)
{
	sqlite3_stmt *st = db_prepare(db, clock_sql, err);
	int rc;

	*c = (struct run_clock){ -1, -1, "" };
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const unsigned char *host = sqlite3_column_text(st, 2);
		c->start_ns = sqlite3_column_int64(st, 0);
		c->epoch_s = sqlite3_column_int64(st, 1);
		snprintf(c->host, sizeof(c->host), "%s", host ? (const char *)host : "");
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(err, "cannot read the run: %s", db_errmsg(db));
	return 0;
}
