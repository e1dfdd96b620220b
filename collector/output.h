/*
 * output.h - the spool file the collector's events go to (db/spool/spool.h).
 *
 * The bottom of the collector's line above the leaves: every file that
 * writes frames calls it, and it calls only text.h and db/.  Frames are
 * serialised by one lock; small ones are staged and go out with the next
 * buffer of events or at output_sync().
 */
#ifndef MAPPROF_COLLECTOR_OUTPUT_H
#define MAPPROF_COLLECTOR_OUTPUT_H

#include <stddef.h>
#include <stdint.h>

#include "collector/state.h"
#include "db/spool/ring.h"
#include "db/spool/spool.h"

/*
 * Claim the spool.  0; -1: this process does not record (said why on
 * stderr); -2: under 'mapprof record', another process claimed its spool (or
 * its descriptors are not this process's) and MAPPROF_SPOOL_DIR offers one of
 * this process's own (procs.c).
 */
int output_open(void);
/*
 * Write to fd, a new empty spool file at path, from now on (its header
 * first); r, when not NULL, is the process's own ring (procs.c), the file
 * ring_file, whose accounting it takes over.  0 or -1.
 */
int output_adopt(int fd, const char *path, struct ring_header *r, const char *ring_file);
/*
 * Give the first 'upto' chunks of this process's ring file disk blocks
 * (ring_header.backed): 0, or -1 when the disk is full (or the ring is not a file).
 */
int output_ring_grow(uint32_t upto);
/* The pid of 'mapprof record' (MAPPROF_RECORDER), or 0. */
long output_recorder(void);
/*
 * How this process ends (enum ring_end, db/spool/ring.h), told to 'record' through
 * its ring.  Takes no lock: async-signal-safe.
 */
void output_ended(int how, int status);
/* One more offload call after the collector finished (db/spool/ring.h calls_late). */
void output_call_late(void);
/*
 * For _exit() and exec, which a signal handler may call (procs.c): with 'on',
 * frames that need the heap are dropped and the spool is not expanded by hand.
 */
void output_no_heap(int on);
/* Nonzero when this thread does not hold the spool's lock (it takes and drops it, never waits). */
int output_lock_free(void);
/* Around fork() (procs.c): the lock held across it; the child drops the parent's spool and ring. */
void output_at_fork(enum fork_moment when);
/* Append a frame; its fields as spool_frame_format(type) says (int64_t, const char *). */
int output_frame(uint32_t type, ...);
/* Append a CLOCK frame: a timestamp counter reading and CLOCK_MONOTONIC, taken together. */
int output_clock_frame(void);
/* Write the staged frames out now.  0 or -1. */
int output_sync(void);
/*
 * Append the n records that follow 'frame' in memory (and the staged
 * frames).  *write_from (when not NULL) is set to the spool's size before
 * the write (ring_chunk.write_from).  0 or -1.
 */
int output_records(struct spool_frame *frame, size_t n, _Atomic int64_t *write_from);
/* Nonzero after a write failed (recording stops). */
int output_failed(void);
/*
 * Once per buffer of events: 0 while recording goes on; -1 once the spool
 * stopped (its cap, a failed write, or 'mapprof record' gone), said once.
 * 'writing': this process is about to append to the spool itself; else the
 * buffer goes to the ring, and whether 'record' is gone (two system calls)
 * is looked at no more than every 4 ms.
 */
int output_check(int writing);
/* Why the spool stopped, as the run's status detail, into buf; 0, or -1 while it goes on. */
int output_stop_text(char *buf, size_t n);
/* The ring shared with 'mapprof record' (db/spool/ring.h), or NULL; borrowed for the process's life. */
struct ring_header *output_ring(void);
/* A ring chunk was just marked full: wake 'mapprof record' if it sleeps long (ring.h drain_sleep). */
void output_ring_full(void);
/* Close the spool; loaded by hand, also build the database from it. */
void output_close(void);

#endif
