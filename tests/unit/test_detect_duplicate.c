/*
 * test_detect_duplicate.c - duplicate_transfer on hand-written streams.
 */
#include "tests/unit/check.h"
#include "tests/unit/detect_fixture.h"

enum { A = 0xa000, B = 0xb000, C = 0xc000, D0 = 0xd000, D1 = 0xd100 };

static void test_same_data_sent_twice(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* map(to: a) on the first target */
		kernel(2, 20, 30, 0),
		to_dev(3, 40, 0, A, D1, 64, 0x11),   /* map(to: a) again, a unchanged */
		kernel(4, 50, 60, 0),
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 3);
	CHECK_INT(c.occ[0].flavour, FLAVOUR_SAME_DATA);
	CHECK_INT(c.occ[0].origin.seq, 1);
	CHECK_INT(c.occ[0].bytes, 64);
	CHECK_INT(c.occ[0].data_addr, A);
	CHECK_INT(c.occ[0].devices[1], 0);
}

static void test_several_devices(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* a to device 0 */
		to_dev(2, 20, 1, A, D0, 64, 0x11),   /* a to device 1: its first receipt */
		to_dev(3, 30, 1, A, D0, 64, 0x11),   /* a to device 1 again: duplicate */
		to_dev(4, 40, 2, A, D0, 64, 0x11),   /* device 2: first */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 3);
	CHECK_INT(c.occ[0].origin.seq, 2);
}

static void test_equal_content_different_sizes(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* 64 bytes, hash 0x11 */
		to_dev(2, 20, 0, A, D0, 128, 0x11),  /* 128 bytes, same hash value: other content */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 0);
}

static void test_same_content_other_variables(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x0),    /* zeroed a */
		to_dev(2, 20, 0, B, D1, 64, 0x0),    /* zeroed b: same content, other data */
		to_dev(3, 30, 0, A, D0, 64, 0x0),    /* a again: a missed reuse */
		to_dev(4, 40, 0, B, D1, 64, 0x0),    /* b again: also */
		to_dev(5, 50, 0, C, D1, 64, 0x0),    /* zeroed c: same content */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 4);
	CHECK_INT(occ_ending(&c, 2)->flavour, FLAVOUR_SAME_CONTENT);
	CHECK_INT(occ_ending(&c, 3)->flavour, FLAVOUR_SAME_DATA);
	CHECK_INT(occ_ending(&c, 4)->flavour, FLAVOUR_SAME_DATA);
	CHECK_INT(occ_ending(&c, 5)->flavour, FLAVOUR_SAME_CONTENT);
	CHECK_INT(occ_ending(&c, 5)->origin.seq, 1);
}

static void test_host_receives_twice(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),
		kernel(2, 20, 30, 0),
		from_dev(3, 40, 0, D0, A, 64, 0x22), /* result into a */
		from_dev(4, 50, 0, D0, A, 64, 0x22), /* the same result into a again */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 4);
	CHECK_INT(c.occ[0].flavour, FLAVOUR_SAME_DATA);
	CHECK_INT(c.occ[0].devices[0], 0);
	CHECK_INT(c.occ[0].devices[1], HOST);
	CHECK_INT(c.occ[0].data_addr, A);
}

static void test_zero_bytes_and_no_hash(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 0, 0x99),    /* zero-length array section */
		to_dev(2, 20, 0, A, D0, 0, 0x99),    /* again: nothing moved either time */
		to_dev(3, 30, 0, B, D1, 64, 0),      /* not hashed (below) */
		to_dev(4, 40, 0, B, D1, 64, 0),      /* not hashed */
	};
	struct collected c;
	ev[2].has_hash = ev[3].has_hash = 0;
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 0);
}

static void test_interleaved_threads(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* thread 1 sends a */
		to_dev(2, 11, 1, B, D1, 64, 0x22),   /* thread 2 sends b to device 1 */
		to_dev(3, 12, 1, B, D1, 64, 0x22),   /* thread 2 again */
		to_dev(4, 13, 0, A, D0, 64, 0x11),   /* thread 1 again */
	};
	struct collected c;
	ev[1].thread = ev[2].thread = 2;
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 2);
	CHECK_INT(occ_ending(&c, 3)->origin.seq, 2);
	CHECK_INT(occ_ending(&c, 4)->origin.seq, 1);
}

static void test_empty_and_order(void)
{
	struct collected c;
	struct event ev[] = {
		to_dev(2, 10, 0, A, D0, 64, 0x11),
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* same time, lower seq: out of order */
	};
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, NULL, 0, &c), 0);
	CHECK_INT(c.n, 0);
	CHECK_INT(run_kind(FINDING_DUPLICATE_TRANSFER, ev, N(ev), &c), -1);
}

int main(void)
{
	RUN(test_same_data_sent_twice);
	RUN(test_several_devices);
	RUN(test_equal_content_different_sizes);
	RUN(test_same_content_other_variables);
	RUN(test_host_receives_twice);
	RUN(test_zero_bytes_and_no_hash);
	RUN(test_interleaved_threads);
	RUN(test_empty_and_order);
	return check_done();
}
