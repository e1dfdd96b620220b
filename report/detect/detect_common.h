/*
 * detect_common.h - what the detector driver (report/detect/detect.c) and the four
 * detectors (report/detect_*.c) share: the configuration, the per-device
 * kernel counts the "unused" detectors read, the way occurrences leave
 * (ctx_emit), and small inline helpers over events.  The detectors include
 * this and report/detect/occurrence.h, never report/detect/detect.h: the driver calls the
 * detectors, and never the other way round.
 */
#ifndef MAPPROF_REPORT_DETECT_COMMON_H
#define MAPPROF_REPORT_DETECT_COMMON_H

#include <stddef.h>
#include <stdint.h>

#include "db/read/events.h"
#include "report/detect/occurrence.h"

struct detect_config {
	int host_device;        /* the host's device number (run.host_device) */
	unsigned kinds;         /* bit (1 << kind) enables a detector; 0 = all */
};

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

struct hmap;

/* An entry of a detector's map (lib/hmap.h), with the seq it is emitted by. */
struct map_entry {
	int64_t seq;            /* first: sort_cmp_i64 orders the entries */
	const uint64_t *key;
	void *val;
};

/*
 * m's entries in increasing seq_of(key, val): what a detector's finish
 * emits from a map, so that those occurrences come in the run's order (and
 * are numbered so in the findings), whatever the map's hash puts where.
 * malloc'ed, *n of them; NULL when out of memory.
 */
struct map_entry *map_by_seq(const struct hmap *m, int64_t (*seq_of)(const uint64_t *key, const void *val),
			     size_t *n);

static inline int ev_is_transfer(const struct event *ev)
{
	return ev->kind == EV_TO_DEVICE || ev->kind == EV_FROM_DEVICE;
}

static inline struct op_ref op_of(const struct event *ev, enum op_role role)
{
	struct op_ref r = { ev->seq, ev->begin_ns, ev->end_ns, ev->codeptr, role, ev->first_copy };
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

#endif
