/*
 * ring.h - event buffers shared between the program and 'mapprof record'.
 *
 * Under 'mapprof record' the collector's per-thread event buffers are chunks
 * of a ring in shared memory (a memfd that 'record' creates and the program
 * inherits, MAPPROF_RING_FD).  A thread fills its chunk, marks it full and
 * takes a free one: no system call.  'record', idle while the program runs,
 * appends full chunks to the spool on its own core and frees them.  The
 * program never pays for the kernel copying its records into the page cache,
 * and when it is killed, 'record' still finds each thread's last records in
 * the ring.
 *
 * A chunk's state moves FREE -> OWNED (a thread claimed it) -> FULL (the
 * thread is done with it) -> DRAINING (record writes it) -> FREE.  When no
 * chunk is free the thread writes its own chunk to the spool and keeps it,
 * as without a ring: nothing is lost and nothing waits.
 *
 * Layout: struct ring_header, then nchunks struct ring_chunk.  The chunk's
 * frame header sits right before its records, so a chunk is written to the
 * spool with one write().
 */
#ifndef MAPPROF_DB_RING_H
#define MAPPROF_DB_RING_H

#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "db/spool.h"

#define RING_MAGIC "MPRING1"  /* 8 bytes with its NUL */
#define RING_CHUNK_RECS 1024
#define RING_CHUNKS_DEFAULT 64  /* 6 MiB: 65536 events in flight */

enum ring_state {
	RING_FREE = 0,
	RING_OWNED,
	RING_FULL,
	RING_DRAINING,
};

struct ring_header {
	char magic[8];
	uint32_t nchunks;
	uint32_t chunk_size;         /* sizeof(struct ring_chunk) of the creator */
	_Atomic int64_t owner;       /* pid of the process that records into it; 0: none yet */
	char pad[40];
};

struct ring_chunk {
	_Atomic uint32_t state;      /* enum ring_state */
	_Atomic uint32_t n;          /* records filled */
	alignas(8) struct spool_frame frame;
	struct rec recs[RING_CHUNK_RECS];
};
_Static_assert(sizeof(struct ring_header) == 64, "the chunks start at byte 64");
_Static_assert(offsetof(struct ring_chunk, recs) ==
		       offsetof(struct ring_chunk, frame) + sizeof(struct spool_frame),
	       "records must follow the frame header");

static inline size_t ring_bytes(uint32_t nchunks)
{
	return sizeof(struct ring_header) + (size_t)nchunks * sizeof(struct ring_chunk);
}

static inline struct ring_chunk *ring_chunk_at(struct ring_header *h, uint32_t i)
{
	return (struct ring_chunk *)(void *)((char *)h + sizeof(*h)) + i;
}

#endif
