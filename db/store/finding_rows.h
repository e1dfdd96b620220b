/*
 * finding_rows.h - the stored findings' operations read back in time order
 * (finding_event_raw joined to data_op_raw, ORDER BY begin_ns, seq: the
 * order of db/read/events.h's stream), for outputs that walk the events once and
 * need to know which findings an event belongs to (report/trace/trace.c).
 *
 * SQLite sorts; memory does not grow with the number of rows.
 */
#ifndef MAPPROF_DB_FINDING_ROWS_H
#define MAPPROF_DB_FINDING_ROWS_H

#include <stdint.h>

struct db;
struct finding_rows;

struct finding_row_op {
	int64_t begin_ns;
	int64_t seq;
	int finding;          /* finding_raw.id, 1.. */
	int64_t occurrence;   /* 0.. within the finding */
	char kind[32];        /* finding_raw.kind ("round_trip"...), "" when unknown */
};

/*
 * Start reading.  NULL with *err NULL when the database holds no stored
 * findings, NULL with *err set on error.  *max_finding: the largest finding
 * id; 0 when the report found none, -1 when 'mapprof report' never stored
 * findings in it (no finding_summary_raw rows).
 */
struct finding_rows *finding_rows_open(struct db *db, int *max_finding, char **err);

/* Next row: 1, 0 at the end, -1 with *err set. */
int finding_rows_next(struct finding_rows *r, struct finding_row_op *op, char **err);

/* Accepts NULL. */
void finding_rows_close(struct finding_rows *r);

#endif
