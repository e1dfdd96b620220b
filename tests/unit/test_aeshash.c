/*
 * test_aeshash.c - aeshash (collector/aeshash.h): its software AES round
 * against FIPS-197's worked example and the CPU's AESENC, every build with
 * AES instructions against the portable one on every length and alignment,
 * one value pinned (databases keep these hashes: the definition must not
 * drift), and the properties equality of content relies on: every single
 * bit flipped, 16-byte lanes swapped, trailing zeros added, each give a
 * different hash, and a flipped bit flips about half of the hash's bits.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "collector/aeshash.h"
#include "check.h"

#if defined(MAPPROF_XXH3_X86)
uint64_t mapprof_aeshash_aesni(const void *p, size_t n);
uint64_t mapprof_aeshash_vaes256(const void *p, size_t n);
uint64_t mapprof_aeshash_vaes512(const void *p, size_t n);
#endif

static void hex16(const char *h, unsigned char *out)
{
	for (int i = 0; i < 16; i++) {
		unsigned v;
		sscanf(h + 2 * i, "%2x", &v);
		out[i] = (unsigned char)v;
	}
}

static unsigned char *random_bytes(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n);
	uint64_t x = 0x9E3779B97F4A7C15ull * (seed + 1);

	for (size_t i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		p[i] = (unsigned char)(x >> 24);
	}
	return p;
}

#if defined(__x86_64__)
__attribute__((target("aes"))) static void cpu_round(unsigned char *s, const unsigned char *k)
{
	__m128i a = _mm_loadu_si128((const __m128i *)s), b = _mm_loadu_si128((const __m128i *)k);
	_mm_storeu_si128((__m128i *)s, _mm_aesenc_si128(a, b));
}
#endif

/* FIPS-197 Appendix B, round 1: its start state and round key give the start of round 2. */
static void test_round_is_aes(void)
{
	unsigned char s[16], k[16], want[16], hw[16];

	hex16("193de3bea0f4e22b9ac68d2ae9f84808", s);
	hex16("a0fafe1788542cb123a339392a6c7605", k);
	hex16("a49c7ff2689f352b6b5bea43026a5049", want);
	memcpy(hw, s, 16);
	aeshash_round(s, k);
	CHECK(memcmp(s, want, 16) == 0);
#if defined(__x86_64__)
	if (__builtin_cpu_supports("aes")) {
		cpu_round(hw, k);
		CHECK(memcmp(hw, want, 16) == 0);
		/* And on random states, the software round is the CPU's. */
		for (unsigned t = 0; t < 1000; t++) {
			unsigned char *r = random_bytes(32, t);
			memcpy(hw, r, 16);
			memcpy(s, r, 16);
			cpu_round(hw, r + 16);
			aeshash_round(s, r + 16);
			CHECK(memcmp(hw, s, 16) == 0);
			free(r);
		}
	} else {
		printf("  SKIP: the CPU's AESENC (no AES instructions)\n");
	}
#endif
}

static void test_builds_agree(void)
{
	enum { MAX = 3 * 1024 };
	unsigned char *p = random_bytes(MAX + 64, 7);
	int checked = 0;

	printf("  aeshash builds in use: %s, from memory %s\n", aeshash_impl(), aeshash_streaming_impl());
	for (size_t n = 16; n <= MAX; n++) {
		for (size_t a = 0; a < 64; a += n % 7 == 0 ? 1 : 63) {
			uint64_t want = aeshash_portable(p + a, n);
			CHECK(aeshash(p + a, n) == want);
			CHECK(aeshash_streaming(p + a, n) == want);
#if defined(MAPPROF_XXH3_X86)
			if (__builtin_cpu_supports("aes"))
				CHECK(mapprof_aeshash_aesni(p + a, n) == want);
			if (__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx2"))
				CHECK(mapprof_aeshash_vaes256(p + a, n) == want);
			if (__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f"))
				CHECK(mapprof_aeshash_vaes512(p + a, n) == want);
#endif
			checked++;
		}
	}
	CHECK(checked > MAX);
	free(p);
}

#define PINNED 0x269596fc7d03d98aull
/* The definition's value for 0, 1, 2, ... 255, 0, ... (pins it: recorded databases hold such hashes). */
static void test_pinned_value(void)
{
	unsigned char b[1000];

	for (int i = 0; i < 1000; i++)
		b[i] = (unsigned char)i;
	printf("  aeshash(0..255 x 1000) = %016llx\n", (unsigned long long)aeshash_portable(b, sizeof(b)));
	CHECK(aeshash_portable(b, sizeof(b)) == PINNED);
	CHECK(aeshash(b, sizeof(b)) == PINNED);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void test_every_bit_counts(void)
{
	enum { N = 4096 + 80 };  /* whole blocks and a tail */
	unsigned char *p = random_bytes(N, 3);
	uint64_t base = aeshash(p, N), *h = malloc(sizeof(*h) * (N * 8 + 1));
	double flipped = 0;
	size_t k = 0;

	for (size_t bit = 0; bit < (size_t)N * 8; bit++) {
		p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
		h[k++] = aeshash(p, N);
		flipped += __builtin_popcountll(h[k - 1] ^ base);
		p[bit / 8] ^= (unsigned char)(1u << (bit % 8));
	}
	h[k++] = base;
	qsort(h, k, sizeof(*h), cmp_u64);
	for (size_t i = 1; i < k; i++)
		CHECK(h[i] != h[i - 1]);
	/* Avalanche: a flipped input bit flips 32 of 64 output bits on average. */
	flipped /= (double)N * 8;
	printf("  bits flipped per input bit: %.2f of 64\n", flipped);
	CHECK(flipped > 31.0 && flipped < 33.0);
	free(h);
	free(p);
}

static void test_order_and_length_count(void)
{
	unsigned char *p = random_bytes(8192, 5), *q = malloc(8192 + 64);
	uint64_t h = aeshash(p, 8192);

	/* Two lanes of one block swapped; two blocks swapped; a lane moved to the next block. */
	static const size_t swaps[][2] = { { 0, 16 }, { 32, 240 }, { 0, 256 }, { 16, 272 }, { 4096, 8176 } };
	for (size_t i = 0; i < sizeof(swaps) / sizeof(swaps[0]); i++) {
		memcpy(q, p, 8192);
		memcpy(q + swaps[i][0], p + swaps[i][1], 16);
		memcpy(q + swaps[i][1], p + swaps[i][0], 16);
		CHECK(aeshash(q, 8192) != h);
	}
	/* Zeros of every length from 16 to 1024: all different. */
	memset(q, 0, 1024 + 64);
	uint64_t z[1009];
	for (size_t n = 16; n <= 1024; n++)
		z[n - 16] = aeshash(q, n);
	qsort(z, 1009, sizeof(z[0]), cmp_u64);
	for (size_t i = 1; i < 1009; i++)
		CHECK(z[i] != z[i - 1]);
	/* Trailing zero bytes change the hash. */
	memcpy(q, p, 8192);
	memset(q + 8192, 0, 64);
	for (size_t extra = 1; extra <= 64; extra++)
		CHECK(aeshash(q, 8192 + extra) != h);
	free(p);
	free(q);
}

/* Below 16 bytes (no caller of the collector's hashes so few): the bytes then zeros, as 16. */
static void test_short_inputs(void)
{
	unsigned char b[16] = { 0 }, in[15];

	for (int i = 0; i < 15; i++)
		in[i] = (unsigned char)(i * 37 + 1);
	for (size_t n = 0; n < 16; n++) {
		memset(b, 0, sizeof(b));
		memcpy(b, in, n);
		CHECK(aeshash(in, n) == aeshash_portable(b, 16));
		CHECK(aeshash_streaming(in, n) == aeshash_portable(b, 16));
	}
}

int main(void)
{
	RUN(test_round_is_aes);
	RUN(test_builds_agree);
	RUN(test_pinned_value);
	RUN(test_every_bit_counts);
	RUN(test_order_and_length_count);
	RUN(test_short_inputs);
	return check_done();
}
