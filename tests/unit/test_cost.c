/*
 * test_cost.c - the noise-robust price of an operation (report/findings/cost.h)
 * and the savings priced with it (report/findings/findings.h, "Savings"): a
 * recording whose transfers include a few slow ones (page faults, a busy
 * machine) predicts the same savings as one without them.
 */
#include "tests/unit/check.h"
#include "report/findings/cost.h"
#include "report/findings/findings.h"

#define HOST 4
#define MIB (1u << 20)

static struct event xfer(int64_t seq, enum ev_kind kind, uint64_t bytes, int64_t b, int64_t dur)
{
	struct event ev = { 0 };
	ev.seq = seq;
	ev.kind = kind;
	ev.src_device = kind == EV_TO_DEVICE ? HOST : 0;
	ev.dest_device = kind == EV_TO_DEVICE ? 0 : HOST;
	ev.bytes = bytes;
	ev.begin_ns = b;
	ev.end_ns = b + dur;
	return ev;
}

/*
 * 20 sends of 1 MiB, 1000 ns each, one after another; the last 'slow' of
 * the 4th, 8th... 20th take 50 times as long.  A duplicate finding holds
 * the last 10 sends (the 11th to the 20th), so its own times hold the slow
 * 20th, 16th and 12th.  Returns the finding's savings.
 */
static int64_t savings_with(int slow, int model, int64_t *price)
{
	struct cost_model c;
	struct findings f;
	struct findings_context ctx = { NULL, 0, HOST, 1000000000, NULL };
	struct occurrence o = { 0 };
	int64_t t = 0, s;

	cost_init(&c, HOST);
	findings_init(&f);
	o.kind = FINDING_DUPLICATE_TRANSFER;
	o.flavour = FLAVOUR_SAME_DATA;
	o.nops = 1;
	o.ndevices = 2;
	o.devices[0] = HOST;
	o.devices[1] = 0;
	o.data_addr = 0x9000;
	o.data_bytes = o.bytes = MIB;
	for (int i = 0; i < 20; i++) {
		int64_t dur = i % 4 == 3 && i >= 20 - 4 * slow ? 50000 : 1000;
		struct event ev = xfer(i + 1, EV_TO_DEVICE, MIB, t, dur);
		CHECK_INT(cost_feed(&c, &ev), 0);
		if (i >= 10) {
			o.ops[0] = (struct op_ref){ ev.seq, ev.begin_ns, ev.end_ns, 0x401000, ROLE_TRANSFER, 0 };
			CHECK_INT(findings_add(&f, &o), 0);
		}
		t += dur + 10;
	}
	cost_finish(&c);
	*price = cost_estimate_ns(&c, COST_TO_DEVICE, MIB);
	if (model)
		ctx.cost = &c;
	CHECK_INT(findings_finish(&f, &ctx), 0);
	CHECK_INT(f.n, 1);
	s = f.v[0].savings_ns;
	CHECK_INT(f.savings_ns, s);
	findings_release(&f);
	cost_release(&c);
	return s;
}

static void test_outliers_change_nothing(void)
{
	int64_t p0, p1, p2, p5;
	int64_t s0 = savings_with(0, 1, &p0), s1 = savings_with(1, 1, &p1), s2 = savings_with(2, 1, &p2);

	CHECK_INT(p0, 1000);
	CHECK_INT(p1, 1000);   /* 1 and 2 slow of 20: the slowest tenth, trimmed */
	CHECK_INT(p2, 1000);
	CHECK_INT(s0, 10000);  /* 10 sends at the run's price */
	CHECK_INT(s1, s0);
	CHECK_INT(s2, s0);
	/* Each operation's own time: the slow ones among the finding's count. */
	CHECK(savings_with(2, 0, &p2) > s0);
	/* A quarter slow: still the run's steady send (the median; a trimmed
	 * mean counted the slow ones beyond the tenth it drops). */
	CHECK_INT(savings_with(5, 1, &p5), s0);
	CHECK_INT(p5, 1000);
}

static struct event op(enum ev_kind kind, uint64_t bytes, int64_t dur)
{
	return xfer(1, kind, bytes, 0, dur);
}

/*
 * Known samples, known prices: a transfer bucket priced at its median (ns
 * per byte times the size), an allocation bucket at its 10 % trimmed mean,
 * under 5 operations the median.
 */
static void test_estimators(void)
{
	static const int64_t sends[] = { 9000, 1300, 1000, 5000, 1200, 1100 };
	static const int64_t allocs[] = { 100, 100, 5000, 100, 100, 100, 100, 5000, 100, 100 };
	static const int64_t returns[] = { 300, 100, 200 };
	struct cost_model c;
	struct event ev;

	cost_init(&c, HOST);
	for (size_t i = 0; i < sizeof(sends) / sizeof(sends[0]); i++) {
		ev = op(EV_TO_DEVICE, MIB, sends[i]);
		CHECK_INT(cost_feed(&c, &ev), 0);
	}
	for (size_t i = 0; i < sizeof(allocs) / sizeof(allocs[0]); i++) {
		ev = op(EV_ALLOC, 4096, allocs[i]);
		CHECK_INT(cost_feed(&c, &ev), 0);
	}
	for (size_t i = 0; i < sizeof(returns) / sizeof(returns[0]); i++) {
		ev = op(EV_FROM_DEVICE, 4096, returns[i]);
		CHECK_INT(cost_feed(&c, &ev), 0);
	}
	cost_finish(&c);
	/* Median of 6: (1200 + 1300) / 2 a MiB, at any size of the bucket. */
	CHECK_INT(cost_estimate_ns(&c, COST_TO_DEVICE, MIB), 1250);
	CHECK_INT(cost_estimate_ns(&c, COST_TO_DEVICE, MIB + MIB / 2), 1875);
	/* Without the fastest and slowest one: (7 x 100 + 5000) / 8 = 712.5. */
	CHECK_INT(cost_estimate_ns(&c, COST_ALLOC, 4096), 713);
	CHECK_INT(cost_estimate_ns(&c, COST_FROM_DEVICE, 4096), 200);
	cost_release(&c);
}

static void test_buckets(void)
{
	struct cost_model c;
	struct event e[] = {
		xfer(1, EV_TO_DEVICE, 4096, 0, 400),        /* 0.1 ns a byte */
		xfer(2, EV_TO_DEVICE, 6000, 500, 600),
		xfer(3, EV_FROM_DEVICE, 4096, 1200, 4096),  /* 1 ns a byte: another class */
		xfer(4, EV_TO_DEVICE, 64, 6000, 300),       /* another bucket */
	};
	struct event al = { 0 };

	cost_init(&c, HOST);
	for (size_t i = 0; i < sizeof(e) / sizeof(e[0]); i++)
		CHECK_INT(cost_feed(&c, &e[i]), 0);
	al.kind = EV_ALLOC;
	al.bytes = 4096;
	al.begin_ns = 7000;
	al.end_ns = 7250;
	CHECK_INT(cost_feed(&c, &al), 0);
	cost_finish(&c);
	CHECK_INT(cost_estimate_ns(&c, COST_TO_DEVICE, 4096), 405);   /* 4096 x the median of 0.0977 and 0.1 ns/B */
	CHECK_INT(cost_estimate_ns(&c, COST_FROM_DEVICE, 8000), 8000);
	CHECK_INT(cost_estimate_ns(&c, COST_TO_DEVICE, 64), 300);
	CHECK_INT(cost_estimate_ns(&c, COST_ALLOC, 5000), 250);       /* not per byte */
	CHECK_INT(cost_estimate_ns(&c, COST_DELETE, 4096), -1);       /* none recorded */
	CHECK_INT(cost_estimate_ns(&c, COST_TO_DEVICE, 1 << 20), -1);
	cost_release(&c);
}

/* Operations that overlap (threads, nowait) save their prices times the share that did not. */
static void test_overlap(void)
{
	struct priced_op ops[] = {
		{ { 1, 0, 100, 0, ROLE_TRANSFER, 0 }, 300 },
		{ { 2, 0, 100, 0, ROLE_TRANSFER, 0 }, 300 },   /* fully overlapped */
		{ { 3, 200, 300, 0, ROLE_TRANSFER, 0 }, -1 },  /* its own time */
	};
	/* union 200 of 300 own: (300 + 300 + 100) * 2/3 */
	CHECK_INT(priced_ops_ns(ops, 3), 467);
	CHECK_INT(priced_ops_ns(ops, 1), 300);
	CHECK_INT(priced_ops_ns(ops, 0), 0);
}

/* An allocation of 'bytes' at device address 'addr' on device 0. */
static struct event alloc_at(int64_t seq, uint64_t addr, uint64_t bytes)
{
	struct event ev = xfer(seq, EV_ALLOC, bytes, 0, 100);
	ev.src_device = HOST;
	ev.dest_device = 0;
	ev.dest_addr = addr;
	return ev;
}

/* A copy of 'bytes' from the host into device address 'addr', taking dur. */
static struct event send_to(int64_t seq, uint64_t addr, uint64_t bytes, int64_t b, int64_t dur)
{
	struct event ev = xfer(seq, EV_TO_DEVICE, bytes, b, dur);
	ev.dest_addr = addr;
	return ev;
}

/* cost_estimate_warm_ns() of a 1 MiB send, from a model fed ev[0..n). */
static int64_t warm_price(struct event *ev, size_t n, int *other)
{
	struct cost_model c;
	int64_t ns;

	cost_init(&c, HOST);
	for (size_t i = 0; i < n; i++)
		CHECK_INT(cost_feed(&c, &ev[i]), 0);
	cost_finish(&c);
	ns = cost_estimate_warm_ns(&c, COST_TO_DEVICE, MIB, other);
	cost_release(&c);
	return ns;
}

/*
 * A copy into device memory allocated and not written since is a first
 * copy: it says so (first_copy), is priced apart from copies into memory
 * already written, and a delete forgets the allocation.  A duplicate's first
 * copies are priced as first copies (keeping the data mapped saves their
 * page faults); an unused transfer's as copies into written memory (mapping
 * it 'alloc' moves them into the kernel).
 */
static void test_first_copies(void)
{
	struct cost_model c;
	struct findings f;
	struct findings_context ctx = { NULL, 0, HOST, 1000000000, NULL };
	struct occurrence o = { 0 };
	struct event ev[] = {
		alloc_at(1, 0x10000000, MIB), send_to(2, 0x10000000, MIB, 1000, 10000),   /* first */
		send_to(3, 0x10000000, MIB, 20000, 1000),                                  /* warm */
		alloc_at(4, 0x20000000, MIB), send_to(5, 0x20000000, MIB, 30000, 12000),  /* first */
		send_to(6, 0x20000000, MIB, 50000, 1200),                                  /* warm */
		alloc_at(7, 0x30000000, MIB),
	};
	struct event del = xfer(8, EV_DELETE, MIB, 60000, 100), late;
	int64_t first, warm;
	int other;

	cost_init(&c, HOST);
	for (size_t i = 0; i < sizeof(ev) / sizeof(ev[0]); i++)
		CHECK_INT(cost_feed(&c, &ev[i]), 0);
	CHECK_INT(ev[1].first_copy, 1);
	CHECK_INT(ev[2].first_copy, 0);
	CHECK_INT(ev[4].first_copy, 1);
	CHECK_INT(ev[5].first_copy, 0);
	del.src_device = 0;
	del.src_addr = 0x30000000;
	CHECK_INT(cost_feed(&c, &del), 0);
	late = send_to(9, 0x30000000, MIB, 70000, 1100);   /* its allocation was freed: not a first copy */
	CHECK_INT(cost_feed(&c, &late), 0);
	CHECK_INT(late.first_copy, 0);
	/* A kernel of the device may write its fresh memory: a copy after it is no first copy. */
	{
		struct event al = alloc_at(10, 0x40000000, MIB), k = xfer(11, EV_KERNEL, 0, 80000, 10),
			     in = send_to(12, 0x40000000, MIB, 90000, 1000);
		k.dest_device = 0;
		CHECK_INT(cost_feed(&c, &al), 0);
		CHECK_INT(cost_feed(&c, &k), 0);
		CHECK_INT(cost_feed(&c, &in), 0);
		CHECK_INT(in.first_copy, 0);
	}
	cost_finish(&c);
	warm = cost_estimate_ns(&c, COST_TO_DEVICE, MIB);
	first = cost_estimate_ns(&c, COST_TO_DEVICE_FIRST, MIB);
	CHECK_INT(warm, 1050);    /* the median of 1000, 1000, 1100, 1200 */
	CHECK_INT(first, 11000);  /* of 10000 and 12000 */
	CHECK_INT(cost_estimate_warm_ns(&c, COST_TO_DEVICE, MIB, &other), 1050);
	CHECK_INT(other, 0);
	/* Ten times slower than warm, but 39 ns a 4 KiB page: too cheap for page faults. */
	CHECK_INT(cost_fault_premium_ns(&c, MIB), 0);

	/* The two first copies as a duplicate, then as an unused transfer. */
	for (int k = 0; k < 2; k++) {
		findings_init(&f);
		o.kind = k ? FINDING_UNUSED_TRANSFER : FINDING_DUPLICATE_TRANSFER;
		o.flavour = k ? FLAVOUR_AFTER_LAST_KERNEL : FLAVOUR_SAME_DATA;
		o.nops = 1;
		o.ndevices = 2;
		o.devices[0] = HOST;
		o.devices[1] = 0;
		o.data_addr = 0x9000;
		o.data_bytes = o.bytes = MIB;
		for (int i = 1; i <= 4; i += 3) {
			o.ops[0] = (struct op_ref){ ev[i].seq, ev[i].begin_ns, ev[i].end_ns, 0x401000, ROLE_TRANSFER,
						    ev[i].first_copy };
			CHECK_INT(findings_add(&f, &o), 0);
		}
		ctx.cost = &c;
		CHECK_INT(findings_finish(&f, &ctx), 0);
		CHECK_INT(f.n, 1);
		CHECK_INT(f.v[0].first_copies, 2);
		CHECK_INT(f.v[0].savings_ns, k ? 2 * warm : 2 * first);
		findings_release(&f);
	}
	cost_release(&c);

	/* No copy into written memory of that size: a larger one's time per byte, else a return's. */
	ev[0] = alloc_at(1, 0x10000000, MIB);
	ev[1] = send_to(2, 0x10000000, MIB, 1000, 10000);
	ev[2] = send_to(3, 0x50000000, 4 * MIB, 20000, 2000);   /* no allocation seen: written memory */
	CHECK_INT(warm_price(ev, 3, &other), 500);
	CHECK_INT(other, 1);
	ev[2] = xfer(3, EV_FROM_DEVICE, MIB, 20000, 800);
	CHECK_INT(warm_price(ev, 3, &other), 800);
	CHECK_INT(other, 1);
	CHECK_INT(warm_price(ev, 2, &other), 10000);   /* first copies only */
	CHECK_INT(other, 2);
}

/*
 * The first-touch premium is page faults only where first copies are at
 * least 1.5x warm ones (zeroing the pages is a pass as long as the copy's
 * write) and at least 100 ns more a 4 KiB page: 1.2x, or 2.3 ns a page, is
 * the directions' or sizes' difference (the warm price taken from copies
 * back to the host), no premium; a run of first copies alone has none.
 */
static void test_fault_premium(void)
{
	struct cost_model c;
	struct event slight[] = {
		alloc_at(1, 0x10000000, MIB), send_to(2, 0x10000000, MIB, 1000, 1200),
		xfer(3, EV_FROM_DEVICE, MIB, 5000, 1000),
	}, cheap[] = {   /* 1.6x, but 600 ns over 256 pages: 2.3 ns a page, no fault is that cheap */
		alloc_at(1, 0x10000000, MIB), send_to(2, 0x10000000, MIB, 1000, 1600),
		xfer(3, EV_FROM_DEVICE, MIB, 5000, 1000),
	}, faults[] = {
		alloc_at(1, 0x10000000, MIB), send_to(2, 0x10000000, MIB, 1000, 160000),
		xfer(3, EV_FROM_DEVICE, MIB, 5000, 100000),
	}, alone[] = {
		alloc_at(1, 0x10000000, MIB), send_to(2, 0x10000000, MIB, 1000, 9000),
	};
	struct { struct event *ev; size_t n; int64_t want; } cases[] = {
		{ slight, 3, 0 }, { cheap, 3, 0 }, { faults, 3, 60000 }, { alone, 2, 0 },
	};

	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		cost_init(&c, HOST);
		for (size_t i = 0; i < cases[k].n; i++)
			CHECK_INT(cost_feed(&c, &cases[k].ev[i]), 0);
		cost_finish(&c);
		CHECK_INT(cost_fault_premium_ns(&c, MIB), cases[k].want);
		cost_release(&c);
	}
	/* Less than a page still touches one: 99 ns over 800 bytes is no fault either. */
	{
		struct event small[] = {
			alloc_at(1, 0x10000000, 800), send_to(2, 0x10000000, 800, 1000, 297),
			xfer(3, EV_FROM_DEVICE, 800, 5000, 198),
		};
		cost_init(&c, HOST);
		for (size_t i = 0; i < 3; i++)
			CHECK_INT(cost_feed(&c, &small[i]), 0);
		cost_finish(&c);
		CHECK_INT(cost_fault_premium_ns(&c, 800), 0);
		cost_release(&c);
	}
}

/*
 * First copies are two kinds, as allocations are: into memory the allocator
 * reused (fast) and into fresh pages (a fault a page).  A loop whose buffers
 * come one of each kind per iteration, 11 slow and 9 fast first copies or
 * the other way round, prices them near their mean either way, not at the
 * kind that happened to be a few more (the median: 10x apart).
 */
static void test_first_copies_two_kinds(void)
{
	int64_t price[2];

	for (int more_slow = 0; more_slow < 2; more_slow++) {
		struct cost_model c;
		uint64_t addr = 0x10000000;
		int64_t t = 0, seq = 1;

		cost_init(&c, HOST);
		for (int i = 0; i < 20; i++, addr += 2 * MIB) {
			int slow = more_slow ? i < 11 : i < 9;
			struct event al = alloc_at(seq++, addr, MIB),
				     cp = send_to(seq++, addr, MIB, t, slow ? 50000 : 5000);
			CHECK_INT(cost_feed(&c, &al), 0);
			CHECK_INT(cost_feed(&c, &cp), 0);
			CHECK_INT(cp.first_copy, 1);
			t += 60000;
		}
		cost_finish(&c);
		price[more_slow] = cost_estimate_ns(&c, COST_TO_DEVICE_FIRST, MIB);
		cost_release(&c);
	}
	/* The 10 % trimmed mean: 16 of 20, 7 slow and 9 fast, or 9 slow and 7 fast. */
	CHECK_INT(price[0], (7 * 50000 + 9 * 5000 + 8) / 16);   /* rounded to the ns */
	CHECK_INT(price[1], (9 * 50000 + 7 * 5000 + 8) / 16);
}

int main(void)
{
	RUN(test_outliers_change_nothing);
	RUN(test_first_copies);
	RUN(test_first_copies_two_kinds);
	RUN(test_fault_premium);
	RUN(test_estimators);
	RUN(test_buckets);
	RUN(test_overlap);
	return check_done();
}
