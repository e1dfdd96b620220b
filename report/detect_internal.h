/*
 * detect_internal.h - what the detector files share (report/detect*.c only).
 */
#ifndef MAPPROF_REPORT_DETECT_INTERNAL_H
#define MAPPROF_REPORT_DETECT_INTERNAL_H

#include "report/detect.h"
#include "lib/hmap.h"

/* Kernels seen so far on one device, in stream order. */
struct dev_stat {
	int device;
	uint64_t kernels;       /* kernels begun so far: a "generation" number */
	int64_t max_end_ns;     /* latest end of those kernels (-1: none yet) */
};

/* Shared by all detectors of one struct detect. */
struct detect_ctx {
	const struct detect_config *cfg;
	struct dev_stat *devs;  /* a short array, scanned linearly */
	size_t ndevs, devs_cap;
	occurrence_fn fn;
	void *arg;
	const char *why;        /* set on failure */
};

/* The device's stats, created empty on first use; NULL when out of memory. */
struct dev_stat *ctx_device(struct detect_ctx *ctx, int device);

/* Hand an occurrence to the callback; -1 (and ctx->why) when it says stop. */
int ctx_emit(struct detect_ctx *ctx, const struct occurrence *occ);

/* -1 with ctx->why = "out of memory". */
int ctx_oom(struct detect_ctx *ctx);

static inline int ev_is_transfer(const struct event *ev)
{
	return ev->kind == EV_TO_DEVICE || ev->kind == EV_FROM_DEVICE;
}

static inline struct op_ref op_of(const struct event *ev, enum op_role role)
{
	struct op_ref r = { ev->seq, ev->begin_ns, ev->end_ns, ev->codeptr, role };
	return r;
}

/*
 * The host address of the data a transfer moves: its source when it leaves
 * the host, its destination when it arrives there, 0 between devices.
 */
static inline uint64_t transfer_host_addr(const struct event *ev, int host)
{
	if (ev->src_device == host)
		return ev->src_addr;
	if (ev->dest_device == host)
		return ev->dest_addr;
	return 0;
}

/* Device numbers packed into key words (sign-extended, so -1 stays distinct). */
static inline uint64_t dev_word(int dev)
{
	return (uint64_t)(uint32_t)dev;
}

struct dup_detector {
	struct hmap seen;      /* (hash, bytes, dest) -> first receipt */
	struct hmap sources;   /* (hash, bytes, dest, host addr): contents with
				  several senders only */
};
void dup_init(struct dup_detector *d);
int dup_feed(struct dup_detector *d, struct detect_ctx *ctx, const struct event *ev);
void dup_release(struct dup_detector *d);

struct rt_detector {
	struct hmap last;      /* (buffer device, buffer addr, source device, bytes)
				  -> latest transfer into that buffer from there */
};
void rt_init(struct rt_detector *d);
int rt_feed(struct rt_detector *d, struct detect_ctx *ctx, const struct event *ev);
void rt_release(struct rt_detector *d);

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

struct ut_detector {
	struct hmap latest;    /* (device, dest addr, bytes) -> latest transfer there */
};
void ut_init(struct ut_detector *d);
int ut_feed(struct ut_detector *d, struct detect_ctx *ctx, const struct event *ev);
int ut_finish(struct ut_detector *d, struct detect_ctx *ctx);
void ut_release(struct ut_detector *d);

#endif
