/*
 * trace.c - the Trace Event file (or Perfetto's protobuf trace), written
 * one event at a time: the events read in begin order, each put on its
 * device's track and lane with its variable and source line; its arrows
 * come from report/trace/trace_flows.h, and report/trace/trace_emit.h
 * writes it all.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "db/store/attribution.h"
#include "db/read/events.h"
#include "db/read/threads.h"
#include "db/read/trace_scan.h"
#include "lib/hmap.h"
#include "lib/outfile.h"
#include "report/trace/trace.h"
#include "lib/overlap.h"
#include "report/trace/trace_emit.h"
#include "report/trace/trace_flows.h"

/* The variable cache is dropped when it grows past this (it is keyed by host address). */
#define VAR_CACHE_MAX 65536
/* Small caches in front of the maps that every event looks up (a power of two). */
#define TRACK_CACHE 64
#define PLACE_CACHE 256
/* The stream's output errors are looked at once per this many events. */
#define ERROR_EVERY 4096

/*
 * write_trace()'s "start again": the events (db/read/events.h) or the
 * finding rows (db/read/trace_scan.h) were out of order.
 */
enum { RESTART_EVENTS = EVENTS_RESTART, RESTART_ROWS = EVENTS_RESTART - 1 };

enum lane { LANE_TRANSFERS, LANE_ALLOCS, LANE_KERNELS, LANE_COUNT };
static const char *const lane_names[LANE_COUNT] = { "transfers", "allocations", "kernels" };

/* A (device, track) already named, or a code pointer's place: a slot of a direct-mapped cache. */
struct seen_track {
	int valid, device, tid;
};

struct seen_place {
	int valid;
	uint64_t codeptr;
	const char *place;         /* borrowed from 'places' (never emptied) */
};

struct trace {
	FILE *f;
	struct db *db;
	struct run_info run;
	struct attribution *at;
	struct hmap places;       /* codeptr -> char * "file:line" (NULL: unknown) */
	struct hmap vars;         /* (codeptr, kind, host address) -> char * name */
	struct hmap named;        /* (pid, tid) -> seen: metadata written */
	struct seen_track seen_tracks[TRACK_CACHE];
	struct seen_place seen_places[PLACE_CACHE];
	struct thread_rows threads;
	struct trace_flows flows; /* the arrows */
	struct trace_emit out;    /* the writer */
	struct trace_stats *st;
	int64_t from_ns, to_ns;   /* the window */
	struct overlap ov;        /* transfers beside kernels: a counter per device */
};

/* The counter that marks the spans of a device's transfers beside its kernels (docs/usage.md). */
#define OVERLAP_COUNTER "transfers beside kernels"

static int oom(char **err)
{
	if (err)
		*err = strdup("out of memory");
	return -1;
}

/* A finding rows' "start again" as write_trace() returns it. */
static int rows_rc(int rc)
{
	return rc == FINDING_SCAN_RESTART ? RESTART_ROWS : rc;
}

static int pid_of(int device)
{
	return device >= 0 ? device + 1 : 0;
}

static int process_name(struct trace *t, int device)
{
	const char *type = NULL;
	char buf[64];

	for (size_t j = 0; j < t->run.ndevices; j++)
		if (t->run.devices[j].num == device)
			type = t->run.devices[j].type;
	if (device == t->run.host_device && t->run.has_host_device)
		snprintf(buf, sizeof(buf), "host");
	else if (device < 0)
		snprintf(buf, sizeof(buf), "unknown device");
	else
		snprintf(buf, sizeof(buf), "device %d%s%s%s", device, type ? " (" : "", type ? type : "",
			 type ? ")" : "");
	return trace_emit_process(&t->out, pid_of(device), buf, device == t->run.host_device ? -1 : device);
}

/* Name the process and thread the first time they appear.  -1 out of memory. */
static int name_track(struct trace *t, int device, int thread, enum lane lane, int tid)
{
	uint64_t pkey[2] = { (uint64_t)(int64_t)device, UINT64_MAX }, tkey[2] = { (uint64_t)(int64_t)device, (uint64_t)tid };
	struct seen_track *seen = &t->seen_tracks[((unsigned)device * 31u + (unsigned)tid) & (TRACK_CACHE - 1)];
	int created;

	if (seen->valid && seen->device == device && seen->tid == tid)
		return 0;
	*seen = (struct seen_track){ 1, device, tid };
	if (!hmap_put(&t->named, pkey, &created))
		return -1;
	if (created && process_name(t, device) < 0)
		return -1;
	if (!hmap_put(&t->named, tkey, &created))
		return -1;
	if (created) {
		const struct thread_row *r = thread_rows_find(&t->threads, thread);
		char name[128];

		if (r && r->tid > 0 && r->initial)
			snprintf(name, sizeof(name), "initial thread (tid %lld): %s", (long long)r->tid,
				 lane_names[lane]);
		else if (r && r->tid > 0)
			snprintf(name, sizeof(name), "%s %d (tid %lld): %s", thread_role(r), thread,
				 (long long)r->tid, lane_names[lane]);
		else
			snprintf(name, sizeof(name), "thread %d: %s", thread, lane_names[lane]);
		return trace_emit_thread(&t->out, pid_of(device), tid, name);
	}
	return 0;
}

/* "file:line" of a code pointer (borrowed from the cache), or NULL. */
static const char *place_of(struct trace *t, uint64_t codeptr)
{
	struct seen_place *seen = &t->seen_places[(codeptr ^ codeptr >> 12) & (PLACE_CACHE - 1)];
	char **slot;
	int created;

	if (!t->at || !codeptr)
		return NULL;
	if (seen->valid && seen->codeptr == codeptr)
		return seen->place;
	slot = hmap_put(&t->places, &codeptr, &created);
	if (!slot)
		return NULL;
	if (created) {
		json_t *o = attribution_location(t->at, codeptr);
		const char *file = json_string_value(json_object_get(o, "file"));
		json_int_t line = json_integer_value(json_object_get(o, "line"));
		char *s = NULL;
		if (file && line > 0 && asprintf(&s, "%s:%lld", file, (long long)line) < 0)
			s = NULL;
		else if (file && line <= 0)
			s = strdup(file);
		*slot = s;
		json_decref(o);
	}
	*seen = (struct seen_place){ 1, codeptr, *slot };
	return *slot;
}

static void free_strings(struct hmap *m)
{
	size_t pos = 0;
	const uint64_t *key;
	void *val;

	while (hmap_next(m, &pos, &key, &val))
		free(*(char **)val);
}

/* The variable a data operation moved (borrowed from the cache), or NULL. */
static const char *variable_of(struct trace *t, const struct event *ev)
{
	uint64_t key[3], host;
	char **slot;
	int created;

	if (!t->at || ev->kind == EV_KERNEL)
		return NULL;
	switch (ev->kind) {
	case EV_FROM_DEVICE:
		host = ev->dest_addr;
		break;
	case EV_DELETE:
		host = ev->host_addr;
		break;
	default:
		host = ev->src_addr;
	}
	key[0] = ev->codeptr;
	key[1] = (uint64_t)ev->kind;
	key[2] = host;
	if (t->vars.count >= VAR_CACHE_MAX) {
		free_strings(&t->vars);
		hmap_release(&t->vars);
		hmap_init(&t->vars, 3, sizeof(char *));
	}
	slot = hmap_put(&t->vars, key, &created);
	if (!slot)
		return NULL;
	if (created) {
		json_t *o = attribution_variable(t->at, ev->seq);
		const char *name = json_string_value(json_object_get(o, "name"));
		*slot = name ? strdup(name) : NULL;
		json_decref(o);
	}
	return *slot;
}

/* The device an event lies on in the trace: a transfer's device end, the destination between two devices. */
static int device_of(const struct trace *t, const struct event *ev)
{
	switch (ev->kind) {
	case EV_KERNEL:
		return ev->dest_device;
	case EV_TO_DEVICE:
	case EV_FROM_DEVICE:
		return ev->dest_device == t->run.host_device && t->run.has_host_device
		       ? ev->src_device : ev->dest_device;
	case EV_DELETE:
		return ev->src_device;
	default:
		return ev->dest_device;
	}
}

/* A kernel or transfer into the overlap counter of its device (lib/overlap.h). */
static int overlap_add(struct trace *t, const struct event *ev)
{
	if (ev->kind != EV_KERNEL && ev->kind != EV_TO_DEVICE && ev->kind != EV_FROM_DEVICE)
		return 0;
	return overlap_feed(&t->ov, device_of(t, ev), ev->kind == EV_KERNEL, 0, ev->begin_ns, ev->end_ns);
}

static int write_event(struct trace *t, const struct event *ev, char **err)
{
	enum lane lane;
	int device, tid, pid, rc;
	const char *cat;
	struct trace_slice s;

	device = device_of(t, ev);
	switch (ev->kind) {
	case EV_KERNEL:
		lane = LANE_KERNELS;
		cat = "kernel";
		break;
	case EV_TO_DEVICE:
	case EV_FROM_DEVICE:
		lane = LANE_TRANSFERS;
		cat = "transfer";
		break;
	default:
		lane = LANE_ALLOCS;
		cat = "allocation";
	}
	tid = (ev->thread < 0 ? 0 : ev->thread) * LANE_COUNT + (int)lane + 1;
	pid = pid_of(device);
	if (name_track(t, device, ev->thread, lane, tid) < 0)
		return oom(err);
	s = (struct trace_slice){ .ev = ev, .cat = cat, .pid = pid, .tid = tid };
	s.src = place_of(t, ev->codeptr);
	s.var = variable_of(t, ev);
	rc = trace_flows_event(&t->flows, ev, device, pid, tid, s.var, err);
	if (rc == 0) {
		s.flows = t->flows.flows;
		s.nflows = t->flows.nflows;
		if (trace_emit_slice(&t->out, &s) < 0)
			rc = oom(err);
		else
			t->st->events++;
	}
	trace_flows_clear(&t->flows);
	return rows_rc(rc);
}

/* overlap.h's on_span: the device's counter 1 while a transfer and a kernel are in flight, else 0. */
static int overlap_counter(void *arg, int device, int begin, int64_t t_ns)
{
	struct trace *t = arg;

	return trace_emit_counter(&t->out, pid_of(device), OVERLAP_COUNTER, t_ns, begin);
}

/* One pass of the stream: 0, -1 with *err, RESTART_EVENTS (seq mode only) or RESTART_ROWS. */
static int write_events(struct trace *t, enum events_mode mode, char **err)
{
	struct event_stream *s = event_stream_open(t->db, mode, NULL, err);
	struct event ev;
	unsigned written = 0;
	int rc;

	if (!s)
		return -1;
	while ((rc = event_stream_next(s, &ev, err)) == 1) {
		/*
		 * The window: events that overlap it.  Past its end, a sorted
		 * stream has no more; the seq-order one reads on, since only
		 * reading to the end proves its order (EVENTS_RESTART).
		 */
		if (ev.begin_ns > t->to_ns) {
			if (mode == EVENTS_SORTED)
				break;
			continue;
		}
		if (ev.end_ns < t->from_ns)
			continue;
		if (overlap_flush(&t->ov, ev.begin_ns) < 0) {
			rc = oom(err);
			break;
		}
		if ((rc = write_event(t, &ev, err)) < 0)
			break;
		if (overlap_add(t, &ev) < 0) {
			rc = oom(err);
			break;
		}
		/* The output failed (a full disk): the caller says why; read no more. */
		if (++written % ERROR_EVERY == 0 && ferror(t->f))
			break;
	}
	event_stream_close(s);
	/* Rows left unread may still be out of order (a window, rows of no event): only the end proves it. */
	if (rc >= 0 && overlap_finish(&t->ov) < 0)
		rc = oom(err);
	if (rc >= 0)
		rc = rows_rc(trace_flows_finish(&t->flows, err));
	if (rc >= 0 && trace_emit_finish(&t->out) < 0)
		rc = oom(err);
	return rc < 0 ? rc : 0;
}

static void trace_release(struct trace *t)
{
	free_strings(&t->places);
	free_strings(&t->vars);
	hmap_release(&t->places);
	hmap_release(&t->vars);
	hmap_release(&t->named);
	thread_rows_release(&t->threads);
	trace_flows_release(&t->flows);
	attribution_close(t->at);
	run_info_release(&t->run);
	trace_emit_release(&t->out);
	overlap_release(&t->ov);
}

/*
 * The whole file into 'o' with the events and the finding rows read as
 * 'mode' and 'rows_mode' say: 0, -1 with *err (or errno when the write
 * failed: *io), RESTART_EVENTS, RESTART_ROWS.  Leaves 'o' open.
 */
static int write_trace(struct db *db, struct outfile *o, enum events_mode mode, enum finding_scan_mode rows_mode,
		       const struct trace_options *opt, struct trace_stats *st, int *io, char **err)
{
	struct trace t = { .db = db, .f = o->f, .st = st, .from_ns = opt->from_ns, .to_ns = opt->to_ns };
	int rc = -1;

	memset(st, 0, sizeof(*st));
	hmap_init(&t.places, 1, sizeof(char *));
	hmap_init(&t.vars, 3, sizeof(char *));
	hmap_init(&t.named, 2, 1);
	overlap_init(&t.ov);
	t.ov.on_span = overlap_counter;
	t.ov.arg = &t;
	if (db_read_run(db, &t.run, err) < 0 || thread_rows_read(db, &t.threads, err) < 0)
		goto out;
	t.at = attribution_open(db);
	st->has_sources = t.at != NULL;
	if ((rc = trace_flows_init(&t.flows, db, rows_mode, &t.run, opt, st, err)) < 0) {
		rc = rows_rc(rc);
		goto out;
	}
	if (trace_emit_init(&t.out, t.f, opt->format) < 0) {
		rc = oom(err);
		goto out;
	}
	rc = write_events(&t, mode, err);
	if (rc < 0)
		goto out;
	if (o->err || ferror(t.f)) {
		*io = 1;
		rc = -1;
	}
out:
	trace_release(&t);
	return rc;
}

int trace_write(struct db *db, const char *path, unsigned oflags, const struct trace_options *opt,
		struct trace_stats *st, char **err)
{
	struct outfile o;
	int rc, io = 0, saved = 0;
	/* Seq order needs no sort (memory stays small) and the finding rows as
	 * stored none either, but both may have to start again: only where the
	 * output can be thrown away and begun anew. */
	enum events_mode mode = EVENTS_BY_SEQ;
	enum finding_scan_mode rows_mode = FINDING_SCAN_STORED;

	for (;;) {
		if (outfile_open(&o, path, oflags) < 0) {
			saved = errno;
			io = 1;
			rc = -1;
			break;
		}
		if (!o.tmp) {
			mode = EVENTS_SORTED;
			rows_mode = FINDING_SCAN_SORTED;
		}
		setvbuf(o.f, NULL, _IOFBF, 1 << 20);
		rc = write_trace(db, &o, mode, rows_mode, opt, st, &io, err);
		if (rc == 0 || io) {
			/* A write error with its own errno (o.err), not one a later call left. */
			if (outfile_commit(&o) < 0) {
				saved = errno;
				io = 1;
				rc = -1;
			}
			break;
		}
		outfile_discard(&o);
		if (rc == RESTART_EVENTS && mode != EVENTS_SORTED)
			mode = EVENTS_SORTED;
		else if (rc == RESTART_ROWS && rows_mode != FINDING_SCAN_SORTED)
			rows_mode = FINDING_SCAN_SORTED;
		else
			break;
	}
	if (rc < 0 && io && err) {
		const char *why = strerror(saved ? saved : EIO);
		if ((outfile_is_stdout(path)
		     ? asprintf(err, "cannot write the trace to standard output: %s", why)
		     : asprintf(err, "cannot write '%s': %s", path, why)) < 0)
			*err = NULL;
	}
	return rc < 0 ? -1 : 0;
}
