/*
 * buffer.c - per-thread event buffers and the writer thread.
 *
 * An OMPT callback fills one slot of its thread's buffer: no lock, no
 * allocation, no system call.  A full buffer is handed to the writer thread
 * (one lock per BUF_RECS events) and the thread takes an empty one.  At most
 * MAX_BUFS buffers exist, so memory stays bounded whatever the run length:
 * when the writer falls behind, a thread with a full buffer waits for it.
 *
 * buffer_finish() (at the end of the run) stops the writer and writes what is
 * left in every thread's buffer, including threads that already exited.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/collector.h"

#define BUF_RECS 1024
/*
 * 192 buffers of 1024 records of 96 bytes: 18 MiB.  The cap holds while the
 * writer has buffers in hand to give back; a program with more threads than
 * that gets one buffer per thread (every thread must be able to record).
 */
#define MAX_BUFS 192

struct buf {
	struct buf *next;
	_Atomic uint32_t n;
	struct rec recs[BUF_RECS];
};

struct tslot {
	struct tslot *next;
	struct buf *_Atomic cur;
	int id;
	long tid;
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;      /* queues, slots */
static pthread_cond_t full_cv = PTHREAD_COND_INITIALIZER;   /* writer waits */
static pthread_cond_t free_cv = PTHREAD_COND_INITIALIZER;   /* threads wait */
static pthread_mutex_t db_mu = PTHREAD_MUTEX_INITIALIZER;   /* the db_writer */

static struct db_writer *writer;
static struct buf *full_head, **full_tail = &full_head;
static struct buf *free_list;
static int nbufs;
static struct tslot *slots;
static int next_thread_id;
static int stop_writer;
static int writer_busy;  /* the writer holds buffers it will give back */
static pthread_key_t exit_key;
static pthread_t writer_thread;
static int writer_started;

static atomic_int running;
static atomic_int finished;
static _Atomic uint64_t events_lost;

static __thread struct tslot *my_slot;

/*
 * Take an empty buffer; called with mu held.  Waits for the writer when the
 * cap is reached and the writer has buffers to give back; otherwise (every
 * buffer is some thread's current one) allocates past the cap rather than
 * wait forever.  NULL when recording stopped.
 */
static struct buf *take_free(void)
{
	struct buf *b;

	while (!free_list && nbufs >= MAX_BUFS && atomic_load(&running) &&
	       (full_head || writer_busy))
		pthread_cond_wait(&free_cv, &mu);
	if (!atomic_load(&running))
		return NULL;
	if (free_list) {
		b = free_list;
		free_list = b->next;
	} else {
		b = malloc(sizeof(*b));
		if (!b)
			return NULL;
		nbufs++;
	}
	b->next = NULL;
	atomic_store_explicit(&b->n, 0, memory_order_relaxed);
	return b;
}

static struct tslot *slot_new(void)
{
	struct tslot *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->tid = syscall(SYS_gettid);
	pthread_mutex_lock(&mu);
	s->cur = take_free();
	if (!s->cur) {
		pthread_mutex_unlock(&mu);
		free(s);
		return NULL;
	}
	s->id = next_thread_id++;
	s->next = slots;
	slots = s;
	pthread_mutex_unlock(&mu);
	pthread_setspecific(exit_key, s);
	return s;
}

/* A thread ends: its buffer goes to the writer now, not at the end of the run. */
static void thread_exit(void *arg)
{
	struct tslot *s = arg;
	struct buf *b;

	pthread_mutex_lock(&mu);
	b = atomic_load_explicit(&s->cur, memory_order_acquire);
	/* Once recording stopped, finish writes it through s->cur. */
	if (b && atomic_load(&running)) {
		atomic_store_explicit(&s->cur, NULL, memory_order_release);
		*full_tail = b;
		full_tail = &b->next;
		pthread_cond_signal(&full_cv);
	}
	pthread_mutex_unlock(&mu);
}

int buffer_recording(void)
{
	return atomic_load_explicit(&running, memory_order_relaxed);
}

int buffer_thread_id(void)
{
	return my_slot ? my_slot->id : -1;
}

struct rec *buffer_slot(void)
{
	struct tslot *s = my_slot;
	struct buf *b;
	uint32_t n;

	if (!atomic_load_explicit(&running, memory_order_relaxed))
		goto lost;
	if (!s) {
		s = my_slot = slot_new();
		if (!s)
			goto lost;
	}
	b = atomic_load_explicit(&s->cur, memory_order_relaxed);
	if (!b)
		goto lost;
	n = atomic_load_explicit(&b->n, memory_order_relaxed);
	if (n == BUF_RECS) {
		pthread_mutex_lock(&mu);
		/* Not ours any more: finish must not write it again through s->cur. */
		atomic_store_explicit(&s->cur, NULL, memory_order_relaxed);
		*full_tail = b;
		full_tail = &b->next;
		pthread_cond_signal(&full_cv);
		b = take_free();  /* NULL once recording stopped */
		atomic_store_explicit(&s->cur, b, memory_order_release);
		pthread_mutex_unlock(&mu);
		if (!b)
			goto lost;
		n = 0;
	}
	return &b->recs[n];
lost:
	atomic_fetch_add_explicit(&events_lost, 1, memory_order_relaxed);
	return NULL;
}

void buffer_commit(void)
{
	struct buf *b = atomic_load_explicit(&my_slot->cur, memory_order_relaxed);
	uint32_t n = atomic_load_explicit(&b->n, memory_order_relaxed);
	/* Release: the finishing thread reads the record only after seeing n. */
	atomic_store_explicit(&b->n, n + 1, memory_order_release);
}

static int write_failed;

/* Once: recording stops on the first write error (disk full, ...). */
static void write_error(uint64_t lost)
{
	atomic_fetch_add(&events_lost, lost);
	if (!write_failed++) {
		clog_msg("cannot write the database, recording stops: %s", dbw_errmsg(writer));
		atomic_store(&running, 0);
	}
}

/* Write a list of buffers inside one transaction; returns the records written. */
static uint64_t write_bufs(struct buf *list)
{
	uint64_t total = 0;
	for (struct buf *b = list; b; b = b->next) {
		uint32_t n = atomic_load_explicit(&b->n, memory_order_acquire);
		total += n;
		if (dbw_records(writer, b->recs, n) < 0)
			write_error(n);
	}
	return total;
}

static uint64_t write_bufs_count(struct buf *list)
{
	uint64_t n = 0;
	for (struct buf *b = list; b; b = b->next)
		n += atomic_load_explicit(&b->n, memory_order_acquire);
	return n;
}

static void *writer_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		struct buf *list, *last;
		while (!full_head && !stop_writer)
			pthread_cond_wait(&full_cv, &mu);
		if (!full_head)
			break;
		list = full_head;
		full_head = NULL;
		full_tail = &full_head;
		writer_busy = 1;
		pthread_mutex_unlock(&mu);

		pthread_mutex_lock(&db_mu);
		if (dbw_begin(writer) < 0) {
			write_error(write_bufs_count(list));
		} else {
			uint64_t n = write_bufs(list);
			if (modules_changed())
				modules_record(writer);
			interpose_flush(writer);
			if (dbw_commit(writer) < 0)
				write_error(n);
		}
		pthread_mutex_unlock(&db_mu);

		pthread_mutex_lock(&mu);
		writer_busy = 0;
		for (last = list; last->next; last = last->next)
			;
		last->next = free_list;
		free_list = list;
		pthread_cond_broadcast(&free_cv);
	}
	pthread_mutex_unlock(&mu);
	return NULL;
}

/* A forked child must not write into the parent's database. */
static void atfork_child(void)
{
	atomic_store(&running, 0);
	atomic_store(&finished, 1);
}

int buffer_start(struct db_writer *w)
{
	sigset_t all, old;

	writer = w;
	pthread_key_create(&exit_key, thread_exit);
	atomic_store(&running, 1);
	sigfillset(&all);
	/* The writer thread must never run the program's signal handlers. */
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&writer_thread, NULL, writer_main, NULL) == 0)
		writer_started = 1;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (!writer_started) {
		clog_msg("cannot start the writer thread: not recording");
		atomic_store(&running, 0);
	}
	pthread_atfork(NULL, NULL, atfork_child);
	return 0;
}

void buffer_with_db(void (*fn)(struct db_writer *w, void *arg), void *arg)
{
	if (atomic_load(&finished) || !writer)
		return;
	pthread_mutex_lock(&db_mu);
	if (!atomic_load(&finished))
		fn(writer, arg);
	pthread_mutex_unlock(&db_mu);
}

void buffer_finish(void)
{
	struct buf *list;

	if (!writer || atomic_exchange(&finished, 1))
		return;
	pthread_mutex_lock(&mu);
	atomic_store(&running, 0);
	stop_writer = 1;
	pthread_cond_broadcast(&full_cv);
	pthread_cond_broadcast(&free_cv);
	pthread_mutex_unlock(&mu);
	if (writer_started)
		pthread_join(writer_thread, NULL);

	pthread_mutex_lock(&db_mu);
	pthread_mutex_lock(&mu);
	dbw_begin(writer);
	list = full_head;
	full_head = NULL;
	full_tail = &full_head;
	if (!write_failed)
		write_bufs(list);
	else
		atomic_fetch_add(&events_lost, write_bufs_count(list));
	for (struct tslot *s = slots; s; s = s->next) {
		struct buf *b = atomic_load_explicit(&s->cur, memory_order_acquire);
		if (b && !write_failed) {
			b->next = NULL;
			write_bufs(b);
		}
		dbw_thread(writer, s->id, s->tid);
	}
	pthread_mutex_unlock(&mu);
	modules_record(writer);
	interpose_flush(writer);
	if (write_failed)
		dbw_status(writer, "incomplete", "the database could not be written during the run "
			   "(disk full?): events were lost");
	dbw_end(writer, now_ns() - collector_start_ns, atomic_load(&events_lost));
	if (dbw_commit(writer) < 0)
		clog_msg("cannot write the database: %s", dbw_errmsg(writer));
	dbw_close(writer);
	writer = NULL;
	pthread_mutex_unlock(&db_mu);
}
