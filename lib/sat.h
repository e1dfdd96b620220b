/*
 * sat.h - saturating arithmetic on times and sizes.
 *
 * A recorded value can be anything a damaged or hostile database holds, and
 * a sum of sound values can still run past 64 bits (eight allocations of
 * 2^61 bytes).  Signed overflow is undefined behaviour in C: the compiler is
 * free to turn it into an out-of-memory error or a 134 MB page.  These
 * helpers clamp instead.  Results stay within [INT64_MIN, INT64_MAX] for the
 * signed ones and within [0, INT64_MAX] for sat_add_u64, the largest value a
 * SQLite or JSON integer holds, so a saturated total is still written as the
 * same number everywhere.
 */
#ifndef MAPPROF_LIB_SAT_H
#define MAPPROF_LIB_SAT_H

#include <stdint.h>

static inline int64_t sat_add_i64(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_add_overflow(a, b, &r))
		return b > 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t sat_sub_i64(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_sub_overflow(a, b, &r))
		return b < 0 ? INT64_MAX : INT64_MIN;
	return r;
}

static inline int64_t sat_mul_i64(int64_t a, int64_t b)
{
	int64_t r;
	if (__builtin_mul_overflow(a, b, &r))
		return (a < 0) == (b < 0) ? INT64_MAX : INT64_MIN;
	return r;
}

/* a + b for sizes and counts, capped at INT64_MAX (not UINT64_MAX: see above). */
static inline uint64_t sat_add_u64(uint64_t a, uint64_t b)
{
	uint64_t r;
	if (__builtin_add_overflow(a, b, &r) || r > (uint64_t)INT64_MAX)
		return (uint64_t)INT64_MAX;
	return r;
}

static inline uint64_t sat_mul_u64(uint64_t a, uint64_t b)
{
	uint64_t r;
	if (__builtin_mul_overflow(a, b, &r) || r > (uint64_t)INT64_MAX)
		return (uint64_t)INT64_MAX;
	return r;
}

#endif
