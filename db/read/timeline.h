/*
 * timeline.h - what each device was doing over time, for the HTML report.
 *
 * A run can hold hundreds of thousands of events, and a page that draws a
 * node per event stops responding.  So the timeline is aggregated: the span
 * from the first event's begin to the last event's end is cut into at most
 * TIMELINE_MAX_BINS equal bins, and each lane of each device gets, per bin,
 * the busy time inside it.  Two kinds of exact data ride along: every event of
 * a lane that has at most TIMELINE_EXACT_LIMIT events (small runs draw
 * exactly), and the events the caller names (those that belong to findings),
 * so the page can highlight a selected finding's occurrences where they are.
 *
 * Lanes, per device (the device that receives, sends, or holds the data):
 *   kernels      kernel executions (view kernels)
 *   to_device    transfers into the device (data_ops, op 'to_device')
 *   from_device  transfers out of the device (op 'from_device')
 *   alloc_ops    the allocate and free operations themselves (op 'alloc',
 *                'delete')
 *   mapped       allocation lifetimes (view allocations); an allocation
 *                still mapped at exit lives until the timeline's end
 *
 * The JSON (times in ns since run start, like the views):
 *   { "start_ns": t0, "end_ns": t1, "bin_ns": w, "bins": n,
 *     "lanes": ["kernels", "to_device", "from_device", "alloc_ops", "mapped"],
 *     "devices": [ { "device": 0, "type": "generic-64bit" | null,
 *         "lanes": { "<lane>": {
 *             "count": events, "busy_ns": summed durations, "bytes": summed,
 *             "peak_bytes": most bytes mapped at once    (mapped lane only),
 *             "bins": [[i, busy_ns, count, bytes], ...]   non-empty bins only,
 *             "intervals": [[begin_ns, end_ns, bytes, seq], ...]
 *                                      only when count <= TIMELINE_EXACT_LIMIT
 *         } },
 *         "threads": [ { "thread": k, "tid": N | null,
 *             "role": "initial thread" | "OpenMP thread"   (db/read/threads.h),
 *             "count", "busy_ns", "bytes", "bins" as a lane's, over every
 *             kernel, transfer, allocation and delete the host thread made
 *             on the device (mapped lifetimes span threads: not here),
 *             "intervals": [[begin_ns, end_ns, bytes, seq, "<lane>"], ...]
 *         } ] } ],
 *     "marks": [[seq, device, "<lane>", begin_ns, end_ns, bytes, thread], ...] }
 * Bin i covers [t0 + i*w, t0 + (i+1)*w).  busy_ns is the overlap of the
 * lane's events with the bin (it can exceed w when events overlap, e.g. with
 * several host threads), count and bytes are those of the events that begin
 * in the bin; in the mapped lane, bytes is the peak of bytes mapped during
 * the bin.  A mark is one named event: an allocation appears twice, as its
 * alloc_ops operation and as its mapped lifetime.
 */
#ifndef MAPPROF_DB_TIMELINE_H
#define MAPPROF_DB_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "db/db.h"
#include "db/read/events.h"

#define TIMELINE_MAX_BINS 2000
#define TIMELINE_EXACT_LIMIT 2000

/*
 * Build the timeline of 'db'.  'mark_seqs' (any order, duplicates allowed,
 * NULL when n_marks is 0) are the sequence numbers of events to report
 * exactly under "marks" (for an allocation, its alloc_seq or delete_seq).
 * Returns a new reference the caller owns, or NULL with *err set (malloc'ed).
 */
json_t *timeline_build(struct db *db, const int64_t *mark_seqs, size_t n_marks, char **err);

/*
 * The span of the timeline's intervals, as its first pass over the tables
 * would take it: gathered from the event stream the analysis reads anyway
 * (timeline_span_add() on every event it yields, sound rows only, any
 * order), it spares timeline_build_span() that pass.
 */
struct timeline_rec;
struct timeline_span {
	int64_t t0, t1;
	uint64_t intervals;
	/*
	 * The intervals themselves, when the same pass recorded them
	 * (event_stream_open_rec(), finished): timeline_build_span() then
	 * reads no table.  Owned: timeline_span_release().
	 */
	struct timeline_rec *rec;
};

/* Empty; s->rec must be NULL (released) already. */
void timeline_span_init(struct timeline_span *s);
void timeline_span_add(struct timeline_span *s, const struct event *ev);
/* Start recording the intervals on db (a failure only means the timeline will read the tables). */
void timeline_span_record(struct timeline_span *s, struct db *db);
/* The pass has read every row (complete = 1) or not: the recording is kept, or dropped. */
void timeline_span_recorded(struct timeline_span *s, int complete);
/* Accepts one never initialised if zeroed. */
void timeline_span_release(struct timeline_span *s);

/* timeline_build() with the span given (NULL: read it from the tables). */
json_t *timeline_build_span(struct db *db, const int64_t *mark_seqs, size_t n_marks,
			    const struct timeline_span *span, char **err);

/*
 * timeline_build_span() on a thread of its own, begun before the caller
 * knows its marks exactly: the database is read here (the threads, the
 * device types), then the recorded intervals (span->rec, required) are
 * binned while the caller goes on with the same connection.  'mark_seqs'
 * are the candidates; timeline_job_finish() gives the timeline with the
 * marks among 'mark_seqs' it is given there (binned again, on the caller's
 * thread, if one of them was no candidate), the same JSON as
 * timeline_build_span() with those.  Both free the job, and so does
 * timeline_job_free() (a job not finished: it waits for the thread).
 * NULL with *err set when the job cannot start.
 */
struct timeline_job;
struct timeline_job *timeline_job_start(struct db *db, const int64_t *mark_seqs, size_t n_marks,
					const struct timeline_span *span, char **err);
json_t *timeline_job_finish(struct timeline_job *j, const int64_t *mark_seqs, size_t n_marks, char **err);
void timeline_job_free(struct timeline_job *j);

#endif
