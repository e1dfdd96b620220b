/*
 * trace.c - the Trace Event file (or Perfetto's protobuf trace), written
 * one event at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "db/attribution.h"
#include "db/events.h"
#include "db/finding_rows.h"
#include "db/threads.h"
#include "lib/hmap.h"
#include "lib/outfile.h"
#include "report/output/pftrace.h"
#include "report/output/trace.h"

/* The variable cache is dropped when it grows past this (it is keyed by host address). */
#define VAR_CACHE_MAX 65536
/* The first copies are forgotten past this many contents: an arrow may then be missed, never wrong. */
#define COPY_CACHE_MAX 16384

enum lane { LANE_TRANSFERS, LANE_ALLOCS, LANE_KERNELS, LANE_COUNT };
static const char *const lane_names[LANE_COUNT] = { "transfers", "allocations", "kernels" };

/* A finding's first occurrence: where its flows start. */
struct anchor {
	int have;
	int pid, tid;
	int64_t begin_ns;
	int64_t next_occurrence;   /* flows go to occurrences from this one on */
	uint64_t flows;
	char *name;                /* the arrows' name: kind, variable, id */
};

/*
 * Where a content (hash, bytes) was first sent to a device: a later copy
 * of it to another device gets an arrow from there.  No finding covers
 * these (a duplicate is one device receiving the same content again), yet
 * the same input sent to every device is what a multi-device run does, and
 * what a reader of the timeline wants to see.
 */
struct first_copy {
	int pid, tid;
	int64_t begin_ns;
	uint64_t devices;          /* bit d: device d (d < 64) received it */
	uint64_t id;               /* its flow id in a .pftrace */
};

/*
 * An arrow that starts or ends at the event being written.  The Trace Event
 * file draws it from (pid0, tid0, ts0) to the event (one "s" and one "f");
 * Perfetto's protobuf links the slices that carry the same flow id, in time
 * order, so the first slice of a flow carries its id too ('step' 0).
 */
struct flow_ref {
	uint64_t id;
	int step;                  /* an arrow ends here (0: a flow starts here) */
	const char *cat;
	const char *name;          /* JSON: the arrow's name (owned when 'owned') */
	int owned;
	int pid0, tid0;
	int64_t ts0;
};

struct trace {
	FILE *f;
	struct db *db;
	struct run_info run;
	struct attribution *at;
	struct hmap places;       /* codeptr -> char * "file:line" (NULL: unknown) */
	struct hmap vars;         /* (codeptr, kind, host address) -> char * name */
	struct hmap named;        /* (pid, tid) -> seen: metadata written */
	struct hmap copies;       /* (hash, bytes) -> struct first_copy */
	struct thread_rows threads;
	int several_devices;      /* the runtime reported more than one device: copies matter */
	struct finding_rows *rows;
	struct finding_row_op row;
	int row_ok;               /* 'row' holds the next unprocessed row */
	struct anchor *anchors;   /* by finding id */
	int nanchors;
	uint64_t flow_id;
	int first;                /* no event written yet (no comma) */
	struct trace_stats *st;
	enum trace_format format;
	struct pftrace *pf;       /* TRACE_PFTRACE: the encoder */
	uint64_t content_ids;     /* pftrace flow ids of contents: after the findings' */
	int64_t from_ns, to_ns;   /* the window */
	int windowed;             /* --from or --to given: anchors at the first occurrence seen */
	struct flow_ref *flows;   /* the event's arrows */
	size_t nflows, capflows;
};

static int oom(char **err)
{
	if (err)
		*err = strdup("out of memory");
	return -1;
}

/* Write 's' as a JSON string. */
static void put_string(FILE *f, const char *s)
{
	putc('"', f);
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p == '"' || *p == '\\') {
			putc('\\', f);
			putc(*p, f);
		} else if (*p < 0x20 || *p == 0x7f) {
			fprintf(f, "\\u%04x", *p);
		} else {
			putc(*p, f);
		}
	}
	putc('"', f);
}

/* Microseconds with nanosecond precision, as a JSON number. */
static void put_us(FILE *f, int64_t ns)
{
	int64_t a = ns < 0 ? -ns : ns;
	fprintf(f, "%s%lld.%03lld", ns < 0 ? "-" : "", (long long)(a / 1000), (long long)(a % 1000));
}

static void begin_event(struct trace *t)
{
	fputs(t->first ? "\n" : ",\n", t->f);
	t->first = 0;
}

static int pid_of(int device)
{
	return device >= 0 ? device + 1 : 0;
}

/* Track uuids in a .pftrace: a device's process track (tid 0) and its lanes; never 0. */
static uint64_t track_uuid(int pid, int tid)
{
	return (uint64_t)(pid + 1) << 32 | (uint32_t)tid;
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
	if (t->format == TRACE_PFTRACE)
		return pftrace_process(t->pf, track_uuid(pid_of(device), 0), pid_of(device) + 1, buf);
	begin_event(t);
	fprintf(t->f, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"ts\":0,\"args\":{\"name\":",
		pid_of(device));
	put_string(t->f, buf);
	fputs("}}", t->f);
	begin_event(t);
	fprintf(t->f, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":0,\"ts\":0,"
		"\"args\":{\"sort_index\":%d}}", pid_of(device),
		device == t->run.host_device ? -1 : device);
	return 0;
}

/* Name the process and thread the first time they appear.  -1 out of memory. */
static int name_track(struct trace *t, int device, int thread, enum lane lane, int tid)
{
	uint64_t pkey[2] = { (uint64_t)(int64_t)device, UINT64_MAX }, tkey[2] = { (uint64_t)(int64_t)device, (uint64_t)tid };
	int created;

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
		if (t->format == TRACE_PFTRACE)
			return pftrace_track(t->pf, track_uuid(pid_of(device), tid),
					     track_uuid(pid_of(device), 0), name);
		begin_event(t);
		fprintf(t->f, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"ts\":0,"
			"\"args\":{\"name\":", pid_of(device), tid);
		put_string(t->f, name);
		fputs("}}", t->f);
		begin_event(t);
		fprintf(t->f, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"ts\":0,"
			"\"args\":{\"sort_index\":%d}}", pid_of(device), tid, tid);
	}
	return 0;
}

/* "file:line" of a code pointer (borrowed from the cache), or NULL. */
static const char *place_of(struct trace *t, uint64_t codeptr)
{
	char **slot;
	int created;

	if (!t->at || !codeptr)
		return NULL;
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

/* One arrow (a flow's "s" and "f") from (pid0, tid0, ts0) to (pid, tid, ts). */
static void put_flow(struct trace *t, const char *name, const char *cat, int pid0, int tid0, int64_t ts0,
		     int pid, int tid, int64_t ts)
{
	uint64_t id = ++t->flow_id;

	begin_event(t);
	fprintf(t->f, "{\"ph\":\"s\",\"id\":%llu,\"name\":", (unsigned long long)id);
	put_string(t->f, name);
	fprintf(t->f, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", cat, pid0, tid0);
	put_us(t->f, ts0);
	fputc('}', t->f);
	begin_event(t);
	fprintf(t->f, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":%llu,\"name\":", (unsigned long long)id);
	put_string(t->f, name);
	fprintf(t->f, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", cat, pid, tid);
	put_us(t->f, ts);
	fputc('}', t->f);
}

/* "round_trip of a (#3)": what a finding's arrows are called (malloc'ed, or NULL). */
static char *anchor_name(const char *kind, const char *var, int finding)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s (#%d)", *kind ? kind : "finding", var ? " of " : "", var ? var : "",
		     finding) < 0)
		s = NULL;
	return s;
}

/* Room for one more arrow at this event; NULL out of memory. */
static struct flow_ref *add_flow(struct trace *t)
{
	if (t->nflows == t->capflows) {
		size_t cap = t->capflows ? 2 * t->capflows : 8;
		struct flow_ref *f = realloc(t->flows, cap * sizeof(*f));
		if (!f)
			return NULL;
		t->flows = f;
		t->capflows = cap;
	}
	t->flows[t->nflows] = (struct flow_ref){ 0 };
	return &t->flows[t->nflows++];
}

/*
 * Arrows of the finding operations of this event (same begin_ns and seq)
 * into t->flows.  A finding's arrows start at its first occurrence (with a
 * window: its first one in the window).
 */
static int event_flows(struct trace *t, const struct event *ev, int pid, int tid, const char *var,
		       char **err)
{
	struct flow_ref *f;
	int rc;

	while (t->row_ok && (t->row.begin_ns < ev->begin_ns ||
			     (t->row.begin_ns == ev->begin_ns && t->row.seq <= ev->seq))) {
		if (t->row.seq == ev->seq && t->row.finding >= 1 && t->row.finding <= t->nanchors) {
			struct anchor *a = &t->anchors[t->row.finding - 1];
			if (!a->have && (t->row.occurrence == 0 || t->windowed)) {
				*a = (struct anchor){ 1, pid, tid, ev->begin_ns, t->row.occurrence + 1, 0,
						      anchor_name(t->row.kind, var, t->row.finding) };
				if (!a->name || !(f = add_flow(t)))
					return oom(err);
				*f = (struct flow_ref){ .id = (uint64_t)t->row.finding, .cat = "finding" };
			} else if (a->have && t->row.occurrence >= a->next_occurrence && a->flows < TRACE_MAX_FLOWS) {
				if (!(f = add_flow(t)))
					return oom(err);
				*f = (struct flow_ref){ (uint64_t)t->row.finding, 1, "finding", a->name, 0,
							a->pid, a->tid, a->begin_ns };
				a->flows++;
				a->next_occurrence = t->row.occurrence + 1;
				t->st->flows++;
			}
		}
		rc = finding_rows_next(t->rows, &t->row, err);
		if (rc < 0)
			return -1;
		t->row_ok = rc == 1;
	}
	return 0;
}

/*
 * The arrow from where this transfer's content first went to a device, when
 * that was another device and this one has not received it yet, into
 * t->flows.  -1 out of memory.
 */
static int copy_flow(struct trace *t, const struct event *ev, int device, int pid, int tid, const char *var)
{
	uint64_t key[2] = { ev->hash, ev->bytes }, bit;
	struct first_copy *c;
	struct flow_ref *f;
	int created;

	if (!t->several_devices || ev->kind != EV_TO_DEVICE || !ev->has_hash || !ev->bytes || device < 0 ||
	    device >= 64 || (t->run.has_host_device && device == t->run.host_device))
		return 0;
	if (t->copies.count >= COPY_CACHE_MAX) {
		hmap_release(&t->copies);
		hmap_init(&t->copies, 2, sizeof(struct first_copy));
	}
	c = hmap_put(&t->copies, key, &created);
	if (!c)
		return -1;
	bit = (uint64_t)1 << device;
	if (created) {
		*c = (struct first_copy){ pid, tid, ev->begin_ns, bit, (uint64_t)t->nanchors + ++t->content_ids };
		if (t->format == TRACE_PFTRACE) {
			if (!(f = add_flow(t)))
				return -1;
			*f = (struct flow_ref){ .id = c->id, .cat = "same_content" };
		}
		return 0;
	}
	if (c->devices & bit)
		return 0;
	c->devices |= bit;
	if (!(f = add_flow(t)))
		return -1;
	*f = (struct flow_ref){ c->id, 1, "same_content", NULL, 0, c->pid, c->tid, c->begin_ns };
	if (t->format == TRACE_JSON) {
		char *name = NULL;
		if (asprintf(&name, "same content%s%s, to device %d", var ? " of " : "", var ? var : "",
			     device) < 0)
			return -1;
		f->name = name;
		f->owned = 1;
	}
	t->st->content_flows++;
	return 0;
}

/* The event as one X event and its arrows' "s" and "f". */
static void put_json_event(struct trace *t, const struct event *ev, const char *cat, int pid, int tid,
			   const char *var, const char *src)
{
	begin_event(t);
	fputs("{\"ph\":\"X\",\"name\":", t->f);
	if (var) {
		char *name = NULL;
		if (asprintf(&name, "%s %s", ev_kind_name(ev->kind), var) >= 0) {
			put_string(t->f, name);
			free(name);
		} else {
			put_string(t->f, ev_kind_name(ev->kind));
		}
	} else {
		put_string(t->f, ev_kind_name(ev->kind));
	}
	fprintf(t->f, ",\"cat\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", cat, pid, tid);
	put_us(t->f, ev->begin_ns);
	fputs(",\"dur\":", t->f);
	put_us(t->f, ev->end_ns > ev->begin_ns ? ev->end_ns - ev->begin_ns : 0);
	fprintf(t->f, ",\"args\":{\"seq\":%lld", (long long)ev->seq);
	if (ev->kind != EV_KERNEL)
		fprintf(t->f, ",\"bytes\":%llu,\"src_device\":%d,\"dest_device\":%d",
			(unsigned long long)ev->bytes, ev->src_device, ev->dest_device);
	if (var) {
		fputs(",\"variable\":", t->f);
		put_string(t->f, var);
	}
	if (src) {
		fputs(",\"source\":", t->f);
		put_string(t->f, src);
	}
	fputs("}}", t->f);
	for (size_t i = 0; i < t->nflows; i++) {
		const struct flow_ref *f = &t->flows[i];
		if (f->step)
			put_flow(t, f->name, f->cat, f->pid0, f->tid0, f->ts0, pid, tid, ev->begin_ns);
	}
}

/* The event as one slice of Perfetto's protobuf, its flow ids on it.  -1 out of memory. */
static int put_pftrace_event(struct trace *t, const struct event *ev, const char *cat, int pid, int tid,
			     const char *var, const char *src)
{
	struct pftrace_arg args[6];
	uint64_t ids[16], *idp = ids;
	size_t n = 0;
	char *name = NULL;
	int rc;

	args[n++] = (struct pftrace_arg){ "seq", NULL, ev->seq };
	if (ev->kind != EV_KERNEL) {
		args[n++] = (struct pftrace_arg){ "bytes", NULL, (int64_t)ev->bytes };
		args[n++] = (struct pftrace_arg){ "src_device", NULL, ev->src_device };
		args[n++] = (struct pftrace_arg){ "dest_device", NULL, ev->dest_device };
	}
	if (var)
		args[n++] = (struct pftrace_arg){ "variable", var, 0 };
	if (src)
		args[n++] = (struct pftrace_arg){ "source", src, 0 };
	if (t->nflows > sizeof(ids) / sizeof(ids[0]) && !(idp = malloc(t->nflows * sizeof(*idp))))
		return -1;
	for (size_t i = 0; i < t->nflows; i++)
		idp[i] = t->flows[i].id;
	if (var && asprintf(&name, "%s %s", ev_kind_name(ev->kind), var) < 0)
		name = NULL;
	rc = pftrace_slice(t->pf, &(struct pftrace_slice){
		.track = track_uuid(pid, tid), .begin_ns = ev->begin_ns, .end_ns = ev->end_ns,
		.name = name ? name : ev_kind_name(ev->kind), .category = cat,
		.args = args, .nargs = n, .flows = idp, .nflows = t->nflows });
	free(name);
	if (idp != ids)
		free(idp);
	return rc;
}

static int write_event(struct trace *t, const struct event *ev, char **err)
{
	enum lane lane;
	int device, tid, pid;
	const char *src, *var, *cat;

	switch (ev->kind) {
	case EV_KERNEL:
		lane = LANE_KERNELS;
		device = ev->dest_device;
		cat = "kernel";
		break;
	case EV_TO_DEVICE:
	case EV_FROM_DEVICE:
		lane = LANE_TRANSFERS;
		cat = "transfer";
		/* The device end; between two devices, the destination. */
		device = ev->dest_device == t->run.host_device && t->run.has_host_device
			 ? ev->src_device : ev->dest_device;
		break;
	case EV_DELETE:
		lane = LANE_ALLOCS;
		cat = "allocation";
		device = ev->src_device;
		break;
	default:
		lane = LANE_ALLOCS;
		cat = "allocation";
		device = ev->dest_device;
	}
	tid = (ev->thread < 0 ? 0 : ev->thread) * LANE_COUNT + (int)lane + 1;
	pid = pid_of(device);
	if (name_track(t, device, ev->thread, lane, tid) < 0)
		return oom(err);
	src = place_of(t, ev->codeptr);
	var = variable_of(t, ev);
	t->nflows = 0;
	if (copy_flow(t, ev, device, pid, tid, var) < 0)
		goto nomem;
	if (t->rows && event_flows(t, ev, pid, tid, var, err) < 0)
		goto fail;
	if (t->format == TRACE_PFTRACE) {
		if (put_pftrace_event(t, ev, cat, pid, tid, var, src) < 0)
			goto nomem;
	} else {
		put_json_event(t, ev, cat, pid, tid, var, src);
	}
	t->st->events++;
	for (size_t i = 0; i < t->nflows; i++)
		if (t->flows[i].owned)
			free((char *)t->flows[i].name);
	return 0;
nomem:
	oom(err);
fail:
	for (size_t i = 0; i < t->nflows; i++)
		if (t->flows[i].owned)
			free((char *)t->flows[i].name);
	t->nflows = 0;
	return -1;
}

/* One pass of the stream: 0, -1 with *err, or EVENTS_RESTART (seq mode only). */
static int write_events(struct trace *t, enum events_mode mode, char **err)
{
	struct event_stream *s = event_stream_open(t->db, mode, NULL, err);
	struct event ev;
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
		if (write_event(t, &ev, err) < 0) {
			rc = -1;
			break;
		}
		/* The output failed (a full disk): the caller says why; read no more. */
		if (ferror(t->f))
			break;
	}
	event_stream_close(s);
	if (rc >= 0 && t->pf && pftrace_finish(t->pf) < 0)
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
	hmap_release(&t->copies);
	thread_rows_release(&t->threads);
	for (int i = 0; i < t->nanchors; i++)
		free(t->anchors[i].name);
	free(t->anchors);
	finding_rows_close(t->rows);
	attribution_close(t->at);
	run_info_release(&t->run);
	pftrace_free(t->pf);
	free(t->flows);
}

/*
 * The whole file into 'o' in one mode: 0, -1 with *err (or errno when the
 * write failed: *io), EVENTS_RESTART.  Leaves 'o' open.
 */
static int write_trace(struct db *db, struct outfile *o, enum events_mode mode,
		       const struct trace_options *opt, struct trace_stats *st, int *io, char **err)
{
	struct trace t = { .db = db, .f = o->f, .first = 1, .st = st, .format = opt->format,
			   .from_ns = opt->from_ns, .to_ns = opt->to_ns,
			   .windowed = opt->from_ns > INT64_MIN || opt->to_ns < INT64_MAX };
	int rc = -1, max_finding = 0;

	memset(st, 0, sizeof(*st));
	hmap_init(&t.places, 1, sizeof(char *));
	hmap_init(&t.vars, 3, sizeof(char *));
	hmap_init(&t.named, 2, 1);
	hmap_init(&t.copies, 2, sizeof(struct first_copy));
	if (db_read_run(db, &t.run, err) < 0 || thread_rows_read(db, &t.threads, err) < 0)
		goto out;
	for (size_t i = 0; i < t.run.ndevices; i++)
		if (!(t.run.has_host_device && t.run.devices[i].num == t.run.host_device))
			t.several_devices += 1;
	t.several_devices = t.several_devices > 1;
	t.at = attribution_open(db);
	st->has_sources = t.at != NULL;
	t.rows = finding_rows_open(db, &max_finding, err);
	if (!t.rows && err && *err)
		goto out;
	/* Reported, and nothing found: no arrows to draw, and no hint to give. */
	st->has_findings = max_finding >= 0;
	if (t.rows) {
		int r;
		t.anchors = calloc((size_t)max_finding, sizeof(*t.anchors));
		if (!t.anchors) {
			oom(err);
			goto out;
		}
		t.nanchors = max_finding;
		st->has_findings = 1;
		if ((r = finding_rows_next(t.rows, &t.row, err)) < 0)
			goto out;
		t.row_ok = r == 1;
	}
	if (t.format == TRACE_PFTRACE) {
		if (!(t.pf = pftrace_new(t.f))) {
			oom(err);
			goto out;
		}
	} else {
		fputs("{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"mapprof " MAPPROF_VERSION "\"},"
		      "\"traceEvents\":[", t.f);
	}
	rc = write_events(&t, mode, err);
	if (rc < 0)
		goto out;
	if (t.format == TRACE_JSON)
		fputs("\n]}\n", t.f);
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
	/* Seq order needs no sort (memory stays small) but may have to start
	 * again: only where the output can be thrown away and begun anew. */
	enum events_mode mode = EVENTS_BY_SEQ;

	for (;;) {
		if (outfile_open(&o, path, oflags) < 0) {
			saved = errno;
			io = 1;
			rc = -1;
			break;
		}
		if (!o.tmp)
			mode = EVENTS_SORTED;
		setvbuf(o.f, NULL, _IOFBF, 1 << 20);
		rc = write_trace(db, &o, mode, opt, st, &io, err);
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
		if (rc != EVENTS_RESTART || mode == EVENTS_SORTED)
			break;
		mode = EVENTS_SORTED;
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
