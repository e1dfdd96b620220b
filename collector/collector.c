/*
 * collector.c - the OMPT tool: ompt_start_tool and the callbacks.
 *
 * Registers the EMI target callbacks and records, per event: a global
 * sequence number, the thread, begin/end times, the operation, addresses,
 * devices, bytes, the XXH3 hash of the bytes each transfer moved, codeptr_ra
 * and the enclosing target construct.  Begin and end callbacks of one
 * operation arrive on the same thread (nowait regions run on hidden helper
 * threads, begin to end), so the begin half waits in thread-local storage.
 *
 * The runtime's target_data pointer is not reliable for data operations in
 * LLVM 19 (it is another object than the target's), so the enclosing
 * construct is the one open on this thread.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/attach.h"
#include "collector/buffer.h"
#include "collector/check.h"
#include "collector/collector.h"
#include "collector/hash.h"
#include "collector/interpose.h"
#include "collector/modules.h"
#include "collector/output.h"
#include "collector/procs.h"
#include "collector/runinfo.h"
#include "collector/state.h"
#include "collector/text.h"
#include "collector/wtrack.h"

static _Atomic uint64_t next_seq = 1;
static _Atomic uint64_t next_target_id = 1;
static ompt_set_callback_t set_callback;
static atomic_int host_device = -1;  /* learned from the runtime at the first data op */
static const char *runtime_version;


static int64_t rel_ns(void)
{
	return now_ns() - collector_start_ns;
}

/* The host's device number: omp_get_initial_device() as the runtime answers it. */
static int learn_host_device(void)
{
	int h = atomic_load_explicit(&host_device, memory_order_relaxed);
	if (h < 0) {
		int (*initial)(void) = (int (*)(void))dlsym(RTLD_DEFAULT, "omp_get_initial_device");
		h = initial ? initial() : -2;
		atomic_store_explicit(&host_device, h, memory_order_relaxed);
	}
	return h;
}

static int is_transfer_to(int kind)
{
	return kind == ompt_target_data_transfer_to_device ||
	       kind == ompt_target_data_transfer_to_device_async;
}

static int is_transfer_from(int kind)
{
	return kind == ompt_target_data_transfer_from_device ||
	       kind == ompt_target_data_transfer_from_device_async;
}

/*
 * Whether a transfer's source is hashed while the runtime copies it: a host
 * source (to-device), or device memory coming back to the host where
 * MAPPROF_DEVICE_MEMORY_HOST=1 asks for it (hash.h).  Other transfers to the
 * host hash their destination after the copy.
 */
static int hash_source(int optype, int src_device_num, int dest_device_num)
{
	int host = learn_host_device();

	if (is_transfer_to(optype))
		return src_device_num == host;
	return is_transfer_from(optype) && dest_device_num == host &&
	       collector_device_hash_during_copy(src_device_num);
}

/*
 * --- from-device hashes, taken when the copy is known complete ---------------
 *
 * LLVM's offload runtime fires a data op's end callback right after it queued
 * the copy: a GPU plugin copies device -> host asynchronously (CUDA:
 * cuMemcpyDtoHAsync on a non-blocking stream; AMD: a host memcpy in an HSA
 * handler for unpinned memory), so at that callback the host destination may
 * still hold its old bytes.  The record of such a transfer waits here, its
 * hash not yet taken, until a point at which the runtime has synchronized:
 *   - the end of the construct (target_emi end) on the thread that ran it,
 *     for a construct that is not 'nowait' (its end follows a blocking
 *     synchronize);
 *   - a delete data op on that thread (deletes run after the queue drained);
 *   - for a 'nowait' construct, the completion of its target task
 *     (task_schedule with ompt_task_complete), on whatever thread;
 *   - the end of the thread, and of the process (finalize, exit, _exit,
 *     exec): the latest point, counted as "late" in the stats.
 * A to-device transfer's source is hashed at its begin, before the copy reads
 * it, as before.  On host offload the copy is complete at the end callback
 * already, so the hashes are those the end callback would have taken.
 */
#define HELD_MAX 256

struct held {
	struct rec r;
	struct thread_state *owner;
	const void *task;  /* a nowait construct's target task; NULL: the owner's construct */
	int wt_dest;       /* wtrack_dest_end() hashes it (and protects the range again) */
};

static pthread_mutex_t held_mu = PTHREAD_MUTEX_INITIALIZER;
static struct held held[HELD_MAX];
static atomic_int nheld;
/* Stats: transfers hashed at their end (nowhere to wait), and at each kind of point. */
static _Atomic uint64_t held_at_end, held_at[5], held_nowait;
/* From-device hashes: the device buffer during the copy (=1), host offload's destination at the op's end. */
static _Atomic uint64_t from_during_copy, from_at_copy_end;

enum held_point {
	HELD_CONSTRUCT,  /* the owner's construct ended */
	HELD_DELETE,     /* a delete on the owner's thread: its queue drained */
	HELD_TASK,       /* a target task completed */
	HELD_THREAD,     /* the owner thread ends */
	HELD_ALL,        /* the process ends */
};

static int held_matches(const struct held *h, enum held_point at, const struct thread_state *t,
			const void *task)
{
	switch (at) {
	case HELD_CONSTRUCT:
		return h->owner == t && !h->task;
	case HELD_DELETE:
		return h->owner == t && (!h->task || h->task == t->task);
	case HELD_TASK:
		return h->task == task;
	case HELD_THREAD:
		return h->owner == t;
	case HELD_ALL:
		return 1;
	}
	return 0;
}

/* Hash a held transfer's destination now and commit its record into this thread's buffer. */
static void held_commit(struct held *h, int signal_safe)
{
	struct thread_state *t = thread_state();
	const void *dest = (const void *)(uintptr_t)h->r.dst_addr;
	struct rec *r;

	/* Attached pointers in it (attach.h), learned since its begin if wtrack took it then. */
	int masked = (!signal_safe || attach_lock_free()) && attach_masked(h->r.dst_addr, h->r.bytes);

	/* (From a signal handler that may have cut into write tracking: the bytes alone.) */
	if (h->wt_dest && (!signal_safe || wtrack_lock_free()))
		h->r.hash = wtrack_dest_end(dest, h->r.bytes);  /* (it protects the range again too) */
	else if (!masked)
		h->r.hash = signal_safe ? hash_bytes(dest, h->r.bytes)
					: hash_parallel(dest, h->r.bytes);
	if (masked)
		h->r.hash = attach_hash(dest, h->r.bytes, h->r.dst_addr);
	h->r.has_hash = 1;
	if (check_on && !signal_safe)
		check_copied_back(h->r.seq, h->r.src_dev, h->r.src_addr, h->r.dst_addr, h->r.bytes, h->task);
	if (t && (r = buffer_slot(t))) {
		*r = h->r;
		buffer_commit(t);
	}
}

/*
 * Commit every held transfer that 'at' completes, oldest first.  One at a
 * time out of the lock: hashing a large buffer must not hold up the other
 * threads' transfers.
 */
static void held_release(enum held_point at, struct thread_state *t, const void *task, int signal_safe)
{
	struct held h;

	while (atomic_load_explicit(&nheld, memory_order_acquire)) {
		int found = 0, n;
		if (signal_safe) {
			if (pthread_mutex_trylock(&held_mu))
				return;  /* the signal cut into a holder: their records are lost, not corrupted */
		} else {
			pthread_mutex_lock(&held_mu);
		}
		n = atomic_load_explicit(&nheld, memory_order_relaxed);
		for (int i = 0; i < n; i++) {
			if (held_matches(&held[i], at, t, task)) {
				h = held[i];
				memmove(&held[i], &held[i + 1], (size_t)(n - i - 1) * sizeof(held[0]));
				atomic_store_explicit(&nheld, n - 1, memory_order_release);
				found = 1;
				break;
			}
		}
		pthread_mutex_unlock(&held_mu);
		if (!found)
			return;
		atomic_fetch_add_explicit(&held_at[at], 1, memory_order_relaxed);
		held_commit(&h, signal_safe);
	}
}

/* Keep a from-device transfer's record until its copy is complete; 0 when full (hash it now). */
static int held_keep(const struct rec *r, struct thread_state *t, int wt_dest)
{
	int ok = 0;

	pthread_mutex_lock(&held_mu);
	int n = atomic_load_explicit(&nheld, memory_order_relaxed);
	if (n < HELD_MAX) {
		held[n].r = *r;
		held[n].owner = t;
		held[n].task = t->call_nowait ? (t->task ? t->task : (const void *)t) : NULL;
		if (t->call_nowait)
			atomic_fetch_add_explicit(&held_nowait, 1, memory_order_relaxed);
		held[n].wt_dest = wt_dest;
		atomic_store_explicit(&nheld, n + 1, memory_order_release);
		ok = 1;
	}
	pthread_mutex_unlock(&held_mu);
	return ok;
}

static int side_frames_lock_free(void);
static uint64_t peek_seq(void);
static void attach_fixes_out(void);

/* buffer.c's hook: a thread or the process ends. */
static void held_flush(struct thread_state *t, int signal_safe)
{
	/* A signal handler that cut into one of our locks leaves them (the ring keeps the rest). */
	if (signal_safe && !(buffer_lock_free() && side_frames_lock_free()))
		return;
	held_release(t ? HELD_THREAD : HELD_ALL, t, NULL, signal_safe);
}

/* A fork's child holds none of its parent's transfers. */
static void held_fork_prepare(void)
{
	check_at_fork(FORK_PREPARE);
	attach_at_fork(FORK_PREPARE);
	pthread_mutex_lock(&held_mu);
}

static void held_fork_parent(void)
{
	pthread_mutex_unlock(&held_mu);
	attach_at_fork(FORK_PARENT);
	check_at_fork(FORK_PARENT);
}

static void held_fork_child(void)
{
	pthread_mutex_init(&held_mu, NULL);
	atomic_store(&nheld, 0);
	attach_at_fork(FORK_CHILD);
	check_at_fork(FORK_CHILD);
}

/* The nowait construct's target task a data op of thread t belongs to (held_keep()'s), or NULL. */
static const void *check_task(const struct thread_state *t)
{
	return t->call_nowait ? (t->task ? t->task : (const void *)t) : NULL;
}

/* --check's share of a data op's end: allocations, deletes (check.h). */
static void check_op_end(int optype, const struct pending *p, int src_dev, void *src_addr, int dst_dev,
			 void *dst_addr, size_t bytes, struct thread_state *t)
{
	(void)t;
	if (optype == ompt_target_data_alloc || optype == ompt_target_data_alloc_async)
		check_alloc(p ? p->seq : 0, dst_dev, (uint64_t)src_addr, (uint64_t)dst_addr, bytes);
	else if (optype == ompt_target_data_delete || optype == ompt_target_data_delete_async)
		check_delete(src_dev, (uint64_t)src_addr);
}

static void on_data_op(ompt_scope_endpoint_t endpoint, ompt_data_t *target_task_data,
		       ompt_data_t *target_data, ompt_id_t *host_op_id,
		       ompt_target_data_op_t optype, void *src_addr, int src_device_num,
		       void *dest_addr, int dest_device_num, size_t bytes, const void *codeptr_ra)
{
	struct pending *p = NULL;
	struct thread_state *t;
	struct rec *r;
	int64_t own;
	uint64_t slot = 0;
	int entry;
	(void)target_task_data;
	(void)target_data;

	if (!buffer_recording() || !(t = thread_state()))
		return;  /* finished, or a forked child */
	if (endpoint == ompt_scope_begin) {
		int64_t in = event_time();
		if (t->nops == PENDING_MAX) {
			/* Begins without ends: forget them, but first let go of their sources. */
			for (int i = 0; i < t->nops; i++)
				if (t->ops[i].job)
					hash_cancel(t->ops[i].job);
			t->nops = 0;
		}
		p = &t->ops[t->nops++];
		p->seq = counter_next(&next_seq);
		p->has_hash = 0;
		p->job = NULL;
		p->map_index = -1;
		p->wt_dest = 0;
		/* A pointer the runtime attaches in a device buffer (attach.h). */
		if (is_transfer_to(optype) && src_device_num == learn_host_device())
			slot = attach_transfer_to(dest_device_num, (uint64_t)src_addr, (uint64_t)dest_addr, bytes,
						  p->seq);
		/* Into host memory: lets the copy write pages protected for write tracking
		 * (not a range with attached pointers: its hash is masked, wtrack's is not). */
		if (is_transfer_from(optype) && bytes && dest_addr &&
		    dest_device_num == learn_host_device() && !attach_masked((uint64_t)dest_addr, bytes))
			p->wt_dest = wtrack_dest_begin(dest_addr, bytes);
		/* (wt_dest: hashed after the copy, by wtrack_dest_end().) */
		if (!p->wt_dest && bytes && src_addr && hash_source(optype, src_device_num, dest_device_num)) {
			/* The host range the bytes are of: attached pointers in it are masked. */
			uint64_t host = is_transfer_to(optype) ? (uint64_t)src_addr : (uint64_t)dest_addr;
			/* A host range unwritten since it was hashed is not read again;
			 * large sources are hashed by a helper while the runtime copies them. */
			if (attach_masked(host, bytes)) {
				p->hash = attach_hash(src_addr, bytes, host);
			} else if (is_transfer_to(optype) && wtrack_source(src_addr, bytes, &p->hash)) {
				p->job = NULL;
			} else {
				p->job = hash_start(src_addr, bytes);
				if (!p->job)
					p->hash = hash_bytes(src_addr, bytes);
			}
			p->has_hash = 1;
			if (is_transfer_from(optype))
				atomic_fetch_add_explicit(&from_during_copy, 1, memory_order_relaxed);
		}
		/*
		 * Map entries belong to the open construct's offload call: an
		 * omp_target_memcpy/alloc outside one would match the last call's.
		 */
		if (!t->target_id)
			;
		else if (slot && (entry = interpose_attach_index(t, slot)) >= 0)
			p->map_index = MAP_INDEX_ATTACH(entry);  /* the entry whose pointer this is */
		else if (is_transfer_to(optype) || optype == ompt_target_data_alloc ||
			 optype == ompt_target_data_alloc_async)
			p->map_index = interpose_map_index(t, (uint64_t)src_addr);
		else if (is_transfer_from(optype))
			p->map_index = interpose_map_index(t, (uint64_t)dest_addr);
		if (check_on && (is_transfer_to(optype) || is_transfer_from(optype)))
			check_transfer_begin(p->seq, is_transfer_to(optype), src_device_num, (uint64_t)src_addr,
					     dest_device_num, (uint64_t)dest_addr, bytes, learn_host_device(),
					     check_task(t));
		if (host_op_id)
			*host_op_id = p->seq;
		p->begin_ns = event_time();  /* last: the hash is not the operation's time */
		p->own = p->begin_ns - in;
		return;
	}

	/* End: find the begin half. */
	for (int i = t->nops - 1; i >= 0; i--) {
		if (!host_op_id || t->ops[i].seq == *host_op_id) {
			p = &t->ops[i];
			break;
		}
	}
	int64_t end = event_time();
	if (p && p->job) {
		p->hash = hash_finish(p->job);
		p->job = NULL;
	}
	/* A delete comes after the queue drained: what this thread's construct copied back is complete. */
	if ((optype == ompt_target_data_delete || optype == ompt_target_data_delete_async) &&
	    atomic_load_explicit(&nheld, memory_order_relaxed))
		held_release(HELD_DELETE, t, NULL, 0);
	if (optype == ompt_target_data_alloc || optype == ompt_target_data_alloc_async)
		attach_alloc(dest_device_num, (uint64_t)src_addr, (uint64_t)dest_addr, bytes, p ? p->seq : 0);
	else if (optype == ompt_target_data_delete || optype == ompt_target_data_delete_async)
		attach_delete(src_device_num, (uint64_t)src_addr);
	if (check_on)
		check_op_end(optype, p, src_device_num, src_addr, dest_device_num, dest_addr, bytes, t);
	/*
	 * A copy into host memory that the destination is hashed for: the record
	 * waits for a completion point (above) inside a construct; outside one
	 * (omp_target_memcpy) the runtime synchronizes before it returns, and
	 * nothing of ours runs before the program may use the bytes.  Host
	 * offload has copied by now (hash.h): hashed here, where the copy left
	 * the bytes in this core's cache.
	 */
	int sync_copy = collector_device_copies_at_once(src_device_num);
	int hold = is_transfer_from(optype) && bytes && dest_addr && t->target_id && !sync_copy &&
		   dest_device_num == learn_host_device() && (!p || p->wt_dest || !p->has_hash);
	struct rec local;
	r = hold ? &local : buffer_slot(t);
	if (r) {
		r->type = REC_DATA_OP;
		r->kind = (uint8_t)optype;
		r->thread = buffer_thread_id(t);
		r->src_dev = src_device_num;
		r->dst_dev = dest_device_num;
		r->src_addr = (uint64_t)src_addr;
		r->dst_addr = (uint64_t)dest_addr;
		r->bytes = bytes;
		r->end_ns = end;
		r->codeptr = (uint64_t)codeptr_ra;
		r->target_id = t->target_id;
		r->teams = 0;
		if (p) {
			r->seq = p->seq;
			r->begin_ns = p->begin_ns;
			r->has_hash = (uint8_t)p->has_hash;
			r->hash = p->hash;
			r->map_index = (int8_t)(p->map_index < 128 ? p->map_index : -1);
		} else {
			r->seq = counter_next(&next_seq);
			r->begin_ns = end;
			r->has_hash = 0;
			r->hash = 0;
			r->map_index = -1;
		}
		if (hold) {
			struct held h = { .r = *r, .owner = t, .wt_dest = p && p->wt_dest };
			r->has_hash = 0;
			if (!held_keep(r, t, h.wt_dest)) {
				/* Nowhere to wait: hashed at the end callback, as the stats say. */
				atomic_fetch_add_explicit(&held_at_end, 1, memory_order_relaxed);
				held_commit(&h, 0);
			}
		} else {
			int dest_hashed = 1;
			if (p && p->wt_dest) {
				r->hash = wtrack_dest_end(dest_addr, bytes);
				r->has_hash = 1;
			} else if (is_transfer_from(optype) && !r->has_hash && bytes && dest_addr &&
				   dest_device_num == learn_host_device()) {
				r->hash = attach_masked((uint64_t)dest_addr, bytes)
						  ? attach_hash(dest_addr, bytes, (uint64_t)dest_addr)
						  : hash_parallel(dest_addr, bytes);
				r->has_hash = 1;
			} else {
				dest_hashed = 0;  /* hashed during the copy, or not at all */
			}
			if (dest_hashed && sync_copy && t->target_id)
				atomic_fetch_add_explicit(&from_at_copy_end, 1, memory_order_relaxed);
			/* Attached pointer slots learned since its begin (wtrack took it then): masked. */
			if (p && p->wt_dest && attach_masked((uint64_t)dest_addr, bytes))
				r->hash = attach_hash(dest_addr, bytes, (uint64_t)dest_addr);
			if (check_on && is_transfer_from(optype) && dest_device_num == learn_host_device())
				check_copied_back(r->seq, src_device_num, (uint64_t)src_addr, (uint64_t)dest_addr,
						  bytes, check_task(t));
			buffer_commit(t);
		}
	}
	own = event_time() - end;
	if (p) {
		own += p->own;
		/* Drop the pending entry (it is usually the last one). */
		*p = t->ops[--t->nops];
	}
	atomic_fetch_add_explicit(&collector_own_ticks, own, memory_order_relaxed);
}

static void on_target(ompt_target_t kind, ompt_scope_endpoint_t endpoint, int device_num,
		      ompt_data_t *task_data, ompt_data_t *target_task_data,
		      ompt_data_t *target_data, const void *codeptr_ra)
{
	struct thread_state *t;
	struct rec *r;
	(void)task_data;
	(void)target_task_data;

	if (!buffer_recording() || !(t = thread_state()))
		return;
	/* A construct's end follows a blocking synchronize: what it copied back is complete. */
	if (endpoint == ompt_scope_end && atomic_load_explicit(&nheld, memory_order_relaxed)) {
		int64_t in = event_time();
		held_release(HELD_CONSTRUCT, t, NULL, 0);
		atomic_fetch_add_explicit(&collector_own_ticks, event_time() - in, memory_order_relaxed);
	}
	if (endpoint == ompt_scope_begin) {
		t->target_id = counter_next(&next_target_id);
		t->target_seq = counter_next(&next_seq);
		t->target_device = device_num;
		t->target_begin_ns = event_time();
		if (target_data)
			target_data->value = t->target_id;
		return;
	}
	r = buffer_slot(t);
	if (r) {
		r->type = REC_TARGET;
		r->kind = (uint8_t)kind;
		r->thread = buffer_thread_id(t);
		r->src_dev = device_num;
		r->dst_dev = device_num;
		r->seq = t->target_seq;
		r->target_id = t->target_id;
		r->begin_ns = t->target_begin_ns;
		r->end_ns = event_time();
		r->codeptr = (uint64_t)codeptr_ra;
		r->has_hash = 0;
		r->map_index = -1;
		r->src_addr = r->dst_addr = r->bytes = r->hash = 0;
		r->teams = 0;
		buffer_commit(t);
	}
	t->target_id = 0;
	/* The next construct on this thread says its own (a call not sent to us would inherit it). */
	t->call_nowait = 0;
}

static void on_submit(ompt_scope_endpoint_t endpoint, ompt_data_t *target_data,
		      ompt_id_t *host_op_id, unsigned int requested_num_teams)
{
	struct thread_state *t;
	struct rec *r;

	if (!buffer_recording() || !(t = thread_state()))
		return;
	if (endpoint == ompt_scope_begin) {
		t->kernel_seq = counter_next(&next_seq);
		if (host_op_id)
			*host_op_id = t->kernel_seq;
		t->kernel_begin_ns = event_time();
		return;
	}
	r = buffer_slot(t);
	if (r) {
		r->type = REC_KERNEL;
		r->kind = 0;
		r->thread = buffer_thread_id(t);
		r->seq = t->kernel_seq;
		r->begin_ns = t->kernel_begin_ns;
		r->end_ns = event_time();
		r->target_id = t->target_id ? t->target_id : (target_data ? target_data->value : 0);
		r->src_dev = r->dst_dev = t->target_device;
		r->teams = requested_num_teams;
		r->has_hash = 0;
		r->map_index = -1;
		r->src_addr = r->dst_addr = r->bytes = r->hash = r->codeptr = 0;
		buffer_commit(t);
	}
}

/*
 * The task each thread runs, and the completion of a nowait construct's
 * target task: the point at which its copies back are known complete.
 */
static void on_task_schedule(ompt_data_t *prior_task_data, ompt_task_status_t prior_task_status,
			     ompt_data_t *next_task_data)
{
	struct thread_state *t;

	if (!buffer_recording())
		return;
	/* A hidden helper thread's first task comes before its first offload event. */
	if ((t = thread_state()))
		t->task = next_task_data;
	if (prior_task_status == ompt_task_complete && prior_task_data &&
	    atomic_load_explicit(&nheld, memory_order_relaxed))
		held_release(HELD_TASK, NULL, prior_task_data, 0);
	if (check_on && prior_task_status == ompt_task_complete && prior_task_data)
		check_task_done(prior_task_data);
}

static void on_device_initialize(int device_num, const char *type, ompt_device_t *device,
				 ompt_function_lookup_t lookup, const char *documentation)
{
	(void)device;
	(void)lookup;
	(void)documentation;
	int64_t ns = rel_ns();

	collector_device_note(device_num, type);
	procs_note_device(device_num, type, ns);
	if (buffer_recording())
		output_frame(SPOOL_DEVICE, (int64_t)device_num, type ? type : "unknown", ns, (int64_t)-1);
}

static void on_device_finalize(int device_num)
{
	if (buffer_recording())
		output_frame(SPOOL_DEVICE, (int64_t)device_num, (const char *)NULL, (int64_t)-1,
			     rel_ns());
}

static void on_device_load(int device_num, const char *filename, int64_t offset_in_file,
			   void *vma_in_file, size_t bytes, void *host_addr, void *device_addr,
			   uint64_t module_id)
{
	(void)offset_in_file;
	(void)vma_in_file;
	(void)device_addr;
	(void)module_id;
	if (!buffer_recording())
		return;
	output_frame(SPOOL_IMAGE, (int64_t)device_num, filename, (int64_t)(uint64_t)host_addr,
		     (int64_t)bytes, rel_ns());
	/* An offload image usually arrives with a newly loaded library. */
	if (modules_changed()) {
		interpose_install();
		modules_record();
	}
}

/*
 * The frames buffer.c writes with a buffer of events but cannot know: the
 * libraries loaded and the call sites seen since the last buffer.  buffer.c
 * sits below modules.c and interpose.c, so it reaches them through these.
 */
static int side_frames_waiting(void)
{
	return modules_changed() || interpose_pending();
}

static void side_frames_write(enum buffer_moment when)
{
	if (when == BUFFER_END) {
		uint64_t read, reused, by_helpers;
		int helpers;
		modules_record();  /* the last chance: no cheap test first */
		hash_stats(&read, &reused);
		helpers = hash_helpers(&by_helpers);
		output_frame(SPOOL_STAT, "hash_bytes", (int64_t)read);
		output_frame(SPOOL_STAT, "hash_reused_bytes", (int64_t)reused);
		output_frame(SPOOL_STAT, "hash_reuse", (int64_t)wtrack_active());
		{
			/* What write tracking's system calls cost (docs/database.md). */
			uint64_t protects, scans, queries, ns;
			wtrack_stats(&protects, &scans, &queries, &ns);
			output_frame(SPOOL_STAT, "hash_wtrack_protects", (int64_t)protects);
			output_frame(SPOOL_STAT, "hash_wtrack_scans", (int64_t)scans);
			output_frame(SPOOL_STAT, "hash_wtrack_queries", (int64_t)queries);
			output_frame(SPOOL_STAT, "hash_wtrack_ns", (int64_t)ns);
		}
		/* What the collector took of the program's threads' time (docs/database.md). */
		output_frame(SPOOL_STAT, "collector_own_ns",
			     state_ticks_ns(atomic_load_explicit(&collector_own_ticks, memory_order_relaxed)));
		output_frame(SPOOL_STAT, "hash_helpers", (int64_t)helpers);
		output_frame(SPOOL_STAT, "hash_helper_bytes", (int64_t)by_helpers);
		/* The hash's definition (docs/database.md): its chunk size. */
		output_frame(SPOOL_STAT, "hash_chunk_bytes", (int64_t)HASH_CHUNK_BYTES);
		output_frame(SPOOL_STAT, "hash_function", (int64_t)hash_function());
		/*
		 * Where from-device destinations were hashed (docs/database.md):
		 * at a construct's end, a delete, a nowait task's completion, a
		 * thread's or the process's end (late), or at the op's end (no room).
		 */
		output_frame(SPOOL_STAT, "hash_from_at_construct_end", (int64_t)atomic_load(&held_at[HELD_CONSTRUCT]));
		output_frame(SPOOL_STAT, "hash_from_at_delete", (int64_t)atomic_load(&held_at[HELD_DELETE]));
		output_frame(SPOOL_STAT, "hash_from_at_task_end", (int64_t)atomic_load(&held_at[HELD_TASK]));
		output_frame(SPOOL_STAT, "hash_from_late",
			     (int64_t)(atomic_load(&held_at[HELD_THREAD]) + atomic_load(&held_at[HELD_ALL])));
		output_frame(SPOOL_STAT, "hash_from_at_op_end", (int64_t)atomic_load(&held_at_end));
		/* A host-readable device's (its copy complete at the op's end): during the copy, or after it there. */
		output_frame(SPOOL_STAT, "hash_from_during_copy", (int64_t)atomic_load(&from_during_copy));
		output_frame(SPOOL_STAT, "hash_from_at_copy_end", (int64_t)atomic_load(&from_at_copy_end));
		/* Of those, the transfers of nowait constructs (completed with their task, not their end). */
		output_frame(SPOOL_STAT, "hash_from_nowait", (int64_t)atomic_load(&held_nowait));
		{
			/* Attached pointer slots masked in hashes (docs/database.md). */
			uint64_t known, learned, dropped, untracked, late, fixed, unknown;
			attach_fixes_out();
			attach_stats(&known, &learned, &dropped, &untracked, &late, &fixed, &unknown);
			output_frame(SPOOL_STAT, "hash_attach_slots", (int64_t)learned);
			output_frame(SPOOL_STAT, "hash_attach_slots_dropped", (int64_t)dropped);
			output_frame(SPOOL_STAT, "hash_attach_buffers_untracked", (int64_t)untracked);
			output_frame(SPOOL_STAT, "hash_attach_late", (int64_t)late);
			output_frame(SPOOL_STAT, "hash_attach_late_fixed", (int64_t)fixed);
			output_frame(SPOOL_STAT, "hash_attach_late_unknown", (int64_t)unknown);
			output_frame(SPOOL_STAT, "hash_attach_unread", (int64_t)attach_unread());
			(void)known;
		}
		check_stats();
	} else if (modules_changed()) {
		/* At a swap, a library loaded since also gets its offload calls sent to us. */
		if (when == BUFFER_SWAPPED)
			interpose_install();
		modules_record();
	}
	interpose_flush();
}

static int side_frames_lock_free(void)
{
	/*
	 * frames_write() at the end asks wtrack_active(), which takes write
	 * tracking's lock, and attach.c's stats and fixes, which take its own
	 * (held while a late slot's buffer is hashed again).
	 */
	return modules_lock_free() && interpose_lock_free() && wtrack_lock_free() && attach_lock_free();
}

static const struct buffer_hooks hooks = { side_frames_waiting, side_frames_write, side_frames_lock_free,
					   held_flush };

/*
 * The spool claimed and the run's frames written: 0, or -1 when this
 * process does not record.  One process per spool: the first offloading
 * process of the recorded command claims the one 'mapprof record' opened;
 * every other process (a child, a second program of a script, an MPI rank)
 * opens its own (procs.c).
 */
static int recording_open(void)
{
	int opened = output_open();
	const char *started = "record";

	if (opened == -2) {
		if (procs_open() < 0)
			return -1;
		started = "exec";
	} else if (opened < 0) {
		return -1;
	}
	if (runinfo_record(runtime_version) < 0 || procs_record(started) < 0) {
		output_close();
		return -1;
	}
	if (collector_tsc)
		output_clock_frame();
	modules_record();
	attach_set_hooks(peek_seq, attach_fixes_out);
	interpose_install();
	return 0;
}

/* Events are recorded from now on. */
static void recording_start(void)
{
	buffer_start(&hooks);
	procs_start(runtime_version);
	/* The run and its modules reach the spool now, in case the program is killed. */
	output_sync();
}

static int tool_initialize(ompt_function_lookup_t lookup, int initial_device_num,
			   ompt_data_t *tool_data)
{
	static const struct {
		ompt_callbacks_t event;
		ompt_callback_t fn;
		const char *name;
		int target;
	} cbs[] = {
		{ ompt_callback_target_emi, (ompt_callback_t)on_target, "target_emi", 1 },
		{ ompt_callback_target_data_op_emi, (ompt_callback_t)on_data_op, "target_data_op_emi", 1 },
		{ ompt_callback_target_submit_emi, (ompt_callback_t)on_submit, "target_submit_emi", 1 },
		{ ompt_callback_device_initialize, (ompt_callback_t)on_device_initialize, "device_initialize", 0 },
		{ ompt_callback_device_finalize, (ompt_callback_t)on_device_finalize, "device_finalize", 0 },
		{ ompt_callback_device_load, (ompt_callback_t)on_device_load, "device_load", 0 },
		{ ompt_callback_task_schedule, (ompt_callback_t)on_task_schedule, "task_schedule", 0 },
	};
	char refused[256] = "";
	int target_ok = 0;
	(void)initial_device_num;
	(void)tool_data;

	if (recording_open() < 0)
		return 0;
	set_callback = (ompt_set_callback_t)lookup("ompt_set_callback");
	for (size_t i = 0; set_callback && i < sizeof(cbs) / sizeof(cbs[0]); i++) {
		ompt_set_result_t rc = set_callback(cbs[i].event, cbs[i].fn);
		if (rc == ompt_set_never || rc == ompt_set_error) {
			size_t len = strlen(refused);
			snprintf(refused + len, sizeof(refused) - len, "%s%s", len ? ", " : "", cbs[i].name);
		} else if (cbs[i].target) {
			target_ok++;
		}
	}
	if (refused[0])
		clog_msg("the OpenMP runtime refused these callbacks: %s", refused);
	if (!target_ok) {
		output_frame(SPOOL_STATUS, "no-target-callbacks",
			     set_callback ? "the OpenMP runtime offers no target callbacks (target_emi, "
					    "target_data_op_emi, target_submit_emi): is libomptarget present?"
					  : "the OpenMP runtime has no ompt_set_callback");
		output_frame(SPOOL_END, rel_ns(), (int64_t)0);
		output_close();
		return 0;  /* stay out of the program's way */
	}
	recording_start();
	return 1;
}

static void tool_finalize(ompt_data_t *tool_data)
{
	(void)tool_data;
	buffer_finish();
}

/* Also at exit() and at unload, in case the runtime's finalize never comes. */
static void at_exit(void)
{
	buffer_exiting();
	buffer_finish();
}

__attribute__((destructor)) static void collector_unload(void)
{
	buffer_exiting();
	buffer_finish();
}

/*
 * What the tool's start does before the runtime initializes it, once per
 * process whichever interface asks first (OMPT's ompt_start_tool, or
 * OpenACC's acc_register_library: openacc.c).  0, or -1 when the tool
 * stays out (started already, or a rank 'record --ranks' leaves out: the
 * program runs as without mapprof).
 */
static int tool_prepare(const char *runtime)
{
	static atomic_int started;

	if (atomic_fetch_add(&started, 1))
		return -1;
	if (procs_rank_off())
		return -1;
	state_clock_start();
	check_start();
	runtime_version = runtime ? strdup(runtime) : NULL;
	pthread_atfork(held_fork_prepare, held_fork_parent, held_fork_child);
	atexit(at_exit);
	return 0;
}

__attribute__((visibility("default")))
ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version, const char *runtime)
{
	static ompt_start_tool_result_t result = { tool_initialize, tool_finalize, { 0 } };
	(void)omp_version;

	return tool_prepare(runtime) < 0 ? NULL : &result;
}

int collector_start_other(const char *runtime)
{
	if (tool_prepare(runtime) < 0 || recording_open() < 0)
		return -1;
	recording_start();
	return 0;
}

uint64_t collector_next_seq(void)
{
	return counter_next(&next_seq);
}

/* The sequence number the next event will get (none taken): attach.c's hook. */
static uint64_t peek_seq(void)
{
	return atomic_load_explicit(&next_seq, memory_order_relaxed);
}

/* Late attached pointer slots' hash fixes (attach.h) into the spool, as frames: attach.c's hook. */
static void attach_fixes_out(void)
{
	struct attach_fix f[16];
	int n;

	while ((n = attach_take_fixes(f, 16)) > 0)
		for (int i = 0; i < n; i++)
			output_frame(SPOOL_HASH_FIX, (int64_t)f[i].dev, (int64_t)f[i].host, (int64_t)f[i].bytes,
				     (int64_t)f[i].slot, (int64_t)f[i].from_seq, (int64_t)f[i].to_seq,
				     (int64_t)f[i].known, (int64_t)f[i].old_hash, (int64_t)f[i].new_hash);
}

uint64_t collector_next_target_id(void)
{
	return counter_next(&next_target_id);
}
