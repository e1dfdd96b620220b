/*
 * test_bounded.c - the containers that keep the report in bounded memory:
 * lib/extsort.h (records sorted through a temporary file) and
 * lib/spillmap.h (a map whose least recent entries go to a file), with
 * buffers small enough that the files do the work, against the obvious
 * in-memory answer; and the cost model's trimmed mean over counted values
 * (report/findings/cost.h) against the one over every sample.
 */
#include <stdlib.h>

#include "tests/unit/check.h"
#include "lib/extsort.h"
#include "lib/spillmap.h"
#include "lib/hmap.h"
#include "report/findings/cost.h"

struct rec {
	int64_t a;
	uint64_t b;
};

static int rec_cmp(const void *x, const void *y)
{
	const struct rec *p = x, *q = y;
	if (p->a != q->a)
		return p->a < q->a ? -1 : 1;
	return (p->b > q->b) - (p->b < q->b);
}

static uint64_t rng = 88172645463325252ULL;

static uint64_t next(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* 100,003 records through a buffer of 1,000 (100 runs), read twice. */
static void test_extsort(void)
{
	enum { N = 100003 };
	struct rec *want = malloc(N * sizeof(*want)), got;
	struct extsort *s = extsort_new(sizeof(struct rec), rec_cmp, 1000);
	const char *why = NULL;

	CHECK(want && s);
	if (!want || !s)
		goto out;
	for (size_t i = 0; i < N; i++) {
		want[i] = (struct rec){ (int64_t)(next() % 5000) - 2500, i };
		CHECK(extsort_add(s, &want[i], &why) == 0);
	}
	CHECK_INT(extsort_runs(s), N / 1000);
	CHECK_INT(extsort_count(s), N);
	qsort(want, N, sizeof(*want), rec_cmp);
	for (int pass = 0; pass < 2; pass++) {
		struct extsort_reader *r = extsort_read(s);
		size_t n = 0;
		int bad = 0;
		CHECK(r != NULL);
		if (!r)
			break;
		while (extsort_next(r, &got) == 1) {
			if (n >= N || got.a != want[n].a || got.b != want[n].b)
				bad++;
			n++;
		}
		CHECK_INT(n, N);
		CHECK_INT(bad, 0);
		extsort_reader_free(r);
	}
	CHECK(extsort_add(s, &want[0], &why) < 0);   /* sealed once read */
out:
	extsort_free(s);
	free(want);
}

/*
 * Key i of the spillmap tests, three ways: content-hash-like first words
 * (spread: the eviction's buckets hold a few each); half of them small
 * integers (skewed: they share the eviction's first bucket, whose sort
 * falls back to qsort()); first words shared by four keys (ties the second
 * word decides).
 */
static void spill_key(int shape, uint64_t i, uint64_t key[2])
{
	uint64_t spread = (shape == 2 ? i / 4 : i) * 0x9e3779b97f4a7c15ULL;

	key[0] = shape == 1 && i % 2 ? i : spread;
	key[1] = shape == 2 ? i % 4 : i % 7;
}

/* 50,000 keys in a map of 1,000 entries: each found again, with its value, wherever it went. */
static void spillmap_shape(int shape)
{
	enum { N = 50000 };
	struct spillmap m;
	const char *why = NULL;
	int created, bad_new = 0, bad_val = 0, bad_old = 0;
	/* How often each key was changed after a reload: the newest value must survive the merges. */
	static uint64_t bumps[N];

	memset(bumps, 0, sizeof(bumps));
	spillmap_init(&m, 2, sizeof(uint64_t) * 3, 1000);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t key[2], *v;
		spill_key(shape, i, key);
		v = spillmap_put(&m, key, &created, &why);
		if (!v) {
			CHECK(v != NULL);
			break;
		}
		bad_new += !created;
		v[0] = i;
		v[2] = ~i;
		/* Now and then an old one, which may be in the file. */
		if (i % 97 == 0 && i > 5000) {
			uint64_t j = (i * 31) % (i - 1000), oldkey[2], *o;
			spill_key(shape, j, oldkey);
			o = spillmap_put(&m, oldkey, &created, &why);
			bad_old += !o || created || o[0] != j || o[2] != ~j || o[1] != bumps[j];
			if (o)
				o[1] = ++bumps[j];   /* changed while in memory: kept when it goes out again */
		}
	}
	CHECK_INT(bad_new, 0);
	CHECK_INT(bad_old, 0);
	CHECK(m.spilled > 0);
	CHECK(m.reloaded > 0);
	for (uint64_t i = 0; i < N; i++) {
		uint64_t key[2], *v;
		spill_key(shape, i, key);
		v = spillmap_put(&m, key, &created, &why);
		bad_val += !v || created || v[0] != i || v[2] != ~i || v[1] != bumps[i];
	}
	CHECK_INT(bad_val, 0);
	/* Merged as they came: a few runs of each size, not one a spill. */
	CHECK(m.nruns <= 12);
	{
		uint64_t key[2] = { 12345, 99 };
		CHECK(spillmap_put(&m, key, &created, &why) && created);
	}
	CHECK(m.mem.count <= 1001);
	spillmap_release(&m);
}

static void test_spillmap(void)
{
	for (int shape = 0; shape < 3; shape++)
		spillmap_shape(shape);
}

static int drop_marked(const uint64_t *key, void *val, void *arg)
{
	const unsigned char *gone = arg;
	(void)val;
	return gone[key[1]];
}

/*
 * hmap_sweep() on 3,000 small maps (64 slots, up to 48 entries: long probe
 * runs, many wrapping the table's end), random entries swept out: the count
 * right, and every entry left (hmap_next()) a kept one, found by
 * hmap_get() where it is, with its value.
 */
static void sweep_small(void)
{
	size_t bad = 0;

	for (int trial = 0; trial < 3000; trial++) {
		struct hmap m;
		unsigned char gone[48] = { 0 };
		size_t n = 1 + next() % 48, want = 0, got;
		hmap_init(&m, 2, sizeof(uint64_t));
		for (uint64_t i = 0; i < n; i++) {
			uint64_t key[2] = { next(), i }, *v = hmap_put(&m, key, NULL);
			if (v)
				*v = key[0];
			gone[i] = next() % 3 == 0;
			want += gone[i];
		}
		got = hmap_sweep(&m, drop_marked, gone);
		bad += got != want || m.count != n - want || m.cap != 64;
		for (size_t pos = 0, i = 0; i < n; i++) {
			const uint64_t *key;
			void *val;
			bad += gone[i] ? 0 : !hmap_next(&m, &pos, &key, &val) || *(uint64_t *)val != key[0] ||
					     hmap_get(&m, key) != val || gone[key[1]];
		}
		hmap_release(&m);
	}
	CHECK_INT(bad, 0);
}

/*
 * hmap_sweep(): 20,000 keys, a third of them (then a random half of the
 * rest, then all) swept out; every kept key found with its value, every
 * swept one absent, and puts and deletes as before afterwards.
 */
static void test_hmap_sweep(void)
{
	enum { N = 20000 };
	struct hmap m;
	unsigned char *gone = calloc(N, 1);
	int created;

	sweep_small();
	CHECK(gone != NULL);
	if (!gone)
		return;
	hmap_init(&m, 2, sizeof(uint64_t));
	for (uint64_t i = 0; i < N; i++) {
		uint64_t key[2] = { i % 61, i }, *v = hmap_put(&m, key, &created);
		CHECK(v && created);
		if (v)
			*v = ~i;
	}
	for (int round = 0; round < 3; round++) {
		size_t want = 0, bad = 0, count = 0;
		for (uint64_t i = 0; i < N; i++) {
			if (!gone[i] && (round == 2 || (round == 0 ? i % 3 == 0 : next() % 2))) {
				gone[i] = 1;
				want++;
			}
		}
		CHECK_INT(hmap_sweep(&m, drop_marked, gone), want);
		for (uint64_t i = 0; i < N; i++) {
			uint64_t key[2] = { i % 61, i }, *v = hmap_get(&m, key);
			bad += gone[i] ? v != NULL : !v || *v != ~i;
			count += !gone[i];
		}
		CHECK_INT(bad, 0);
		CHECK_INT(m.count, count);
	}
	{
		uint64_t key[2] = { 5, 5 }, *v = hmap_put(&m, key, &created);
		CHECK(v && created && *v == 0);
		CHECK(hmap_del(&m, key) == 1 && m.count == 0 && !hmap_get(&m, key));
	}
	hmap_release(&m);
	free(gone);
}

/* Many samples, few values: the trimmed mean of the counted values is that of the samples. */
static void test_cost_counts(void)
{
	struct cost_model c;
	struct event ev = { 0 };
	double sum = 0;
	int n = 0;
	float v[1000];

	cost_init(&c, 4);
	for (int i = 0; i < 1000; i++) {
		ev.kind = EV_ALLOC;
		ev.bytes = 4096;
		ev.begin_ns = 0;
		ev.end_ns = 100 + (int64_t)(next() % 37) * 3;
		v[i] = (float)(ev.end_ns - ev.begin_ns);
		CHECK(cost_feed(&c, &ev) == 0);
	}
	/* The same sum the samples sorted one by one give. */
	for (int i = 1; i < 1000; i++)
		for (int j = i; j > 0 && v[j - 1] > v[j]; j--) {
			float t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	for (int i = 100; i < 900; i++, n++)
		sum += v[i];
	cost_finish(&c);
	CHECK_INT(cost_estimate_ns(&c, COST_ALLOC, 4096), (int64_t)(sum / n + 0.5));
	cost_release(&c);
}

int main(void)
{
	RUN(test_extsort);
	RUN(test_spillmap);
	RUN(test_hmap_sweep);
	RUN(test_cost_counts);
	return check_done();
}
