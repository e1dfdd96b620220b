/*
 * detect_fixture.h - hand-written events and a collector of occurrences, for
 * the detector tests.  Each constructor models one OMPT callback pair as
 * 'mapprof record' stores it; every event lasts 5 ns unless said otherwise.
 * The host is device 4, as with LLVM 19's host plugin exposing devices 0-3.
 */
#ifndef MAPPROF_TESTS_DETECT_FIXTURE_H
#define MAPPROF_TESTS_DETECT_FIXTURE_H

#include "report/detect/detect.h"

#define HOST 4

/* The host sends 'bytes' at host address 'h' to device address 'd' on 'dev'. */
static inline struct event to_dev(int64_t seq, int64_t t, int dev, uint64_t h, uint64_t d,
				  uint64_t bytes, uint64_t hash)
{
	struct event e = { .seq = seq, .kind = EV_TO_DEVICE, .thread = 1, .src_device = HOST,
			   .dest_device = dev, .src_addr = h, .dest_addr = d, .bytes = bytes,
			   .begin_ns = t, .end_ns = t + 5, .has_hash = 1, .hash = hash,
			   .codeptr = 0x1000 };
	return e;
}

/* Device 'dev' sends 'bytes' at device address 'd' back to host address 'h'. */
static inline struct event from_dev(int64_t seq, int64_t t, int dev, uint64_t d, uint64_t h,
				    uint64_t bytes, uint64_t hash)
{
	struct event e = { .seq = seq, .kind = EV_FROM_DEVICE, .thread = 1, .src_device = dev,
			   .dest_device = HOST, .src_addr = d, .dest_addr = h, .bytes = bytes,
			   .begin_ns = t, .end_ns = t + 5, .has_hash = 1, .hash = hash,
			   .codeptr = 0x2000 };
	return e;
}

/* The runtime allocates 'bytes' on 'dev' at 'd' for host address 'h'. */
static inline struct event alloc_dev(int64_t seq, int64_t t, int dev, uint64_t h, uint64_t d,
				     uint64_t bytes)
{
	struct event e = { .seq = seq, .kind = EV_ALLOC, .thread = 1, .src_device = HOST,
			   .dest_device = dev, .src_addr = h, .dest_addr = d, .bytes = bytes,
			   .begin_ns = t, .end_ns = t + 5, .codeptr = 0x3000 };
	return e;
}

/* The runtime frees device address 'd' on 'dev', paired with allocation 'alloc_seq'. */
static inline struct event delete_dev(int64_t seq, int64_t t, int dev, uint64_t d,
				      int64_t alloc_seq, uint64_t bytes)
{
	struct event e = { .seq = seq, .kind = EV_DELETE, .thread = 1, .src_device = dev,
			   .dest_device = -1, .src_addr = d, .bytes = bytes, .begin_ns = t,
			   .end_ns = t + 5, .codeptr = 0x4000, .alloc_seq = alloc_seq };
	return e;
}

/* A kernel on 'dev' running from t to end. */
static inline struct event kernel(int64_t seq, int64_t t, int64_t end, int dev)
{
	struct event e = { .seq = seq, .kind = EV_KERNEL, .thread = 1, .dest_device = dev,
			   .src_device = dev, .begin_ns = t, .end_ns = end, .codeptr = 0x5000 };
	return e;
}

#define MAX_OCC 64

struct collected {
	int n;
	struct occurrence occ[MAX_OCC];
};

static inline int collect(void *arg, const struct occurrence *occ)
{
	struct collected *c = arg;
	if (c->n < MAX_OCC)
		c->occ[c->n++] = *occ;
	return 0;
}

/* Run one detector kind over ev[0..n) into *c; returns detect_events()' value. */
static inline int run_kind(enum finding_kind kind, const struct event *ev, size_t n,
			   struct collected *c)
{
	struct detect_config cfg = { HOST, 1u << kind };
	const char *why = NULL;
	c->n = 0;
	return detect_events(&cfg, ev, n, collect, c, &why);
}

/* The occurrence whose last operation has this seq, or NULL. */
static inline const struct occurrence *occ_ending(const struct collected *c, int64_t seq)
{
	for (int i = 0; i < c->n; i++)
		if (c->occ[i].ops[c->occ[i].nops - 1].seq == seq)
			return &c->occ[i];
	return NULL;
}

/* How many occurrences have this flavour. */
static inline int count_flavour(const struct collected *c, enum flavour f)
{
	int k = 0;
	for (int i = 0; i < c->n; i++)
		k += c->occ[i].flavour == f;
	return k;
}

#define N(a) (sizeof(a) / sizeof((a)[0]))

#endif
