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
}

void cost_release(struct cost_model *c)
{
	if (!c)
		return;
	for (int k = 0; k < COST_CLASS_COUNT; k++)
		for (int i = 0; i < COST_BUCKETS; i++)
			free(c->b[k][i].v);
	memset(c->b, 0, sizeof(c->b));
}

static int bucket_of(uint64_t bytes)
{
	return bytes ? 64 - __builtin_clzll(bytes) : 0;
}

static int per_byte(enum cost_class cls)
{
	return cls == COST_TO_DEVICE || cls == COST_FROM_DEVICE || cls == COST_DEVICE_DEVICE;
}

enum cost_class cost_transfer_class(const struct cost_model *c, int src_device, int dest_device)
{
	if (src_device == c->host_device)
		return COST_TO_DEVICE;
	if (dest_device == c->host_device)
		return COST_FROM_DEVICE;
	return COST_DEVICE_DEVICE;
}

int cost_feed(struct cost_model *c, const struct event *ev)
{
	enum cost_class cls;
	struct cost_bucket *b;
	double ns = (double)(ev->end_ns > ev->begin_ns ? ev->end_ns - ev->begin_ns : 0);

	switch (ev->kind) {
	case EV_TO_DEVICE:
	case EV_FROM_DEVICE:
		cls = cost_transfer_class(c, ev->src_device, ev->dest_device);
		break;
	case EV_ALLOC: cls = COST_ALLOC; break;
	case EV_DELETE: cls = COST_DELETE; break;
	default: return 0;
	}
	b = &c->b[cls][bucket_of(ev->bytes)];
	if (b->n == b->cap) {
		size_t ncap = b->cap ? 2 * b->cap : 16;
		float *v = realloc(b->v, ncap * sizeof(*v));
		if (!v)
			return -1;
		b->v = v;
		b->cap = ncap;
	}
	b->v[b->n++] = (float)(per_byte(cls) && ev->bytes ? ns / (double)ev->bytes : ns);
	return 0;
}

static int cmp_float(const void *p, const void *q)
{
	float x = *(const float *)p, y = *(const float *)q;
	return (x > y) - (x < y);
}

/*
 * The 10 % trimmed mean of sorted v: the mean without its slowest and
 * fastest tenth (one each at least, from 5 operations on).  Robust to the
 * few operations a page fault or the scheduler made slow, as a median is,
 * but where a class has two populations (an allocation that reuses memory,
 * one that faults fresh pages in; a delete that unmaps) it weighs both, as
 * the sum it predicts does: on samples/jacobi_like the median and the
 * interquartile mean priced its fix at a tenth of what it measured, the
 * trimmed mean within 10 %.  Under 5 operations: the median.
 */
static double central(const float *v, size_t n)
{
	size_t cut = n / 10 ? n / 10 : 1, lo = cut, hi = n - cut;
	double sum = 0;

	if (n < 5)
		return n % 2 ? v[n / 2] : ((double)v[n / 2 - 1] + v[n / 2]) / 2;
	for (size_t i = lo; i < hi; i++)
		sum += v[i];
	return sum / (double)(hi - lo);
}

void cost_finish(struct cost_model *c)
{
	for (int k = 0; k < COST_CLASS_COUNT; k++)
		for (int i = 0; i < COST_BUCKETS; i++) {
			struct cost_bucket *b = &c->b[k][i];
			if (b->n) {
				sort_array(b->v, b->n, sizeof(*b->v), cmp_float);
				b->median = central(b->v, b->n);
			}
			free(b->v);
			b->v = NULL;
			b->cap = 0;
		}
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
