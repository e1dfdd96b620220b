/*
 * trace.h - 'mapprof trace': a recorded run as a Chrome Trace Event file
 * for Perfetto (ui.perfetto.dev) and chrome://tracing (docs/usage.md), or
 * as Perfetto's own protobuf trace (TRACE_PFTRACE: the same tracks, slices
 * and arrows, encoded by report/trace/pftrace.h; a flow there links the
 * slices that carry its id in time order, so a finding's arrows chain from
 * occurrence to occurrence instead of all leaving the first).
 *
 * {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}:
 *   - one "X" (complete) event per kernel, transfer, allocation and delete,
 *     ts and dur in microseconds (floats, ns precision), args with bytes,
 *     the variable, the source line, seq and the devices;
 *   - pid = the device the event happened on (a transfer's device end, the
 *     destination between two devices; the host is named "host"), tid = the
 *     recording's host thread and lane (transfers, allocations, kernels),
 *     named by "M" metadata events as they first appear;
 *     named "initial thread (tid N)" or "OpenMP thread K (tid N)"
 *     (db/read/threads.h);
 *   - one flow ("s" then "f", bound to the enclosing slices; cat "finding")
 *     per later occurrence of a stored finding, from its first occurrence,
 *     at most TRACE_MAX_FLOWS per finding, named by the finding's kind,
 *     variable and id ("round_trip of a (#3)");
 *   - one flow (cat "same_content") from the first transfer of a content to
 *     a device to the first transfer of the same content (hash and size) to
 *     each other device (devices 0-63): a run that sends its input to every
 *     device shows it, though no finding does.
 *
 * Streaming: events come from db/read/events.h's stream in begin order and the
 * stored findings' operations from db/read/trace_scan.h in the same order;
 * each event is written as it is read.  Both read without a sort where
 * they can (seq order, the rows' stored order) and start the file again
 * sorted when that order turns out wrong: only where the output is a
 * temporary file (standard output and devices are read sorted from the
 * start).  Memory grows with the number of
 * findings, code locations and host threads, never with events.  Source
 * lines and variables come from the attribution tables, findings from the
 * findings tables, both written by 'mapprof report': without them the trace
 * has neither (trace_stats says so).
 */
#ifndef MAPPROF_REPORT_TRACE_H
#define MAPPROF_REPORT_TRACE_H

#include <stdint.h>

struct db;

#define TRACE_MAX_FLOWS 1000

enum trace_format {
	TRACE_JSON,        /* the Trace Event file above */
	TRACE_PFTRACE,     /* Perfetto's protobuf (report/trace/pftrace.h) */
	TRACE_OTF2,        /* an OTF2 archive (trace_write_otf2()) */
};

struct trace_options {
	enum trace_format format;
	/*
	 * The window, in ns since the run's start: only events that overlap
	 * [from_ns, to_ns] are written, whole (INT64_MIN and INT64_MAX: all).
	 * A finding's arrows then start at its first occurrence in the window.
	 */
	int64_t from_ns, to_ns;
};

struct trace_stats {
	uint64_t events;       /* X events (slices) written */
	uint64_t flows;        /* finding arrows (s/f pairs) written */
	uint64_t content_flows;  /* same-content arrows between devices */
	int has_sources;       /* the database had source attribution */
	int has_findings;      /* ... and stored findings */
	/* OTF2 only ('events' counts its regions) */
	uint64_t rma_ops;      /* one-sided operations (transfers) */
	uint64_t marked;       /* events a finding names */
	uint64_t processes;    /* location groups of processes */
};

/*
 * Write the trace of 'db' to 'path' ("-": stdout) as lib/outfile.h says
 * (oflags: OUTFILE_NOFOLLOW for the default path), in the format and window
 * of 'opt'.  0, or -1 with *err set (malloc'ed; a write error names the path
 * and the first write's errno).
 */
int trace_write(struct db *db, const char *path, unsigned oflags, const struct trace_options *opt,
		struct trace_stats *st, char **err);

/*
 * Write the runs recorded in dbs[0..n) (the processes of one job, or one)
 * as one OTF2 archive: the directory 'path' (an empty one, or an archive
 * mapprof wrote there before, is replaced; anything else is refused),
 * holding traces.otf2, traces.def and traces/ as Score-P writes them
 * (report/trace/trace_otf2.c says what goes in it).  The window of 'opt'
 * as above.  The archive is made beside 'path' and renamed into place
 * whole.  0, or -1 with *err set (malloc'ed).
 */
int trace_write_otf2(char **dbs, int n, const char *path, const struct trace_options *opt,
		     struct trace_stats *st, char **err);

#endif
