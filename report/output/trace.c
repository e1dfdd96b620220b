/*
 * trace.c - the Trace Event file (or Perfetto's protobuf trace), written
 * one event at a time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "db/attribution.h"
#include "db/events.h"
#include "db/threads.h"
#include "db/trace_scan.h"
#include "lib/grow.h"
#include "lib/hmap.h"
#include "lib/outfile.h"
#include "report/output/pftrace.h"
#include "report/output/trace.h"

/* The variable cache is dropped when it grows past this (it is keyed by host address). */
#define VAR_CACHE_MAX 65536
/* The first copies are forgotten past this many contents: an arrow may then be missed, never wrong. */
#define COPY_CACHE_MAX 16384
/* Its table: twice as many slots, so that a probe ends soon. */
#define COPY_SLOTS (2 * COPY_CACHE_MAX)
/*
 * The JSON is built here and handed to stdio in pieces of this size: putc
 * and fprintf per field were half of a 1 M-event trace's time (issue 27).
 */
#define OUT_SIZE (256 * 1024)
/* Small caches in front of the maps that every event looks up (a power of two). */
#define TRACK_CACHE 64
#define PLACE_CACHE 256
/* The stream's output errors are looked at once per this many events. */
#define ERROR_EVERY 4096

/* write_trace()'s "start again": the events (db/events.h) or the finding rows (db/trace_scan.h) were out of order. */
enum { RESTART_EVENTS = EVENTS_RESTART, RESTART_ROWS = EVENTS_RESTART - 1 };

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
 * A slot of the first copies' table (open addressing): in use when its
 * 'gen' is the table's, so that forgetting them all is one increment, not
 * a new map grown again from nothing every 16,384 contents.
 */
struct copy_slot {
	uint64_t hash, bytes;
	uint32_t gen;
	struct first_copy c;
};

/* A (device, track) already named, or a code pointer's place: a slot of a direct-mapped cache. */
struct seen_track {
	int valid, device, tid;
};

struct seen_place {
	int valid;
	uint64_t codeptr;
	const char *place;         /* borrowed from 'places' (never emptied) */
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
	struct copy_slot *copies; /* (hash, bytes) -> struct first_copy: COPY_SLOTS slots */
	uint32_t copies_gen;
	size_t ncopies;
	struct seen_track seen_tracks[TRACK_CACHE];
	struct seen_place seen_places[PLACE_CACHE];
	struct thread_rows threads;
	int several_devices;      /* the runtime reported more than one device: copies matter */
	struct finding_scan *rows;
	struct finding_scan_row row;
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
	char *out;                /* TRACE_JSON: what is not handed to stdio yet */
	size_t nout;
};

static int oom(char **err)
{
	if (err)
		*err = strdup("out of memory");
	return -1;
}

static void out_flush(struct trace *t)
{
	if (t->nout)
		fwrite(t->out, 1, t->nout, t->f);
	t->nout = 0;
}

/* Room for n <= OUT_SIZE bytes at t->out + t->nout. */
static inline char *out_room(struct trace *t, size_t n)
{
	if (t->nout + n > OUT_SIZE)
		out_flush(t);
	return t->out + t->nout;
}

static inline void out_mem(struct trace *t, const void *s, size_t n)
{
	if (n > OUT_SIZE) {
		out_flush(t);
		fwrite(s, 1, n, t->f);
		return;
	}
	memcpy(out_room(t, n), s, n);
	t->nout += n;
}

/* A string literal. */
#define out_lit(t, s) out_mem((t), (s), sizeof(s) - 1)

static inline void out_char(struct trace *t, char c)
{
	*out_room(t, 1) = c;
	t->nout++;
}

/* The decimal digits of v, written backwards from 'end': their start. */
static char *digits(char *end, uint64_t v)
{
	static const char pairs[] =
		"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
		"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
		"8081828384858687888990919293949596979899";

	while (v >= 100) {
		end -= 2;
		memcpy(end, pairs + 2 * (v % 100), 2);
		v /= 100;
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* A number as printf's %llu and %lld write it (no printf: it cost more than the rest of an event). */
static void out_u64(struct trace *t, uint64_t v)
{
	char buf[20], *s = digits(buf + sizeof(buf), v);
	out_mem(t, s, (size_t)(buf + sizeof(buf) - s));
}

static void out_i64(struct trace *t, int64_t v)
{
	char buf[21], *s = digits(buf + sizeof(buf), v < 0 ? -(uint64_t)v : (uint64_t)v);
	if (v < 0)
		*--s = '-';
	out_mem(t, s, (size_t)(buf + sizeof(buf) - s));
}

/* 's' escaped for a JSON string, without the quotes: runs of plain bytes copied whole. */
static void put_escaped(struct trace *t, const char *s)
{
	const unsigned char *p = (const unsigned char *)s, *run = p;

	for (;; p++) {
		unsigned c = *p;
		if (c >= 0x20 && c != '"' && c != '\\' && c != 0x7f)
			continue;
		out_mem(t, run, (size_t)(p - run));
		if (!c)
			return;
		if (c == '"' || c == '\\') {
			char e[2] = { '\\', (char)c };
			out_mem(t, e, 2);
		} else {
			char e[6] = { '\\', 'u', '0', '0', "0123456789abcdef"[c >> 4], "0123456789abcdef"[c & 15] };
			out_mem(t, e, 6);
		}
		run = p + 1;
	}
}

/* Write 's' as a JSON string. */
static void put_string(struct trace *t, const char *s)
{
	out_char(t, '"');
	put_escaped(t, s);
	out_char(t, '"');
}

/* Microseconds with nanosecond precision, as a JSON number ("-1.005": -1005 ns). */
static void put_us(struct trace *t, int64_t ns)
{
	uint64_t a = ns < 0 ? -(uint64_t)ns : (uint64_t)ns;
	unsigned frac = (unsigned)(a % 1000);
	char buf[26], *end = buf + sizeof(buf), *s;

	end[-3] = (char)('0' + frac / 100);
	end[-2] = (char)('0' + frac / 10 % 10);
	end[-1] = (char)('0' + frac % 10);
	end[-4] = '.';
	s = digits(end - 4, a / 1000);
	if (ns < 0)
		*--s = '-';
	out_mem(t, s, (size_t)(buf + sizeof(buf) - s));
}

static void begin_event(struct trace *t)
{
	if (t->first)
		out_char(t, '\n');
	else
		out_lit(t, ",\n");
	t->first = 0;
}

/* A line of metadata (rare: printf is fine), after begin_event(). */
static void out_printf(struct trace *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void out_printf(struct trace *t, const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (n > 0)
		out_mem(t, buf, (size_t)n < sizeof(buf) ? (size_t)n : sizeof(buf) - 1);
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
	out_printf(t, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"ts\":0,\"args\":{\"name\":",
		   pid_of(device));
	put_string(t, buf);
	out_lit(t, "}}");
	begin_event(t);
	out_printf(t, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":0,\"ts\":0,"
		   "\"args\":{\"sort_index\":%d}}", pid_of(device),
		   device == t->run.host_device ? -1 : device);
	return 0;
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
		if (t->format == TRACE_PFTRACE)
			return pftrace_track(t->pf, track_uuid(pid_of(device), tid),
					     track_uuid(pid_of(device), 0), name);
		begin_event(t);
		out_printf(t, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"ts\":0,"
			   "\"args\":{\"name\":", pid_of(device), tid);
		put_string(t, name);
		out_lit(t, "}}");
		begin_event(t);
		out_printf(t, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"ts\":0,"
			   "\"args\":{\"sort_index\":%d}}", pid_of(device), tid, tid);
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

/* ,"cat":"CAT","pid":PID,"tid":TID,"ts":TS (cat: a plain literal) */
static void put_place(struct trace *t, const char *cat, int pid, int tid, int64_t ts)
{
	out_lit(t, ",\"cat\":\"");
	out_mem(t, cat, strlen(cat));
	out_lit(t, "\",\"pid\":");
	out_i64(t, pid);
	out_lit(t, ",\"tid\":");
	out_i64(t, tid);
	out_lit(t, ",\"ts\":");
	put_us(t, ts);
}

/* One arrow (a flow's "s" and "f") from (pid0, tid0, ts0) to (pid, tid, ts). */
static void put_flow(struct trace *t, const char *name, const char *cat, int pid0, int tid0, int64_t ts0,
		     int pid, int tid, int64_t ts)
{
	uint64_t id = ++t->flow_id;

	begin_event(t);
	out_lit(t, "{\"ph\":\"s\",\"id\":");
	out_u64(t, id);
	out_lit(t, ",\"name\":");
	put_string(t, name);
	put_place(t, cat, pid0, tid0, ts0);
	out_char(t, '}');
	begin_event(t);
	out_lit(t, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":");
	out_u64(t, id);
	out_lit(t, ",\"name\":");
	put_string(t, name);
	put_place(t, cat, pid, tid, ts);
	out_char(t, '}');
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
	if (grow_one((void **)&t->flows, &t->capflows, t->nflows, sizeof(*t->flows)) < 0)
		return NULL;
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
						      anchor_name(finding_scan_kind(t->rows, t->row.finding), var,
								  t->row.finding) };
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
		rc = finding_scan_next(t->rows, &t->row, err);
		if (rc < 0)
			return rc == FINDING_SCAN_RESTART ? RESTART_ROWS : -1;
		t->row_ok = rc == 1;
	}
	return 0;
}

/*
 * The first copies' slot of (hash, bytes), taken when new (*created): as
 * a map that is emptied when it holds COPY_CACHE_MAX of them.  NULL out of
 * memory.
 */
static struct first_copy *copy_slot(struct trace *t, uint64_t hash, uint64_t bytes, int *created)
{
	uint64_t h = (hash ^ bytes * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;

	if (!t->copies && !(t->copies = calloc(COPY_SLOTS, sizeof(*t->copies))))
		return NULL;
	if (t->ncopies >= COPY_CACHE_MAX) {
		t->copies_gen++;
		t->ncopies = 0;
	}
	h ^= h >> 32;
	/* No slot is ever freed within a generation: a probe ends at the key or at a free slot. */
	for (size_t i = h & (COPY_SLOTS - 1);; i = (i + 1) & (COPY_SLOTS - 1)) {
		struct copy_slot *s = &t->copies[i];
		if (s->gen != t->copies_gen) {
			*s = (struct copy_slot){ hash, bytes, t->copies_gen, { 0 } };
			t->ncopies++;
			*created = 1;
			return &s->c;
		}
		if (s->hash == hash && s->bytes == bytes) {
			*created = 0;
			return &s->c;
		}
	}
}

/*
 * The arrow from where this transfer's content first went to a device, when
 * that was another device and this one has not received it yet, into
 * t->flows.  -1 out of memory.
 */
static int copy_flow(struct trace *t, const struct event *ev, int device, int pid, int tid, const char *var)
{
	uint64_t bit;
	struct first_copy *c;
	struct flow_ref *f;
	int created;

	if (!t->several_devices || ev->kind != EV_TO_DEVICE || !ev->has_hash || !ev->bytes || device < 0 ||
	    device >= 64 || (t->run.has_host_device && device == t->run.host_device))
		return 0;
	c = copy_slot(t, ev->hash, ev->bytes, &created);
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
	const char *kind = ev_kind_name(ev->kind);

	begin_event(t);
	/* The name, "kind variable", escaped in two parts as it would be whole. */
	out_lit(t, "{\"ph\":\"X\",\"name\":\"");
	put_escaped(t, kind);
	if (var) {
		out_char(t, ' ');
		put_escaped(t, var);
	}
	out_char(t, '"');
	put_place(t, cat, pid, tid, ev->begin_ns);
	out_lit(t, ",\"dur\":");
	put_us(t, ev->end_ns > ev->begin_ns ? ev->end_ns - ev->begin_ns : 0);
	out_lit(t, ",\"args\":{\"seq\":");
	out_i64(t, ev->seq);
	if (ev->kind != EV_KERNEL) {
		out_lit(t, ",\"bytes\":");
		out_u64(t, ev->bytes);
		out_lit(t, ",\"src_device\":");
		out_i64(t, ev->src_device);
		out_lit(t, ",\"dest_device\":");
		out_i64(t, ev->dest_device);
	}
	if (var) {
		out_lit(t, ",\"variable\":");
		put_string(t, var);
	}
	if (src) {
		out_lit(t, ",\"source\":");
		put_string(t, src);
	}
	out_lit(t, "}}");
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
	const char *kind = ev_kind_name(ev->kind);
	char buf[256], *name = NULL;
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
	/* "kind variable": in 'buf' when it fits (an asprintf per event cost more than its slice). */
	if (var) {
		size_t k = strlen(kind), v = strlen(var);
		name = k + 1 + v < sizeof(buf) ? buf : malloc(k + 1 + v + 1);
		if (name) {
			memcpy(name, kind, k);
			name[k] = ' ';
			memcpy(name + k + 1, var, v + 1);
		}
	}
	rc = pftrace_slice(t->pf, &(struct pftrace_slice){
		.track = track_uuid(pid, tid), .begin_ns = ev->begin_ns, .end_ns = ev->end_ns,
		.name = name ? name : kind, .category = cat,
		.args = args, .nargs = n, .flows = idp, .nflows = t->nflows });
	if (name != buf)
		free(name);
	if (idp != ids)
		free(idp);
	return rc;
}

static int write_event(struct trace *t, const struct event *ev, char **err)
{
	enum lane lane;
	int device, tid, pid, rc = -1;
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
	if (t->rows && (rc = event_flows(t, ev, pid, tid, var, err)) < 0)
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
	return rc;
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
		if ((rc = write_event(t, &ev, err)) < 0)
			break;
		/* The output failed (a full disk): the caller says why; read no more. */
		if (++written % ERROR_EVERY == 0 && ferror(t->f))
			break;
	}
	event_stream_close(s);
	/* Rows left unread may still be out of order (a window, rows of no event): only the end proves it. */
	if (rc >= 0 && t->rows && (rc = finding_scan_finish(t->rows, err)) == FINDING_SCAN_RESTART)
		rc = RESTART_ROWS;
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
	free(t->copies);
	thread_rows_release(&t->threads);
	for (int i = 0; i < t->nanchors; i++)
		free(t->anchors[i].name);
	free(t->anchors);
	finding_scan_close(t->rows);
	attribution_close(t->at);
	run_info_release(&t->run);
	pftrace_free(t->pf);
	free(t->flows);
	free(t->out);
}

/*
 * The whole file into 'o' with the events and the finding rows read as
 * 'mode' and 'rows_mode' say: 0, -1 with *err (or errno when the write
 * failed: *io), RESTART_EVENTS, RESTART_ROWS.  Leaves 'o' open.
 */
static int write_trace(struct db *db, struct outfile *o, enum events_mode mode, enum finding_scan_mode rows_mode,
		       const struct trace_options *opt, struct trace_stats *st, int *io, char **err)
{
	struct trace t = { .db = db, .f = o->f, .first = 1, .st = st, .format = opt->format,
			   .from_ns = opt->from_ns, .to_ns = opt->to_ns,
			   .windowed = opt->from_ns > INT64_MIN || opt->to_ns < INT64_MAX, .copies_gen = 1 };
	int rc = -1, max_finding = 0;

	memset(st, 0, sizeof(*st));
	hmap_init(&t.places, 1, sizeof(char *));
	hmap_init(&t.vars, 3, sizeof(char *));
	hmap_init(&t.named, 2, 1);
	if (db_read_run(db, &t.run, err) < 0 || thread_rows_read(db, &t.threads, err) < 0)
		goto out;
	for (size_t i = 0; i < t.run.ndevices; i++)
		if (!(t.run.has_host_device && t.run.devices[i].num == t.run.host_device))
			t.several_devices += 1;
	t.several_devices = t.several_devices > 1;
	t.at = attribution_open(db);
	st->has_sources = t.at != NULL;
	t.rows = finding_scan_open(db, rows_mode, &max_finding, err);
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
		if ((r = finding_scan_next(t.rows, &t.row, err)) < 0) {
			rc = r == FINDING_SCAN_RESTART ? RESTART_ROWS : -1;
			goto out;
		}
		t.row_ok = r == 1;
	}
	if (t.format == TRACE_PFTRACE) {
		if (!(t.pf = pftrace_new(t.f))) {
			oom(err);
			goto out;
		}
	} else {
		if (!(t.out = malloc(OUT_SIZE))) {
			oom(err);
			goto out;
		}
		out_lit(&t, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"mapprof " MAPPROF_VERSION "\"},"
			"\"traceEvents\":[");
	}
	rc = write_events(&t, mode, err);
	if (rc < 0)
		goto out;
	if (t.format == TRACE_JSON) {
		out_lit(&t, "\n]}\n");
		out_flush(&t);
	}
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
