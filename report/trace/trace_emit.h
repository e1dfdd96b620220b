/*
 * trace_emit.h - the writing half of 'mapprof trace' (report/trace/trace.h):
 * tracks, slices and arrows put into the Trace Event JSON or
 * Perfetto's protobuf (report/trace/pftrace.h), as they are handed over.
 * What goes in (which event on which track, which arrows) is decided by
 * report/trace/trace.c and report/trace/trace_flows.h; this module only
 * writes, in the order it is called, and never reads the database.
 *
 * Tracks: pid = a device's process (0: unknown device), tid = a lane under
 * it.  In a .pftrace they become track uuids that are never 0.
 */
#ifndef MAPPROF_REPORT_TRACE_EMIT_H
#define MAPPROF_REPORT_TRACE_EMIT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "report/trace/jsonbuf.h"
#include "report/trace/trace.h"

struct event;
struct pftrace;

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

/* One event as a slice on its track, with its arrows. */
struct trace_slice {
	const struct event *ev;
	const char *cat;           /* a static plain string (written unescaped) */
	int pid, tid;
	const char *var, *src;     /* the variable and "file:line"; NULL: unknown */
	const struct flow_ref *flows;
	size_t nflows;
};

struct trace_emit {
	enum trace_format format;
	struct pftrace *pf;        /* TRACE_PFTRACE: the encoder */
	struct jsonbuf jb;         /* TRACE_JSON */
	int first;                 /* no JSON event written yet (no comma) */
	uint64_t flow_id;          /* JSON: the last arrow's id */
	uint64_t *counters;        /* .pftrace: the counter tracks described */
	size_t ncounters, capcounters;
};

/*
 * Start a trace in 'format' on 'f' (borrowed; its errors show in
 * ferror(f)): the JSON file's head, or a protobuf encoder.  0, or -1 out
 * of memory; trace_emit_release() either way.
 */
int trace_emit_init(struct trace_emit *e, FILE *f, enum trace_format format);

/* A device's process track named 'name', placed at 'sort_index' (JSON).  -1 out of memory. */
int trace_emit_process(struct trace_emit *e, int pid, const char *name, int sort_index);

/* A lane 'tid' of process 'pid' named 'name' (sorted by its tid).  -1 out of memory. */
int trace_emit_thread(struct trace_emit *e, int pid, int tid, const char *name);

/*
 * The counter 'name' (a plain literal) of process 'pid': its value from
 * t_ns on, t_ns not before the previous slice's begin.  JSON: a "C" event
 * with args {"value": N}; .pftrace: a counter track under the process (its
 * descriptor before its first value).  -1 out of memory.
 */
int trace_emit_counter(struct trace_emit *e, int pid, const char *name, int64_t t_ns, int64_t value);

/* A slice, not before the previous one's begin; its arrows.  -1 out of memory. */
int trace_emit_slice(struct trace_emit *e, const struct trace_slice *s);

/* End the trace: the JSON file's tail, or the slice ends held back.  -1 out of memory. */
int trace_emit_finish(struct trace_emit *e);

/* Frees what the writer holds; writes nothing more. */
void trace_emit_release(struct trace_emit *e);

#endif
