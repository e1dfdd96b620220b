/*
 * trace_emit.c - tracks, slices and arrows as Trace Event JSON or Perfetto
 * protobuf.
 */
#include <stdlib.h>
#include <string.h>

#include "db/read/events.h"
#include "report/trace/pftrace.h"
#include "report/trace/trace_emit.h"

/* Track uuids in a .pftrace: a device's process track (tid 0) and its lanes; never 0. */
static uint64_t track_uuid(int pid, int tid)
{
	return (uint64_t)(pid + 1) << 32 | (uint32_t)tid;
}

/* Before each element of "traceEvents": a line of its own. */
static void begin_event(struct trace_emit *e)
{
	if (e->first)
		jsonbuf_char(&e->jb, '\n');
	else
		jsonbuf_lit(&e->jb, ",\n");
	e->first = 0;
}

int trace_emit_init(struct trace_emit *e, FILE *f, enum trace_format format)
{
	*e = (struct trace_emit){ .format = format, .first = 1 };
	if (format == TRACE_PFTRACE)
		return (e->pf = pftrace_new(f)) ? 0 : -1;
	if (jsonbuf_init(&e->jb, f) < 0)
		return -1;
	jsonbuf_lit(&e->jb, "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"generator\":\"mapprof " MAPPROF_VERSION "\"},"
		    "\"traceEvents\":[");
	return 0;
}

int trace_emit_process(struct trace_emit *e, int pid, const char *name, int sort_index)
{
	if (e->format == TRACE_PFTRACE)
		return pftrace_process(e->pf, track_uuid(pid, 0), pid + 1, name);
	begin_event(e);
	jsonbuf_printf(&e->jb, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"tid\":0,\"ts\":0,\"args\":{\"name\":",
		       pid);
	jsonbuf_string(&e->jb, name);
	jsonbuf_lit(&e->jb, "}}");
	begin_event(e);
	jsonbuf_printf(&e->jb, "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":%d,\"tid\":0,\"ts\":0,"
		       "\"args\":{\"sort_index\":%d}}", pid, sort_index);
	return 0;
}

int trace_emit_thread(struct trace_emit *e, int pid, int tid, const char *name)
{
	if (e->format == TRACE_PFTRACE)
		return pftrace_track(e->pf, track_uuid(pid, tid), track_uuid(pid, 0), name);
	begin_event(e);
	jsonbuf_printf(&e->jb, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"ts\":0,"
		       "\"args\":{\"name\":", pid, tid);
	jsonbuf_string(&e->jb, name);
	jsonbuf_lit(&e->jb, "}}");
	begin_event(e);
	jsonbuf_printf(&e->jb, "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":%d,\"tid\":%d,\"ts\":0,"
		       "\"args\":{\"sort_index\":%d}}", pid, tid, tid);
	return 0;
}

/* ,"cat":"CAT","pid":PID,"tid":TID,"ts":TS (cat: a plain literal) */
static void put_place(struct jsonbuf *b, const char *cat, int pid, int tid, int64_t ts)
{
	jsonbuf_lit(b, ",\"cat\":\"");
	jsonbuf_mem(b, cat, strlen(cat));
	jsonbuf_lit(b, "\",\"pid\":");
	jsonbuf_i64(b, pid);
	jsonbuf_lit(b, ",\"tid\":");
	jsonbuf_i64(b, tid);
	jsonbuf_lit(b, ",\"ts\":");
	jsonbuf_us(b, ts);
}

/* One end of an arrow: 'head' is the event's start up to its id ("s", or "f" bound to the slice around it). */
static void put_flow_end(struct trace_emit *e, const char *head, uint64_t id, const char *name, const char *cat,
			 int pid, int tid, int64_t ts)
{
	begin_event(e);
	jsonbuf_mem(&e->jb, head, strlen(head));
	jsonbuf_u64(&e->jb, id);
	jsonbuf_lit(&e->jb, ",\"name\":");
	jsonbuf_string(&e->jb, name);
	put_place(&e->jb, cat, pid, tid, ts);
	jsonbuf_char(&e->jb, '}');
}

/* One arrow (a flow's "s" and "f") from (pid0, tid0, ts0) to (pid, tid, ts). */
static void put_flow(struct trace_emit *e, const char *name, const char *cat, int pid0, int tid0, int64_t ts0,
		     int pid, int tid, int64_t ts)
{
	uint64_t id = ++e->flow_id;

	put_flow_end(e, "{\"ph\":\"s\",\"id\":", id, name, cat, pid0, tid0, ts0);
	put_flow_end(e, "{\"ph\":\"f\",\"bp\":\"e\",\"id\":", id, name, cat, pid, tid, ts);
}

/* The event as one X event and its arrows' "s" and "f". */
static void put_json_event(struct trace_emit *e, const struct trace_slice *s)
{
	const struct event *ev = s->ev;
	struct jsonbuf *b = &e->jb;

	begin_event(e);
	/* The name, "kind variable", escaped in two parts as it would be whole. */
	jsonbuf_lit(b, "{\"ph\":\"X\",\"name\":\"");
	jsonbuf_escaped(b, ev_kind_name(ev->kind));
	if (s->var) {
		jsonbuf_char(b, ' ');
		jsonbuf_escaped(b, s->var);
	}
	jsonbuf_char(b, '"');
	put_place(b, s->cat, s->pid, s->tid, ev->begin_ns);
	jsonbuf_lit(b, ",\"dur\":");
	jsonbuf_us(b, ev->end_ns > ev->begin_ns ? ev->end_ns - ev->begin_ns : 0);
	jsonbuf_lit(b, ",\"args\":{\"seq\":");
	jsonbuf_i64(b, ev->seq);
	if (ev->kind != EV_KERNEL) {
		jsonbuf_lit(b, ",\"bytes\":");
		jsonbuf_u64(b, ev->bytes);
		jsonbuf_lit(b, ",\"src_device\":");
		jsonbuf_i64(b, ev->src_device);
		jsonbuf_lit(b, ",\"dest_device\":");
		jsonbuf_i64(b, ev->dest_device);
	}
	if (s->var) {
		jsonbuf_lit(b, ",\"variable\":");
		jsonbuf_string(b, s->var);
	}
	if (s->src) {
		jsonbuf_lit(b, ",\"source\":");
		jsonbuf_string(b, s->src);
	}
	jsonbuf_lit(b, "}}");
	for (size_t i = 0; i < s->nflows; i++) {
		const struct flow_ref *f = &s->flows[i];
		if (f->step)
			put_flow(e, f->name, f->cat, f->pid0, f->tid0, f->ts0, s->pid, s->tid, ev->begin_ns);
	}
}

/* The event as one slice of Perfetto's protobuf, its flow ids on it.  -1 out of memory. */
static int put_pftrace_event(struct trace_emit *e, const struct trace_slice *s)
{
	const struct event *ev = s->ev;
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
	if (s->var)
		args[n++] = (struct pftrace_arg){ "variable", s->var, 0 };
	if (s->src)
		args[n++] = (struct pftrace_arg){ "source", s->src, 0 };
	if (s->nflows > sizeof(ids) / sizeof(ids[0]) && !(idp = malloc(s->nflows * sizeof(*idp))))
		return -1;
	for (size_t i = 0; i < s->nflows; i++)
		idp[i] = s->flows[i].id;
	/* "kind variable": in 'buf' when it fits (an asprintf per event cost more than its slice). */
	if (s->var) {
		size_t k = strlen(kind), v = strlen(s->var);
		name = k + 1 + v < sizeof(buf) ? buf : malloc(k + 1 + v + 1);
		if (name) {
			memcpy(name, kind, k);
			name[k] = ' ';
			memcpy(name + k + 1, s->var, v + 1);
		}
	}
	rc = pftrace_slice(e->pf, &(struct pftrace_slice){
		.track = track_uuid(s->pid, s->tid), .begin_ns = ev->begin_ns, .end_ns = ev->end_ns,
		.name = name ? name : kind, .category = s->cat,
		.args = args, .nargs = n, .flows = idp, .nflows = s->nflows });
	if (name != buf)
		free(name);
	if (idp != ids)
		free(idp);
	return rc;
}

/* A counter's track in a .pftrace: above every lane's (tids are small and positive). */
static uint64_t counter_uuid(int pid)
{
	return track_uuid(pid, INT32_MAX);
}

/* Describe the counter track 'uuid' once.  -1 out of memory. */
static int counter_track(struct trace_emit *e, uint64_t uuid, int pid, const char *name)
{
	for (size_t i = 0; i < e->ncounters; i++)
		if (e->counters[i] == uuid)
			return 0;
	if (e->ncounters == e->capcounters) {
		size_t cap = e->capcounters ? 2 * e->capcounters : 8;
		uint64_t *v = realloc(e->counters, cap * sizeof(*v));
		if (!v)
			return -1;
		e->counters = v;
		e->capcounters = cap;
	}
	e->counters[e->ncounters++] = uuid;
	return pftrace_counter_track(e->pf, uuid, track_uuid(pid, 0), name);
}

int trace_emit_counter(struct trace_emit *e, int pid, const char *name, int64_t t_ns, int64_t value)
{
	if (e->format == TRACE_PFTRACE) {
		uint64_t uuid = counter_uuid(pid);
		if (counter_track(e, uuid, pid, name) < 0)
			return -1;
		return pftrace_counter(e->pf, uuid, t_ns, value);
	}
	begin_event(e);
	jsonbuf_lit(&e->jb, "{\"ph\":\"C\",\"name\":\"");
	jsonbuf_mem(&e->jb, name, strlen(name));
	jsonbuf_lit(&e->jb, "\",\"pid\":");
	jsonbuf_i64(&e->jb, pid);
	jsonbuf_lit(&e->jb, ",\"tid\":0,\"ts\":");
	jsonbuf_us(&e->jb, t_ns);
	jsonbuf_lit(&e->jb, ",\"args\":{\"value\":");
	jsonbuf_i64(&e->jb, value);
	jsonbuf_lit(&e->jb, "}}");
	return 0;
}

int trace_emit_slice(struct trace_emit *e, const struct trace_slice *s)
{
	if (e->format == TRACE_PFTRACE)
		return put_pftrace_event(e, s);
	put_json_event(e, s);
	return 0;
}

int trace_emit_finish(struct trace_emit *e)
{
	if (e->format == TRACE_PFTRACE)
		return pftrace_finish(e->pf);
	jsonbuf_lit(&e->jb, "\n]}\n");
	jsonbuf_flush(&e->jb);
	return 0;
}

void trace_emit_release(struct trace_emit *e)
{
	pftrace_free(e->pf);
	e->pf = NULL;
	free(e->counters);
	e->counters = NULL;
	e->ncounters = e->capcounters = 0;
	jsonbuf_release(&e->jb);
}
