/*
 * buffer.c - per-thread event buffers.
 *
 * An OMPT callback fills one slot of its thread's buffer: no lock, no
 * allocation, no system call.  Under 'mapprof record' the buffers are
 * chunks of the ring shared with 'record' (db/spool/ring.h): a full one is marked
 * full and the thread takes a free one, and 'record' writes it to the spool
 * on another core.  Without a ring, or when no chunk is free, the thread
 * appends its full buffer to the spool itself (one lock and one write() per
 * BUF_RECS events) and starts it over.  Memory is one buffer per thread that
 * records plus the ring, whatever the run length.
 *
 * No thread is started here: a second thread makes glibc take the atomic
 * path in every mutex and malloc of the program and its runtime, which cost
 * a launch-heavy program more than writing its events did.
 *
 * Once a buffer, output_check() asks whether the spool still grows (its
 * cap, a full disk, 'mapprof record' gone): when it does not, recording
 * stops and the program runs on.
 *
 * A thread's buffer is written when it ends; buffer_finish() (at the end of
 * the run) writes what is left in every live thread's buffer.
 *
 * Buffers and slots are mapped with mmap, never taken from malloc: an
 * allocation on the program's heap moves where the runtime's own blocks land,
 * and that alone made glibc return and fault in the host plugin's 8 MiB
 * device buffers on every map of a transfer-heavy program.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/buffer.h"
#include "collector/output.h"
#include "collector/state.h"
#include "db/spool/ring.h"

#define BUF_RECS RING_CHUNK_RECS

/* A ring chunk, or a buffer of the thread's own with the same layout. */
#define buf ring_chunk

struct tslot {
	struct tslot *next;
	struct buf *_Atomic cur;  /* NULL once the thread ended */
	int id;
	long tid;
};

/* The slot list, and who writes a buffer: its thread, its thread's end, or finish. */
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct tslot *slots;
static int next_thread_id;
static pthread_key_t exit_key;

static atomic_int started;
static struct buffer_hooks hooks;  /* set once by buffer_start() */
atomic_int buffer_running;
static atomic_int finished;
/*
 * The process is ending (exit() began, _exit(), the collector's unload):
 * offload calls after the finish are then the end's races, not calls the
 * recording missed (buffer_finished_early()).
 */
static atomic_int exiting;
static _Atomic uint64_t events_lost;

__thread struct thread_state *collector_thread __attribute__((tls_model("initial-exec")));
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;

/* The ring shared with 'mapprof record', or NULL. */
static struct ring_header *ring;

static int in_ring(const struct buf *b)
{
	return ring && (const void *)b > (const void *)ring &&
	       (const char *)b < (const char *)ring + ring_bytes(ring->nchunks);
}

/*
 * A free chunk of the ring, now this thread's; NULL when there is none.  The
 * lowest free one: while 'record' keeps up, the same few chunks go round,
 * their pages mapped and in cache, instead of the whole ring page-faulting in.
 */
static struct buf *ring_take(void)
{
	if (!ring)
		return NULL;
	for (uint32_t i = 0; i < ring->nchunks; i++) {
		struct buf *c = ring_chunk_at(ring, i);
		uint32_t free_state = RING_FREE;
		/*
		 * A ring file's chunk without disk blocks is never touched: on a
		 * full disk that raises SIGBUS.  Blocks for one more, or none.
		 */
		if ((ring->flags & RING_SELF_WRITTEN) && i >= atomic_load(&ring->backed) &&
		    output_ring_grow(i + 1) < 0)
			return NULL;
		if (atomic_load_explicit(&c->state, memory_order_relaxed) == RING_FREE &&
		    atomic_compare_exchange_strong_explicit(&c->state, &free_state, RING_OWNED,
							    memory_order_acquire, memory_order_relaxed)) {
			uint32_t t = atomic_load_explicit(&ring->taken, memory_order_relaxed);
			/* Raised before a record goes in: the drain sees every chunk that holds one. */
			while (t <= i && !atomic_compare_exchange_weak_explicit(&ring->taken, &t, i + 1,
										memory_order_release,
										memory_order_relaxed))
				;
			atomic_store_explicit(&c->n, 0, memory_order_relaxed);
			return c;
		}
	}
	return NULL;
}

/* A buffer of this thread's own, outside the ring. */
static struct buf *buf_map(void)
{
	struct buf *b = mmap(NULL, sizeof(*b), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (b == MAP_FAILED)
		return NULL;
	atomic_store_explicit(&b->n, 0, memory_order_relaxed);
	atomic_store_explicit(&b->state, RING_OWNED, memory_order_relaxed);
	return b;
}

/* Done with b (its records are written): back to the ring, or unmapped. */
static void buf_release(struct buf *b)
{
	atomic_store_explicit(&b->n, 0, memory_order_relaxed);
	if (in_ring(b))
		atomic_store_explicit(&b->state, RING_FREE, memory_order_release);
	else
		munmap(b, sizeof(*b));
}

/* Slots come from mapped chunks (with mu held); they live as long as the process. */
#define SLOTS_PER_CHUNK 256
static struct tslot *slot_chunk;
static int slot_chunk_used = SLOTS_PER_CHUNK;

static struct tslot *slot_alloc(void)
{
	if (slot_chunk_used == SLOTS_PER_CHUNK) {
		void *p = mmap(NULL, SLOTS_PER_CHUNK * sizeof(struct tslot), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return NULL;
		slot_chunk = p;
		slot_chunk_used = 0;
	}
	return &slot_chunk[slot_chunk_used++];
}

static struct tslot *slot_new(void)
{
	struct buf *b = ring_take();
	struct tslot *s;

	if (!b && !(b = buf_map()))
		return NULL;
	pthread_mutex_lock(&mu);
	/*
	 * Finished meanwhile: finish_locked() did not see this slot, so its
	 * records would reach the spool only if 'record' drained the chunk
	 * after the process, which it no longer waits for (RING_ENDED_FINISHED).
	 */
	s = atomic_load(&finished) ? NULL : slot_alloc();
	if (!s) {
		pthread_mutex_unlock(&mu);
		buf_release(b);
		return NULL;
	}
	s->cur = b;
	s->tid = syscall(SYS_gettid);
	s->id = next_thread_id++;
	s->next = slots;
	slots = s;
	pthread_mutex_unlock(&mu);
	return s;
}

/* Append b's records to the spool; with mu held.  A failed write stops recording. */
static void write_buf(struct buf *b)
{
	uint32_t n = atomic_load_explicit(&b->n, memory_order_acquire);
	if (!n)
		return;
	if (output_records(&b->frame, n, &b->write_from) < 0) {
		atomic_fetch_add(&events_lost, n);
		atomic_store(&buffer_running, 0);
	}
	/* n first: killed in between, the chunk is empty, or it says where it was written. */
	atomic_store_explicit(&b->n, 0, memory_order_release);
	atomic_store_explicit(&b->write_from, 0, memory_order_release);
}

/* A buffer during the run, with the libraries loaded and call sites seen since the last one. */
static void flush(struct buf *b)
{
	write_buf(b);
	hooks.frames_write(BUFFER_WRITTEN);
}

/*
 * The libraries loaded and call sites seen lately, written now (once in a
 * while, with a full ring chunk) so that a killed program keeps them too.
 */
static void flush_frames(void)
{
	if (!hooks.frames_waiting())
		return;
	pthread_mutex_lock(&mu);
	if (!atomic_load(&finished)) {
		hooks.frames_write(BUFFER_SWAPPED);
		output_sync();
	}
	pthread_mutex_unlock(&mu);
}

/*
 * Give s's full chunk b to 'record' and make a free chunk s's own.  0 when b
 * is not a ring chunk or no chunk is free: the caller writes b itself.
 */
static int ring_swap(struct tslot *s, struct buf *b)
{
	struct buf *c;

	if (!in_ring(b) || (ring->flags & RING_SELF_WRITTEN) || !(c = ring_take()))
		return 0;
	atomic_store_explicit(&b->state, RING_FULL, memory_order_release);
	atomic_store_explicit(&s->cur, c, memory_order_relaxed);
	output_ring_full();
	flush_frames();
	return 1;
}

/* A thread ends: its events go to the spool now, not at the end of the run. */
static void thread_exit(void *arg)
{
	struct thread_state *t = arg;
	struct tslot *s = t->slot;
	struct buf *b;

	if (hooks.held_flush && !atomic_load(&finished))
		hooks.held_flush(t, 0);
	if (s) {
		pthread_mutex_lock(&mu);
		b = atomic_load_explicit(&s->cur, memory_order_relaxed);
		if (b && !atomic_load(&finished)) {
			flush(b);
			atomic_store_explicit(&s->cur, NULL, memory_order_relaxed);
			buf_release(b);
		}
		pthread_mutex_unlock(&mu);
	}
	collector_thread = NULL;
	munmap(t, sizeof(*t));
}

static void exit_key_create(void)
{
	pthread_key_create(&exit_key, thread_exit);
}

struct thread_state *thread_state_new(void)
{
	struct thread_state *t = mmap(NULL, sizeof(*t), PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (t == MAP_FAILED)
		return NULL;
	pthread_once(&exit_key_once, exit_key_create);
	pthread_setspecific(exit_key, t);
	collector_thread = t;
	return t;
}

void buffer_exiting(void)
{
	atomic_store(&exiting, 1);
}

int buffer_finished_early(void)
{
	return atomic_load(&finished) && !atomic_load(&exiting);
}

int buffer_lock_free(void)
{
	if (pthread_mutex_trylock(&mu))
		return 0;
	pthread_mutex_unlock(&mu);
	return 1;
}

struct rec *buffer_slot_slow(struct thread_state *t)
{
	struct tslot *s = t->slot;
	struct buf *b;
	uint32_t n;

	if (!atomic_load_explicit(&buffer_running, memory_order_relaxed))
		goto lost;
	if (!s) {
		s = t->slot = slot_new();
		if (!s)
			goto lost;
		t->thread_id = s->id;
	}
	b = atomic_load_explicit(&s->cur, memory_order_relaxed);
	if (!b)
		goto lost;
	n = atomic_load_explicit(&b->n, memory_order_relaxed);
	if (n == BUF_RECS) {
		/* Once a buffer: the spool's cap, a full disk, 'record' gone. */
		if (output_check(0) < 0) {
			atomic_store(&buffer_running, 0);
			goto lost;
		}
		if (ring_swap(s, b)) {
			b = atomic_load_explicit(&s->cur, memory_order_relaxed);
		} else {
			/* Written here: 'record' may have died mid-write. */
			if (output_check(1) < 0) {
				atomic_store(&buffer_running, 0);
				goto lost;
			}
			pthread_mutex_lock(&mu);
			/* Once finished, the buffer was written by finish: nothing more is recorded. */
			if (!atomic_load(&finished))
				flush(b);
			pthread_mutex_unlock(&mu);
		}
		if (!atomic_load_explicit(&buffer_running, memory_order_relaxed))
			goto lost;
		n = 0;
	}
	t->chunk = b;
	return &b->recs[n];
lost:
	atomic_fetch_add_explicit(&events_lost, 1, memory_order_relaxed);
	return NULL;
}

/*
 * In a forked child only the forking thread lives on, and every buffer it
 * sees is its parent's: the ring's chunks are shared memory the parent still
 * fills, and the other slots belong to threads that do not exist here.
 * Forget them all (the memory is a copy, the parent keeps its own) and stop
 * until buffer_restart().
 */
void buffer_at_fork(enum fork_moment when)
{
	struct thread_state *t = collector_thread;

	if (when == FORK_PREPARE) {
		pthread_mutex_lock(&mu);
		return;
	}
	if (when == FORK_PARENT) {
		pthread_mutex_unlock(&mu);
		return;
	}
	atomic_store(&buffer_running, 0);
	slots = NULL;
	slot_chunk_used = SLOTS_PER_CHUNK;
	next_thread_id = 0;
	ring = NULL;
	atomic_store(&events_lost, 0);
	if (t) {
		t->slot = NULL;
		t->chunk = NULL;
	}
	pthread_mutex_unlock(&mu);
}

void buffer_restart(void)
{
	ring = output_ring();
	atomic_store(&finished, 0);
	atomic_store(&buffer_running, 1);
}

void buffer_start(const struct buffer_hooks *h)
{
	hooks = *h;
	ring = output_ring();
	pthread_once(&exit_key_once, exit_key_create);
	atomic_store(&started, 1);
	atomic_store(&buffer_running, 1);
}

/*
 * For _exit() and exec, which a signal handler may call: take mu only if it
 * is free and make sure this thread does not hold the spool's lock either
 * (the code the signal cut into may): 0 with mu held and no heap use
 * allowed, -1 when nothing may be written now.
 */
static int lock_for_end(void)
{
	/*
	 * Another thread holds a lock for a moment: a few more tries.  This
	 * thread holds it (the signal cut into it): they all fail, in about
	 * a millisecond, and nothing is written here.
	 */
	for (int tries = 0; atomic_load(&started) && tries < 200; tries++, sched_yield()) {
		if (pthread_mutex_trylock(&mu))
			continue;
		if (atomic_load(&finished)) {
			pthread_mutex_unlock(&mu);
			return -1;
		}
		if (output_lock_free() && hooks.frames_lock_free()) {
			output_no_heap(1);
			return 0;
		}
		pthread_mutex_unlock(&mu);
	}
	return -1;
}

static void unlock_for_end(void)
{
	output_no_heap(0);
	pthread_mutex_unlock(&mu);
}

/* Nonzero when b is this thread's buffer (nobody else appends to it). */
static int own_buf(const struct tslot *s)
{
	struct thread_state *t = collector_thread;
	return t && t->slot == s;
}

void buffer_sync(void)
{
	if (hooks.held_flush && atomic_load(&buffer_running))
		hooks.held_flush(NULL, 1);
	if (lock_for_end() < 0)
		return;
	if (atomic_load(&buffer_running)) {
		/*
		 * Ring chunks (the memfd 'record' holds, or this process's ring
		 * file) outlive the exec: 'record' appends them.  Of the buffers
		 * of the process's own, only this thread's can be written whole:
		 * the others' threads may be appending to them.
		 */
		for (struct tslot *s = slots; s; s = s->next) {
			struct buf *b = atomic_load_explicit(&s->cur, memory_order_relaxed);
			if (b && !in_ring(b) && own_buf(s))
				write_buf(b);
		}
		hooks.frames_write(BUFFER_WRITTEN);
		output_sync();
	}
	unlock_for_end();
}

/* What buffer_finish() and buffer_exit() write, with mu held.  'ending': from _exit(). */
static void finish_locked(int ending)
{
	char why[512];

	atomic_store(&buffer_running, 0);
	for (struct tslot *s = slots; s; s = s->next) {
		struct buf *b = atomic_load_explicit(&s->cur, memory_order_relaxed);
		/* At _exit(), another thread's ring chunk may be filling: 'record' appends it once we are gone. */
		if (b && (!ending || !in_ring(b) || own_buf(s))) {
			write_buf(b);
			/* Written: 'record' must not write it again. */
			if (in_ring(b))
				atomic_store_explicit(&b->state, RING_FREE, memory_order_release);
		}
		output_frame(SPOOL_THREAD, (int64_t)s->id, (int64_t)s->tid);
	}
	hooks.frames_write(BUFFER_END);
	if (output_stop_text(why, sizeof(why)) == 0)
		output_frame(SPOOL_STATUS, "incomplete", why);
	if (collector_tsc)
		output_clock_frame();
	output_frame(SPOOL_END, now_ns() - collector_start_ns, (int64_t)atomic_load(&events_lost));
}

void buffer_finish(void)
{
	if (!atomic_load(&started) || atomic_load(&finished))
		return;
	if (hooks.held_flush)
		hooks.held_flush(NULL, 0);
	if (atomic_exchange(&finished, 1))
		return;
	pthread_mutex_lock(&mu);
	finish_locked(0);
	pthread_mutex_unlock(&mu);
	output_close();
	/* Everything is in the spool: 'record' may expand it while the process still ends. */
	output_ended(RING_ENDED_FINISHED, 0);
}

void buffer_exit(void)
{
	buffer_exiting();
	if (hooks.held_flush && atomic_load(&buffer_running))
		hooks.held_flush(NULL, 1);
	if (lock_for_end() < 0)
		return;
	atomic_store(&finished, 1);
	finish_locked(1);
	output_close();
	unlock_for_end();
}
