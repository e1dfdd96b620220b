/*
 * pftrace.h - Perfetto's native trace format (a protobuf 'Trace' of
 * TracePackets holding TrackDescriptors and TrackEvents), written one
 * packet at a time for 'mapprof trace -o run.pftrace' (report/trace/trace.h
 * decides what goes in it; this file only encodes).
 *
 * Why by hand: the few messages needed are varints and length-delimited
 * fields, and a protobuf library would be a new dependency for ~300 lines.
 * Field numbers are those of Perfetto's protos/perfetto/trace/
 * (trace_packet.proto, track_event/track_event.proto,
 * track_event/track_descriptor.proto, track_event/process_descriptor.proto,
 * track_event/debug_annotation.proto, interned_data/interned_data.proto).
 *
 * What is written:
 *   - one TrackDescriptor per device (a ProcessDescriptor: pid, name) and
 *     per lane (a child track: parent_uuid, name), before its first event;
 *   - per slice a TYPE_SLICE_BEGIN (name, category, debug annotations, flow
 *     ids) at its begin and a TYPE_SLICE_END at its end.  Ends are held back
 *     in a heap of the open slices and written once no later begin can come
 *     before them, so the file is in time order (the begins must come in
 *     begin order): memory grows with the slices open at one time, never
 *     with the events;
 *   - counter tracks (a TrackDescriptor with an empty CounterDescriptor)
 *     and their values (TYPE_COUNTER, counter_value), written where they
 *     come, after the held-back ends before them;
 *   - event names, categories and annotation names are interned on one
 *     packet sequence (the first packet clears its incremental state), up
 *     to PFTRACE_MAX_INTERNED names; past that, names are written inline.
 * Flows follow TrackEvent's flow_ids: the slices that carry one id are
 * linked in time order, one arrow from each to the next.
 */
#ifndef MAPPROF_REPORT_PFTRACE_H
#define MAPPROF_REPORT_PFTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PFTRACE_MAX_INTERNED 65536

struct pftrace;

/* One debug annotation: a string when 'str' is not NULL, else the integer. */
struct pftrace_arg {
	const char *name;        /* a static string (its content never changes): interned by its address */
	const char *str;
	int64_t num;
};

struct pftrace_slice {
	uint64_t track;          /* a uuid from pftrace_track() */
	int64_t begin_ns, end_ns;
	const char *name;
	const char *category;    /* a static string, as pftrace_arg's name */
	const struct pftrace_arg *args;
	size_t nargs;
	const uint64_t *flows;   /* flow ids of this slice */
	size_t nflows;
};

/* A writer onto 'f' (borrowed; its errors show in ferror(f)).  NULL out of memory. */
struct pftrace *pftrace_new(FILE *f);

/* A device: a process track named 'name' with the pid given.  -1 out of memory. */
int pftrace_process(struct pftrace *p, uint64_t uuid, int pid, const char *name);

/* A track under the process track 'parent' (0: none).  -1 out of memory. */
int pftrace_track(struct pftrace *p, uint64_t uuid, uint64_t parent, const char *name);

/* A counter track under 'parent' (0: none).  -1 out of memory. */
int pftrace_counter_track(struct pftrace *p, uint64_t uuid, uint64_t parent, const char *name);

/*
 * A counter's value from t_ns on, t_ns not before the last slice's begin
 * (the held-back ends up to it are written first).  -1 out of memory.
 */
int pftrace_counter(struct pftrace *p, uint64_t track, int64_t t_ns, int64_t value);

/*
 * A slice; its begin is not before the previous slice's (the caller's
 * stream order).  -1 out of memory.
 */
int pftrace_slice(struct pftrace *p, const struct pftrace_slice *s);

/* Write the ends still held back.  -1 out of memory. */
int pftrace_finish(struct pftrace *p);

/* Accepts NULL; writes nothing more. */
void pftrace_free(struct pftrace *p);

#endif
