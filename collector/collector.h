/*
 * collector.h - what the collector's files share.
 *
 * The collector is the OMPT tool library (libmapprof-collector.so) that the
 * OpenMP runtime loads into the profiled program.  It records raw events into
 * per-thread buffers and appends full buffers to a spool file (db/spool.h);
 * the database is built from the spool after the program ends.
 * It never exits, aborts or prints to stdout inside the user's program: on
 * trouble it says so once on stderr ("mapprof-collector: ...") and stops
 * recording.
 */
#ifndef MAPPROF_COLLECTOR_H
#define MAPPROF_COLLECTOR_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/single_threaded.h>
#include <time.h>
#if defined(__x86_64__)
#include <x86intrin.h>
#endif

#include "collector/hash.h"
#include "collector/text.h"
#include "db/ring.h"
#include "db/spool.h"

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

/* Append a CLOCK frame (when event times are ticks). */
void collector_clock_frame(void);

/* --- per-thread state (buffer.c) ------------------------------------------ */

#define PENDING_MAX 8       /* data operations begun and not yet ended, per thread */
#define MAP_ENTRIES_MAX 64  /* map entries of the offload call in progress */
#define SEEN_SLOTS 64       /* call sites this thread noted lately */

/* A data operation between its begin and end callbacks. */
struct pending {
	uint64_t seq;
	int64_t begin_ns;
	uint64_t hash;
	struct hash_job *job;  /* the source being hashed while it is copied */
	int has_hash;
	int map_index;
};

struct tslot;

/*
 * All a thread keeps, in one block mapped at its first event and reached
 * through a single initial-exec TLS pointer: a callback reads it with one
 * load, where a TLS descriptor call per variable cost a few ns each, and the
 * collector's static TLS is 8 bytes, which a dlopen always finds room for.
 */
struct thread_state {
	/* collector.c: the open target construct, kernel and data operations */
	struct pending ops[PENDING_MAX];
	int nops;
	int target_device;
	uint64_t target_id, target_seq, kernel_seq;
	int64_t target_begin_ns, kernel_begin_ns;
	/* buffer.c: this thread's buffer (the current chunk, a copy of slot->cur) */
	struct tslot *slot;
	struct ring_chunk *chunk;
	int thread_id;
	/* interpose.c: the offload call in progress, call sites seen */
	uint64_t call_codeptr;
	int call_n;
	uint64_t call_begin[MAP_ENTRIES_MAX], call_bytes[MAP_ENTRIES_MAX];
	uint64_t seen[SEEN_SLOTS];
};

extern __thread struct thread_state *collector_thread __attribute__((tls_model("initial-exec")));
/* Map this thread's state (at its first event); NULL if that fails. */
struct thread_state *thread_state_new(void);

static inline struct thread_state *thread_state(void)
{
	struct thread_state *t = collector_thread;
	return __builtin_expect(t != NULL, 1) ? t : thread_state_new();
}

/* --- output.c: the spool ---------------------------------------------------- */

/* Claim the spool.  0, or -1: this process does not record (said why on stderr). */
int output_open(void);
/* Append a frame; its fields as spool_frame_format(type) says (int64_t, const char *). */
int output_frame(uint32_t type, ...);
/* Write the staged frames out now.  0 or -1. */
int output_sync(void);
/* Append the n records that follow 'frame' in memory (and the staged frames).  0 or -1. */
int output_records(struct spool_frame *frame, size_t n);
/* Nonzero after a write failed (recording stops). */
int output_failed(void);
/* The ring shared with 'mapprof record' (db/ring.h), or NULL. */
struct ring_header *output_ring(void);
/* Close the spool; loaded by hand, also build the database from it. */
void output_close(void);

/* --- buffer.c: per-thread buffers ------------------------------------------ */

/* Start recording. */
void buffer_start(void);

extern atomic_int buffer_running COLLECTOR_HIDDEN;

/* Nonzero while events are recorded (cheap: callbacks test it first). */
static inline int buffer_recording(void)
{
	return atomic_load_explicit(&buffer_running, memory_order_relaxed);
}

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
/* Write what is left, the end of the run, and close the spool.  Idempotent. */
void buffer_finish(void);

/* --- modules.c ------------------------------------------------------------ */

/* Record every loaded ELF object not yet recorded. */
void modules_record(void);
/* Nonzero when objects were loaded or unloaded since the last modules_record(). */
int modules_changed(void);
/* The loader's count of objects loaded so far (it only grows). */
unsigned long long modules_loaded(void);

/* --- runinfo.c ------------------------------------------------------------ */

/* Write run metadata (command line, cwd, pid, host, time, environment). */
int runinfo_record(const char *runtime_version);

/* --- interpose.c ----------------------------------------------------------- */

/*
 * The map entry of the offload call in progress on this thread that covers
 * host address 'addr', or -1.
 */
int interpose_map_index(const struct thread_state *t, uint64_t addr);
/*
 * Send the offload calls of the objects that link libomptarget (and were
 * loaded since the last call) to our entry points.  Cheap when nothing was
 * loaded.
 */
void interpose_install(void);
/* Write the source records seen so far that are not yet in the spool. */
void interpose_flush(void);
/* Nonzero when call sites wait to be written (cheap, no lock). */
int interpose_pending(void);

/* --- got.c ------------------------------------------------------------------ */

struct got_target {
	const char *name;
	void *fn;
};

/*
 * In every object loaded since the last call that depends on a library whose
 * name contains 'needed', point the GOT slots of the named functions at
 * ours.  The number of slots changed, or -1 on a target without support.
 */
int got_redirect(const struct got_target *targets, size_t n, const char *needed);

#endif
