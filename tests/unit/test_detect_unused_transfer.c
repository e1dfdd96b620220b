/*
 * test_detect_unused_transfer.c - unused_transfer on hand-written streams.
 */
#include "tests/unit/check.h"
#include "tests/unit/detect_fixture.h"

enum { A = 0xa000, B = 0xb000, D0 = 0xd000, D1 = 0xd100 };

static void test_overwritten(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* update to(a) */
		to_dev(2, 20, 0, A, D0, 64, 0x12),   /* update to(a) again, no kernel between */
		kernel(3, 30, 40, 0),                /* reads the second */
		to_dev(4, 50, 0, A, D0, 64, 0x13),   /* a third update... */
		kernel(5, 60, 70, 0),                /* ...read by this kernel */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_UNUSED_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 1);
	CHECK_INT(c.occ[0].flavour, FLAVOUR_OVERWRITTEN);
	CHECK_INT(c.occ[0].devices[1], 0);
	CHECK_INT(c.occ[0].data_addr, A);
}

static void test_after_last_kernel(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),
		kernel(2, 20, 30, 0),
		to_dev(3, 40, 0, B, D1, 64, 0x22),   /* after the last kernel of device 0 */
		to_dev(4, 50, 1, A, D0, 64, 0x11),   /* device 1 runs no kernel at all */
		from_dev(5, 60, 0, D0, A, 64, 0x11), /* to the host: never "unused" */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_UNUSED_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 2);
	CHECK_INT(count_flavour(&c, FLAVOUR_AFTER_LAST_KERNEL), 2);
	CHECK(occ_ending(&c, 3) != NULL);
	CHECK(occ_ending(&c, 4) != NULL);
}

/* Those after the last kernel come at the end in the transfers' order, not the map's. */
static void test_after_last_kernel_in_order(void)
{
	struct event ev[41];
	struct collected c;
	int ok = 1;

	ev[0] = kernel(1, 5, 8, 0);
	for (int i = 1; i < 41; i++)
		ev[i] = to_dev(i + 1, 10 * i, i % 2, A + 4096 * (uint64_t)i,
			       D0 + 4096 * (uint64_t)(i * 7919 % 41), 64, 0x100 + (uint64_t)i);
	CHECK_INT(run_kind(FINDING_UNUSED_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 40);
	for (int i = 1; i < c.n; i++)
		ok &= c.occ[i].ops[0].seq > c.occ[i - 1].ops[0].seq;
	CHECK(ok);
}

static void test_several_devices(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* to device 0 */
		kernel(2, 20, 30, 1),                /* a kernel of device 1 cannot read it */
		to_dev(3, 40, 0, A, D0, 64, 0x12),   /* overwrites 1 */
		to_dev(4, 41, 1, A, D0, 64, 0x12),   /* device 1, same address */
		kernel(5, 50, 60, 0),
		kernel(6, 50, 60, 1),
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_UNUSED_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 1);
}

static void test_running_kernel_and_sizes(void)
{
	struct event ev[] = {
		kernel(1, 10, 100, 0),               /* long kernel (nowait) */
		to_dev(2, 20, 0, A, D0, 64, 0x11),   /* arrives while it runs: it may read it */
		to_dev(3, 30, 0, A, D0, 64, 0x12),
		to_dev(4, 200, 0, B, D1, 64, 0x13),  /* b[0:64] */
		to_dev(5, 210, 0, B, D1, 16, 0x14),  /* b[0:16]: does not overwrite all of 4 */
		kernel(6, 220, 230, 0),
		to_dev(7, 240, 0, B, D1, 0, 0x99),   /* zero bytes after the last kernel */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_UNUSED_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 0);
}

static void test_interleaved_threads(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* thread 1 */
		to_dev(2, 11, 0, B, D1, 64, 0x22),   /* thread 2 */
		to_dev(3, 12, 0, B, D1, 64, 0x23),   /* thread 2 overwrites its own */
		kernel(4, 13, 20, 0),                /* thread 1's kernel */
		to_dev(5, 21, 0, A, D0, 64, 0x11),   /* thread 1, read by nothing later */
	};
	struct collected c;
	ev[1].thread = ev[2].thread = 2;
	CHECK_INT(run_kind(FINDING_UNUSED_TRANSFER, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 2);
	CHECK_INT(occ_ending(&c, 2)->flavour, FLAVOUR_OVERWRITTEN);
	CHECK_INT(occ_ending(&c, 5)->flavour, FLAVOUR_AFTER_LAST_KERNEL);
}

int main(void)
{
	RUN(test_overwritten);
	RUN(test_after_last_kernel);
	RUN(test_after_last_kernel_in_order);
	RUN(test_several_devices);
	RUN(test_running_kernel_and_sizes);
	RUN(test_interleaved_threads);
	return check_done();
}
