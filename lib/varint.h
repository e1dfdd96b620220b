/*
 * varint.h - unsigned LEB128 varints: 7 bits a byte, low bits first, the
 * high bit set on every byte but the last (protobuf's varint; not SQLite's,
 * db/pages/pagewrite.c).  At most 10 bytes for a 64-bit value.  The .pftrace
 * writer (report/trace/pftrace.c), the page timeline's temporary files
 * (db/read/timeline_rows.c) and the findings' operations sorted through a file
 * (report/findings/opspill.c) use them.
 */
#ifndef MAPPROF_LIB_VARINT_H
#define MAPPROF_LIB_VARINT_H

#include <stdint.h>

#define VARINT_MAX 10

/* v at p (room for VARINT_MAX bytes); returns the byte after it. */
static inline unsigned char *varint_put(unsigned char *p, uint64_t v)
{
	while (v > 0x7f) {
		*p++ = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	*p++ = (unsigned char)v;
	return p;
}

/* The varint at *p (all its bytes there); *p moves past it.  Bits past 64 are dropped. */
static inline uint64_t varint_get(const unsigned char **p)
{
	uint64_t v = 0;
	int shift = 0;
	unsigned char b;

	do {
		b = *(*p)++;
		if (shift < 64)
			v |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	return v;
}

/*
 * The varint at *p if it ends before end: 1 with *v and *p past it; 0 when
 * it runs to end (cut short), *p unmoved.
 */
static inline int varint_get_n(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	const unsigned char *q = *p;
	uint64_t x = 0;
	int shift = 0;
	unsigned char b;

	do {
		if (q >= end)
			return 0;
		b = *q++;
		if (shift < 64)
			x |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	*p = q;
	*v = x;
	return 1;
}

/* v (a difference, of either sign) as a zigzag varint: small magnitudes are short. */
static inline unsigned char *zigzag_put(unsigned char *p, uint64_t v)
{
	return varint_put(p, v << 1 ^ (uint64_t)-(int64_t)(v >> 63));
}

static inline uint64_t zigzag_value(uint64_t z)
{
	return z >> 1 ^ (uint64_t)-(int64_t)(z & 1);
}

#endif
