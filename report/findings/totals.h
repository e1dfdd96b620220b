/*
 * totals.h - what the run spent on data mapping, accumulated over the event
 * stream (the denominator next to the findings' savings).
 *
 * Busy times are unions of intervals: with several threads or nowait
 * regions, two transfers in flight at once count once.  The stream order
 * (begin_ns, seq) makes that a running merge with O(1) state.
 */
#ifndef MAPPROF_REPORT_TOTALS_H
#define MAPPROF_REPORT_TOTALS_H

#include <stddef.h>
#include <stdint.h>

#include "db/read/events.h"

/* A running union of intervals that arrive in order of their begin. */
struct busy {
	int started;
	int64_t begin_ns, end_ns;   /* the open merged interval */
	int64_t total_ns;           /* closed intervals so far */
};

struct device_totals {
	int device;
	uint64_t kernels;
	uint64_t transfers_in, bytes_in;    /* transfers arriving at the device */
	uint64_t transfers_out, bytes_out;  /* transfers leaving it */
	uint64_t allocs, alloc_bytes;
};

struct run_totals {
	uint64_t events;
	uint64_t kernels, transfers, allocs, deletes, others;
	uint64_t transfer_bytes;
	int64_t first_begin_ns;       /* -1 when no events */
	int64_t last_end_ns;
	struct busy transfer, alloc, kernel;  /* alloc: allocations and deletes */
	struct device_totals *devices;        /* sorted by device after totals_finish */
	size_t ndevices, devices_cap;
};

void totals_init(struct run_totals *t);
/* Account one event (in stream order).  0, or -1 when out of memory. */
int totals_feed(struct run_totals *t, const struct event *ev);
/* Close the running unions and sort the devices. */
void totals_finish(struct run_totals *t);
void totals_release(struct run_totals *t);

/*
 * 1 when kernels ran but no map clause moved or allocated a byte: the
 * runtime let the device use host memory in place (unified shared memory
 * by '#pragma omp requires unified_shared_memory', an APU, a zero-copy
 * runtime), so mapping findings cannot apply.  After totals_finish.
 */
int totals_moved_nothing(const struct run_totals *t);

/* The closed total of a busy accumulator (after totals_finish). */
static inline int64_t busy_ns(const struct busy *b)
{
	return b->total_ns;
}

#endif
