/*
 * test_detect_alloc.c - repeated_alloc and unused_alloc on hand-written streams.
 */
#include "tests/unit/check.h"
#include "tests/unit/detect_fixture.h"

enum { A = 0xa000, B = 0xb000, D0 = 0xd000, D1 = 0xd100 };

static void test_repeated(void)
{
	struct event ev[] = {
		alloc_dev(1, 10, 0, A, D0, 64),      /* iteration 1: map(to: a) allocates */
		kernel(2, 20, 30, 0),
		delete_dev(3, 40, 0, D0, 1, 64),     /* and frees */
		alloc_dev(4, 50, 0, A, D1, 64),      /* iteration 2: again (other device address) */
		kernel(5, 60, 70, 0),
		delete_dev(6, 80, 0, D1, 4, 64),
		alloc_dev(7, 90, 0, A, D0, 128),     /* a[0:128]: other size, not the same data */
		alloc_dev(8, 91, 1, A, D0, 64),      /* device 1: first there */
		kernel(9, 92, 93, 1),
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_REPEATED_ALLOC, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].nops, 2);
	CHECK_INT(c.occ[0].ops[0].seq, 4);
	CHECK_INT(c.occ[0].ops[0].role, ROLE_ALLOC);
	CHECK_INT(c.occ[0].ops[1].seq, 6);
	CHECK_INT(c.occ[0].ops[1].role, ROLE_DELETE);
	CHECK_INT(c.occ[0].data_addr, A);
	CHECK_INT(c.occ[0].bytes, 64);
}

static void test_never_deleted_and_orphan_delete(void)
{
	struct event ev[] = {
		alloc_dev(1, 10, 0, A, D0, 64),
		delete_dev(2, 20, 0, D0, 1, 64),
		delete_dev(3, 25, 0, D1, 0, 0),      /* a delete with no recorded allocation */
		delete_dev(4, 26, 0, D1, 99, 0),     /* paired with an allocation never seen */
		alloc_dev(5, 30, 0, A, D0, 64),      /* program exits with a still mapped */
		kernel(6, 40, 50, 0),
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_REPEATED_ALLOC, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].nops, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 5);
}

static void test_unused(void)
{
	struct event ev[] = {
		alloc_dev(1, 10, 0, A, D0, 64),      /* a on device 0 */
		kernel(2, 20, 30, 1),                /* a kernel of device 1 only */
		delete_dev(3, 40, 0, D0, 1, 64),     /* a unused */
		alloc_dev(4, 50, 0, B, D1, 64),      /* b on device 0 */
		kernel(5, 60, 70, 0),                /* used by this kernel */
		delete_dev(6, 80, 0, D1, 4, 64),
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_UNUSED_ALLOC, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 1);
	CHECK_INT(c.occ[0].ops[1].seq, 3);
	CHECK_INT(c.occ[0].devices[0], 0);
}

static void test_overlap_edges(void)
{
	struct event ev[] = {
		kernel(1, 10, 100, 0),               /* a long kernel, started first */
		alloc_dev(2, 20, 0, A, D0, 64),      /* allocated while it runs: used */
		delete_dev(3, 30, 0, D0, 2, 64),
		alloc_dev(4, 200, 0, B, D1, 64),
		delete_dev(5, 210, 0, D1, 4, 64),    /* delete runs 210..250 */
		kernel(6, 240, 260, 0),              /* begins during the delete: overlaps */
		alloc_dev(7, 300, 0, A, D0, 64),
		delete_dev(8, 310, 0, D0, 7, 64),    /* 310..315 */
		kernel(9, 316, 320, 0),              /* begins after the delete ended */
	};
	struct collected c;
	ev[4].end_ns = 250;
	CHECK_INT(run_kind(FINDING_UNUSED_ALLOC, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 7);
}

static void test_never_deleted(void)
{
	struct event ev[] = {
		alloc_dev(1, 10, 0, A, D0, 64),      /* enter data, never exited */
		alloc_dev(2, 20, 1, A, D0, 64),      /* same on device 1 */
		kernel(3, 30, 40, 0),                /* device 0 uses it later */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_UNUSED_ALLOC, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].nops, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 2);
}

/*
 * The allocations never deleted are emitted at the end in their own order
 * (the run's), not in the order their map's hash puts them: the findings
 * number their occurrences so.
 */
static void test_never_deleted_in_order(void)
{
	struct event ev[40];
	struct collected c;
	int ok = 1;

	for (int i = 0; i < 40; i++)
		ev[i] = alloc_dev(i + 1, 10 * (i + 1), i % 3, A + 4096 * (uint64_t)(i * 7919 % 40), D0 + 4096 * (uint64_t)i,
				  64);
	CHECK_INT(run_kind(FINDING_UNUSED_ALLOC, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 40);
	for (int i = 1; i < c.n; i++)
		ok &= c.occ[i].ops[0].seq > c.occ[i - 1].ops[0].seq;
	CHECK(ok);
}

static void test_zero_bytes_associate_empty(void)
{
	struct event ev[] = {
		alloc_dev(1, 10, 0, A, D0, 0),       /* zero-length section: nothing allocated */
		alloc_dev(2, 20, 0, A, D0, 0),
		{ .seq = 3, .kind = EV_ASSOCIATE, .src_device = HOST, .dest_device = 0,
		  .src_addr = B, .dest_addr = D1, .bytes = 64, .begin_ns = 30, .end_ns = 31 },
		{ .seq = 4, .kind = EV_DISASSOCIATE, .src_device = HOST, .dest_device = 0,
		  .src_addr = B, .dest_addr = D1, .bytes = 64, .begin_ns = 40, .end_ns = 41 },
		{ .seq = 5, .kind = EV_ASSOCIATE, .src_device = HOST, .dest_device = 0,
		  .src_addr = B, .dest_addr = D1, .bytes = 64, .begin_ns = 50, .end_ns = 51 },
		delete_dev(6, 60, 0, D0, 1, 0),
	};
	struct collected c;
	struct detect_config cfg = { HOST, 0 };
	const char *why;
	c.n = 0;
	CHECK_INT(detect_events(&cfg, ev, N(ev), collect, &c, &why), 0);
	CHECK_INT(c.n, 0);
	CHECK_INT(detect_events(&cfg, NULL, 0, collect, &c, &why), 0);
	CHECK_INT(c.n, 0);
}

static void test_interleaved_threads(void)
{
	struct event ev[] = {
		alloc_dev(1, 10, 0, A, D0, 64),      /* thread 1 */
		alloc_dev(2, 11, 0, B, D1, 64),      /* thread 2 */
		delete_dev(3, 12, 0, D1, 2, 64),     /* thread 2 */
		delete_dev(4, 13, 0, D0, 1, 64),     /* thread 1 */
		alloc_dev(5, 14, 0, B, D0, 64),      /* thread 2 gets the address thread 1 had */
		alloc_dev(6, 15, 0, A, D1, 64),      /* thread 1 */
		delete_dev(7, 16, 0, D1, 6, 64),
		delete_dev(8, 17, 0, D0, 5, 64),
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_REPEATED_ALLOC, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 2);
	CHECK_INT(occ_ending(&c, 7)->ops[0].seq, 6);
	CHECK_INT(occ_ending(&c, 7)->data_addr, A);
	CHECK_INT(occ_ending(&c, 8)->ops[0].seq, 5);
	CHECK_INT(occ_ending(&c, 8)->data_addr, B);
}

int main(void)
{
	RUN(test_repeated);
	RUN(test_never_deleted_and_orphan_delete);
	RUN(test_unused);
	RUN(test_overlap_edges);
	RUN(test_never_deleted);
	RUN(test_never_deleted_in_order);
	RUN(test_zero_bytes_associate_empty);
	RUN(test_interleaved_threads);
	return check_done();
}
