/*
 * cost.c - per class and size bucket, the typical cost of an operation
 * (report/findings/cost.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/sort.h"
#include "report/findings/cost.h"

void cost_init(struct cost_model *c, int host_device)
{
	memset(c, 0, sizeof(*c));
	c->host_device = host_device;
	for (int k = 0; k < COST_CLASS_COUNT; k++)
		for (int i = 0; i < COST_BUCKETS; i++)
			hmap_init(&c->b[k][i].values, 1, sizeof(uint64_t));
	hmap_init(&c->fresh, 2, sizeof(uint8_t));
}

void cost_release(struct cost_model *c)
{
	if (!c)
		return;
	for (int k = 0; k < COST_CLASS_COUNT; k++)
		for (int i = 0; i < COST_BUCKETS; i++)
			hmap_release(&c->b[k][i].values);
	hmap_release(&c->fresh);
	c->distinct = 0;
}

static uint32_t float_bits(float v)
{
	uint32_t u;
	memcpy(&u, &v, sizeof(u));
	return u;
}

static float bits_float(uint32_t u)
{
	float v;
	memcpy(&v, &u, sizeof(v));
	return v;
}

/* v with its low 'shift' mantissa bits rounded off (to nearest; samples are >= 0). */
static uint32_t coarse(uint32_t bits, int shift)
{
	uint32_t half;
	if (!shift)
		return bits;
	half = 1u << (shift - 1);
	return (bits + half) & ~((1u << shift) - 1);
}

/* One more sample of value bits (already coarsened) 'count' times.  -1 out of memory. */
static int bucket_put(struct cost_model *c, struct cost_bucket *b, uint32_t bits, uint64_t count)
{
	uint64_t key = bits;
	int created;
	uint64_t *n = hmap_put(&b->values, &key, &created);

	if (!n)
		return -1;
	*n += count;
	c->distinct += created;
	return 0;
}

/*
 * Over COST_MAX_DISTINCT values: round 4 more mantissa bits off the values
 * of the bucket that holds most, until under the limit again.  The counts
 * stay exact; only values that differ in those bits merge.
 */
static int coarsen(struct cost_model *c)
{
	while (c->distinct > COST_MAX_DISTINCT) {
		struct cost_bucket *big = NULL, old;
		size_t pos = 0;
		const uint64_t *key;
		void *val;

		for (int k = 0; k < COST_CLASS_COUNT; k++)
			for (int i = 0; i < COST_BUCKETS; i++)
				if (c->b[k][i].shift < 20 &&
				    (!big || c->b[k][i].values.count > big->values.count))
					big = &c->b[k][i];
		if (!big)
			return 0;
		old = *big;
		hmap_init(&big->values, 1, sizeof(uint64_t));
		big->shift += 4;
		c->distinct -= old.values.count;
		while (hmap_next(&old.values, &pos, &key, &val))
			if (bucket_put(c, big, coarse((uint32_t)*key, big->shift), *(uint64_t *)val) < 0) {
				hmap_release(&old.values);
				return -1;
			}
		hmap_release(&old.values);
	}
	return 0;
}

static int bucket_of(uint64_t bytes)
{
	return bytes ? 64 - __builtin_clzll(bytes) : 0;
}

static int per_byte(enum cost_class cls)
{
	return cls == COST_TO_DEVICE || cls == COST_FROM_DEVICE || cls == COST_DEVICE_DEVICE ||
	       cls == COST_TO_DEVICE_FIRST;
}

enum cost_class cost_transfer_class(const struct cost_model *c, int src_device, int dest_device)
{
	if (src_device == c->host_device)
		return COST_TO_DEVICE;
	if (dest_device == c->host_device)
		return COST_FROM_DEVICE;
	return COST_DEVICE_DEVICE;
}

static int on_device(const uint64_t *key, void *val, void *arg)
{
	(void)val;
	return key[0] == (uint64_t)(uint32_t)*(const int64_t *)arg;
}

int cost_feed(struct cost_model *c, struct event *ev)
{
	enum cost_class cls;
	struct cost_bucket *b;
	double ns = (double)(ev->end_ns > ev->begin_ns ? ev->end_ns - ev->begin_ns : 0);
	uint64_t key[2];

	ev->first_copy = 0;
	switch (ev->kind) {
	case EV_TO_DEVICE:
	case EV_FROM_DEVICE:
		cls = cost_transfer_class(c, ev->src_device, ev->dest_device);
		key[0] = (uint64_t)(uint32_t)ev->dest_device;
		key[1] = ev->dest_addr;
		if (cls == COST_TO_DEVICE && c->fresh.count && hmap_del(&c->fresh, key)) {
			cls = COST_TO_DEVICE_FIRST;
			ev->first_copy = 1;
		} else if (cls == COST_DEVICE_DEVICE && c->fresh.count) {
			hmap_del(&c->fresh, key);   /* written, by the other device */
		}
		break;
	case EV_ALLOC:
		cls = COST_ALLOC;
		key[0] = (uint64_t)(uint32_t)ev->dest_device;
		key[1] = ev->dest_addr;
		if (ev->dest_device != c->host_device && ev->dest_addr && !hmap_put(&c->fresh, key, NULL))
			return -1;
		break;
	case EV_DELETE:
		cls = COST_DELETE;
		key[0] = (uint64_t)(uint32_t)ev->src_device;
		key[1] = ev->src_addr;
		if (c->fresh.count)
			hmap_del(&c->fresh, key);
		break;
	case EV_KERNEL:
		/* It may write any of its device's fresh memory: none is known fresh after it. */
		if (c->fresh.count) {
			int64_t device = ev->dest_device;
			hmap_sweep(&c->fresh, on_device, &device);
		}
		return 0;
	default: return 0;
	}
	b = &c->b[cls][bucket_of(ev->bytes)];
	if (bucket_put(c, b, coarse(float_bits((float)(per_byte(cls) && ev->bytes ? ns / (double)ev->bytes : ns)),
				    b->shift), 1) < 0)
		return -1;
	b->n++;
	return c->distinct > COST_MAX_DISTINCT ? coarsen(c) : 0;
}

/* A distinct sample value and how many samples had it. */
struct value_count {
	float v;
	uint64_t n;
};

static int cmp_value(const void *p, const void *q)
{
	float x = ((const struct value_count *)p)->v, y = ((const struct value_count *)q)->v;
	return (x > y) - (x < y);
}

/* The value of rank i (0-based) in the sorted samples that vc (sorted) counts. */
static float at_rank(const struct value_count *vc, size_t m, uint64_t i)
{
	for (size_t j = 0; j < m; j++) {
		if (i < vc[j].n)
			return vc[j].v;
		i -= vc[j].n;
	}
	return m ? vc[m - 1].v : 0;
}

/* The median of the samples vc (sorted) counts: the mean of the middle two for an even n. */
static double median_of(const struct value_count *vc, size_t m, uint64_t n)
{
	return n % 2 ? at_rank(vc, m, n / 2)
		     : ((double)at_rank(vc, m, n / 2 - 1) + at_rank(vc, m, n / 2)) / 2;
}

/*
 * The 10 % trimmed mean of the samples: the mean without the slowest and
 * fastest tenth (one each at least; n >= 5).
 */
static double trimmed_mean(const struct value_count *vc, size_t m, uint64_t n)
{
	uint64_t cut = n / 10 ? n / 10 : 1, lo = cut, hi = n - cut, rank = 0;
	double sum = 0;

	/* Each sample added on its own, in order: the same sum as over the samples. */
	for (size_t j = 0; j < m && rank < hi; j++) {
		for (uint64_t k = 0; k < vc[j].n; k++, rank++)
			if (rank >= lo && rank < hi)
				sum += vc[j].v;
	}
	return sum / (double)(hi - lo);
}

/*
 * The typical sample of a bucket: for a transfer (ns per byte) the median,
 * for an allocation, a delete (ns) or a first copy into fresh memory (ns
 * per byte) the 10 % trimmed mean; under 5 operations the median.
 *
 * A transfer of a given size is one population: the same copy, slowed now
 * and then by page faults or the scheduler, so the run's steady transfer,
 * the median, prices it and ignores up to half of them slow.  Allocations
 * and deletes are two: one that reuses memory and one that maps (or unmaps)
 * fresh pages, in proportions the program sets; a median or a low quantile
 * prices them all at the cheaper kind (on samples/jacobi_like at a tenth of
 * what the fix measured), the trimmed mean weighs both, as the sum it
 * predicts does.  So are first copies, which follow their allocations: into
 * memory the allocator reused (no page faults) or into freshly mapped pages
 * (one fault a page).  On bench/real/heat's naive loop they were half and
 * half, 60 and 450 us a 2 MiB copy: the median priced all of them at
 * whichever kind was a few more that run, and the plan that maps the loop's
 * data once predicted 83 or 378 ms from one recording to the next, against
 * 110-230 ms measured; the trimmed mean prices both kinds as they came.
 *
 * Chosen (first copies then at the median, as transfers) among ten
 * estimators on make accuracy's databases (2 x 9 recordings
 * a side of each pair on a quiet 16-core host, 9 on the loaded 2-core VM;
 * docs/performance.md, "The savings model's accuracy"): on the quiet host
 * this one kept the spread within +-10 % on 14 of 24 pair-windows (the
 * trimmed mean for all classes: 12) at a mean error of 2.8-4.6 % against busy
 * time (1.2-2.8 %); the 25th percentile reached 15 at 7.8-9.9 % here and
 * 31-43 % on the loaded VM (this one: 21 %).  No estimator of one
 * recording meets the spread goal: a whole recording runs up to 35 %
 * slower than the next (every operation of it), and its prediction, like
 * its own busy time, follows; as a share of the recording's own busy time
 * the prediction stays within +-11 %.
 */
static double central(const struct value_count *vc, size_t m, uint64_t n, enum cost_class cls)
{
	int two_kinds = !per_byte(cls) || cls == COST_TO_DEVICE_FIRST;

	return two_kinds && n >= 5 ? trimmed_mean(vc, m, n) : median_of(vc, m, n);
}

void cost_finish(struct cost_model *c)
{
	for (int k = 0; k < COST_CLASS_COUNT; k++)
		for (int i = 0; i < COST_BUCKETS; i++) {
			struct cost_bucket *b = &c->b[k][i];
			size_t m = 0, pos = 0;
			const uint64_t *key;
			void *val;
			struct value_count *vc;

			if (!b->n)
				continue;
			vc = malloc(b->values.count * sizeof(*vc));
			if (!vc) {
				/* Out of memory: the bucket's operations keep their own times. */
				b->n = 0;
			} else {
				while (hmap_next(&b->values, &pos, &key, &val))
					vc[m++] = (struct value_count){ bits_float((uint32_t)*key),
									*(uint64_t *)val };
				sort_array(vc, m, sizeof(*vc), cmp_value);
				b->median = central(vc, m, b->n, (enum cost_class)k);
				free(vc);
			}
			c->distinct -= b->values.count;
			hmap_release(&b->values);
			hmap_init(&b->values, 1, sizeof(uint64_t));
		}
}

/* The first bucket of cls from 'at' up that has samples, or -1. */
static int larger_with_samples(const struct cost_model *c, enum cost_class cls, int at)
{
	for (int i = at; i < COST_BUCKETS; i++)
		if (c->b[cls][i].n)
			return i;
	return -1;
}

/*
 * A copy into memory already written: of this size; else of a larger size
 * (per byte: a smaller copy's time per byte is mostly its fixed cost, and
 * would price a large one many times over); else a copy back to the host of
 * this size or larger, whose destination the program has written (the same
 * copy, the other way); else the first copies.
 */
int64_t cost_estimate_warm_ns(const struct cost_model *c, enum cost_class cls, uint64_t bytes, int *other_size)
{
	int at = bucket_of(bytes), i;
	enum cost_class from = COST_FROM_DEVICE;

	*other_size = 0;
	if (cls != COST_TO_DEVICE || c->b[cls][at].n)
		return cost_estimate_ns(c, cls, bytes);
	if ((i = larger_with_samples(c, cls, at + 1)) < 0 && (i = larger_with_samples(c, from, at)) >= 0)
		cls = from;
	if (i < 0) {
		*other_size = 2;
		return cost_estimate_ns(c, COST_TO_DEVICE_FIRST, bytes);
	}
	*other_size = 1;
	return (int64_t)(c->b[cls][i].median * (double)bytes + 0.5);
}

/*
 * The least a first touch of a 4 KiB page can cost: zeroing it at 40 GB/s,
 * faster than one core writes memory, the fault's own entry not counted
 * (huge pages zero 2 MiB per fault: the same per 4 KiB).
 */
#define FAULT_PAGE_MIN_NS 100

int64_t cost_fault_premium_ns(const struct cost_model *c, uint64_t bytes)
{
	int other = 0;
	int64_t first = cost_estimate_ns(c, COST_TO_DEVICE_FIRST, bytes);
	int64_t warm = cost_estimate_warm_ns(c, COST_TO_DEVICE, bytes, &other);

	if (first <= 0 || warm < 0 || other >= 2 || 2 * first < 3 * warm ||
	    (uint64_t)(first - warm) < (bytes / 4096 + (bytes % 4096 != 0)) * FAULT_PAGE_MIN_NS)
		return 0;
	return first - warm;
}

int64_t cost_estimate_ns(const struct cost_model *c, enum cost_class cls, uint64_t bytes)
{
	const struct cost_bucket *b = &c->b[cls][bucket_of(bytes)];
	double ns;

	if (!b->n)
		return -1;
	ns = per_byte(cls) && bytes ? b->median * (double)bytes : b->median;
	return (int64_t)(ns + 0.5);
}
