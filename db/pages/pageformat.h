/*
 * pageformat.h - the pieces of SQLite's file format (fileformat2.html) that
 * both db/pages/pagewrite.c and db/pages/pageread.c use: big-endian fields and the
 * lock-byte page (db/ only).
 */
#ifndef MAPPROF_DB_PAGEFORMAT_H
#define MAPPROF_DB_PAGEFORMAT_H

#include <stdint.h>

/* SQLite's lock bytes start at 1 GiB: the page holding them is never used. */
#define PENDING_BYTE 0x40000000u
/* Its pending, reserved and shared bytes, from PENDING_BYTE on: what an EXCLUSIVE lock holds. */
#define LOCK_BYTES 512

static inline uint32_t get16(const unsigned char *p)
{
	return (uint32_t)p[0] << 8 | p[1];
}

static inline uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void put32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 24);
	p[1] = (unsigned char)(v >> 16);
	p[2] = (unsigned char)(v >> 8);
	p[3] = (unsigned char)v;
}

#endif
