/*
 * targets.h - the run's target constructs (target_raw: 'target', 'target
 * data', 'target enter/exit data', 'target update', each as OMPT reported
 * it) as a stream in begin order, for 'mapprof trace -o run.otf2'
 * (report/trace/trace_otf2.c), which puts them on the host threads that
 * ran them.
 *
 * Beside them, where the run's clock started (run_clock_read()): 'mapprof
 * trace' puts several processes' databases on one time line with it.
 *
 * Rows with no thread, no begin or a time out of range (db/read/sound.h's
 * limits) are left out.  Two ways to get begin order, as db/read/events.h
 * has them: TARGETS_BY_ID reads the rows in id order (no sort: the
 * collector numbers a construct when it begins) through a reorder window
 * of TARGETS_WINDOW rows, and returns TARGETS_RESTART when a row comes too
 * late for it; TARGETS_SORTED has SQLite sort them (ORDER BY begin_ns,
 * id), always right, at the sort's cost in time and memory.
 */
#ifndef MAPPROF_DB_TARGETS_H
#define MAPPROF_DB_TARGETS_H

#include <stdint.h>

struct db;
struct target_stream;

struct target_row {
	int64_t id;            /* target_raw.id, as data_op_raw.target_id */
	int thread;
	int device;            /* -1 when not recorded */
	int kind;              /* ompt_target_t: 1 target, 2 enter data, 3 exit data, 4 update; +8 nowait */
	int64_t begin_ns, end_ns;
	uint64_t codeptr;      /* 0 when unknown */
};

enum targets_mode { TARGETS_BY_ID, TARGETS_SORTED };

#define TARGETS_WINDOW 4096
#define TARGETS_RESTART (-2)

/* Start reading.  NULL with *err set on error. */
struct target_stream *target_stream_open(struct db *db, enum targets_mode mode, char **err);

/*
 * Next row into *row: 1, 0 at the end, -1 with *err set, or (TARGETS_BY_ID
 * only) TARGETS_RESTART when the order cannot be kept.
 */
int target_stream_next(struct target_stream *s, struct target_row *row, char **err);

/* Accepts NULL. */
void target_stream_close(struct target_stream *s);

/* "target", "target enter data", ... for a kind (static; "target construct" when unknown). */
const char *target_kind_words(int kind);

/* Where a run's times start: its collector's start. */
struct run_clock {
	int64_t start_ns;      /* CLOCK_MONOTONIC at the start; -1 when not recorded */
	int64_t epoch_s;       /* the same as seconds since 1970 (UTC); -1 when not recorded */
	char host[256];        /* the host it ran on ("" when not recorded) */
};

/* Read it.  0, or -1 with *err set. */
int run_clock_read(struct db *db, struct run_clock *c, char **err);

#endif
