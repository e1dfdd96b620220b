/*
 * check.h - 'mapprof record --check' (MAPPROF_CHECK=1): the mapping bugs the
 * collector can see while the program runs (docs/checks.md).
 *
 *   never_written    a copy back to the host brings bytes that nothing wrote
 *                    on the device since its buffer was allocated: each new
 *                    device buffer is filled with a canary at the
 *                    allocation's end, the ranges sent to it since are left
 *                    out, and the host destination is searched for canary
 *                    runs when the copy back completes;
 *   lost_host_write  a copy back overwrites host bytes that the host changed
 *                    after their last transfer to or from that device
 *                    buffer: the host range's bytes are kept at each
 *                    transfer (a shadow) and compared when the copy back
 *                    starts;
 *   race             the host writes the source of a nowait copy to a
 *                    device, or the destination of a nowait copy back,
 *                    between the copy and its task's completion: the range
 *                    is kept at the copy and compared at the completion.
 *
 * Each occurrence goes to the spool as a CHECK frame (db/spool/spool.h),
 * naming the data operation by its seq; the report attributes and groups
 * them.  collector.c calls these only when check_on is set: with it off
 * the cost is that one test per callback.  The state is behind one lock
 * (checking is opt-in and costs far more than the lock).  Memory comes
 * from mappings of our own (never the program's heap: text.h says why).
 */
#ifndef MAPPROF_COLLECTOR_CHECK_H
#define MAPPROF_COLLECTOR_CHECK_H

#include <stdint.h>

#include "collector/state.h"

/* Nonzero when the checks run (MAPPROF_CHECK=1 at the tool's start). */
extern int check_on COLLECTOR_HIDDEN;

/* Read MAPPROF_CHECK; called once, before the first callback. */
void check_start(void);

/* An allocation ended: dev_addr on dev now holds 'bytes' for host_addr. */
void check_alloc(uint64_t seq, int dev, uint64_t host_addr, uint64_t dev_addr, uint64_t bytes);
/* A delete: the buffer at dev_addr on dev is gone. */
void check_delete(int dev, uint64_t dev_addr);

/*
 * A transfer begins (the copy has not read its source yet).  'task': the
 * nowait construct's target task it belongs to (what check_task_done()
 * is given), NULL for a blocking one.  host_dev is the host's number.
 */
void check_transfer_begin(uint64_t seq, int to_device, int src_dev, uint64_t src_addr, int dst_dev,
			  uint64_t dst_addr, uint64_t bytes, int host_dev, const void *task);
/* A copy back to the host (src on src_dev -> host dst) is complete: its bytes are in dst. */
void check_copied_back(uint64_t seq, int src_dev, uint64_t src_addr, uint64_t dst_addr, uint64_t bytes,
		       const void *task);
/* A nowait construct's target task completed: its copies' completion point. */
void check_task_done(const void *task);

/*
 * Around fork() (collector.c's pthread_atfork handlers): the lock is held
 * across it; the child forgets the parent's buffers and copies (its
 * runtime starts anew, docs/usage.md "Several processes").
 */
void check_at_fork(enum fork_moment when);

/* The run's check counters as STAT frames (at the end of the run). */
void check_stats(void);

#endif
