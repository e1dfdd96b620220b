/*
 * detect_alloc.h - the detector of repeated and unused allocations: its
 * state, and the steps report/detect/detect.c drives it through (what it flags, why
 * that costs time, and its known false positives: detect_alloc.c).
 */
#ifndef MAPPROF_REPORT_DETECT_ALLOC_H
#define MAPPROF_REPORT_DETECT_ALLOC_H

#include "lib/hmap.h"
#include "report/detect/detect_common.h"

struct pending_alloc;

struct alloc_detector {
	unsigned kinds;        /* which of repeated/unused to report */
	struct hmap seen;      /* (host addr, device, bytes) -> allocations so far */
	struct hmap live;      /* alloc seq -> the allocation, until its delete */
	struct pending_alloc *heap;  /* deleted, waiting for the stream to pass
					their delete's end (min-heap on it) */
	size_t nheap, heap_cap;
};
void alloc_init(struct alloc_detector *d, unsigned kinds);
/* Before any detector sees 'ev': settle allocations whose lifetime ended before it. */
int alloc_advance(struct alloc_detector *d, struct detect_ctx *ctx, const struct event *ev);
int alloc_feed(struct alloc_detector *d, struct detect_ctx *ctx, const struct event *ev);
int alloc_finish(struct alloc_detector *d, struct detect_ctx *ctx);
void alloc_release(struct alloc_detector *d);

#endif
