/*
 * openacc.c - the OpenACC Profiling Interface: GCC's libgomp calls
 * acc_register_library() of the library named by ACC_PROFLIB ('mapprof
 * record' names the collector there), and every event it dispatches is
 * recorded into the same buffers and spool as the OMPT events:
 *
 *   compute_construct, enter_data, exit_data, update   target_raw (kinds 33-36)
 *   enqueue_launch                                     kernel_raw
 *   alloc, free, create, delete                        data_op_raw (alloc, delete,
 *   enqueue_upload, enqueue_download                   associate, disassociate,
 *                                                      to_device, from_device)
 *   device_init, device_shutdown                       device_raw
 *
 * and each of them, with those only OpenACC has (wait, runtime_shutdown),
 * as a row of acc_event_raw: what the runtime said of it (parent construct,
 * implicit, device type and number, async, queue, valid_bytes, kernel
 * name, launch sizes, variable name, source position).
 *
 * The runtime says how much of each structure it filled (valid_bytes): a
 * field past it is never read.  libgomp 12 without a GPU (host fallback)
 * fills only the first 24 bytes of an event's info (no bytes, no
 * pointers), passes no source file or line, and fires no data event at
 * all: then no transfer is recorded and nothing is made up.  A data event
 * that carries a host pointer and bytes is hashed as an OMPT transfer is
 * (to the device: the host source before the copy; back: the host
 * destination after a synchronous copy), so the detectors run on it.
 *
 * The runtime gives no code address either: the construct's call site is
 * the first return address on the stack outside the collector and the
 * runtime (backtrace()), whose line the report finds in the program's
 * line table as it does for OMPT's codeptr_ra.
 *
 * The host is device -1 (omp_initial_device); another device keeps the
 * number the runtime gives it within its type.
 */
#define _GNU_SOURCE
#include <acc_prof.h>
#include <dlfcn.h>
#include <execinfo.h>
#include <inttypes.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "collector/buffer.h"
#include "collector/collector.h"
#include "collector/hash.h"
#include "collector/output.h"
#include "collector/state.h"
#include "collector/text.h"

/* target_raw.kind of the OpenACC constructs (schema.sql target_kind_name). */
enum acc_target_kind {
	ACC_KIND_COMPUTE = 33,
	ACC_KIND_ENTER_DATA,
	ACC_KIND_EXIT_DATA,
	ACC_KIND_UPDATE,
};

/* OMPT's data op kinds (ompt_target_data_op_t), which data_op_raw.kind holds. */
enum { OP_ALLOC = 1, OP_TO = 2, OP_FROM = 3, OP_DELETE = 4, OP_ASSOCIATE = 5, OP_DISASSOCIATE = 6,
       OP_ASYNC = 16 };

#define HOST_DEVICE (-1)
#define OPEN_MAX 8

/* Whether the runtime filled 'field' of *info, a struct 'type' (its valid_bytes). */
#define FILLED(info, type, field) \
	((info)->valid_bytes > 0 && \
	 (size_t)(info)->valid_bytes >= offsetof(type, field) + sizeof(((type *)0)->field))

/* A construct between its start and end events. */
struct acc_open {
	int kind;
	uint64_t target_id, seq, codeptr;
	int64_t begin;  /* event_time() */
};

/* A data event, launch or wait between its start and end. */
struct acc_pending {
	uint64_t seq, hash;
	int64_t begin, begin_ns;  /* event_time(), and ns since the start (acc_event_raw's times) */
	int has_hash, active;
};

struct acc_thread {
	struct acc_open open[OPEN_MAX];
	int nopen;
	struct acc_pending data, launch, wait, init, shutdown;
};

static __thread struct acc_thread acc_t;
static const void *self_base, *runtime_base;  /* load addresses skipped by call_site() */
static atomic_int recording;

static int64_t rel_ns(void)
{
	return now_ns() - collector_start_ns;
}

static const char *event_name(acc_event_t e)
{
	switch (e) {
	case acc_ev_device_init_start: case acc_ev_device_init_end: return "device_init";
	case acc_ev_device_shutdown_start: case acc_ev_device_shutdown_end: return "device_shutdown";
	case acc_ev_runtime_shutdown: return "runtime_shutdown";
	case acc_ev_create: return "create";
	case acc_ev_delete: return "delete";
	case acc_ev_alloc: return "alloc";
	case acc_ev_free: return "free";
	case acc_ev_enter_data_start: case acc_ev_enter_data_end: return "enter_data";
	case acc_ev_exit_data_start: case acc_ev_exit_data_end: return "exit_data";
	case acc_ev_update_start: case acc_ev_update_end: return "update";
	case acc_ev_compute_construct_start: case acc_ev_compute_construct_end: return "compute_construct";
	case acc_ev_enqueue_launch_start: case acc_ev_enqueue_launch_end: return "enqueue_launch";
	case acc_ev_enqueue_upload_start: case acc_ev_enqueue_upload_end: return "enqueue_upload";
	case acc_ev_enqueue_download_start: case acc_ev_enqueue_download_end: return "enqueue_download";
	case acc_ev_wait_start: case acc_ev_wait_end: return "wait";
	default: return "unknown";
	}
}

static const char *construct_name(int c)
{
	static const char *const names[] = {
		"parallel", "kernels", "loop", "data", "enter_data", "exit_data", "host_data", "atomic",
		"declare", "init", "shutdown", "set", "update", "routine", "wait", "runtime_api", "serial",
	};
	return c >= 0 && (size_t)c < sizeof(names) / sizeof(names[0]) ? names[c] : "unknown";
}

static const char *device_type_name(int t)
{
	switch (t) {
	case acc_device_none: return "none";
	case acc_device_default: return "default";
	case acc_device_host: return "host";
	case acc_device_not_host: return "not_host";
	case acc_device_nvidia: return "nvidia";
	case acc_device_radeon: return "radeon";
	default: return "other";
	}
}

/* The device number in the database's terms: the host is -1. */
static int device_of(const acc_prof_info *pi)
{
	if (!FILLED(pi, acc_prof_info, device_number) || pi->device_type == acc_device_host)
		return HOST_DEVICE;
	return pi->device_number;
}

/* The first return address outside the collector and the runtime: the program's call. */
static uint64_t call_site(void)
{
	void *pcs[32];
	int n = backtrace(pcs, 32);

	for (int i = 1; i < n; i++) {
		Dl_info di;
		if (dladdr(pcs[i], &di) && (di.dli_fbase == self_base || di.dli_fbase == runtime_base))
			continue;
		return (uint64_t)(uintptr_t)pcs[i];
	}
	return 0;
}

/* Append ,"key":"value" (JSON-escaped) to b[0..cap) at *len. */
static void detail_str(char *b, size_t cap, size_t *len, const char *key, const char *v)
{
	char esc[8];
	int n = snprintf(b + *len, cap - *len, "%s\"%s\":\"", *len > 1 ? "," : "", key);

	if (n < 0 || (size_t)n >= cap - *len)
		return;
	*len += (size_t)n;
	for (; *v && *len + 8 < cap; v++) {
		size_t e = json_escape((unsigned char)*v, esc);
		memcpy(b + *len, esc, e);
		*len += e;
	}
	if (*len + 2 < cap)
		b[(*len)++] = '"';
	b[*len] = 0;
}

static void detail_int(char *b, size_t cap, size_t *len, const char *key, int64_t v)
{
	int n = snprintf(b + *len, cap - *len, "%s\"%s\":%" PRId64, *len > 1 ? "," : "", key, v);
	if (n > 0 && (size_t)n < cap - *len)
		*len += (size_t)n;
}

/*
 * What the runtime said of the event beyond the columns, as a JSON object:
 * only what it filled (valid_bytes) and set (a NULL string, a line of -1,
 * are left out).
 */
static void detail_json(const acc_prof_info *pi, const acc_event_info *ei, char *b, size_t cap)
{
	size_t len = 1;

	b[0] = '{';
	b[1] = 0;
	if (FILLED(pi, acc_prof_info, src_file) && pi->src_file)
		detail_str(b, cap, &len, "src_file", pi->src_file);
	if (FILLED(pi, acc_prof_info, func_name) && pi->func_name)
		detail_str(b, cap, &len, "func_name", pi->func_name);
	if (FILLED(pi, acc_prof_info, line_no) && pi->line_no >= 0)
		detail_int(b, cap, &len, "line_no", pi->line_no);
	if (FILLED(pi, acc_prof_info, end_line_no) && pi->end_line_no >= 0)
		detail_int(b, cap, &len, "end_line_no", pi->end_line_no);
	if (FILLED(pi, acc_prof_info, thread_id) && pi->thread_id >= 0)
		detail_int(b, cap, &len, "thread_id", pi->thread_id);
	switch (pi->event_type) {
	case acc_ev_enqueue_launch_start:
	case acc_ev_enqueue_launch_end: {
		const acc_launch_event_info *l = &ei->launch_event;
		if (FILLED(l, acc_launch_event_info, kernel_name) && l->kernel_name)
			detail_str(b, cap, &len, "kernel_name", l->kernel_name);
		if (FILLED(l, acc_launch_event_info, num_gangs))
			detail_int(b, cap, &len, "num_gangs", (int64_t)l->num_gangs);
		if (FILLED(l, acc_launch_event_info, num_workers))
			detail_int(b, cap, &len, "num_workers", (int64_t)l->num_workers);
		if (FILLED(l, acc_launch_event_info, vector_length))
			detail_int(b, cap, &len, "vector_length", (int64_t)l->vector_length);
		break;
	}
	case acc_ev_create: case acc_ev_delete: case acc_ev_alloc: case acc_ev_free:
	case acc_ev_enter_data_start: case acc_ev_enter_data_end:
	case acc_ev_exit_data_start: case acc_ev_exit_data_end:
	case acc_ev_update_start: case acc_ev_update_end:
	case acc_ev_enqueue_upload_start: case acc_ev_enqueue_upload_end:
	case acc_ev_enqueue_download_start: case acc_ev_enqueue_download_end: {
		const acc_data_event_info *d = &ei->data_event;
		if (FILLED(d, acc_data_event_info, var_name) && d->var_name)
			detail_str(b, cap, &len, "var_name", d->var_name);
		break;
	}
	default:
		break;
	}
	if (len + 2 <= cap) {
		b[len++] = '}';
		b[len] = 0;
	}
}

/* The acc_event_raw row of one event (or of a start/end pair: the end's info). */
static void note_event(uint64_t seq, const acc_prof_info *pi, const acc_event_info *ei, int64_t begin_ns,
		       int64_t end_ns)
{
	const acc_other_event_info *o = &ei->other_event;
	char detail[1024];

	detail_json(pi, ei, detail, sizeof(detail));
	output_frame(SPOOL_ACC, (int64_t)seq, event_name(pi->event_type),
		     FILLED(o, acc_other_event_info, parent_construct) ? construct_name(o->parent_construct)
								       : (const char *)NULL,
		     FILLED(o, acc_other_event_info, implicit) ? (int64_t)o->implicit : INT64_MIN,
		     FILLED(pi, acc_prof_info, device_type) ? device_type_name(pi->device_type)
							    : (const char *)NULL,
		     FILLED(pi, acc_prof_info, device_number) ? (int64_t)pi->device_number : INT64_MIN,
		     FILLED(pi, acc_prof_info, async) ? (int64_t)pi->async : INT64_MIN,
		     FILLED(pi, acc_prof_info, async_queue) ? (int64_t)pi->async_queue : INT64_MIN,
		     (int64_t)ei->other_event.valid_bytes, begin_ns, end_ns, detail);
}

static int is_async(const acc_prof_info *pi)
{
	return FILLED(pi, acc_prof_info, async) && pi->async != acc_async_sync;
}

/*
 * A device's row (device_raw), the first time an event ran on it: its type
 * as that event says.  device_init's own device type is often 'default'
 * (libgomp: the device it will choose), and acc_get_device_type() answers
 * 'none' until the initialization ended, so the row waits for the first
 * construct, launch or data event; its init_ns is the last device_init's.
 */
#define NOTED_MAX 64
static atomic_int noted[NOTED_MAX + 1];  /* index device + 1 */
static _Atomic int64_t last_init_ns = -1;

static void note_device(const acc_prof_info *pi)
{
	int dev = device_of(pi);
	char name[64];
	int64_t init;

	if (dev < -1 || dev >= NOTED_MAX || atomic_exchange(&noted[dev + 1], 1))
		return;
	init = atomic_load(&last_init_ns);
	snprintf(name, sizeof(name), "openacc:%s",
		 FILLED(pi, acc_prof_info, device_type) ? device_type_name(pi->device_type) : "unknown");
	output_frame(SPOOL_DEVICE, (int64_t)dev, name, init >= 0 ? init : rel_ns(), (int64_t)-1);
}

/* --- constructs -------------------------------------------------------------- */

static int construct_kind(acc_event_t e)
{
	switch (e) {
	case acc_ev_compute_construct_start: case acc_ev_compute_construct_end: return ACC_KIND_COMPUTE;
	case acc_ev_enter_data_start: case acc_ev_enter_data_end: return ACC_KIND_ENTER_DATA;
	case acc_ev_exit_data_start: case acc_ev_exit_data_end: return ACC_KIND_EXIT_DATA;
	case acc_ev_update_start: case acc_ev_update_end: return ACC_KIND_UPDATE;
	default: return 0;
	}
}

static void construct_start(int kind)
{
	struct acc_thread *a = &acc_t;
	struct acc_open *o;

	if (a->nopen == OPEN_MAX)
		a->nopen = 0;  /* starts without ends: forget them */
	o = &a->open[a->nopen++];
	o->kind = kind;
	o->target_id = collector_next_target_id();
	o->seq = collector_next_seq();
	o->codeptr = call_site();
	o->begin = event_time();
}

static void construct_end(int kind, const acc_prof_info *pi, const acc_event_info *ei)
{
	struct acc_thread *a = &acc_t;
	struct acc_open o = { .kind = kind };
	struct thread_state *t;
	struct rec *r;
	int64_t end = event_time();
	int found = 0;

	for (int i = a->nopen - 1; i >= 0 && !found; i--) {
		if (a->open[i].kind == kind) {
			o = a->open[i];
			a->nopen = i;  /* and any left open inside it */
			found = 1;
		}
	}
	if (!found) {
		o.target_id = collector_next_target_id();
		o.seq = collector_next_seq();
		o.codeptr = call_site();
		o.begin = end;
	}
	note_device(pi);
	if ((t = thread_state()) && (r = buffer_slot(t))) {
		memset(r, 0, sizeof(*r));
		r->type = REC_TARGET;
		r->kind = (uint8_t)kind;
		r->map_index = -1;
		r->thread = buffer_thread_id(t);
		r->src_dev = r->dst_dev = device_of(pi);
		r->seq = o.seq;
		r->target_id = o.target_id;
		r->begin_ns = o.begin;
		r->end_ns = end;
		r->codeptr = o.codeptr;
		buffer_commit(t);
	}
	note_event(o.seq, pi, ei, INT64_MIN, INT64_MIN);  /* its times are target_raw's */
}

/* The innermost open construct of this thread, or NULL. */
static const struct acc_open *open_construct(int kind)
{
	struct acc_thread *a = &acc_t;
	for (int i = a->nopen - 1; i >= 0; i--)
		if (!kind || a->open[i].kind == kind)
			return &a->open[i];
	return NULL;
}

/* --- data events --------------------------------------------------------------- */

static void pending_start(struct acc_pending *p)
{
	p->seq = collector_next_seq();
	p->has_hash = 0;
	p->hash = 0;
	p->active = 1;
	p->begin_ns = rel_ns();
	p->begin = event_time();
}

/* One data operation's record: 'p' its start (NULL: a single event, at its time). */
static void data_record(int op, const acc_prof_info *pi, const acc_event_info *ei, struct acc_pending *p)
{
	const acc_data_event_info *d = &ei->data_event;
	const struct acc_open *o = open_construct(0);
	uint64_t bytes = FILLED(d, acc_data_event_info, bytes) ? d->bytes : 0;
	uint64_t host = FILLED(d, acc_data_event_info, host_ptr) ? (uint64_t)(uintptr_t)d->host_ptr : 0;
	uint64_t dev = FILLED(d, acc_data_event_info, device_ptr) ? (uint64_t)(uintptr_t)d->device_ptr : 0;
	int device = device_of(pi), base = op;
	struct acc_pending single;
	struct thread_state *t;
	struct rec *r;
	int64_t end = event_time();

	if (!p || !p->active) {
		p = &single;
		pending_start(p);
		p->begin = end;
	}
	if (is_async(pi) && op <= OP_DELETE)
		op += OP_ASYNC;
	/* Back on the host after a synchronous copy: the destination holds the bytes now. */
	if (base == OP_FROM && host && bytes && !is_async(pi)) {
		p->hash = hash_bytes((const void *)(uintptr_t)host, bytes);
		p->has_hash = 1;
	}
	note_device(pi);
	if ((t = thread_state()) && (r = buffer_slot(t))) {
		memset(r, 0, sizeof(*r));
		r->type = REC_DATA_OP;
		r->kind = (uint8_t)op;
		r->map_index = -1;
		r->thread = buffer_thread_id(t);
		r->seq = p->seq;
		r->begin_ns = p->begin;
		r->end_ns = end;
		r->bytes = bytes;
		r->has_hash = (uint8_t)p->has_hash;
		r->hash = p->hash;
		r->target_id = o ? o->target_id : 0;
		r->codeptr = o ? o->codeptr : call_site();
		switch (base) {
		case OP_ALLOC:
		case OP_TO:
		case OP_ASSOCIATE:
			r->src_dev = HOST_DEVICE;
			r->src_addr = host;
			r->dst_dev = device;
			r->dst_addr = dev;
			break;
		case OP_FROM:
			r->src_dev = device;
			r->src_addr = dev;
			r->dst_dev = HOST_DEVICE;
			r->dst_addr = host;
			break;
		default:  /* delete, disassociate: the device address is the source, as OMPT's */
			r->src_dev = device;
			r->src_addr = dev;
			r->dst_dev = HOST_DEVICE;
			r->dst_addr = host;
			break;
		}
		buffer_commit(t);
	}
	note_event(p->seq, pi, ei, INT64_MIN, INT64_MIN);  /* its times are data_op_raw's */
	p->active = 0;
}

/* An upload's source, hashed before the runtime reads it. */
static void upload_start(const acc_event_info *ei)
{
	const acc_data_event_info *d = &ei->data_event;
	struct acc_pending *p = &acc_t.data;

	pending_start(p);
	if (FILLED(d, acc_data_event_info, bytes) && FILLED(d, acc_data_event_info, host_ptr) &&
	    d->host_ptr && d->bytes) {
		p->hash = hash_bytes(d->host_ptr, d->bytes);
		p->has_hash = 1;
	}
	p->begin = event_time();  /* the hash is not the operation's time */
}

/* --- launches, waits, the device ------------------------------------------------- */

static void launch_end(const acc_prof_info *pi, const acc_event_info *ei)
{
	const acc_launch_event_info *l = &ei->launch_event;
	const struct acc_open *o = open_construct(ACC_KIND_COMPUTE);
	struct acc_pending *p = &acc_t.launch;
	struct thread_state *t;
	struct rec *r;
	int64_t end = event_time();

	if (!p->active) {
		pending_start(p);
		p->begin = end;
	}
	note_device(pi);
	if ((t = thread_state()) && (r = buffer_slot(t))) {
		memset(r, 0, sizeof(*r));
		r->type = REC_KERNEL;
		r->map_index = -1;
		r->thread = buffer_thread_id(t);
		r->seq = p->seq;
		r->begin_ns = p->begin;
		r->end_ns = end;
		r->target_id = o ? o->target_id : 0;
		r->src_dev = r->dst_dev = device_of(pi);
		r->teams = FILLED(l, acc_launch_event_info, num_gangs) && l->num_gangs <= UINT32_MAX
			   ? (uint32_t)l->num_gangs : 0;
		buffer_commit(t);
	}
	note_event(p->seq, pi, ei, INT64_MIN, INT64_MIN);  /* its times are kernel_raw's */
	p->active = 0;
}

/* An event only acc_event_raw holds: between 'p''s start and now. */
static void other_end(const acc_prof_info *pi, const acc_event_info *ei, struct acc_pending *p)
{
	int64_t begin_ns;

	if (!p || !p->active) {
		uint64_t seq = collector_next_seq();
		begin_ns = rel_ns();
		note_event(seq, pi, ei, begin_ns, begin_ns);
		return;
	}
	note_event(p->seq, pi, ei, p->begin_ns, rel_ns());
	p->active = 0;
}

static void device_init_end(const acc_prof_info *pi, const acc_event_info *ei)
{
	struct acc_pending *p = &acc_t.init;

	atomic_store(&last_init_ns, p->active ? p->begin_ns : rel_ns());
	other_end(pi, ei, p);
}

static char runtime_name[256];
static pthread_once_t start_once = PTHREAD_ONCE_INIT;

static void start_recording(void)
{
	if (collector_start_other(runtime_name) == 0)
		atomic_store(&recording, 1);
}

static void on_event(acc_prof_info *pi, acc_event_info *ei, acc_api_info *ai)
{
	struct acc_thread *a = &acc_t;
	acc_event_t e;
	int64_t in;
	(void)ai;

	/* The first OpenACC event starts recording: a GCC OpenMP program loads us too, and sends none. */
	if (!atomic_load_explicit(&recording, memory_order_acquire))
		pthread_once(&start_once, start_recording);
	if (!atomic_load_explicit(&recording, memory_order_acquire) || !buffer_recording() || !pi || !ei)
		return;
	in = event_time();
	e = pi->event_type;
	switch (e) {
	case acc_ev_compute_construct_start:
	case acc_ev_enter_data_start:
	case acc_ev_exit_data_start:
	case acc_ev_update_start:
		construct_start(construct_kind(e));
		break;
	case acc_ev_compute_construct_end:
	case acc_ev_enter_data_end:
	case acc_ev_exit_data_end:
	case acc_ev_update_end:
		construct_end(construct_kind(e), pi, ei);
		break;
	case acc_ev_enqueue_upload_start:
		upload_start(ei);
		break;
	case acc_ev_enqueue_upload_end:
		data_record(OP_TO, pi, ei, &a->data);
		break;
	case acc_ev_enqueue_download_start:
		pending_start(&a->data);
		break;
	case acc_ev_enqueue_download_end:
		data_record(OP_FROM, pi, ei, &a->data);
		break;
	case acc_ev_alloc:
		data_record(OP_ALLOC, pi, ei, NULL);
		break;
	case acc_ev_free:
		data_record(OP_DELETE, pi, ei, NULL);
		break;
	case acc_ev_create:
		data_record(OP_ASSOCIATE, pi, ei, NULL);
		break;
	case acc_ev_delete:
		data_record(OP_DISASSOCIATE, pi, ei, NULL);
		break;
	case acc_ev_enqueue_launch_start:
		pending_start(&a->launch);
		break;
	case acc_ev_enqueue_launch_end:
		launch_end(pi, ei);
		break;
	case acc_ev_wait_start:
		pending_start(&a->wait);
		break;
	case acc_ev_wait_end:
		other_end(pi, ei, &a->wait);
		break;
	case acc_ev_device_init_start:
		pending_start(&a->init);
		break;
	case acc_ev_device_init_end:
		device_init_end(pi, ei);
		break;
	case acc_ev_device_shutdown_start:
		pending_start(&a->shutdown);
		break;
	case acc_ev_device_shutdown_end:
		output_frame(SPOOL_DEVICE, (int64_t)device_of(pi), (const char *)NULL, (int64_t)-1, rel_ns());
		other_end(pi, ei, &a->shutdown);
		break;
	default:
		other_end(pi, ei, NULL);
		break;
	}
	atomic_fetch_add_explicit(&collector_own_ticks, event_time() - in, memory_order_relaxed);
}

/*
 * Called by libgomp when ACC_PROFLIB names this library: every event type is
 * registered (those the runtime never dispatches cost nothing), and the
 * first event starts recording, as ompt_start_tool does for OMPT (unless an
 * OMPT runtime started us already).  libgomp loads ACC_PROFLIB into every
 * program it runs, OpenMP ones too, which send no OpenACC event: those are
 * left as without this library.
 */
__attribute__((visibility("default")))
void acc_register_library(acc_prof_reg reg, acc_prof_reg unreg, acc_prof_lookup_func lookup)
{
	Dl_info di;
	void *pcs[2];
	(void)unreg;
	(void)lookup;

	if (!reg)
		return;
	if (dladdr((void *)(uintptr_t)call_site, &di))
		self_base = di.dli_fbase;
	const char *lib = "unknown library";
	if (dladdr((void *)(uintptr_t)reg, &di)) {
		runtime_base = di.dli_fbase;
		if (di.dli_fname) {
			const char *slash = strrchr(di.dli_fname, '/');
			lib = slash ? slash + 1 : di.dli_fname;
		}
	}
	snprintf(runtime_name, sizeof(runtime_name), "OpenACC Profiling Interface (%s)", lib);
	backtrace(pcs, 2);  /* loads the unwinder now, not inside the first callback */
	for (int e = acc_ev_none + 1; e < acc_ev_last; e++)
		reg((acc_event_t)e, on_event, acc_reg);
}
