/*
 * overlap.c - transfer time beside kernel time, per device, in one sweep
 * (lib/overlap.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/sat.h"
#include "lib/sort.h"
#include "lib/overlap.h"

void overlap_init(struct overlap *o)
{
	memset(o, 0, sizeof(*o));
}

void overlap_release(struct overlap *o)
{
	if (!o)
		return;
	free(o->devices);
	o->devices = NULL;
	o->ndevices = o->cap = 0;
}

/* Few devices: a linear scan. */
static struct overlap_device *device_of(struct overlap *o, int num)
{
	for (size_t i = 0; i < o->ndevices; i++)
		if (o->devices[i].device == num)
			return &o->devices[i];
	if (o->ndevices == o->cap) {
		size_t ncap = o->cap ? 2 * o->cap : 4;
		struct overlap_device *v = realloc(o->devices, ncap * sizeof(*v));
		if (!v)
			return NULL;
		o->devices = v;
		o->cap = ncap;
	}
	memset(&o->devices[o->ndevices], 0, sizeof(o->devices[0]));
	o->devices[o->ndevices].device = num;
	o->devices[o->ndevices].done_ns = INT64_MIN;
	return &o->devices[o->ndevices++];
}

/* The part of the open interval 'v' inside [lo, hi), as *b, *e (*b >= *e: none). */
static void clip(const struct overlap_ivl *v, int64_t lo, int64_t hi, int64_t *b, int64_t *e)
{
	*b = lo;
	*e = lo;
	if (!v->open)
		return;
	*b = v->begin_ns > lo ? v->begin_ns : lo;
	*e = v->end_ns < hi ? v->end_ns : hi;
}

static int64_t len(int64_t b, int64_t e)
{
	return e > b ? e - b : 0;
}

/* The measure of [b1, e1) ∩ [b2, e2). */
static int64_t meet(int64_t b1, int64_t e1, int64_t b2, int64_t e2)
{
	return len(b1 > b2 ? b1 : b2, e1 < e2 ? e1 : e2);
}

/*
 * Count [done_ns, t): no interval fed later begins before t, so what the
 * device's classes cover there is their open intervals'.
 */
static void advance(struct overlap_device *d, int64_t t)
{
	int64_t xb, xe, kb, ke, nb, ne, lo = d->done_ns;

	if (t <= lo)
		return;
	if (lo == INT64_MIN) {
		d->done_ns = t;
		return;
	}
	clip(&d->xfer, lo, t, &xb, &xe);
	clip(&d->kernel, lo, t, &kb, &ke);
	clip(&d->nowait, lo, t, &nb, &ne);
	d->transfer_ns = sat_add_i64(d->transfer_ns, len(xb, xe));
	d->kernel_ns = sat_add_i64(d->kernel_ns, len(kb, ke));
	d->nowait_ns = sat_add_i64(d->nowait_ns, len(nb, ne));
	d->overlap_ns = sat_add_i64(d->overlap_ns, meet(xb, xe, kb, ke));
	d->nowait_alone_ns = sat_add_i64(d->nowait_alone_ns, len(nb, ne) - meet(nb, ne, kb, ke));
	d->done_ns = t;
}

/* Merge [b, e) (b not before the open interval's begin) into v. */
static void merge(struct overlap_ivl *v, int64_t b, int64_t e)
{
	if (!v->open || b > v->end_ns) {
		v->open = 1;
		v->begin_ns = b;
		v->end_ns = e;
	} else if (e > v->end_ns) {
		v->end_ns = e;
	}
}

static int covers(const struct overlap_ivl *v, int64_t t)
{
	return v->open && v->begin_ns <= t && t < v->end_ns;
}

static int span(struct overlap *o, struct overlap_device *d, int begin, int64_t t)
{
	d->in_span = begin;
	return o->on_span ? o->on_span(o->arg, d->device, begin, t) : 0;
}

/* After an interval that begins at t was merged: the span's begin, end or longer life. */
static int spans_at(struct overlap *o, struct overlap_device *d, int64_t t)
{
	int both = covers(&d->xfer, t) && covers(&d->kernel, t);
	int64_t until = d->xfer.end_ns < d->kernel.end_ns ? d->xfer.end_ns : d->kernel.end_ns;
	int rc = 0;

	/* Ended before t (not flushed), or at t with nothing to carry it on. */
	if (d->in_span && (d->span_end_ns < t || !both))
		rc = span(o, d, 0, d->span_end_ns);
	if (!both)
		return rc;
	if (!d->in_span)
		rc = span(o, d, 1, t);
	d->span_end_ns = until;
	return rc;
}

int overlap_feed(struct overlap *o, int device, int is_kernel, int nowait, int64_t begin_ns,
		 int64_t end_ns)
{
	struct overlap_device *d = device_of(o, device);

	if (!d)
		return -1;
	if (begin_ns < d->done_ns)
		begin_ns = d->done_ns;   /* out of order: only what lies after what is counted */
	if (end_ns < begin_ns)
		end_ns = begin_ns;
	advance(d, begin_ns);
	if (is_kernel) {
		merge(&d->kernel, begin_ns, end_ns);
	} else {
		merge(&d->xfer, begin_ns, end_ns);
		if (nowait)
			merge(&d->nowait, begin_ns, end_ns);
	}
	return spans_at(o, d, begin_ns);
}

/* End the open spans that end before t (INT64_MAX: all), earliest first.  0, or -1. */
static int end_spans(struct overlap *o, int64_t t)
{
	int rc = 0;

	for (;;) {
		struct overlap_device *first = NULL;
		for (size_t i = 0; i < o->ndevices; i++) {
			struct overlap_device *d = &o->devices[i];
			if (d->in_span && (d->span_end_ns < t || t == INT64_MAX) &&
			    (!first || d->span_end_ns < first->span_end_ns))
				first = d;
		}
		if (!first)
			return rc;
		if (span(o, first, 0, first->span_end_ns) < 0)
			rc = -1;
	}
}

int overlap_flush(struct overlap *o, int64_t t_ns)
{
	return end_spans(o, t_ns);
}

static int cmp_device(const void *a, const void *b)
{
	const struct overlap_device *x = a, *y = b;
	return (x->device > y->device) - (x->device < y->device);
}

int overlap_finish(struct overlap *o)
{
	int rc;

	for (size_t i = 0; i < o->ndevices; i++) {
		struct overlap_device *d = &o->devices[i];
		int64_t end = d->xfer.end_ns;
		if (d->kernel.open && d->kernel.end_ns > end)
			end = d->kernel.end_ns;
		advance(d, end);
	}
	rc = end_spans(o, INT64_MAX);
	if (o->ndevices)
		sort_array(o->devices, o->ndevices, sizeof(o->devices[0]), cmp_device);
	return rc;
}

struct overlap_sums overlap_device_sums(const struct overlap_device *d)
{
	struct overlap_sums s = { d->transfer_ns, d->kernel_ns, d->overlap_ns, d->nowait_ns,
				  d->nowait_alone_ns, 0 };
	int64_t free_kernel = d->kernel_ns - d->overlap_ns;

	s.could_ns = d->nowait_alone_ns < free_kernel ? d->nowait_alone_ns : free_kernel;
	if (s.could_ns < 0)
		s.could_ns = 0;
	return s;
}

struct overlap_sums overlap_run_sums(const struct overlap *o)
{
	struct overlap_sums s = { 0 };

	for (size_t i = 0; i < o->ndevices; i++) {
		struct overlap_sums d = overlap_device_sums(&o->devices[i]);
		s.transfer_ns = sat_add_i64(s.transfer_ns, d.transfer_ns);
		s.kernel_ns = sat_add_i64(s.kernel_ns, d.kernel_ns);
		s.overlap_ns = sat_add_i64(s.overlap_ns, d.overlap_ns);
		s.nowait_ns = sat_add_i64(s.nowait_ns, d.nowait_ns);
		s.nowait_alone_ns = sat_add_i64(s.nowait_alone_ns, d.nowait_alone_ns);
		s.could_ns = sat_add_i64(s.could_ns, d.could_ns);
	}
	return s;
}
