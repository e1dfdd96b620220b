/*
 * xxh3_simd.c - XXH3-64 of a buffer, from libxxhash's own header compiled
 * in (XXH_INLINE_ALL), once per SIMD width: the Makefile builds this file
 * with -mavx2 and with -mavx512f, and XXH3_SIMD_NAME names each build.
 * hash.c picks the widest the CPU has.
 *
 * Why not libxxhash's runtime dispatch: it asks the CPU with cpuid at the
 * first long input, and cpuid traps to the hypervisor in a VM (about 6 us
 * each here, 23 us per run), and it makes the program load one more
 * library.  Every variant computes the same XXH3-64.
 */
#include <stddef.h>
#include <stdint.h>

#define XXH_INLINE_ALL
#include <xxhash.h>

__attribute__((visibility("hidden"))) uint64_t XXH3_SIMD_NAME(const void *p, size_t n);

uint64_t XXH3_SIMD_NAME(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}
