/*
 * state.h - what every file of the collector shares: the run's clock, the
 * process-wide counters, and one thread's state block.
 *
 * The collector is the OMPT tool library (libmapprof-collector.so) that the
 * OpenMP runtime loads into the profiled program.  Its files stand in a
 * line, each calling only the files below it (docs/architecture.md):
 * collector.c (the OMPT callbacks, the tool's start and finish) above
 * interpose.c (our offload entry points) and got.c (which sends the
 * program's offload calls to them), then buffer.c (per-thread buffers),
 * wtrack.c (write tracking of host ranges), modules.c and runinfo.c (what
 * the run is), output.c (the spool file,
 * db/spool/spool.h), and the leaves: this file, text.h, hash.h.
 * It never exits, aborts or prints to stdout inside the user's program: on
 * trouble it says so once on stderr ("mapprof-collector: ...") and stops
 * recording.
 *
 * This header is a leaf and stays one: types, and inline functions that read
 * the clock and the counters, calling nothing of the collector.  What is
 * inline here costs a callback no call.
 */
#ifndef MAPPROF_COLLECTOR_STATE_H
#define MAPPROF_COLLECTOR_STATE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/single_threaded.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#define COLLECTOR_HIDDEN __attribute__((visibility("hidden")))

/* Monotonic clock in ns (vDSO: no system call). */
static inline int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Origin of all recorded times (CLOCK_MONOTONIC at tool start). */
extern int64_t collector_start_ns COLLECTOR_HIDDEN;
/* Nonzero: event times are timestamp counter ticks (the spool's CLOCK frames convert them). */
extern int collector_tsc COLLECTOR_HIDDEN;

/* Set the origin of recorded times to now, and choose the clock events read. */
void state_clock_start(void);

/*
 * The collector's own time on the program's threads, in event_time() units:
 * from a data operation's callback's entry to its exit (the hashing, write
 * tracking and buffering it does there), and a construct's end callback's
 * (the copies back it hashes there).  The stats table's collector_own_ns.
 */
extern _Atomic int64_t collector_own_ticks COLLECTOR_HIDDEN;

/* event_time() units since the start in ns (the timestamp counter's rate measured since the start). */
int64_t state_ticks_ns(int64_t ticks);

/*
 * An event's time: a timestamp counter read (about half the cost of
 * clock_gettime here, and events read it twice), or ns since the start.
 */
static inline int64_t event_time(void)
{
#if defined(__x86_64__)
	if (collector_tsc)
		return (int64_t)__rdtsc();
#endif
	return now_ns() - collector_start_ns;
}

/*
 * The next value of a process-wide counter.  While the process has one
 * thread (glibc's __libc_single_threaded) no other thread can race us, and a
 * plain increment saves the locked add (about 8 ns here; a launch-heavy
 * program takes seven per target region).  It turns false before a second
 * thread starts and stays false.
 */
static inline uint64_t counter_next(_Atomic uint64_t *c)
{
	if (__libc_single_threaded) {
		uint64_t v = atomic_load_explicit(c, memory_order_relaxed);
		atomic_store_explicit(c, v + 1, memory_order_relaxed);
		return v;
	}
	return atomic_fetch_add_explicit(c, 1, memory_order_relaxed);
}

/* Where a fork() is: the collector's locks are held across it (procs.c). */
enum fork_moment {
	FORK_PREPARE,  /* in the parent, before: take the lock */
	FORK_PARENT,   /* in the parent, after: release it */
	FORK_CHILD,    /* in the child: release it and forget what is the parent's */
};

/* --- one thread's state ----------------------------------------------------- */

#define PENDING_MAX 8       /* data operations begun and not yet ended, per thread */
#define MAP_ENTRIES_MAX 64  /* map entries of the offload call in progress */
#define SEEN_SLOTS 64       /* call sites this thread noted lately */

struct hash_job;
struct ring_chunk;
struct tslot;

/* A data operation between its begin and end callbacks. */
struct pending {
	uint64_t seq;
	int64_t begin_ns;
	uint64_t hash;
	struct hash_job *job;  /* the source being hashed while it is copied */
	int has_hash;
	int map_index;
	int wt_dest;           /* a transfer into host memory that wtrack hashes after the copy */
	int64_t own;           /* the begin callback's own time (event_time() units) */
};

/*
 * All a thread keeps, in one block mapped at its first event and reached
 * through a single initial-exec TLS pointer (buffer.h: thread_state()): a
 * callback reads it with one load, where a TLS descriptor call per variable
 * cost a few ns each, and the collector's static TLS is 8 bytes, which a
 * dlopen always finds room for.  Each part is written by one file only.
 */
struct thread_state {
	/* collector.c: the open target construct, kernel and data operations */
	struct pending ops[PENDING_MAX];
	int nops;
	int target_device;
	uint64_t target_id, target_seq, kernel_seq;
	const void *task;      /* the task this thread runs (task_schedule): a nowait construct's */
	int64_t target_begin_ns, kernel_begin_ns;
	/* buffer.c: this thread's buffer (the current chunk, a copy of slot->cur) */
	struct tslot *slot;
	struct ring_chunk *chunk;
	int thread_id;
	/* interpose.c: the offload call in progress, call sites seen */
	uint64_t call_codeptr;
	int call_n;
	int call_nowait;       /* the offload call in progress is a nowait form (its copies may outlive it) */
	uint64_t call_begin[MAP_ENTRIES_MAX], call_bytes[MAP_ENTRIES_MAX];
	uint64_t call_slot[MAP_ENTRIES_MAX];  /* a PTR_AND_OBJ entry's base (the pointer it attaches), else 0 */
	uint64_t seen[SEEN_SLOTS];
};

#endif
