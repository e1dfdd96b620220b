/*
 * aeshash_simd.c - aeshash() (aeshash.h) with AES instructions, built once
 * per register width: the Makefile compiles this file with AESH_WIDTH=128
 * (-maes -msse4.1), 256 (-maes -mvaes -mavx2) and 512 (-maes -mvaes
 * -mavx512f), and AESH_NAME
 * names each build.  A VAES instruction is AES-NI's round on each 16-byte
 * lane of its register, so the three compute the same hash; aeshash.c picks
 * one.  The 256-byte blocks go through the widest registers; the tail and
 * the fold are the same 16-byte code in every build.
 */
#include <immintrin.h>
#include <stddef.h>
#include <stdint.h>

#include "collector/aeshash.h"

__attribute__((visibility("hidden"))) uint64_t AESH_NAME(const void *p, size_t n);

static inline __m128i pair(uint64_t lo, uint64_t hi)
{
	return _mm_set_epi64x((long long)hi, (long long)lo);
}

#define R(s, k) _mm_aesenc_si128((s), (k))

/* The tail and the fold, on the 16 lanes' states. */
static uint64_t finish(__m128i *s, const unsigned char *b, size_t n)
{
	const __m128i k1 = pair(aeshash_keys[0][0], aeshash_keys[0][1]);
	const __m128i k2 = pair(aeshash_keys[1][0], aeshash_keys[1][1]);
	size_t r = n % 256, m = (r + 15) / 16;
	__m128i a;

	for (size_t j = 0; j < m; j++) {
		size_t off = j + 1 == m ? n - 16 : n - r + 16 * j;
		s[j] = R(R(s[j], _mm_loadu_si128((const __m128i *)(b + off))), k1);
	}
	for (int w = 16; w > 1; w /= 2)
		for (int i = 0; i < w / 2; i++)
			s[i] = R(s[2 * i], s[2 * i + 1]);
	a = R(_mm_xor_si128(s[0], pair((uint64_t)n, ~(uint64_t)n)), k2);
	a = R(a, pair(aeshash_keys[2][0], aeshash_keys[2][1]));
	return (uint64_t)_mm_cvtsi128_si64(a) ^ (uint64_t)_mm_extract_epi64(a, 1);
}

static void init(__m128i *s, size_t n)
{
	const __m128i nn = _mm_set1_epi64x((long long)n);

	for (int i = 0; i < 16; i++)
		s[i] = _mm_xor_si128(_mm_loadu_si128((const __m128i *)aeshash_lanes[i]), nn);
}

#if AESH_WIDTH == 512
uint64_t AESH_NAME(const void *p, size_t n)
{
	const unsigned char *b = p;
	__m128i s[16];
	__m512i z[4];
	const __m512i k1 = _mm512_broadcast_i32x4(pair(aeshash_keys[0][0], aeshash_keys[0][1]));
	size_t blocks = n / 256;

	init(s, n);
	for (int i = 0; i < 4; i++)
		z[i] = _mm512_loadu_si512(&s[4 * i]);
	for (size_t q = 0; q < blocks; q++, b += 256) {
		z[0] = _mm512_aesenc_epi128(_mm512_aesenc_epi128(z[0], _mm512_loadu_si512(b)), k1);
		z[1] = _mm512_aesenc_epi128(_mm512_aesenc_epi128(z[1], _mm512_loadu_si512(b + 64)), k1);
		z[2] = _mm512_aesenc_epi128(_mm512_aesenc_epi128(z[2], _mm512_loadu_si512(b + 128)), k1);
		z[3] = _mm512_aesenc_epi128(_mm512_aesenc_epi128(z[3], _mm512_loadu_si512(b + 192)), k1);
	}
	for (int i = 0; i < 4; i++)
		_mm512_storeu_si512(&s[4 * i], z[i]);
	return finish(s, p, n);
}
#elif AESH_WIDTH == 256
#define Y(i) y##i = _mm256_aesenc_epi128(_mm256_aesenc_epi128(y##i, _mm256_loadu_si256((const __m256i *)(b + 32 * i))), k1)
uint64_t AESH_NAME(const void *p, size_t n)
{
	const unsigned char *b = p;
	__m128i s[16];
	const __m256i k1 = _mm256_broadcastsi128_si256(pair(aeshash_keys[0][0], aeshash_keys[0][1]));
	size_t blocks = n / 256;
	__m256i y0, y1, y2, y3, y4, y5, y6, y7;

	init(s, n);
	/* Eight named registers: an array would go through memory in the loop. */
	y0 = _mm256_loadu_si256((const __m256i *)&s[0]), y1 = _mm256_loadu_si256((const __m256i *)&s[2]);
	y2 = _mm256_loadu_si256((const __m256i *)&s[4]), y3 = _mm256_loadu_si256((const __m256i *)&s[6]);
	y4 = _mm256_loadu_si256((const __m256i *)&s[8]), y5 = _mm256_loadu_si256((const __m256i *)&s[10]);
	y6 = _mm256_loadu_si256((const __m256i *)&s[12]), y7 = _mm256_loadu_si256((const __m256i *)&s[14]);
	for (size_t q = 0; q < blocks; q++, b += 256) {
		Y(0); Y(1); Y(2); Y(3); Y(4); Y(5); Y(6); Y(7);
	}
	_mm256_storeu_si256((__m256i *)&s[0], y0), _mm256_storeu_si256((__m256i *)&s[2], y1);
	_mm256_storeu_si256((__m256i *)&s[4], y2), _mm256_storeu_si256((__m256i *)&s[6], y3);
	_mm256_storeu_si256((__m256i *)&s[8], y4), _mm256_storeu_si256((__m256i *)&s[10], y5);
	_mm256_storeu_si256((__m256i *)&s[12], y6), _mm256_storeu_si256((__m256i *)&s[14], y7);
	return finish(s, p, n);
}
#else
#define X(i) x##i = R(R(x##i, _mm_loadu_si128((const __m128i *)(b + 16 * i))), k1)
uint64_t AESH_NAME(const void *p, size_t n)
{
	const unsigned char *b = p;
	__m128i s[16];
	const __m128i k1 = pair(aeshash_keys[0][0], aeshash_keys[0][1]);
	size_t blocks = n / 256;
	__m128i x0, x1, x2, x3, x4, x5, x6, x7, x8, x9, x10, x11, x12, x13, x14, x15;

	init(s, n);
	x0 = s[0], x1 = s[1], x2 = s[2], x3 = s[3], x4 = s[4], x5 = s[5], x6 = s[6], x7 = s[7];
	x8 = s[8], x9 = s[9], x10 = s[10], x11 = s[11], x12 = s[12], x13 = s[13], x14 = s[14], x15 = s[15];
	for (size_t q = 0; q < blocks; q++, b += 256) {
		X(0); X(1); X(2); X(3); X(4); X(5); X(6); X(7);
		X(8); X(9); X(10); X(11); X(12); X(13); X(14); X(15);
	}
	s[0] = x0, s[1] = x1, s[2] = x2, s[3] = x3, s[4] = x4, s[5] = x5, s[6] = x6, s[7] = x7;
	s[8] = x8, s[9] = x9, s[10] = x10, s[11] = x11, s[12] = x12, s[13] = x13, s[14] = x14, s[15] = x15;
	return finish(s, p, n);
}
#endif
