/*
 * interpose.h - our offload entry points: the source records clang passes
 * them (directive line, mapped variables' names), noted per call site and
 * per thread.  Beside the callbacks, above buffer.c: the callbacks ask it
 * which map entry a data operation moved, and hand its call sites to the
 * spool with each buffer written.
 */
#ifndef MAPPROF_COLLECTOR_INTERPOSE_H
#define MAPPROF_COLLECTOR_INTERPOSE_H

#include <stdint.h>

#include "collector/state.h"

/*
 * The map entry of the offload call in progress on this thread that covers
 * host address 'addr', or -1.
 */
int interpose_map_index(const struct thread_state *t, uint64_t addr);
/*
 * The PTR_AND_OBJ entry of the offload call in progress whose pointer is at
 * host address 'slot' (attach_transfer_to()'s), or -1.
 */
int interpose_attach_index(const struct thread_state *t, uint64_t slot);
/*
 * Send the offload calls of the objects that link libomptarget (and were
 * loaded since the last call) to our entry points.  Cheap when nothing was
 * loaded.
 */
void interpose_install(void);
/* Write the source records seen so far that are not yet in the spool. */
void interpose_flush(void);
/* Around fork() (procs.c); in the child every call site is unwritten again. */
void interpose_at_fork(enum fork_moment when);
/* Nonzero when call sites wait to be written (cheap, no lock). */
int interpose_pending(void);
/* Nonzero when this thread does not hold the call sites' lock (never waits). */
int interpose_lock_free(void);

#endif
