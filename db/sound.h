/*
 * sound.h - which rows of the event tables the report may use (db/ only).
 *
 * A database can be damaged (a crash, a disk, an older or newer writer) or
 * hostile (anyone can edit a SQLite file).  A row that breaks what the schema
 * means is "damaged": the report counts it per table (the event stream,
 * event_stream_damaged(); run_info.damaged_run) and feeds it to no
 * detector, total or timeline.  db/events.c checks these rules in C on rows
 * of integers, and asks SQLite with the expressions below about any other.  The
 * rules (docs/database.md, "Damaged rows"), for data_op_raw:
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

#endif
