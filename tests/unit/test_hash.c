/*
 * test_hash.c - the collector's content hash: plain XXH3-64 below one chunk,
 * the documented chunked hash above, and the same value whether computed on
 * one thread or split across helper threads.
 */
#include <stdlib.h>
#include <xxhash.h>

#include "collector/hash.h"
#include "check.h"

static unsigned char *filled(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 2654435761u) >> 13 ^ seed);
	return p;
}

/* The definition in hash.h, written out independently. */
static uint64_t reference(const unsigned char *p, uint64_t n)
{
	if (n < HASH_CHUNK_BYTES)
		return XXH3_64bits(p, n);
	uint64_t nchunks = (n + HASH_CHUNK_BYTES - 1) / HASH_CHUNK_BYTES;
	unsigned char *le = malloc(nchunks * 8);
	for (uint64_t i = 0; i < nchunks; i++) {
		uint64_t off = i * HASH_CHUNK_BYTES;
		uint64_t h = XXH3_64bits(p + off, n - off < HASH_CHUNK_BYTES ? n - off : HASH_CHUNK_BYTES);
		for (int b = 0; b < 8; b++)
			le[i * 8 + b] = (unsigned char)(h >> (8 * b));
	}
	uint64_t h = XXH3_64bits_withSeed(le, nchunks * 8, n);
	free(le);
	return h;
}

static void test_small_is_plain_xxh3(void)
{
	unsigned char *p = filled(HASH_CHUNK_BYTES, 1);
	static const uint64_t sizes[] = { 0, 1, 8, 4096, HASH_CHUNK_BYTES - 1 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		CHECK(hash_bytes(p, sizes[i]) == XXH3_64bits(p, sizes[i]));
		CHECK(hash_parallel(p, sizes[i]) == XXH3_64bits(p, sizes[i]));
	}
	free(p);
}

static void test_large_matches_definition(void)
{
	static const uint64_t sizes[] = {
		HASH_CHUNK_BYTES, HASH_CHUNK_BYTES + 1, 2 * HASH_CHUNK_BYTES,
		5 * HASH_CHUNK_BYTES + 12345, 70 * HASH_CHUNK_BYTES + 3,  /* > inline chunk array */
	};
	unsigned char *p = filled(71 * HASH_CHUNK_BYTES, 2);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t want = reference(p, sizes[i]);
		CHECK(hash_bytes(p, sizes[i]) == want);
		CHECK(hash_parallel(p, sizes[i]) == want);
		struct hash_job *j = hash_start(p, sizes[i]);
		if (j)
			CHECK(hash_finish(j) == want);
	}
	free(p);
}

static void test_content_not_address(void)
{
	/* Equal bytes at different addresses hash equal; one changed byte differs. */
	size_t n = 3 * HASH_CHUNK_BYTES + 7;
	unsigned char *a = filled(n, 3), *b = filled(n, 3);
	CHECK(hash_parallel(a, n) == hash_parallel(b, n));
	b[2 * HASH_CHUNK_BYTES + 5] ^= 1;
	CHECK(hash_parallel(a, n) != hash_parallel(b, n));
	/* The size is part of the hash: a prefix differs from the whole. */
	CHECK(hash_bytes(a, n) != hash_bytes(a, n - 1));
	free(a);
	free(b);
}

static void test_many_jobs_in_flight(void)
{
	/* Several jobs started before any is finished, finished out of order. */
	enum { JOBS = 6 };
	size_t n = 4 * HASH_CHUNK_BYTES + 100;
	unsigned char *p[JOBS];
	struct hash_job *j[JOBS];
	for (int i = 0; i < JOBS; i++) {
		p[i] = filled(n, 10 + i);
		j[i] = hash_start(p[i], n);
	}
	for (int i = JOBS - 1; i >= 0; i--) {
		uint64_t got = j[i] ? hash_finish(j[i]) : hash_bytes(p[i], n);
		CHECK(got == reference(p[i], n));
		free(p[i]);
	}
}

int main(void)
{
	RUN(test_small_is_plain_xxh3);
	RUN(test_large_matches_definition);
	RUN(test_content_not_address);
	RUN(test_many_jobs_in_flight);
	return check_done();
}
