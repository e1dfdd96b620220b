/*
 * targets.c - the target constructs in begin order.
 */
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/sound.h"
#include "db/read/targets.h"

#define TARGETS_SQL \
	"SELECT id, thread, COALESCE(device, -1), COALESCE(kind, 0), begin_ns, dur_ns, COALESCE(codeptr, 0)" \
	"  FROM target_raw" \
	" WHERE typeof(thread) = 'integer' AND (" BAD_TIME("target_raw") ") IS 0" \
	"   AND (device IS NULL OR device" DB_DEVICE_RANGE_SQL ")"

struct target_stream {
	struct db *db;
	sqlite3_stmt *st;
	enum targets_mode mode;
	int done;                  /* the statement has no more rows */
	/* TARGETS_BY_ID: the rows read and not yet given, a min-heap by (begin_ns, id). */
	struct target_row heap[TARGETS_WINDOW];
	size_t n;
	int given;                 /* a row was given: 'last' holds it */
	struct target_row last;
};

struct target_stream *target_stream_open(struct db *db, enum targets_mode mode, char **err)
{
	struct target_stream *s = calloc(1, sizeof(*s));

	if (!s) {
		db_fail(err, "out of memory");
		return NULL;
	}
	s->db = db;
	s->mode = mode;
	if (!(s->st = db_prepare(db, mode == TARGETS_SORTED ? TARGETS_SQL " ORDER BY begin_ns, id"
							    : TARGETS_SQL " ORDER BY id", err))) {
		free(s);
		return NULL;
	}
	return s;
}

/* The statement's next row: 1, 0 at the end, -1 with *err. */
static int step(struct target_stream *s, struct target_row *row, char **err)
{
	int rc = s->done ? SQLITE_DONE : sqlite3_step(s->st);

	if (rc == SQLITE_DONE) {
		s->done = 1;
		return 0;
	}
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

static int before(const struct target_row *a, const struct target_row *b)
{
	return a->begin_ns < b->begin_ns || (a->begin_ns == b->begin_ns && a->id < b->id);
}

static void heap_push(struct target_stream *s, const struct target_row *r)
{
	size_t i = s->n++;

	while (i && before(r, &s->heap[(i - 1) / 2])) {
		s->heap[i] = s->heap[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	s->heap[i] = *r;
}

static struct target_row heap_pop(struct target_stream *s)
{
	struct target_row top = s->heap[0], last = s->heap[--s->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= s->n)
			break;
		if (c + 1 < s->n && before(&s->heap[c + 1], &s->heap[c]))
			c++;
		if (!before(&s->heap[c], &last))
			break;
		s->heap[i] = s->heap[c];
		i = c;
	}
	if (s->n)
		s->heap[i] = last;
	return top;
}

int target_stream_next(struct target_stream *s, struct target_row *row, char **err)
{
	struct target_row r;
	int rc;

	if (s->mode == TARGETS_SORTED)
		return step(s, row, err);
	/* Fill the window, then give its earliest row. */
	while (s->n < TARGETS_WINDOW && (rc = step(s, &r, err)) != 0) {
		if (rc < 0)
			return -1;
		if (s->given && before(&r, &s->last))
			return TARGETS_RESTART;
		heap_push(s, &r);
	}
	if (!s->n)
		return 0;
	*row = heap_pop(s);
	s->last = *row;
	s->given = 1;
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
