/*
 * test_detect_round_trip.c - round_trip on hand-written streams, including
 * the pairing rules: only the latest earlier send into the buffer, each send
 * paired once, and time order respected.
 */
#include "tests/unit/check.h"
#include "tests/unit/detect_fixture.h"

enum { A = 0xa000, B = 0xb000, D0 = 0xd000, D1 = 0xd100 };

static void test_host_device_host(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* map(tofrom: a): a to D0 */
		kernel(2, 20, 30, 0),                /* the kernel only reads a */
		from_dev(3, 40, 0, D0, A, 64, 0x11), /* a comes back unchanged */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].flavour, FLAVOUR_HOST_DEVICE_HOST);
	CHECK_INT(c.occ[0].ops[0].seq, 1);
	CHECK_INT(c.occ[0].ops[0].role, ROLE_SEND);
	CHECK_INT(c.occ[0].ops[1].seq, 3);
	CHECK_INT(c.occ[0].ops[1].role, ROLE_RETURN);
	CHECK_INT(c.occ[0].devices[0], HOST);
	CHECK_INT(c.occ[0].devices[1], 0);
	CHECK_INT(c.occ[0].data_addr, A);
	CHECK_INT(c.occ[0].bytes, 128);
}

static void test_modified_is_no_trip(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),
		kernel(2, 20, 30, 0),                /* the kernel writes a */
		from_dev(3, 40, 0, D0, A, 64, 0x12), /* a comes back changed */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 0);
}

static void test_device_host_device_across_realloc(void)
{
	struct event ev[] = {
		kernel(1, 10, 20, 0),                /* the kernel computes a in D0 */
		from_dev(2, 30, 0, D0, A, 64, 0x33), /* a comes to the host */
		delete_dev(3, 40, 0, D0, 0, 64),     /* end of the target region */
		alloc_dev(4, 50, 0, A, D1, 64),      /* next iteration: other device address */
		to_dev(5, 60, 0, A, D1, 64, 0x33),   /* the host sends a back unchanged */
		kernel(6, 70, 80, 0),
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].flavour, FLAVOUR_DEVICE_HOST_DEVICE);
	CHECK_INT(c.occ[0].ops[0].seq, 2);
	CHECK_INT(c.occ[0].ops[1].seq, 5);
	CHECK_INT(c.occ[0].devices[0], 0);
	CHECK_INT(c.occ[0].devices[1], HOST);
	CHECK_INT(c.occ[0].data_addr, A);
}

static void test_loop_unchanged(void)
{
	/* for 3 iterations: target map(tofrom: a) with a kernel that leaves a alone */
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),
		from_dev(2, 20, 0, D0, A, 64, 0x11), /* (1,2) h->d->h */
		to_dev(3, 30, 0, A, D0, 64, 0x11),   /* (2,3) d->h->d */
		from_dev(4, 40, 0, D0, A, 64, 0x11), /* (3,4) */
		to_dev(5, 50, 0, A, D0, 64, 0x11),   /* (4,5) */
		from_dev(6, 60, 0, D0, A, 64, 0x11), /* (5,6) */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 5);
	CHECK_INT(count_flavour(&c, FLAVOUR_HOST_DEVICE_HOST), 3);
	CHECK_INT(count_flavour(&c, FLAVOUR_DEVICE_HOST_DEVICE), 2);
	CHECK_INT(occ_ending(&c, 4)->ops[0].seq, 3);
}

static void test_latest_send_only(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* a = v1 to D0 */
		to_dev(2, 20, 0, A, D0, 64, 0x22),   /* update: a = v2 to D0 */
		from_dev(3, 30, 0, D0, A, 64, 0x11), /* D0 holds v1 again (kernel): not a trip */
		to_dev(4, 40, 0, B, D1, 64, 0x44),   /* b = v4 to D1 */
		to_dev(5, 50, 0, B, D1, 64, 0x55),   /* b = v5 to D1 */
		from_dev(6, 60, 0, D1, B, 64, 0x55), /* v5 back: pairs with 5, not 4 */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 5);
	CHECK_INT(c.occ[0].ops[1].seq, 6);
}

static void test_each_send_once(void)
{
	/* Rodinia bfs: the stop flag goes to the device once and is read back thrice. */
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 4, 0x0),
		kernel(2, 20, 30, 0),
		from_dev(3, 40, 0, D0, A, 4, 0x0),   /* pairs with 1 */
		kernel(4, 50, 60, 0),
		from_dev(5, 70, 0, D0, A, 4, 0x0),   /* 1 is taken: no trip */
		from_dev(6, 80, 0, D0, A, 4, 0x0),   /* no trip */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 1);
	CHECK_INT(c.occ[0].ops[0].seq, 1);
	CHECK_INT(c.occ[0].ops[1].seq, 3);
}

static void test_time_order(void)
{
	struct event ev[] = {
		from_dev(1, 10, 0, D0, B, 64, 0x11), /* the device sends v into b first */
		to_dev(2, 20, 0, A, D0, 64, 0x11),   /* later the host sends v (from a) to D0 */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 0);
}

static void test_other_detour(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* a to device 0 */
		to_dev(2, 20, 1, A, D1, 64, 0x11),   /* a to device 1 */
		from_dev(3, 30, 1, D0, A, 64, 0x11), /* device 1 returns v from D0 on device 1:
						        host sent nothing into (1, D0) */
		from_dev(4, 40, 0, D1, A, 64, 0x11), /* device 0 returns v from D1: nothing sent there */
	};
	/* A device-to-device copy of v: 0:D0 -> 1:D1, then 1:D1 -> host. */
	struct event ev2[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),
		{ .seq = 2, .kind = EV_TO_DEVICE, .src_device = 0, .dest_device = 1, .src_addr = D0,
		  .dest_addr = D1, .bytes = 64, .begin_ns = 20, .end_ns = 25, .has_hash = 1,
		  .hash = 0x11 },
		from_dev(3, 30, 1, D1, A, 64, 0x11),
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 0);
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev2, N(ev2), &c), 0);
	CHECK_INT(c.n, 0);
}

static void test_several_devices(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* a to device 0 at D0 */
		to_dev(2, 20, 1, A, D0, 64, 0x11),   /* a to device 1, same device address */
		from_dev(3, 30, 1, D0, A, 64, 0x11), /* back from device 1: pairs with 2 */
		from_dev(4, 40, 0, D0, A, 64, 0x11), /* back from device 0: pairs with 1 */
	};
	struct collected c;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 2);
	CHECK_INT(occ_ending(&c, 3)->ops[0].seq, 2);
	CHECK_INT(occ_ending(&c, 3)->devices[1], 1);
	CHECK_INT(occ_ending(&c, 4)->ops[0].seq, 1);
	CHECK_INT(occ_ending(&c, 4)->devices[1], 0);
}

static void test_sizes_zero_bytes_no_hash(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),
		from_dev(2, 20, 0, D0, A, 32, 0x11), /* half of it back: other size */
		to_dev(3, 30, 0, B, D1, 0, 0x99),    /* zero bytes there and back */
		from_dev(4, 40, 0, D1, B, 0, 0x99),
		to_dev(5, 50, 1, B, D1, 64, 0),      /* not hashed */
		from_dev(6, 60, 1, D1, B, 64, 0),
	};
	struct collected c;
	ev[4].has_hash = ev[5].has_hash = 0;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 0);
}

static void test_interleaved_threads(void)
{
	struct event ev[] = {
		to_dev(1, 10, 0, A, D0, 64, 0x11),   /* thread 1 */
		to_dev(2, 11, 0, B, D1, 64, 0x22),   /* thread 2 */
		from_dev(3, 12, 0, D1, B, 64, 0x22), /* thread 2: b back unchanged */
		from_dev(4, 13, 0, D0, A, 64, 0x11), /* thread 1: a back unchanged */
	};
	struct collected c;
	ev[1].thread = ev[2].thread = 2;
	CHECK_INT(run_kind(FINDING_ROUND_TRIP, ev, N(ev), &c), 0);
	CHECK_INT(c.n, 2);
	CHECK_INT(occ_ending(&c, 3)->ops[0].seq, 2);
	CHECK_INT(occ_ending(&c, 4)->ops[0].seq, 1);
}

int main(void)
{
	RUN(test_host_device_host);
	RUN(test_modified_is_no_trip);
	RUN(test_device_host_device_across_realloc);
	RUN(test_loop_unchanged);
	RUN(test_latest_send_only);
	RUN(test_each_send_once);
	RUN(test_time_order);
	RUN(test_other_detour);
	RUN(test_several_devices);
	RUN(test_sizes_zero_bytes_no_hash);
	RUN(test_interleaved_threads);
	return check_done();
}
