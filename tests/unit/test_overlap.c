/*
 * test_overlap.c - transfer time beside kernel time (lib/overlap.h):
 * hand-computed cases (a partial overlap, nested intervals, several devices,
 * touching ends, nowait transfers that ran alone), then random runs against
 * a count of every nanosecond.
 */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "lib/overlap.h"

/* One interval fed: device, kernel or transfer, nowait, [b, e). */
struct ivl {
	int dev, kernel, nowait;
	int64_t b, e;
};

#define MAX_CALLS 4096

/* What on_span said, in order. */
struct calls {
	int n;
	int dev[MAX_CALLS], begin[MAX_CALLS];
	int64_t t[MAX_CALLS];
};

static int record(void *arg, int device, int begin, int64_t t)
{
	struct calls *c = arg;
	if (c->n < MAX_CALLS) {
		c->dev[c->n] = device;
		c->begin[c->n] = begin;
		c->t[c->n] = t;
		c->n++;
	}
	return 0;
}

/* Feed v[0..n) (in begin order), flushing before each as a trace writer does. */
static void run(struct overlap *o, struct calls *c, const struct ivl *v, int n)
{
	overlap_init(o);
	c->n = 0;
	o->on_span = record;
	o->arg = c;
	for (int i = 0; i < n; i++) {
		CHECK_INT(overlap_flush(o, v[i].b), 0);
		CHECK_INT(overlap_feed(o, v[i].dev, v[i].kernel, v[i].nowait, v[i].b, v[i].e), 0);
	}
	CHECK_INT(overlap_finish(o), 0);
}

static const struct overlap_device *dev(const struct overlap *o, int num)
{
	for (size_t i = 0; i < o->ndevices; i++)
		if (o->devices[i].device == num)
			return &o->devices[i];
	return NULL;
}

/* The spans of 'device' as [b, e) pairs into out: their number. */
static int spans_of(const struct calls *c, int device, int64_t (*out)[2], int max)
{
	int n = 0;
	for (int i = 0; i < c->n; i++) {
		if (c->dev[i] != device)
			continue;
		if (c->begin[i]) {
			if (n < max)
				out[n][0] = c->t[i];
		} else if (n < max) {
			out[n++][1] = c->t[i];
		}
	}
	return n;
}

/* transfer [0,10), kernel [5,15): 5 ns overlapped, the span [5,10). */
static void test_partial(void)
{
	const struct ivl v[] = { { 0, 0, 0, 0, 10 }, { 0, 1, 0, 5, 15 } };
	struct overlap o;
	struct calls c;
	int64_t s[4][2];

	run(&o, &c, v, 2);
	CHECK_INT(dev(&o, 0)->transfer_ns, 10);
	CHECK_INT(dev(&o, 0)->kernel_ns, 10);
	CHECK_INT(dev(&o, 0)->overlap_ns, 5);
	CHECK_INT(spans_of(&c, 0, s, 4), 1);
	CHECK_INT(s[0][0], 5);
	CHECK_INT(s[0][1], 10);
	overlap_release(&o);
}

/*
 * kernel [0,100) holds transfers [10,20) and [15,30) (which overlap each
 * other: [10,30) once) and [50,60): 30 ns of transfer, all of it beside
 * the kernel, never counted twice.
 */
static void test_nested(void)
{
	const struct ivl v[] = {
		{ 0, 1, 0, 0, 100 }, { 0, 0, 0, 10, 20 }, { 0, 0, 0, 15, 30 }, { 0, 0, 0, 50, 60 },
	};
	struct overlap o;
	struct calls c;
	int64_t s[4][2];

	run(&o, &c, v, 4);
	CHECK_INT(dev(&o, 0)->transfer_ns, 30);
	CHECK_INT(dev(&o, 0)->kernel_ns, 100);
	CHECK_INT(dev(&o, 0)->overlap_ns, 30);
	CHECK_INT(spans_of(&c, 0, s, 4), 2);
	CHECK_INT(s[0][0], 10);
	CHECK_INT(s[0][1], 30);
	CHECK_INT(s[1][0], 50);
	CHECK_INT(s[1][1], 60);
	/* A transfer inside the kernel inside a longer transfer: [0,50) transfer, kernel [10,20), transfer [12,14). */
	{
		const struct ivl w[] = { { 0, 0, 0, 0, 50 }, { 0, 1, 0, 10, 20 }, { 0, 0, 0, 12, 14 } };
		overlap_release(&o);
		run(&o, &c, w, 3);
		CHECK_INT(dev(&o, 0)->transfer_ns, 50);
		CHECK_INT(dev(&o, 0)->overlap_ns, 10);
		CHECK_INT(spans_of(&c, 0, s, 4), 1);
		CHECK_INT(s[0][0], 10);
		CHECK_INT(s[0][1], 20);
	}
	overlap_release(&o);
}

/*
 * A transfer of device 0 beside a kernel of device 1 overlaps nothing;
 * device 1's own transfer [5,8) overlaps its kernel [0,10) 3 ns; device
 * 2 [2,6) beside its kernel [4,20): 2 ns.  The run: 5 ns.
 */
static void test_devices(void)
{
	const struct ivl v[] = {
		{ 0, 0, 0, 0, 10 }, { 1, 1, 0, 0, 10 }, { 2, 0, 0, 2, 6 }, { 2, 1, 0, 4, 20 }, { 1, 0, 0, 5, 8 },
	};
	struct overlap o;
	struct calls c;
	int64_t s[4][2];
	struct overlap_sums r;

	run(&o, &c, v, 5);
	CHECK_INT(o.ndevices, 3);
	CHECK_INT(o.devices[0].device, 0);
	CHECK_INT(o.devices[2].device, 2);
	CHECK_INT(dev(&o, 0)->overlap_ns, 0);
	CHECK_INT(dev(&o, 1)->overlap_ns, 3);
	CHECK_INT(dev(&o, 2)->overlap_ns, 2);
	CHECK_INT(spans_of(&c, 0, s, 4), 0);
	CHECK_INT(spans_of(&c, 1, s, 4), 1);
	CHECK_INT(s[0][0], 5);
	CHECK_INT(s[0][1], 8);
	CHECK_INT(spans_of(&c, 2, s, 4), 1);
	CHECK_INT(s[0][0], 4);
	CHECK_INT(s[0][1], 6);
	/* Ends come in time order across devices: device 2's (6) before device 1's (8). */
	for (int i = 1; i < c.n; i++)
		CHECK(c.t[i] >= c.t[i - 1]);
	r = overlap_run_sums(&o);
	CHECK_INT(r.overlap_ns, 5);
	CHECK_INT(r.transfer_ns, 10 + 3 + 4);
	CHECK_INT(r.kernel_ns, 10 + 16);
	overlap_release(&o);
}

/*
 * Touching ends share no nanosecond: transfer [0,10), kernel [10,20),
 * transfer [20,30): 0.  Kernels [40,50) and [50,60) with a transfer
 * [45,55) across their seam: 10 ns, one span [45,55).
 */
static void test_touching(void)
{
	const struct ivl v[] = {
		{ 0, 0, 0, 0, 10 }, { 0, 1, 0, 10, 20 }, { 0, 0, 0, 20, 30 },
		{ 0, 1, 0, 40, 50 }, { 0, 0, 0, 45, 55 }, { 0, 1, 0, 50, 60 },
	};
	struct overlap o;
	struct calls c;
	int64_t s[4][2];

	run(&o, &c, v, 3);
	CHECK_INT(dev(&o, 0)->overlap_ns, 0);
	CHECK_INT(dev(&o, 0)->transfer_ns, 20);
	CHECK_INT(dev(&o, 0)->kernel_ns, 10);
	CHECK_INT(c.n, 0);
	overlap_release(&o);
	run(&o, &c, v, 6);
	CHECK_INT(dev(&o, 0)->overlap_ns, 10);
	CHECK_INT(spans_of(&c, 0, s, 4), 1);
	CHECK_INT(s[0][0], 45);
	CHECK_INT(s[0][1], 55);
	/* A zero-length transfer inside a kernel overlaps nothing. */
	{
		const struct ivl w[] = { { 0, 1, 0, 0, 10 }, { 0, 0, 0, 5, 5 } };
		overlap_release(&o);
		run(&o, &c, w, 2);
		CHECK_INT(dev(&o, 0)->overlap_ns, 0);
		CHECK_INT(c.n, 0);
	}
	overlap_release(&o);
}

/*
 * nowait transfers: kernel [0,10), nowait [5,25), blocking [30,40),
 * kernel [50,60).  nowait 20 ns, 5 of them beside the kernel, 15 alone;
 * the kernels had 15 ns with no transfer beside them: could 15.  With
 * the nowait transfer [5,45) instead: 35 alone, but only 5 ns of kernel
 * free: could 5.
 */
static void test_nowait(void)
{
	const struct ivl v[] = {
		{ 0, 1, 0, 0, 10 }, { 0, 0, 1, 5, 25 }, { 0, 0, 0, 30, 40 }, { 0, 1, 0, 50, 60 },
	};
	const struct ivl w[] = { { 0, 1, 0, 0, 10 }, { 0, 0, 1, 5, 45 } };
	struct overlap o;
	struct calls c;
	struct overlap_sums s;

	run(&o, &c, v, 4);
	s = overlap_device_sums(dev(&o, 0));
	CHECK_INT(s.transfer_ns, 30);
	CHECK_INT(s.kernel_ns, 20);
	CHECK_INT(s.overlap_ns, 5);
	CHECK_INT(s.nowait_ns, 20);
	CHECK_INT(s.nowait_alone_ns, 15);
	CHECK_INT(s.could_ns, 15);
	overlap_release(&o);
	run(&o, &c, w, 2);
	s = overlap_device_sums(dev(&o, 0));
	CHECK_INT(s.nowait_alone_ns, 35);
	CHECK_INT(s.could_ns, 5);
	overlap_release(&o);
	/* No nowait transfer: nothing could. */
	run(&o, &c, v + 2, 2);
	s = overlap_device_sums(dev(&o, 0));
	CHECK_INT(s.nowait_ns, 0);
	CHECK_INT(s.could_ns, 0);
	overlap_release(&o);
}

static int cmp_ivl(const void *a, const void *b)
{
	const struct ivl *x = a, *y = b;
	return (x->b > y->b) - (x->b < y->b);
}

/* Random runs on 3 devices over 400 ns, against every nanosecond counted. */
static void test_random(void)
{
	enum { T = 400, NDEV = 3, N = 60 };
	unsigned seed = 12345;

	for (int round = 0; round < 300; round++) {
		struct ivl v[N];
		unsigned char x[NDEV][T], k[NDEV][T], nw[NDEV][T];
		int64_t want_x[NDEV] = { 0 }, want_k[NDEV] = { 0 }, want_o[NDEV] = { 0 }, want_a[NDEV] = { 0 };
		struct overlap o;
		struct calls c;
		int n = 1 + (int)(rand_r(&seed) % N);

		memset(x, 0, sizeof(x));
		memset(k, 0, sizeof(k));
		memset(nw, 0, sizeof(nw));
		for (int i = 0; i < n; i++) {
			v[i].dev = (int)(rand_r(&seed) % NDEV);
			v[i].kernel = (int)(rand_r(&seed) % 2);
			v[i].nowait = !v[i].kernel && rand_r(&seed) % 2;
			v[i].b = rand_r(&seed) % (T - 50);
			v[i].e = v[i].b + rand_r(&seed) % 50;
			for (int64_t t = v[i].b; t < v[i].e; t++) {
				(v[i].kernel ? k : x)[v[i].dev][t] = 1;
				if (v[i].nowait)
					nw[v[i].dev][t] = 1;
			}
		}
		qsort(v, (size_t)n, sizeof(v[0]), cmp_ivl);
		for (int d = 0; d < NDEV; d++)
			for (int t = 0; t < T; t++) {
				want_x[d] += x[d][t];
				want_k[d] += k[d][t];
				want_o[d] += x[d][t] && k[d][t];
				want_a[d] += nw[d][t] && !k[d][t];
			}
		run(&o, &c, v, n);
		for (int i = 1; i < c.n; i++)
			CHECK(c.t[i] >= c.t[i - 1]);
		for (int d = 0; d < NDEV; d++) {
			const struct overlap_device *od = dev(&o, d);
			int64_t s[MAX_CALLS][2], sum = 0;
			int ns = spans_of(&c, d, s, MAX_CALLS);
			if (!od) {
				CHECK_INT(want_x[d] + want_k[d], 0);
				continue;
			}
			CHECK_INT(od->transfer_ns, want_x[d]);
			CHECK_INT(od->kernel_ns, want_k[d]);
			CHECK_INT(od->overlap_ns, want_o[d]);
			CHECK_INT(od->nowait_alone_ns, want_a[d]);
			for (int i = 0; i < ns; i++) {
				CHECK(s[i][1] > s[i][0]);
				if (i)
					CHECK(s[i][0] > s[i - 1][1]);   /* spans never touch: they would be one */
				for (int64_t t = s[i][0]; t < s[i][1]; t++)
					CHECK(x[d][t] && k[d][t]);
				sum += s[i][1] - s[i][0];
			}
			CHECK_INT(sum, want_o[d]);
		}
		overlap_release(&o);
		if (check_failures)
			break;
	}
}

int main(void)
{
	RUN(test_partial);
	RUN(test_nested);
	RUN(test_devices);
	RUN(test_touching);
	RUN(test_nowait);
	RUN(test_random);
	return check_done();
}
