/*
 * content_hash.h - the content hash of docs/database.md, written from its
 * definition apart from collector/ (hash.c, aeshash*.c), for the tools that
 * cross-check the collector: the tracer (tracer.c) and the GPU checks
 * (tests/gpu/async_common.h).  Chunks of 16 KiB from 16 KiB, their piece
 * hashes (8 bytes little-endian each) hashed by XXH3-64 seeded with the
 * byte count; a piece's hash is XXH3-64, or aeshash from 4 KiB on a CPU with
 * AES-NI and SSE4.1 unless MAPPROF_HASH=xxh3, as the collector decides.
 * Static functions only: include it in one file of a program.
 */
#ifndef MAPPROF_TESTS_CONTENT_HASH_H
#define MAPPROF_TESTS_CONTENT_HASH_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#define XXH_STATIC_LINKING_ONLY  /* XXH3_state_t on the stack */
#include <xxhash.h>
#if defined(__x86_64__)
#include <immintrin.h>
#endif

#if defined(__x86_64__)
/* aeshash, from its definition in docs/database.md (written apart from collector/aeshash*.c). */
__attribute__((target("aes,sse4.1"))) static uint64_t aes_piece(const unsigned char *p, size_t n)
{
	static const uint64_t k[3][2] = {
		{ 0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull },
		{ 0x85EBCA77C2B2AE63ull, 0x94D049BB133111EBull },
		{ 0xBF58476D1CE4E5B9ull, 0xFF51AFD7ED558CCDull },
	};
	__m128i s[16], k1 = _mm_set_epi64x((long long)k[0][1], (long long)k[0][0]);
	size_t r = n % 256, m = (r + 15) / 16;

	for (uint64_t i = 0; i < 16; i++)
		s[i] = _mm_set_epi64x((long long)(0xC2B2AE3D27D4EB4Full * (2 * i + 2) ^ n),
				      (long long)(0x9E3779B97F4A7C15ull * (2 * i + 1) ^ n));
	for (size_t j = 0; j < n / 256 * 16 + m; j++) {
		size_t lane = j % 16, off = j < n / 256 * 16 ? 16 * j : (j + 1 == n / 256 * 16 + m ? n - 16 : 16 * j);
		s[lane] = _mm_aesenc_si128(_mm_aesenc_si128(s[lane], _mm_loadu_si128((const __m128i *)(p + off))), k1);
	}
	for (int w = 8; w >= 1; w /= 2)
		for (int i = 0; i < w; i++)
			s[i] = _mm_aesenc_si128(s[2 * i], s[2 * i + 1]);
	s[0] = _mm_xor_si128(s[0], _mm_set_epi64x((long long)~(uint64_t)n, (long long)n));
	s[0] = _mm_aesenc_si128(s[0], _mm_set_epi64x((long long)k[1][1], (long long)k[1][0]));
	s[0] = _mm_aesenc_si128(s[0], _mm_set_epi64x((long long)k[2][1], (long long)k[2][0]));
	return (uint64_t)_mm_cvtsi128_si64(s[0]) ^ (uint64_t)_mm_extract_epi64(s[0], 1);
}
#endif

/* A piece's hash: aeshash from 4 KiB where the CPU has AES instructions (unless MAPPROF_HASH=xxh3). */
static uint64_t piece_hash(const void *p, size_t n)
{
#if defined(__x86_64__)
	static int aes = -1;

	if (aes < 0) {
		const char *f = getenv("MAPPROF_HASH");
		aes = __builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1") && !(f && !strcmp(f, "xxh3"));
	}
	if (aes && n >= 4096)
		return aes_piece(p, n);
#endif
	return XXH3_64bits(p, n);
}

/* The content hash, from its definition (written apart from collector/hash.c). */
static uint64_t content_hash(const void *p, size_t n)
{
	enum { CHUNK = 16 * 1024 };
	XXH3_state_t st;
	unsigned char le[8];

	if (n < CHUNK)
		return piece_hash(p, n);
	XXH3_INITSTATE(&st);
	XXH3_64bits_reset_withSeed(&st, n);
	for (size_t off = 0; off < n; off += CHUNK) {
		uint64_t c = piece_hash((const unsigned char *)p + off, n - off < CHUNK ? n - off : CHUNK);
		for (int b = 0; b < 8; b++)
			le[b] = (unsigned char)(c >> (8 * b));
		XXH3_64bits_update(&st, le, sizeof(le));
	}
	return XXH3_64bits_digest(&st);
}

#endif
