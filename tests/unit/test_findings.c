/*
 * test_findings.c - grouping occurrences into findings, fingerprints, the
 * savings union and cap, and the predicted speedup.
 */
#include <math.h>
#include <string.h>

#include "tests/unit/check.h"
#include "report/findings/findings.h"

#define HOST 4

/* A one-op occurrence of 'kind' at code pointer cp, op [b, e] with this seq. */
static struct occurrence occ1(enum finding_kind kind, uint64_t cp, int dev, uint64_t data,
			      int64_t seq, int64_t b, int64_t e)
{
	struct occurrence o = { 0 };
	o.kind = kind;
	o.flavour = kind == FINDING_DUPLICATE_TRANSFER ? FLAVOUR_SAME_DATA : FLAVOUR_NONE;
	o.nops = 1;
	o.ops[0] = (struct op_ref){ seq, b, e, cp, ROLE_TRANSFER, 0 };
	o.ndevices = 2;
	o.devices[0] = HOST;
	o.devices[1] = dev;
	o.data_addr = data;
	o.data_bytes = 64;
	o.bytes = 64;
	return o;
}

/* A round trip: send [b1, e1] at cp1, return [b2, e2] at cp2. */
static struct occurrence trip(uint64_t cp1, uint64_t cp2, int64_t s1, int64_t b1, int64_t e1,
			      int64_t s2, int64_t b2, int64_t e2)
{
	struct occurrence o = { 0 };
	o.kind = FINDING_ROUND_TRIP;
	o.flavour = FLAVOUR_HOST_DEVICE_HOST;
	o.nops = 2;
	o.ops[0] = (struct op_ref){ s1, b1, e1, cp1, ROLE_SEND, 0 };
	o.ops[1] = (struct op_ref){ s2, b2, e2, cp2, ROLE_RETURN, 0 };
	o.ndevices = 2;
	o.devices[0] = HOST;
	o.devices[1] = 0;
	o.data_addr = 0x7000;
	o.data_bytes = 64;
	o.bytes = 128;
	return o;
}

/* One module, the program, loaded at 'base', 1 MiB long. */
static struct run_module prog(uint64_t base)
{
	static char path[] = "/home/u/app";
	struct run_module m = { path, base, base, base + 0x100000 };
	return m;
}

static void finish(struct findings *f, const struct run_module *m, int64_t duration)
{
	struct findings_context ctx = { m, m ? 1 : 0, HOST, duration, NULL };
	CHECK_INT(findings_finish(f, &ctx), 0);
}

static void test_grouping(void)
{
	struct findings f;
	struct run_module m = prog(0x400000);
	struct occurrence o[] = {
		occ1(FINDING_DUPLICATE_TRANSFER, 0x401000, 0, 0x9000, 5, 50, 60),
		occ1(FINDING_DUPLICATE_TRANSFER, 0x401000, 0, 0x9000, 9, 90, 95),  /* same group */
		occ1(FINDING_DUPLICATE_TRANSFER, 0x402000, 0, 0x9000, 7, 70, 75),  /* other location */
		occ1(FINDING_DUPLICATE_TRANSFER, 0x401000, 1, 0x9000, 8, 80, 85),  /* other device */
		occ1(FINDING_DUPLICATE_TRANSFER, 0x401000, 0, 0xa000, 6, 60, 65),  /* other data */
		occ1(FINDING_UNUSED_TRANSFER, 0x401000, 0, 0x9000, 3, 30, 35),     /* other kind */
	};
	o[1].flavour = FLAVOUR_SAME_DATA;
	findings_init(&f);
	for (size_t i = 0; i < sizeof(o) / sizeof(o[0]); i++)
		CHECK_INT(findings_add(&f, &o[i]), 0);
	finish(&f, &m, 1000);
	CHECK_INT(f.n, 5);
	/* Ordered by kind, then first operation. */
	CHECK_INT(f.v[0].first_seq, 5);
	CHECK_INT(f.v[0].occurrences, 2);
	CHECK_INT(f.v[0].bytes, 128);
	CHECK_INT(f.v[0].nops, 2);
	CHECK_INT(f.v[0].savings_ns, 15);
	CHECK_INT(f.v[1].first_seq, 6);
	CHECK_INT(f.v[2].first_seq, 7);
	CHECK_INT(f.v[3].first_seq, 8);
	CHECK_INT(f.v[4].kind, FINDING_UNUSED_TRANSFER);
	for (size_t i = 0; i < f.n; i++)
		CHECK_INT(f.v[i].id, (int)i + 1);
	CHECK_INT(f.kinds[FINDING_DUPLICATE_TRANSFER].findings, 4);
	CHECK_INT(f.kinds[FINDING_DUPLICATE_TRANSFER].occurrences, 5);
	CHECK_INT(f.kinds[FINDING_UNUSED_TRANSFER].findings, 1);
	findings_release(&f);
}

/* The same problem recorded twice: other load address, other heap address. */
static void test_fingerprint_stable(void)
{
	struct findings a, b;
	struct run_module ma = prog(0x555500000000), mb = prog(0x560000000000);
	struct occurrence oa = occ1(FINDING_DUPLICATE_TRANSFER, 0x555500001234, 0, 0x7ffd0000, 1, 1, 2);
	struct occurrence ob = occ1(FINDING_DUPLICATE_TRANSFER, 0x560000001234, 0, 0x7ffe1000, 1, 1, 2);
	struct occurrence ga = occ1(FINDING_UNUSED_TRANSFER, 0x555500001234, 0, 0x555500004010, 2, 3, 4);
	struct occurrence gb = occ1(FINDING_UNUSED_TRANSFER, 0x560000001234, 0, 0x560000004010, 2, 3, 4);
	struct occurrence gc = occ1(FINDING_UNUSED_TRANSFER, 0x560000001234, 0, 0x560000004020, 3, 3, 4);

	findings_init(&a);
	findings_init(&b);
	findings_add(&a, &oa);
	findings_add(&a, &ga);
	findings_add(&b, &ob);
	findings_add(&b, &gb);
	findings_add(&b, &gc);     /* another global at the same location */
	finish(&a, &ma, 100);
	finish(&b, &mb, 100);
	CHECK_INT(strlen(a.v[0].fingerprint), 16);
	CHECK_STR(a.v[0].fingerprint, b.v[0].fingerprint);
	CHECK_STR(a.v[1].fingerprint, b.v[1].fingerprint);
	CHECK(strcmp(a.v[0].fingerprint, a.v[1].fingerprint));
	CHECK(strcmp(b.v[1].fingerprint, b.v[2].fingerprint));
	findings_release(&a);
	findings_release(&b);
}

/* Heap data of one size at one location, twice in a run: suffixes in data address order. */
static void test_fingerprint_collision(void)
{
	struct findings f;
	struct run_module m = prog(0x400000);
	struct occurrence x = occ1(FINDING_UNUSED_TRANSFER, 0x401000, 0, 0x7ff00000, 1, 1, 2);
	struct occurrence y = occ1(FINDING_UNUSED_TRANSFER, 0x401000, 0, 0x7ff10000, 2, 3, 4);
	char base[17];

	findings_init(&f);
	findings_add(&f, &y);
	findings_add(&f, &x);
	finish(&f, &m, 100);
	CHECK_INT(f.n, 2);
	memcpy(base, f.v[0].fingerprint, 16);
	base[16] = 0;
	CHECK_STR(f.v[0].fingerprint, base);
	CHECK(!strncmp(f.v[1].fingerprint, base, 16));
	CHECK_STR(f.v[1].fingerprint + 16, "-2");
	findings_release(&f);
}

/*
 * The same two buffers (a pointer swap: heap data of one size at one
 * location) in two recordings where the other buffer's occurrence comes
 * first (an occurrence fewer after a fix elsewhere): each buffer keeps its
 * suffix, whatever the report order (issue 26, item 9).
 */
static void test_fingerprint_suffix_by_buffer(void)
{
	struct findings f[2];
	struct run_module m = prog(0x400000);
	const char *low[2] = { NULL, NULL };

	for (int r = 0; r < 2; r++) {
		/* recording 0: the low buffer first; recording 1: the high one */
		struct occurrence lo = occ1(FINDING_UNUSED_TRANSFER, 0x401000, 0, 0x7ff00000, r ? 5 : 1, r ? 5 : 1, 6);
		struct occurrence hi = occ1(FINDING_UNUSED_TRANSFER, 0x401000, 0, 0x7ff10000, 3, 3, 4);
		findings_init(&f[r]);
		CHECK_INT(findings_add(&f[r], &lo), 0);
		CHECK_INT(findings_add(&f[r], &hi), 0);
		finish(&f[r], &m, 100);
		CHECK_INT(f[r].n, 2);
		for (size_t i = 0; i < f[r].n; i++)
			if (f[r].v[i].data_addr == 0x7ff00000)
				low[r] = f[r].v[i].fingerprint;
	}
	CHECK(f[0].v[0].data_addr != f[1].v[0].data_addr);   /* the report orders differ */
	CHECK_STR(low[0], low[1]);
	CHECK(low[0] && !strchr(low[0], '-'));
	findings_release(&f[0]);
	findings_release(&f[1]);
}

static void test_savings_union_and_cap(void)
{
	struct findings f;
	/* Two threads: transfers overlapping in time, [0,10] and [5,15]. */
	struct occurrence d1 = occ1(FINDING_DUPLICATE_TRANSFER, 0x1, 0, 0x9000, 1, 0, 10);
	struct occurrence d2 = occ1(FINDING_DUPLICATE_TRANSFER, 0x1, 0, 0x9000, 2, 5, 15);
	/* A round trip whose send (seq 2) is also the second duplicate. */
	struct occurrence t = trip(0x1, 0x2, 2, 5, 15, 3, 40, 50);
	/* An unused transfer far later. */
	struct occurrence u = occ1(FINDING_UNUSED_TRANSFER, 0x3, 0, 0x9000, 4, 90, 100);

	findings_init(&f);
	findings_add(&f, &d1);
	findings_add(&f, &d2);
	findings_add(&f, &t);
	findings_add(&f, &u);
	finish(&f, NULL, 200);
	CHECK_INT(f.n, 3);
	CHECK_INT(f.v[0].savings_ns, 15);                  /* union, not 20 */
	/* host->device->host: its fix (map(to:)) keeps the send, removes the return. */
	CHECK_INT(f.v[1].savings_ns, 10);
	CHECK_INT(f.kinds[FINDING_DUPLICATE_TRANSFER].savings_ns, 15);
	CHECK_INT(f.kinds[FINDING_ROUND_TRIP].savings_ns, 10);
	CHECK_INT(f.kinds[FINDING_UNUSED_TRANSFER].savings_ns, 10);
	CHECK_INT(f.savings_ns, 15 + 10 + 10);             /* seq 2 once, as a duplicate */
	CHECK(fabs(f.predicted_speedup - 200.0 / 165.0) < 1e-9);
	findings_release(&f);

	/* device->host->device: the fix keeps the data on the device, both legs go. */
	t.flavour = FLAVOUR_DEVICE_HOST_DEVICE;
	findings_init(&f);
	findings_add(&f, &t);
	finish(&f, NULL, 200);
	CHECK_INT(f.n, 1);
	CHECK_INT(f.v[0].savings_ns, 20);
	CHECK_INT(f.savings_ns, 20);
	CHECK_INT(f.v[0].nops, 2);                         /* the send is still listed */
	findings_release(&f);

	/* More savings than wall time (clock skew, a wrong duration): capped. */
	findings_init(&f);
	findings_add(&f, &d1);
	findings_add(&f, &u);
	finish(&f, NULL, 12);
	CHECK_INT(f.savings_ns, 12);
	CHECK_INT(f.v[0].savings_ns, 10);
	CHECK_INT(f.v[1].savings_ns, 10);
	CHECK(f.predicted_speedup == 0);                   /* unbounded */
	findings_release(&f);
}

static void test_empty(void)
{
	struct findings f;
	findings_init(&f);
	finish(&f, NULL, 0);
	CHECK_INT(f.n, 0);
	CHECK_INT(f.savings_ns, 0);
	CHECK(f.predicted_speedup == 1.0);
	findings_release(&f);
	findings_init(&f);
	finish(&f, NULL, 1000);
	CHECK(f.predicted_speedup == 1.0);
	findings_release(&f);
}

static void test_union_helper(void)
{
	struct finding_op ops[] = {
		{ 1, 0, 10, 0, 0, 0 }, { 2, 0, 3, 0, 0, 0 }, { 2, 0, 3, 0, 0, 0 }, { 3, 10, 12, 0, 0, 0 },
		{ 4, 20, 20, 0, 0, 0 }, { 5, 30, 25, 0, 0, 0 },   /* zero length; end before begin */
	};
	CHECK_INT(ops_union_ns(ops, 6), 12);
	CHECK_INT(ops_union_ns(ops, 0), 0);
}

/*
 * Several sets of findings in one pass: each set's union, an operation two
 * members share counted once, a set of one taking that finding's own union,
 * an empty set 0, and a finding in no set counted nowhere.
 */
static void test_sets_union(void)
{
	struct findings f;
	struct occurrence d1 = occ1(FINDING_DUPLICATE_TRANSFER, 0x1, 0, 0x9000, 1, 0, 10);
	struct occurrence d2 = occ1(FINDING_DUPLICATE_TRANSFER, 0x1, 0, 0x9000, 2, 5, 15);
	struct occurrence t = trip(0x1, 0x2, 2, 5, 15, 3, 40, 50);
	struct occurrence u = occ1(FINDING_UNUSED_TRANSFER, 0x3, 0, 0x9000, 4, 90, 100);
	struct occurrence a = occ1(FINDING_UNUSED_TRANSFER, 0x4, 0, 0xa000, 5, 95, 130);
	size_t set_of[4];
	int64_t ns[4];

	findings_init(&f);
	findings_add(&f, &d1);
	findings_add(&f, &d2);
	findings_add(&f, &t);
	findings_add(&f, &u);
	findings_add(&f, &a);
	finish(&f, NULL, 1000);
	/* Report order: the duplicates [0,15], the round trip (its return [40,50]), then u, a. */
	CHECK_INT(f.n, 4);
	set_of[0] = 0;            /* duplicates + round trip: 15 + 10 */
	set_of[1] = 0;
	set_of[2] = 1;            /* u alone */
	set_of[3] = SIZE_MAX;     /* a in no set */
	CHECK_INT(findings_unions_ns(&f, set_of, 3, ns), 0);
	CHECK_INT(ns[0], 25);
	CHECK_INT(ns[1], 10);
	CHECK_INT(ns[2], 0);
	/*
	 * The round trip, u and a: the return [40,50] (the send the fix keeps
	 * is not counted), and u and a overlapping in [95,100]: 10 + 40, not 55.
	 */
	set_of[0] = 1;
	set_of[1] = 0;
	set_of[2] = 0;
	set_of[3] = 0;
	CHECK_INT(findings_unions_ns(&f, set_of, 2, ns), 0);
	CHECK_INT(ns[0], 50);
	CHECK_INT(ns[1], 15);
	/* In steps, fed by a pass over the operations made for something else (the store's). */
	{
		struct unions *un = findings_unions_begin(&f, set_of, 2);
		CHECK(un != NULL && findings_unions_need_ops(un));
		CHECK_INT(findings_each_op(&f, findings_unions_op, un), 0);
		ns[0] = ns[1] = -1;
		findings_unions_end(un, ns);
		CHECK_INT(ns[0], 50);
		CHECK_INT(ns[1], 15);
	}
	/*
	 * Sets whose fix keeps some of their operations (a plan's patch whose
	 * updates still move them): those leave the set's union for left[]
	 * (findings_sets_ns(): finding i in sets[start[i]..start[i + 1])).
	 * Set 0 keeps the round trip's return [40,50]: u and a remain, 40.  Set
	 * 1 keeps the first duplicate [0,10]: the second [5,15] remains, 10.
	 */
	{
		static const int64_t keep0[] = { 3 }, keep1[] = { 1 };
		static const size_t start[] = { 0, 1, 2, 3, 4 }, sets[] = { 1, 0, 0, 0 }, nkeep[] = { 1, 1 };
		const int64_t *keep[] = { keep0, keep1 };
		int64_t left[2] = { -1, -1 };
		CHECK_INT(findings_sets_ns(&f, start, sets, 2, keep, nkeep, NULL, NULL, ns, left), 0);
		CHECK_INT(ns[0], 40);
		CHECK_INT(left[0], 10);
		CHECK_INT(ns[1], 10);
		CHECK_INT(left[1], 10);
	}
	/* A set of one finding that keeps nothing of it: its own union, nothing left. */
	{
		static const int64_t keep_none[] = { 99 };
		static const size_t start[] = { 0, 0, 0, 1, 1 }, sets[] = { 0 }, nkeep[] = { 1 };
		const int64_t *keep[] = { keep_none };
		int64_t left[1] = { -1 };
		CHECK_INT(findings_sets_ns(&f, start, sets, 1, keep, nkeep, NULL, NULL, ns, left), 0);
		CHECK_INT(ns[0], 10);
		CHECK_INT(left[0], 0);
	}
	/* Only what a patch removes: set 0 counts only the return [40,50] of its operations. */
	{
		static const int64_t only0[] = { 3 };
		static const size_t start[] = { 0, 1, 2, 3, 4 }, sets[] = { 1, 0, 0, 0 }, nonly[] = { 1, 0 };
		const int64_t *only[] = { only0, NULL };
		int64_t left[2] = { -1, -1 };
		CHECK_INT(findings_sets_ns(&f, start, sets, 2, NULL, NULL, only, nonly, ns, left), 0);
		CHECK_INT(ns[0], 10);
		CHECK_INT(left[0], 0);
		CHECK_INT(ns[1], 15);
	}
	findings_release(&f);
}

/*
 * A patch names the allocations it removes, never their deletes (OMPT gives
 * a delete no host address): the delete of an occurrence whose allocation
 * the set's 'only' lists goes with it, no other.  Two repeated allocations,
 * each alloc [b, b+10] then delete [b+20, b+25]; the patch removes the
 * first one's allocation: 10 + 5, not 10 (the delete left out) nor 30.
 */
static void test_sets_deletes_follow(void)
{
	struct findings f;
	struct occurrence o[2];
	static const int64_t only0[] = { 1 };
	static const size_t start[] = { 0, 1 }, sets[] = { 0 }, nonly[] = { 1 };
	const int64_t *only[] = { only0 };
	int64_t ns[1] = { -1 }, left[1] = { -1 };

	findings_init(&f);
	for (int i = 0; i < 2; i++) {
		int64_t b = 100 * i;
		memset(&o[i], 0, sizeof(o[i]));
		o[i].kind = FINDING_REPEATED_ALLOC;
		o[i].flavour = FLAVOUR_NONE;
		o[i].nops = 2;
		o[i].ops[0] = (struct op_ref){ 2 * i + 1, b, b + 10, 0x1, ROLE_ALLOC, 0 };
		o[i].ops[1] = (struct op_ref){ 2 * i + 2, b + 20, b + 25, 0x2, ROLE_DELETE, 0 };
		o[i].ndevices = 1;
		o[i].devices[0] = 0;
		o[i].data_addr = 0x9000;
		o[i].data_bytes = o[i].bytes = 64;
		CHECK_INT(findings_add(&f, &o[i]), 0);
	}
	finish(&f, NULL, 1000);
	CHECK_INT(f.n, 1);
	CHECK_INT(findings_sets_ns(&f, start, sets, 1, NULL, NULL, only, nonly, ns, left), 0);
	CHECK_INT(ns[0], 15);
	CHECK_INT(left[0], 0);
	findings_release(&f);
}

/* Stop a findings_each_op() pass after 'left' operations. */
struct partial {
	struct findings *f;
	int left;
};

static int feed_some(void *arg, size_t pos, const struct finding_op *op)
{
	struct partial *p = arg;
	if (p->left-- <= 0)
		return 1;
	return findings_finish_op(p->f, pos, op);
}

/*
 * findings_finish() in steps: fed by a pass made for something else (the
 * store's), fed in part (a store that failed) and ended in a pass of its
 * own, or not fed at all: the same sums, counts and first operations.
 */
static void test_finish_in_steps(void)
{
	struct occurrence d1 = occ1(FINDING_DUPLICATE_TRANSFER, 0x1, 0, 0x9000, 1, 0, 10);
	struct occurrence d2 = occ1(FINDING_DUPLICATE_TRANSFER, 0x1, 0, 0x9000, 2, 5, 15);
	struct occurrence t = trip(0x1, 0x2, 2, 5, 15, 3, 40, 50);
	struct occurrence u = occ1(FINDING_UNUSED_TRANSFER, 0x3, 0, 0x9000, 4, 90, 100);
	struct findings_context ctx = { NULL, 0, HOST, 200, NULL };
	int64_t want[3], want_first[3], all;
	uint64_t want_events[3];

	for (int way = 0; way < 4; way++) {
		struct findings f;
		findings_init(&f);
		findings_add(&f, &d1);
		findings_add(&f, &d2);
		findings_add(&f, &t);
		findings_add(&f, &u);
		if (way == 0) {
			CHECK_INT(findings_finish(&f, &ctx), 0);
		} else {
			CHECK_INT(findings_finish_begin(&f, &ctx), 0);
			CHECK(f.finishing != NULL);
			if (way == 1) {
				CHECK_INT(findings_each_op(&f, findings_finish_op, &f), 0);
			} else if (way == 2) {
				struct partial p = { &f, 2 };
				CHECK(findings_each_op(&f, feed_some, &p) != 0);
			}
			CHECK_INT(findings_finish_end(&f, way == 1), 0);
			CHECK(f.finishing == NULL);
			CHECK_INT(findings_finish_end(&f, 0), 0);   /* ended: nothing more */
		}
		CHECK_INT(f.n, 3);
		for (size_t i = 0; i < 3 && i < f.n; i++) {
			if (!way) {
				want[i] = f.v[i].savings_ns;
				want_first[i] = f.v[i].first_op_seq;
				want_events[i] = f.v[i].nevents;
				continue;
			}
			CHECK_INT(f.v[i].savings_ns, want[i]);
			CHECK_INT(f.v[i].first_op_seq, want_first[i]);
			CHECK_INT(f.v[i].nevents, want_events[i]);
		}
		if (!way)
			all = f.savings_ns;
		CHECK_INT(f.savings_ns, all);
		CHECK_INT(f.savings_ns, 35);
		CHECK_INT(f.kinds[FINDING_ROUND_TRIP].savings_ns, 10);
		findings_release(&f);
	}
	CHECK_INT(want[0], 15);
	CHECK_INT(want_events[0], 2);
	CHECK_INT(want_first[0], 1);
}

int main(void)
{
	RUN(test_grouping);
	RUN(test_fingerprint_stable);
	RUN(test_fingerprint_collision);
	RUN(test_fingerprint_suffix_by_buffer);
	RUN(test_savings_union_and_cap);
	RUN(test_empty);
	RUN(test_union_helper);
	RUN(test_sets_union);
	RUN(test_sets_deletes_follow);
	RUN(test_finish_in_steps);
	return check_done();
}
