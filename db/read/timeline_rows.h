/*
 * timeline_rows.h - the intervals the timeline bins (db/ only: timeline.c).
 *
 * One interval per sound row (db/read/sound.h) of kernel_raw and of data_op_raw's
 * transfers, allocations and deletes, and one per allocation lifetime: what
 * the views kernels, data_ops and allocations hold, over sound rows only.
 */
#ifndef MAPPROF_DB_TIMELINE_ROWS_H
#define MAPPROF_DB_TIMELINE_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

enum lane { LANE_KERNELS, LANE_TO, LANE_FROM, LANE_ALLOC_OPS, LANE_MAPPED, LANE_COUNT };

struct iv {
	int64_t seq;       /* the event; for a mapped lifetime its alloc_seq */
	int64_t seq2;      /* mapped lifetime: its delete_seq, else -1 */
	int64_t begin_ns;
	int64_t end_ns;    /* -1: still mapped at exit (mapped lane) */
	int64_t bytes;
	int device;
	int thread;        /* the host thread (thread_raw.id); -1: unknown, or a mapped lifetime */
	enum lane lane;
};

/*
 * Call fn(arg, x) for each interval, in this order: the kernels by seq, the
 * data operations by seq, each with the lifetime it ends (a delete: after
 * the delete's own interval), then the lifetimes that never end (their
 * allocation was never freed) by alloc_seq.  A delete's bytes are those of
 * the allocation it frees when that row is sound; a lifetime ends where its
 * delete does, or (-1) never when the delete is missing or damaged.  An end
 * before its begin is moved to the begin.
 *
 * Memory: per allocation still mapped at that point of the run, never per
 * event.  (A delete recorded before the allocation it frees, which no
 * recording makes, keeps its own bytes; its lifetime is still made.)
 * Returns 0, fn's non-zero return, or -1 with *err set (malloc'ed).
 */
int timeline_rows_each(struct db *db, int (*fn)(void *arg, const struct iv *x), void *arg, char **err);

/*
 * The same intervals recorded while another pass reads the rows (the
 * analysis' event stream, db/read/events.c: the tables are then read once).
 * That pass hands over every row of kernel_raw and of data_op_raw, damaged
 * ones too, each table in seq order, as the columns below (pointers to
 * struct dbval, db/db_internal.h, valid during the call); the intervals go to two unlinked
 * temporary files (the kernels', the rest), about 10 bytes each, so that
 * memory stays bounded.  Then timeline_rec_each() calls fn on them in
 * timeline_rows_each()'s order.  A recording that failed (out of memory,
 * a file) is given up quietly: timeline_rec_finish() says so, and the
 * timeline then reads the tables itself.
 */
enum { TLK_SEQ, TLK_DEVICE, TLK_BEGIN, TLK_DUR, TLK_THREAD, TLK_NCOLS };
enum { TLO_SEQ, TLO_KIND, TLO_SRC_DEV, TLO_DST_DEV, TLO_BYTES, TLO_BEGIN, TLO_DUR, TLO_THREAD, TLO_NCOLS };
/* An interval's end: begin_ns + dur_ns of a sound row, as SQLite sums them (sound_end_ns(), db/read/sound.h). */

struct dbval;
struct timeline_rec;

/* A recorder reading delete_pair_raw beside the rows (its statements on db).  NULL on failure. */
struct timeline_rec *timeline_rec_new(struct db *db);
void timeline_rec_kernel(struct timeline_rec *t, const struct dbval *const *c);
void timeline_rec_op(struct timeline_rec *t, const struct dbval *const *c);
/* Every row was handed over: 0, or -1 when the recording cannot be used. */
int timeline_rec_finish(struct timeline_rec *t);
/* After timeline_rec_finish() returned 0: as timeline_rows_each(). */
int timeline_rec_each(struct timeline_rec *t, int (*fn)(void *arg, const struct iv *x), void *arg, char **err);
/* Accepts NULL. */
void timeline_rec_free(struct timeline_rec *t);

#endif
