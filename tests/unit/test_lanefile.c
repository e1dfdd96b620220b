/*
 * test_lanefile.c - report/trace/lanefile.h gives each lane back byte for
 * byte, whatever the interleaving: pieces of every size (one byte, across
 * a block's end, several blocks at once), lanes put to in turn and in
 * bursts, a lane that was never put to and one past the last (both empty),
 * and many lanes at once.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>

#include "tests/unit/check.h"
#include "report/trace/lanefile.h"

static uint64_t rng = 88172645463325252ULL;

static uint32_t next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (uint32_t)(rng >> 11);
}

/* The n-th byte of lane 'lane': what was put is known without keeping it. */
static uint8_t byte_of(size_t lane, uint64_t n)
{
	return (uint8_t)((lane * 131 + n * 7 + n / 251) & 0xff);
}

/* Read lane 'lane' whole: 1 when it is 'want' bytes of byte_of(). */
static int lane_is(const struct lanefile *f, size_t lane, uint64_t want)
{
	struct lanefile_reader *r = malloc(sizeof(*r));
	uint64_t n = 0;
	int c, ok = 1;

	if (!r)
		return 0;
	lanefile_reader_init(r, f, lane);
	while ((c = lanefile_getc(r)) >= 0) {
		if (n >= want || c != byte_of(lane, n)) {
			fprintf(stderr, "lane %zu: byte %llu is %d\n", lane, (unsigned long long)n, c);
			ok = 0;
			break;
		}
		n++;
	}
	free(r);
	if (ok && (c != -1 || n != want)) {
		fprintf(stderr, "lane %zu: %llu bytes (end %d), want %llu\n", lane, (unsigned long long)n, c,
			(unsigned long long)want);
		ok = 0;
	}
	return ok;
}

/* Put 'len' more bytes on 'lane' (at most 3 * LANEFILE_BLOCK). */
static int put(struct lanefile *f, size_t lane, uint64_t *count, size_t len)
{
	uint8_t buf[3 * LANEFILE_BLOCK];

	for (size_t i = 0; i < len; i++)
		buf[i] = byte_of(lane, count[lane] + i);
	count[lane] += len;
	return lanefile_put(f, lane, buf, len);
}

static void test_interleaved(void)
{
	enum { LANES = 7 };
	uint64_t count[LANES] = { 0 };
	struct lanefile *f = lanefile_new();

	CHECK(f != NULL);
	if (!f)
		return;
	/* Lane 5 is never put to; the others in turn, in random sizes and bursts. */
	for (int i = 0; i < 20000; i++) {
		size_t lane = next_rand() % LANES, len;
		if (lane == 5)
			continue;
		switch (next_rand() % 8) {
		case 0: len = 1 + next_rand() % (3 * LANEFILE_BLOCK - 1); break;
		case 1: len = LANEFILE_BLOCK; break;
		default: len = 1 + next_rand() % 40; break;
		}
		CHECK_INT(put(f, lane, count, len), 0);
	}
	CHECK_INT(lanefile_finish(f), 0);
	for (size_t lane = 0; lane < LANES; lane++)
		CHECK(lane_is(f, lane, count[lane]));
	CHECK_INT(count[5], 0);
	CHECK(lane_is(f, LANES + 3, 0));
	/* Read twice: the same bytes. */
	CHECK(lane_is(f, 2, count[2]));
	lanefile_free(f);
}

static void test_many_lanes(void)
{
	enum { LANES = 3000 };
	uint64_t *count = calloc(LANES, sizeof(*count));
	struct lanefile *f = lanefile_new();
	int bad = 0;

	CHECK(f != NULL && count != NULL);
	if (!f || !count) {
		free(count);
		lanefile_free(f);
		return;
	}
	/* Lanes made out of order (the last first); each ends mid-block. */
	for (int round = 0; round < 5; round++)
		for (size_t i = 0; i < LANES; i++) {
			size_t lane = LANES - 1 - i;
			bad |= put(f, lane, count, 1 + (lane + (size_t)round * 977) % 1500) < 0;
		}
	CHECK(!bad);
	CHECK_INT(lanefile_finish(f), 0);
	for (size_t lane = 0; lane < LANES && !bad; lane++)
		bad |= !lane_is(f, lane, count[lane]);
	CHECK(!bad);
	free(count);
	lanefile_free(f);
}

static void test_empty(void)
{
	struct lanefile *f = lanefile_new();

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK_INT(lanefile_finish(f), 0);
	CHECK(lane_is(f, 0, 0));
	lanefile_free(f);
	lanefile_free(NULL);
}

int main(void)
{
	RUN(test_interleaved);
	RUN(test_many_lanes);
	RUN(test_empty);
	return check_done();
}
