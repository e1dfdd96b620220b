/*
 * trace_flows.h - which arrows of 'mapprof trace' (report/trace/trace.h)
 * start or end at each event, as the events come in begin order:
 *
 *   - a stored finding's: its operations, read from db/read/trace_scan.h beside
 *     the events in the same order, from its first occurrence (with a
 *     window: its first one in the window) to each later one, at most
 *     TRACE_MAX_FLOWS per finding;
 *   - a content's (hash and size): from its first transfer to a device to
 *     its first transfer to each other device (devices 0-63), in a run on
 *     several devices.  The first copies of at most COPY_CACHE_MAX contents
 *     are remembered: past that they are forgotten all at once, so an arrow
 *     may be missed, never wrong.
 *
 * Memory grows with the number of findings, never with events.  The arrows
 * are handed to report/trace/trace_emit.h as struct flow_ref.
 */
#ifndef MAPPROF_REPORT_TRACE_FLOWS_H
#define MAPPROF_REPORT_TRACE_FLOWS_H

#include <stddef.h>
#include <stdint.h>

#include "db/read/trace_scan.h"
#include "report/trace/trace.h"
#include "report/trace/trace_emit.h"

struct db;
struct event;
struct run_info;
struct anchor;
struct copy_slot;

struct trace_flows {
	enum trace_format format;  /* JSON: arrows named; .pftrace: a flow's first slice carries its id */
	struct trace_stats *st;    /* flows and content_flows counted here */
	/* The findings' arrows. */
	struct finding_scan *rows;
	struct finding_scan_row row;
	int row_ok;                /* 'row' holds the next unprocessed row */
	struct anchor *anchors;    /* by finding id */
	int nanchors;
	int windowed;              /* --from or --to given: anchors at the first occurrence seen */
	/* The same contents'. */
	int several_devices;       /* the runtime reported more than one device: copies matter */
	int has_host_device, host_device;
	struct copy_slot *copies;  /* (hash, bytes) -> struct first_copy: COPY_SLOTS slots */
	uint32_t copies_gen;
	size_t ncopies;
	uint64_t content_ids;      /* .pftrace flow ids of contents: after the findings' */
	/* The arrows of the event at hand. */
	struct flow_ref *flows;
	size_t nflows, capflows;
};

/*
 * Start: the stored findings of 'db' read in 'mode' ('st->has_findings'
 * set), the devices of 'run'.  0, -1 with *err set, or FINDING_SCAN_RESTART
 * (the rows are not in time order: start again FINDING_SCAN_SORTED);
 * trace_flows_release() either way.
 */
int trace_flows_init(struct trace_flows *fl, struct db *db, enum finding_scan_mode mode,
		     const struct run_info *run, const struct trace_options *opt, struct trace_stats *st,
		     char **err);

/*
 * The arrows that start or end at 'ev' (on 'device', track pid/tid, its
 * variable 'var' or NULL) into fl->flows and fl->nflows, the content's
 * first, then the findings'; the next event must not come before it.  0,
 * -1 with *err set, or FINDING_SCAN_RESTART.
 */
int trace_flows_event(struct trace_flows *fl, const struct event *ev, int device, int pid, int tid,
		      const char *var, char **err);

/* Done with the event's arrows (their names are freed). */
void trace_flows_clear(struct trace_flows *fl);

/*
 * After the last event: the finding rows not read yet, since only the end
 * proves their order.  0, -1 with *err set, or FINDING_SCAN_RESTART.
 */
int trace_flows_finish(struct trace_flows *fl, char **err);

void trace_flows_release(struct trace_flows *fl);

#endif
