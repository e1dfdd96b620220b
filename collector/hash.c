/*
 * hash.c - content hashes of transferred bytes.
 *
 * XXH3-64 through libxxhash's runtime-dispatched entry point, which picks the
 * widest SIMD path the CPU has (AVX-512, AVX2, SSE2).  Equal bytes give equal
 * hashes whichever path runs.
 */
#include <xxh_x86dispatch.h>

#include "collector/collector.h"

uint64_t hash_bytes(const void *p, uint64_t n)
{
	return XXH3_64bits_dispatch(p, (size_t)n);
}
