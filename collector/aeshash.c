/*
 * aeshash.c - aeshash() (aeshash.h): its constants, the software AES round,
 * the portable build, and the choice of build for this CPU.
 *
 * The choice reads what glibc already learned of the CPU at start-up
 * (CPU_FEATURE_ACTIVE: no cpuid, which traps to the hypervisor in a VM).
 * VAES on 64-byte registers is taken only with AVX-512; on CPUs that split
 * 512-bit work in two halves it runs as fast as on 32 bytes, no faster.
 *
 * Two choices: aeshash() for bytes in cache (the widest build), and
 * aeshash_streaming() for the pieces of a buffer too large to stay there,
 * which keeps to 32-byte registers where the CPU has VAES.  Hashing from
 * memory, 256-bit VAES already outruns what memory delivers, and the 512-bit
 * build ran slower: AMD EPYC (Zen 4), one thread, 16 KiB pieces, GB/s
 * (bench/hash_bench's buffers, medians): 64 MiB 38.9 against 30.5, a
 * freshly written 8 MiB hashed then copied 441-472 us against 474-501,
 * 32 MiB 2506-2529 against 2749-2789; at 1 MiB and below (cache) the
 * 512-bit build is 1-8 % faster.  MAPPROF_AESHASH=aesni, vaes256 or
 * vaes512 makes both use that build (for measuring; one the CPU lacks is
 * ignored).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "collector/aeshash.h"

#if defined(MAPPROF_XXH3_X86)
#include <sys/platform/x86.h>
uint64_t mapprof_aeshash_aesni(const void *p, size_t n);
uint64_t mapprof_aeshash_vaes256(const void *p, size_t n);
uint64_t mapprof_aeshash_vaes512(const void *p, size_t n);
#endif

const uint64_t aeshash_keys[3][2] = {
	{ 0x165667B19E3779F9ull, 0x27D4EB2F165667C5ull },
	{ 0x85EBCA77C2B2AE63ull, 0x94D049BB133111EBull },
	{ 0xBF58476D1CE4E5B9ull, 0xFF51AFD7ED558CCDull },
};

/* Multiplication by x in GF(2^8) modulo AES's x^8 + x^4 + x^3 + x + 1. */
static unsigned char xtime(unsigned char a)
{
	return (unsigned char)((a << 1) ^ (a & 0x80 ? 0x1b : 0));
}

static unsigned char gmul(unsigned char a, unsigned char b)
{
	unsigned char r = 0;

	for (; b; b >>= 1, a = xtime(a))
		if (b & 1)
			r ^= a;
	return r;
}

/* AES's S-box, computed from its definition: the inverse in GF(2^8), then the affine map. */
static unsigned char sbox_of(unsigned char x)
{
	unsigned char inv = 1, y = 0;

	/* x^254 = x^-1 (0 for 0). */
	for (int e = 254, base = x; e; e >>= 1, base = gmul((unsigned char)base, (unsigned char)base))
		if (e & 1)
			inv = gmul(inv, (unsigned char)base);
	if (!x)
		inv = 0;
	for (int i = 0; i < 8; i++) {
		int bit = (inv >> i) ^ (inv >> ((i + 4) & 7)) ^ (inv >> ((i + 5) & 7)) ^
			  (inv >> ((i + 6) & 7)) ^ (inv >> ((i + 7) & 7)) ^ (0x63 >> i);
		y |= (unsigned char)((bit & 1) << i);
	}
	return y;
}

static unsigned char sbox[256];
uint64_t aeshash_lanes[16][2];

__attribute__((constructor)) static void sbox_init(void)
{
	for (int i = 0; i < 256; i++)
		sbox[i] = sbox_of((unsigned char)i);
	for (uint64_t i = 0; i < 16; i++) {
		aeshash_lanes[i][0] = 0x9E3779B97F4A7C15ull * (2 * i + 1);
		aeshash_lanes[i][1] = 0xC2B2AE3D27D4EB4Full * (2 * i + 2);
	}
}

void aeshash_round(unsigned char s[16], const unsigned char k[16])
{
	unsigned char t[16];

	if (!sbox[0])
		sbox_init();
	/* ShiftRows (row r moves left by r columns) and SubBytes. */
	for (int c = 0; c < 4; c++)
		for (int r = 0; r < 4; r++)
			t[r + 4 * c] = sbox[s[r + 4 * ((c + r) & 3)]];
	/* MixColumns, then the round key. */
	for (int c = 0; c < 4; c++) {
		unsigned char a0 = t[4 * c], a1 = t[4 * c + 1], a2 = t[4 * c + 2], a3 = t[4 * c + 3];

		s[4 * c] = (unsigned char)(xtime(a0) ^ xtime(a1) ^ a1 ^ a2 ^ a3 ^ k[4 * c]);
		s[4 * c + 1] = (unsigned char)(a0 ^ xtime(a1) ^ xtime(a2) ^ a2 ^ a3 ^ k[4 * c + 1]);
		s[4 * c + 2] = (unsigned char)(a0 ^ a1 ^ xtime(a2) ^ xtime(a3) ^ a3 ^ k[4 * c + 2]);
		s[4 * c + 3] = (unsigned char)(xtime(a0) ^ a0 ^ a1 ^ a2 ^ xtime(a3) ^ k[4 * c + 3]);
	}
}

static void put_pair(unsigned char *out, uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < 8; i++) {
		out[i] = (unsigned char)(lo >> (8 * i));
		out[8 + i] = (unsigned char)(hi >> (8 * i));
	}
}

static uint64_t get_u64(const unsigned char *in)
{
	uint64_t v = 0;

	for (int i = 7; i >= 0; i--)
		v = v << 8 | in[i];
	return v;
}

/* Lane s takes 16 bytes: s = R(R(s, d), K1). */
static void absorb(unsigned char s[16], const unsigned char *d, const unsigned char k1[16])
{
	unsigned char dd[16];

	memcpy(dd, d, 16);
	aeshash_round(s, dd);
	aeshash_round(s, k1);
}

uint64_t aeshash_portable(const void *p, size_t n)
{
	const unsigned char *b = p;
	unsigned char s[16][16], k[3][16], a[16];
	size_t r = n % 256, m = (r + 15) / 16;

	for (int i = 0; i < 3; i++)
		put_pair(k[i], aeshash_keys[i][0], aeshash_keys[i][1]);
	for (uint64_t i = 0; i < 16; i++)
		put_pair(s[i], 0x9E3779B97F4A7C15ull * (2 * i + 1) ^ n, 0xC2B2AE3D27D4EB4Full * (2 * i + 2) ^ n);
	if (!aeshash_lanes[0][0])
		sbox_init();
	for (size_t off = 0; off + 256 <= n; off += 256)
		for (int i = 0; i < 16; i++)
			absorb(s[i], b + off + 16 * i, k[0]);
	for (size_t j = 0; j < m; j++)
		absorb(s[j], b + (j + 1 == m ? n - 16 : n - r + 16 * j), k[0]);
	for (int w = 16; w > 1; w /= 2)
		for (int i = 0; i < w / 2; i++) {
			memmove(s[i], s[2 * i], 16);
			aeshash_round(s[i], s[2 * i + 1]);
		}
	put_pair(a, (uint64_t)n, ~(uint64_t)n);
	for (int x = 0; x < 16; x++)
		a[x] ^= s[0][x];
	aeshash_round(a, k[1]);
	aeshash_round(a, k[2]);
	return get_u64(a) ^ get_u64(a + 8);
}

static uint64_t pick_and_hash(const void *p, size_t n);
static uint64_t (*impl)(const void *, size_t) = pick_and_hash;
static uint64_t (*impl_streaming)(const void *, size_t) = pick_and_hash;
static const char *impl_name, *streaming_name;

/* Idempotent: every caller, in any order of constructors, gets the same choice. */
static void pick(void)
{
	uint64_t (*f)(const void *, size_t) = aeshash_portable, (*fs)(const void *, size_t);
	const char *name = "portable", *sname;

	if (!aeshash_lanes[0][0])
		sbox_init();
	fs = f, sname = name;
#if defined(MAPPROF_XXH3_X86)
	/* Every build runs AES-NI and SSE4.1 instructions for the tail and the fold. */
	if (CPU_FEATURE_ACTIVE(AES) && CPU_FEATURE_ACTIVE(SSE4_1)) {
		const char *force = getenv("MAPPROF_AESHASH");
		int v256 = CPU_FEATURE_ACTIVE(VAES) && CPU_FEATURE_ACTIVE(AVX2) &&
			   !(force && !strcmp(force, "aesni"));
		int v512 = v256 && CPU_FEATURE_ACTIVE(AVX512F) && !(force && !strcmp(force, "vaes256"));

		if (v512)
			f = mapprof_aeshash_vaes512, name = "vaes512";
		else if (v256)
			f = mapprof_aeshash_vaes256, name = "vaes256";
		else
			f = mapprof_aeshash_aesni, name = "aesni";
		fs = f, sname = name;
		if (v256 && !(force && !strcmp(force, "vaes512")))
			fs = mapprof_aeshash_vaes256, sname = "vaes256";
	}
#endif
	impl = f;
	impl_name = name;
	impl_streaming = fs;
	streaming_name = sname;
}

static uint64_t pick_and_hash(const void *p, size_t n)
{
	pick();
	return impl(p, n);
}

__attribute__((constructor)) static void aeshash_pick(void)
{
	if (!impl_name)
		pick();
}

/* Below 16 bytes (no caller hashes so few): the bytes followed by zeros, then n = 16. */
static uint64_t short_input(uint64_t (*f)(const void *, size_t), const void *p, size_t n)
{
	unsigned char b[16] = { 0 };

	if (n)
		memcpy(b, p, n);
	return f(b, sizeof(b));
}

uint64_t aeshash(const void *p, size_t n)
{
	return n < 16 ? short_input(impl, p, n) : impl(p, n);
}

uint64_t aeshash_streaming(const void *p, size_t n)
{
	return n < 16 ? short_input(impl_streaming, p, n) : impl_streaming(p, n);
}

const char *aeshash_impl(void)
{
	if (!impl_name)
		pick();
	return impl_name;
}

const char *aeshash_streaming_impl(void)
{
	if (!streaming_name)
		pick();
	return streaming_name;
}
