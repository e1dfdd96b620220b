/*
 * trace_scan.h - the stored findings' operations in time order, read for
 * 'mapprof trace' (report/trace/trace.c and trace_flows.c): the rows of db/store/finding_rows.h,
 * in the same order (begin_ns, seq, finding, occurrence), at a third of
 * its cost.
 *
 * Why a reader of its own: at ten million events the stored findings have
 * millions of operations, and finding_rows.h had SQLite sort them and look
 * each one's kind up (a second of a 1 M-event trace's 3.5 s).  Here the
 * kinds are read once per finding, and FINDING_SCAN_STORED reads the rows
 * in the table's own order, which is time order where 'mapprof report'
 * wrote them (db/store/findings.h: in one pass in (begin_ns, seq) order): no
 * sort.  Each group of rows of one operation is sorted by (finding,
 * occurrence) here; a group that comes before the previous one means the
 * table is in another order (an older report), and the reader returns
 * FINDING_SCAN_RESTART: the caller starts again with FINDING_SCAN_SORTED,
 * which has SQLite sort (always right), as db/read/events.h's stream does.
 *
 * Memory grows with the number of findings (their kinds), never with rows.
 */
#ifndef MAPPROF_DB_TRACE_SCAN_H
#define MAPPROF_DB_TRACE_SCAN_H

#include <stdint.h>

struct db;
struct finding_scan;

enum finding_scan_mode { FINDING_SCAN_STORED, FINDING_SCAN_SORTED };

#define FINDING_SCAN_RESTART (-2)

struct finding_scan_row {
	int64_t begin_ns;     /* the operation's (data_op_raw) */
	int64_t seq;
	int finding;          /* finding_raw.id, 1.. */
	int64_t occurrence;   /* 0.. within the finding */
};

/*
 * Start reading, as finding_rows_open() says: NULL with *err NULL when the
 * database holds no stored findings (*max_finding -1 when 'mapprof report'
 * never stored findings in it, 0 when it found none), NULL with *err set
 * on error.
 */
struct finding_scan *finding_scan_open(struct db *db, enum finding_scan_mode mode, int *max_finding,
				       char **err);

/*
 * Next row: 1, 0 at the end, -1 with *err set, or (FINDING_SCAN_STORED
 * only) FINDING_SCAN_RESTART when the table is not in time order.
 */
int finding_scan_next(struct finding_scan *s, struct finding_scan_row *row, char **err);

/*
 * FINDING_SCAN_STORED: read the rows not read yet, checking their order,
 * since only the end proves that no later row belonged before the ones
 * read (a caller that stops early).  0, FINDING_SCAN_RESTART, or -1 with
 * *err set.
 */
int finding_scan_finish(struct finding_scan *s, char **err);

/*
 * A finding's kind ("round_trip"...; at most 31 bytes, as finding_rows.h
 * gives it), "" when unknown.  Borrowed until finding_scan_close().
 */
const char *finding_scan_kind(const struct finding_scan *s, int finding);

/* Accepts NULL. */
void finding_scan_close(struct finding_scan *s);

#endif
