/*
 * sound.h - which rows of the event tables the report may use (db/ only).
 *
 * A database can be damaged (a crash, a disk, an older or newer writer) or
 * hostile (anyone can edit a SQLite file).  A row that breaks what the schema
 * means is "damaged": the report counts it per table (the event stream,
 * event_stream_damaged(); run_info.damaged_run) and feeds it to no
 * detector, total or timeline.  The rules come in two forms, both here: SQL
 * expressions, and sound_op() and sound_kernel() (db/read/sound.c), which the
 * readers that stream the tables (db/read/events.c, db/read/timeline_rows.c) call on every
 * row they fetch.  The rules (docs/database.md, "Damaged rows"), for data_op_raw:
 *   - kind is one of OMPT's data op codes (1-6, 17-20);
 *   - src_dev and dst_dev lie in [DB_DEVICE_MIN, DB_DEVICE_MAX];
 *   - bytes lies in [0, DB_VALUE_MAX];
 *   - begin_ns and dur_ns lie in [0, DB_VALUE_MAX], and so does their sum
 *     (the end never comes before the begin);
 * and for kernel_raw the same on device, begin_ns and dur_ns.  A NULL (or
 * text) in any of these columns breaks them too.  seq is the rowid: never
 * NULL.
 *
 * Times and sizes are capped at INT64_MAX / 4, about 73 years of nanoseconds
 * or 2 EiB: far past any real run, and sums of a few such values cannot
 * overflow before the saturating helpers of lib/sat.h catch them.
 */
#ifndef MAPPROF_DB_SOUND_H
#define MAPPROF_DB_SOUND_H

#include <stdint.h>
#include <sqlite3.h>

#include "db/db_internal.h"

#define DB_VALUE_MAX 2305843009213693951LL   /* INT64_MAX / 4 */
#define DB_VALUE_MAX_SQL "2305843009213693951"
#define DB_DEVICE_MIN (-1)                   /* omp_initial_device; a delete's missing side */
#define DB_DEVICE_MAX 65535
#define DB_DEVICE_RANGE_SQL " BETWEEN -1 AND 65535"

#define SOUND_KINDS_SQL "(1, 2, 3, 4, 5, 6, 17, 18, 19, 20)"

/* The reasons, each true for a damaged row of data_op_raw aliased 'd'. */
#define OP_BAD_NULL(d) \
	"(" d ".kind IS NULL OR " d ".src_dev IS NULL OR " d ".dst_dev IS NULL OR " \
	d ".bytes IS NULL OR " d ".begin_ns IS NULL OR " d ".dur_ns IS NULL)"
#define OP_BAD_KIND(d) "(" d ".kind NOT IN " SOUND_KINDS_SQL ")"
#define OP_BAD_DEVICE(d) \
	"(NOT " d ".src_dev" DB_DEVICE_RANGE_SQL " OR NOT " d ".dst_dev" DB_DEVICE_RANGE_SQL ")"
#define OP_BAD_BYTES(d) "(NOT " d ".bytes BETWEEN 0 AND " DB_VALUE_MAX_SQL ")"
#define BAD_TIME(d) \
	"(NOT " d ".begin_ns BETWEEN 0 AND " DB_VALUE_MAX_SQL \
	" OR NOT " d ".dur_ns BETWEEN 0 AND " DB_VALUE_MAX_SQL " - " d ".begin_ns)"

/* True (1, never NULL) for a sound row of data_op_raw aliased 'd'. */
#define OP_SOUND(d) \
	"((" d ".kind IN " SOUND_KINDS_SQL \
	" AND " d ".src_dev" DB_DEVICE_RANGE_SQL " AND " d ".dst_dev" DB_DEVICE_RANGE_SQL \
	" AND " d ".bytes BETWEEN 0 AND " DB_VALUE_MAX_SQL \
	" AND " d ".begin_ns BETWEEN 0 AND " DB_VALUE_MAX_SQL \
	" AND " d ".dur_ns BETWEEN 0 AND " DB_VALUE_MAX_SQL " - " d ".begin_ns) IS 1)"

#define KERNEL_BAD_NULL(k) \
	"(" k ".device IS NULL OR " k ".begin_ns IS NULL OR " k ".dur_ns IS NULL)"
#define KERNEL_BAD_DEVICE(k) "(NOT " k ".device" DB_DEVICE_RANGE_SQL ")"

/* True (1, never NULL) for a sound row of kernel_raw aliased 'k'. */
#define KERNEL_SOUND(k) \
	"((" k ".device" DB_DEVICE_RANGE_SQL \
	" AND " k ".begin_ns BETWEEN 0 AND " DB_VALUE_MAX_SQL \
	" AND " k ".dur_ns BETWEEN 0 AND " DB_VALUE_MAX_SQL " - " k ".begin_ns) IS 1)"

/*
 * The rules in C, on a row as a statement fetched it.  A row whose columns
 * under the rules all hold integers is judged in C, which is what the
 * expressions above answer for integers; one with a NULL, a real, text or a
 * blob there (only an edited or broken database has one) is judged by
 * SQLite itself, with the expressions above, by its seq.  Judging every row
 * in SQL cost a third of a pass over a table.
 *
 * A judge asks SQLite through statements it prepares at the first row C
 * cannot judge; embed it, sound_judge_init() it, sound_judge_release() it.
 */
struct sound_judge {
	struct db *db;
	sqlite3_stmt *op, *kernel, *sum, *sum_row[2];
};

void sound_judge_init(struct sound_judge *j, struct db *db);

/* Accepts a judge that was never used. */
void sound_judge_release(struct sound_judge *j);

/*
 * The end of a sound row (row 'seq' of kernel_raw when 'kernel', else of
 * data_op_raw): begin_ns + dur_ns as SQLite sums them (and
 * sqlite3_value_int64() reads the sum).  Two integers (every recorded row)
 * in C: sound, their sum is in range.  A real among them (a sound row of an
 * edited database can hold one: 1.5 + 1.5 is 3, not 1 + 1) is summed by
 * SQLite itself, and text or a blob (a column whose affinity was edited)
 * by SQLite from the row.  0 and *end, or -1 with *err.
 */
int sound_end_ns(struct sound_judge *j, int kernel, int64_t seq, const struct dbval *begin_ns,
		 const struct dbval *dur_ns, int64_t *end, char **err);

/* The columns the rules read, of one row of data_op_raw or kernel_raw, as fetched. */
struct sound_op_row {
	int64_t seq;
	const struct dbval *kind, *src_dev, *dst_dev, *bytes, *begin_ns, *dur_ns;
};

struct sound_kernel_row {
	int64_t seq;
	const struct dbval *device, *begin_ns, *dur_ns;
};

/* Why a row is damaged, one bit a reason (those of struct damaged, db/read/events.h). */
enum sound_why {
	SOUND_BAD_NULL = 1 << 0,     /* NULL where a value is needed */
	SOUND_BAD_KIND = 1 << 1,     /* unknown op code */
	SOUND_BAD_DEVICE = 1 << 2,   /* device number out of range */
	SOUND_BAD_BYTES = 1 << 3,    /* negative or implausible size */
	SOUND_BAD_TIME = 1 << 4,     /* begin or duration out of range, end before begin */
};

/*
 * Judge a row: 1 sound, 0 damaged (*why, unless why is NULL, gets its
 * reasons: enum sound_why bits), -1 with *err set (malloc'ed) when SQLite
 * cannot answer.
 */
int sound_op(struct sound_judge *j, const struct sound_op_row *r, unsigned *why, char **err);
int sound_kernel(struct sound_judge *j, const struct sound_kernel_row *r, unsigned *why,
		 char **err);

#endif
