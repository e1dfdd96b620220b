/*
 * buffer.h - per-thread event buffers: where a callback puts its record.
 *
 * A callback asks for a slot with buffer_slot(), fills it and commits it
 * with buffer_commit().  Both are inline and, while the thread's buffer has
 * room, call nothing: a load, a compare and an address.  A full buffer goes
 * to the spool (output.h) on buffer.c's slow path, once per RING_CHUNK_RECS
 * events.  buffer.c calls only output.c and the leaves; what the files above
 * it add to a buffer written (libraries loaded, call sites seen) comes
 * through the hooks given to buffer_start().
 */
#ifndef MAPPROF_COLLECTOR_BUFFER_H
#define MAPPROF_COLLECTOR_BUFFER_H

#include <stdatomic.h>

#include "collector/state.h"
#include "db/spool/ring.h"
#include "db/spool/spool.h"

/* When buffer.c asks the files above it for the frames that go with the events. */
enum buffer_moment {
	BUFFER_WRITTEN,  /* a thread wrote its own buffer (it was full, or the thread ended) */
	BUFFER_SWAPPED,  /* a full ring chunk went to 'mapprof record' */
	BUFFER_END,      /* the end of the run, before its last frames */
};

/*
 * Frames that are not buffer.c's to know but must reach the spool with the
 * events around them, so that a killed program keeps them too.  Called on
 * the slow paths only (once per buffer, never per event).
 */
struct buffer_hooks {
	/* Nonzero when frames wait to be written (cheap, no lock): asked before a swap takes the lock. */
	int (*frames_waiting)(void);
	/* Append them to the spool (output_frame()); called with buffer.c's lock held. */
	void (*frames_write)(enum buffer_moment when);
	/* Nonzero when this thread holds none of the locks frames_write() takes (never waits). */
	int (*frames_lock_free)(void);
	/*
	 * Events the layer above holds back (a from-device hash waiting for its
	 * copy to be complete) go into the buffers now: thread t's when t ends,
	 * every thread's (t NULL) before the end of the run, an _exit() or an
	 * exec.  'signal_safe': a signal handler may be here (no waiting for a
	 * lock, no heap).  Called without buffer.c's lock.
	 */
	void (*held_flush)(struct thread_state *t, int signal_safe);
};

/* Start recording; 'hooks' is copied. */
void buffer_start(const struct buffer_hooks *hooks);
/*
 * Write what is left in every thread's buffer, the end of the run, and close
 * the spool.  Idempotent; a no-op when recording never started.
 */
void buffer_finish(void);
/*
 * _exit() or _Exit(): buffer_finish() as far as it can go without waiting
 * for a lock or using the heap (a signal handler may be here).  Another
 * thread's ring chunk is left to 'record'.  Nothing is written when this
 * thread holds one of the collector's locks (the signal cut into it): the
 * ring's chunks still reach the spool through 'record'.
 */
void buffer_exit(void);
/*
 * Before an exec, which drops the process's memory, and which a signal
 * handler may call (as buffer_exit()): the frames that go with the events
 * (call sites, libraries) and this thread's own buffer outside the ring go
 * to the spool now; ring chunks outlive the exec and 'record' appends them.
 * Recording goes on (the exec may fail).
 */
void buffer_sync(void);

/*
 * Around fork() (procs.c): the lock held across it; in the child, forget the
 * parent's buffers and stop until buffer_restart() (once the child's own
 * spool is open).
 */
void buffer_at_fork(enum fork_moment when);
void buffer_restart(void);

extern atomic_int buffer_running COLLECTOR_HIDDEN;

/* Nonzero while events are recorded (cheap: callbacks test it first). */
static inline int buffer_recording(void)
{
	return atomic_load_explicit(&buffer_running, memory_order_relaxed);
}

extern __thread struct thread_state *collector_thread __attribute__((tls_model("initial-exec")));
/* Map this thread's state (at its first event); NULL if that fails. */
struct thread_state *thread_state_new(void);

/* This thread's state block (state.h), mapped at its first call; NULL if that failed. */
static inline struct thread_state *thread_state(void)
{
	struct thread_state *t = collector_thread;
	return __builtin_expect(t != NULL, 1) ? t : thread_state_new();
}

/* 1 when no thread holds buffer.c's lock (a signal handler must not wait for it). */
int buffer_lock_free(void);

/* The process is ending: at exit(), _exit() or the collector's unload (before finishing). */
void buffer_exiting(void);
/*
 * 1 when the collector finished (nothing more is recorded) while the process
 * was not ending: the runtime finalized the tool, as a hard pause does.
 */
int buffer_finished_early(void);

/* buffer_slot() when the thread has no buffer yet or its buffer is full. */
struct rec *buffer_slot_slow(struct thread_state *t);

/*
 * A record slot in this thread's buffer, to fill and then commit with
 * buffer_commit().  NULL when recording has stopped (the event is counted lost).
 * Inline: a callback pays a load, a compare and an address.
 */
static inline struct rec *buffer_slot(struct thread_state *t)
{
	struct ring_chunk *b = t->chunk;
	if (__builtin_expect(b != NULL, 1) && buffer_recording()) {
		uint32_t n = atomic_load_explicit(&b->n, memory_order_relaxed);
		if (__builtin_expect(n < RING_CHUNK_RECS, 1))
			return &b->recs[n];
	}
	return buffer_slot_slow(t);
}

static inline void buffer_commit(struct thread_state *t)
{
	struct ring_chunk *b = t->chunk;
	uint32_t n = atomic_load_explicit(&b->n, memory_order_relaxed);
	/* Release: the finishing thread reads the record only after seeing n. */
	atomic_store_explicit(&b->n, n + 1, memory_order_release);
}

/* This thread's small id (assigned with its buffer; valid once buffer_slot() gave a slot). */
static inline int buffer_thread_id(const struct thread_state *t)
{
	return t->thread_id;
}

#endif
