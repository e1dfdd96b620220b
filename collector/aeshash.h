/*
 * aeshash.h - the bulk content hash: AES rounds over 16 lanes of 16 bytes.
 *
 * aeshash(p, n), for n >= 16, is defined on 16-byte lanes L (byte arrays,
 * as x86 AESENC sees an xmm register: byte k is row k % 4, column k / 4)
 * with R(s, k) = AESENC(s, k) = MixColumns(SubBytes(ShiftRows(s))) ^ k, one
 * AES encryption round, and u64 pairs written little-endian, low half first:
 *
 *   S[i] = C(i) ^ (n, n)                       for the 16 lanes i = 0..15
 *   each whole 256-byte block, lane i = its bytes 16i..16i+15:
 *       S[i] = R(R(S[i], lane i), K1)
 *   the r = n % 256 bytes left, in m = ceil(r / 16) pieces, piece j the 16
 *   bytes at n - r + 16j, the last one the buffer's final 16 bytes (it may
 *   overlap the piece before):   S[j] = R(R(S[j], piece j), K1)
 *   fold the lanes pairwise, in four levels, each pair (a, b) into R(a, b):
 *       16 -> 8 -> 4 -> 2 -> 1 state X  (lane order kept: (S[0], S[1]) first)
 *   A = R(R(X ^ (n, ~n), K2), K3)
 *   hash = low u64 of A ^ high u64 of A
 *
 * with C(i) = (0x9E3779B97F4A7C15 * (2i + 1), 0xC2B2AE3D27D4EB4F * (2i + 2))
 * and the constants K1..K3 in aeshash.c.  Every byte passes two rounds before
 * the next bytes of its lane enter, so one changed byte changes the whole
 * state of its lane, and every lane passes at least two rounds after the
 * fold (two AES rounds make every output byte depend on every input byte).  It is not a
 * cryptographic hash: as with XXH3, equal hashes of equal-length buffers
 * are taken to mean equal bytes, a chance collision being about 2^-64.
 *
 * Builds with AES instructions (AES-NI on 16 bytes, VAES on 32 and 64:
 * aeshash_simd.c; each also needs AES-NI and SSE4.1) and a portable one
 * (aeshash_portable(), a software AES round) compute the same values;
 * aeshash() takes the fastest the CPU has, the portable one without AES-NI
 * and SSE4.1 (hash.c then keeps to XXH3).
 */
#ifndef MAPPROF_COLLECTOR_AESHASH_H
#define MAPPROF_COLLECTOR_AESHASH_H

#include <stddef.h>
#include <stdint.h>

/* The hash of p[0..n), n >= 16 (fewer: of 16 bytes, p's then zeros), with the widest AES instructions the CPU has. */
uint64_t aeshash(const void *p, size_t n);

/* The same for n >= 16, computed without AES instructions (slow: for CPUs without them, and tests). */
uint64_t aeshash_portable(const void *p, size_t n);

/* Which build aeshash() uses: "vaes512", "vaes256", "aesni" or "portable". */
const char *aeshash_impl(void);

/*
 * The same hash with the build that reads memory fastest (aeshash.c), for
 * the pieces of a buffer too large to stay in cache, and which build that is.
 */
uint64_t aeshash_streaming(const void *p, size_t n);
const char *aeshash_streaming_impl(void);

/* One AESENC round, in software (tests hold it against FIPS-197 and the CPU). */
void aeshash_round(unsigned char s[16], const unsigned char k[16]);

/* Constants of the definition above (aeshash.c), as u64 pairs: K1..K3. */
extern const uint64_t aeshash_keys[3][2];
/* C(0)..C(15), filled before main() (aeshash.c). */
extern uint64_t aeshash_lanes[16][2];

#endif
