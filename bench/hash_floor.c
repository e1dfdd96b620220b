/*
 * hash_floor.c - the hash-everything floor: an OMPT tool that does what a
 * minimal exact collector must and nothing else (issue #29).
 *
 * It asks for the collector's target callbacks (target_emi,
 * target_data_op_emi, target_submit_emi, device initialize/finalize/load),
 * reads the clock at each begin and end, hashes every transferred byte on
 * the program's thread (a to-device transfer's host source at its begin, a
 * from-device transfer's host destination at its end: on host offload the
 * copy is complete there), and appends one event per operation to a
 * per-thread block of BLOCK_EVENTS, written with one write() to the file
 * HASH_FLOOR_OUT names (/dev/null without it) each time it fills, and the
 * rest at the end.  No reuse, no helper threads, no ring, no spool, no
 * /proc reads, no page protection.  Its memory is mapped, never the
 * program's heap, as the collector's is: an allocation of a tool's moves
 * glibc's mmap threshold, and with it whether host offload's device buffers
 * page-fault on every map (the program's run time, not the tool's).  And it
 * is one block a thread, written over and over, not an array that grows
 * with the run: every fresh page of such an array is a page fault on the
 * program's thread, and on a virtual machine, where a fault is a trip to
 * the hypervisor, 470 of them (real/cg.fixed's 22 k events in a doubling
 * array) cost the floor 6 % of that program's run, more than all of its
 * hashing (docs/performance.md).
 *
 * The hash is the collector's own hash_bytes() (collector/hash.c, compiled
 * in: one thread, no helpers), so that the floor hashes exactly as fast as
 * mapprof could and its hashes can be compared with a database's
 * (tests/e2e/hash_floor.sh).  Transfers between two devices, or out of
 * memory the host cannot read, are recorded without a hash, as the
 * collector does.
 *
 * 'make bench' runs it through 'mapprof record' (MAPPROF_COLLECTOR), like
 * bench/empty_tool.c: record says the collector never started and only the
 * run's wall time is used.  HASH_FLOOR_VERBOSE=1 prints its counts to stderr
 * at the end.
 *
 * The file: "HFLOOR1\0", the event size (uint32), then the events (struct
 * event below, native byte order), each thread's in blocks, the threads'
 * blocks in the order they were written.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <omp-tools.h>
#include <omp.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "collector/hash.h"

#define MAX_DEVICES 64
/* A thread's block: 72 KiB, 18 pages faulted once. */
#define BLOCK_EVENTS 1024

enum { EV_DATA_OP = 1, EV_KERNEL, EV_TARGET };

struct event {
	uint8_t type;       /* EV_* */
	uint8_t kind;       /* data op type, or target construct kind */
	uint8_t has_hash;
	uint8_t pad;
	int32_t src_dev, dst_dev;
	uint32_t teams;
	uint64_t seq;       /* host_op_id of a data op or kernel; construct number */
	uint64_t target_id; /* the enclosing construct on this thread, 0: none */
	int64_t begin_ns, end_ns;
	uint64_t src_addr, dst_addr, bytes, hash, codeptr;
};

/* One thread's events not yet written; every buffer stays on a list for the end. */
struct tbuf {
	struct tbuf *next;
	struct event *ev;   /* BLOCK_EVENTS */
	size_t n;
	/* The operation begun and not ended on this thread (they do not nest). */
	uint64_t target_id, target_seq, kernel_seq, op_seq;
	int64_t target_begin_ns, kernel_begin_ns, op_begin_ns;
	uint64_t op_hash;
	int op_has_hash;
};

static pthread_mutex_t list_mu = PTHREAD_MUTEX_INITIALIZER;
static struct tbuf *list;
static _Thread_local struct tbuf *mine;
static _Atomic uint64_t next_seq = 1;
static atomic_int host_device = -1;
static _Atomic unsigned char host_readable[MAX_DEVICES];
static atomic_int finished;
/* Under list_mu: the output (-1: none, or failed), events written of each type. */
static int out_fd = -1;
static int out_failed;
static uint64_t written[4];

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Zeroed memory of our own (not the program's heap), or NULL. */
static void *map_zeroed(size_t bytes)
{
	void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static struct tbuf *tbuf(void)
{
	struct tbuf *t = mine;

	if (!t && (t = map_zeroed(sizeof(*t)))) {
		pthread_mutex_lock(&list_mu);
		t->next = list;
		list = t;
		pthread_mutex_unlock(&list_mu);
		mine = t;
	}
	return t;
}

/* Write t's events and empty it, under list_mu (the end's writer takes every thread's). */
static void flush_locked(struct tbuf *t)
{
	size_t bytes = t->n * sizeof(*t->ev);

	for (size_t i = 0; i < t->n; i++)
		written[t->ev[i].type & 3]++;
	if (bytes && out_fd >= 0 && !out_failed) {
		/* O_APPEND: one thread's block stays whole. */
		for (const char *p = (const char *)t->ev; bytes;) {
			ssize_t w = write(out_fd, p, bytes);
			if (w <= 0) {
				out_failed = 1;
				break;
			}
			p += w;
			bytes -= (size_t)w;
		}
	}
	t->n = 0;
}

/* A new event at the end of t's block (written out when full), or NULL without memory or after the end. */
static struct event *append(struct tbuf *t)
{
	if (!t->ev || t->n == BLOCK_EVENTS) {
		pthread_mutex_lock(&list_mu);
		if (atomic_load_explicit(&finished, memory_order_relaxed)) {
			pthread_mutex_unlock(&list_mu);
			return NULL;
		}
		if (!t->ev) {
			struct event *ev = mmap(NULL, BLOCK_EVENTS * sizeof(*ev), PROT_READ | PROT_WRITE,
						MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
			if (ev == MAP_FAILED) {
				pthread_mutex_unlock(&list_mu);
				return NULL;
			}
			t->ev = ev;
		} else {
			flush_locked(t);
		}
		pthread_mutex_unlock(&list_mu);
	}
	return &t->ev[t->n++];
}

static int host(void)
{
	int h = atomic_load_explicit(&host_device, memory_order_relaxed);
	if (h < 0) {
		h = omp_get_initial_device();
		atomic_store_explicit(&host_device, h, memory_order_relaxed);
	}
	return h;
}

static int readable(int device_num)
{
	return device_num == host() ||
	       (device_num >= 0 && device_num < MAX_DEVICES && atomic_load(&host_readable[device_num]));
}

static int is_to(int op)
{
	return op == ompt_target_data_transfer_to_device || op == ompt_target_data_transfer_to_device_async;
}

static int is_from(int op)
{
	return op == ompt_target_data_transfer_from_device ||
	       op == ompt_target_data_transfer_from_device_async;
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
		      ompt_data_t *task_data, ompt_data_t *target_task_data,
		      ompt_data_t *target_data, const void *codeptr_ra)
{
	struct tbuf *t;
	struct event *e;
	(void)task_data, (void)target_task_data, (void)target_data;

	if (atomic_load_explicit(&finished, memory_order_relaxed) || !(t = tbuf()))
		return;
	if (endpoint == ompt_scope_begin) {
		t->target_seq = atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed);
		t->target_id = t->target_seq;
		t->target_begin_ns = now_ns();
		return;
	}
	if ((e = append(t))) {
		*e = (struct event){ .type = EV_TARGET, .kind = (uint8_t)kind, .src_dev = device_num,
				     .dst_dev = device_num, .seq = t->target_seq, .target_id = t->target_id,
				     .begin_ns = t->target_begin_ns, .end_ns = now_ns(),
				     .codeptr = (uint64_t)(uintptr_t)codeptr_ra };
	}
	t->target_id = 0;
}

static void on_data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
		       ompt_data_t *target_data, ompt_id_t *host_op_id,
		       ompt_target_data_op_t optype, void *src_addr, int src_device_num,
		       void *dest_addr, int dest_device_num, size_t bytes, const void *codeptr_ra)
{
	struct tbuf *t;
	struct event *e;
	int64_t end;
	(void)target_task_data, (void)target_data;

	if (atomic_load_explicit(&finished, memory_order_relaxed) || !(t = tbuf()))
		return;
	if (endpoint == ompt_scope_begin) {
		t->op_seq = atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed);
		if (host_op_id)
			*host_op_id = t->op_seq;
		t->op_has_hash = 0;
		/* The source before the copy reads it. */
		if (is_to(optype) && bytes && src_addr && src_device_num == host()) {
			t->op_hash = hash_bytes(src_addr, bytes);
			t->op_has_hash = 1;
		}
		t->op_begin_ns = now_ns();
		return;
	}
	end = now_ns();
	if (!(e = append(t)))
		return;
	*e = (struct event){ .type = EV_DATA_OP, .kind = (uint8_t)optype, .src_dev = src_device_num,
			     .dst_dev = dest_device_num, .seq = host_op_id ? *host_op_id : t->op_seq,
			     .target_id = t->target_id, .begin_ns = t->op_begin_ns, .end_ns = end,
			     .src_addr = (uint64_t)(uintptr_t)src_addr,
			     .dst_addr = (uint64_t)(uintptr_t)dest_addr, .bytes = bytes,
			     .has_hash = (uint8_t)t->op_has_hash, .hash = t->op_hash,
			     .codeptr = (uint64_t)(uintptr_t)codeptr_ra };
	/* The destination after the copy wrote it (complete here on host offload). */
	if (is_from(optype) && bytes && dest_addr && dest_device_num == host() &&
	    readable(src_device_num)) {
		e->hash = hash_bytes(dest_addr, bytes);
		e->has_hash = 1;
	}
	t->op_has_hash = 0;
}

static void on_submit(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
		      ompt_id_t *host_op_id, unsigned int requested_num_teams)
{
	struct tbuf *t;
	struct event *e;
	(void)target_data;

	if (atomic_load_explicit(&finished, memory_order_relaxed) || !(t = tbuf()))
		return;
	if (endpoint == ompt_scope_begin) {
		t->kernel_seq = atomic_fetch_add_explicit(&next_seq, 1, memory_order_relaxed);
		if (host_op_id)
			*host_op_id = t->kernel_seq;
		t->kernel_begin_ns = now_ns();
		return;
	}
	if ((e = append(t))) {
		*e = (struct event){ .type = EV_KERNEL, .seq = t->kernel_seq, .target_id = t->target_id,
				     .begin_ns = t->kernel_begin_ns, .end_ns = now_ns(),
				     .teams = requested_num_teams };
	}
}

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
				 ompt_function_lookup_t lookup, const char *documentation)
{
	(void)device, (void)lookup, (void)documentation;
	/* The host-offload plugin keeps device buffers in host memory (collector/hash.c). */
	if (device_num >= 0 && device_num < MAX_DEVICES && type && !strcmp(type, "generic-64bit"))
		atomic_store(&host_readable[device_num], 1);
}

static void on_device_finalize(int device_num)
{
	(void)device_num;
}

static void on_device_load(int device_num, const char *filename, int64_t offset_in_file,
			   void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
			   uint64_t module_id)
{
	(void)device_num, (void)filename, (void)offset_in_file, (void)vma_in_file;
	(void)bytes, (void)host_addr, (void)device_addr, (void)module_id;
}

/* The output, its header written: HASH_FLOOR_OUT, /dev/null without it. */
static void open_out(void)
{
	static const char magic[8] = "HFLOOR1";
	const char *path = getenv("HASH_FLOOR_OUT");
	uint32_t size = sizeof(struct event);

	out_fd = open(path && *path ? path : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
	if (out_fd < 0 || write(out_fd, magic, sizeof(magic)) != (ssize_t)sizeof(magic) ||
	    write(out_fd, &size, sizeof(size)) != (ssize_t)sizeof(size))
		out_failed = 1;
}

/* Write every thread's last events, and say what was seen under HASH_FLOOR_VERBOSE=1. */
static void floor_finish(void)
{
	const char *path = getenv("HASH_FLOOR_OUT"), *verbose = getenv("HASH_FLOOR_VERBOSE");
	uint64_t count[4];

	if (atomic_exchange(&finished, 1))
		return;
	pthread_mutex_lock(&list_mu);
	for (struct tbuf *t = list; t; t = t->next)
		flush_locked(t);
	if (out_fd >= 0 && close(out_fd))
		out_failed = 1;
	out_fd = -1;
	memcpy(count, written, sizeof(count));
	pthread_mutex_unlock(&list_mu);
	if (out_failed)
		fprintf(stderr, "hash-floor: error: cannot write '%s'\n", path && *path ? path : "/dev/null");
	if (verbose && !strcmp(verbose, "1")) {
		uint64_t read, reused;
		hash_stats(&read, &reused);
		fprintf(stderr, "hash-floor: %llu events (%llu data ops, %llu kernels, %llu targets), "
				"%llu bytes hashed\n",
			(unsigned long long)(count[EV_DATA_OP] + count[EV_KERNEL] + count[EV_TARGET]),
			(unsigned long long)count[EV_DATA_OP], (unsigned long long)count[EV_KERNEL],
			(unsigned long long)count[EV_TARGET],
			(unsigned long long)read);
	}
}

static int initialize(ompt_function_lookup_t lookup, int initial_device_num, ompt_data_t *tool_data)
{
	ompt_set_callback_t set = (ompt_set_callback_t)lookup("ompt_set_callback");
	(void)initial_device_num, (void)tool_data;

	if (!set)
		return 0;
	set(ompt_callback_target_emi, (ompt_callback_t)on_target);
	set(ompt_callback_target_data_op_emi, (ompt_callback_t)on_data_op);
	set(ompt_callback_target_submit_emi, (ompt_callback_t)on_submit);
	set(ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize);
	set(ompt_callback_device_finalize, (ompt_callback_t)on_device_finalize);
	set(ompt_callback_device_load, (ompt_callback_t)on_device_load);
	open_out();
	atexit(floor_finish);
	return 1;
}

static void finalize(ompt_data_t *tool_data)
{
	(void)tool_data;
	floor_finish();
}

__attribute__((visibility("default")))
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime)
{
	static ompt_start_tool_result_t result = { initialize, finalize, { 0 } };
	(void)omp_version, (void)runtime;
	return &result;
}
