/*
 * otf2.h - an OTF2 archive (the Open Trace Format 2 that Score-P writes
 * and Vampir reads) written through Debian's libotf2, for 'mapprof trace
 * -o run.otf2' (report/trace/trace_otf2.c decides what goes in it; this
 * file only holds the definitions and writes the records).
 *
 * The archive is 'DIR/traces.otf2' (the anchor file), 'DIR/traces.def'
 * (the global definitions) and 'DIR/traces/' (one event file per
 * location), as Score-P names them.  Events are put, as they come, in a
 * temporary file (report/trace/lanefile.h: a few KiB of memory per
 * location) and written into the archive when it is closed, one location
 * after another: libotf2 has one event writer open at a time (its chunk,
 * 256 KiB, and its file layer's buffer, 4 MiB), so memory grows with the
 * locations by a few KiB each, never with the events.  The definitions
 * (strings, the system tree, location groups, locations with their event
 * counts, regions, the attributes, the metric, the RMA window) are written
 * once, when the archive is closed.
 *
 * Fixed definitions every archive has:
 *   - attributes OTF2W_ATTR_FINDING(i) ("finding", uint32: a stored
 *     finding's id) and OTF2W_ATTR_KIND(i) ("finding kind", a string),
 *     i < OTF2W_MAX_FINDINGS, for the events a finding names;
 *   - the metric OTF2W_METRIC ("device memory in use", bytes, absolute
 *     points) recorded on metric locations;
 *   - the metric OTF2W_METRIC_OVERLAP ("transfers beside kernels", 1 while a
 *     transfer and a kernel of the device are both in flight, else 0,
 *     absolute points) on the same locations;
 *   - the RMA window OTF2W_WIN ("OpenMP target memory") on a communicator
 *     of every location, rank = location id: a one-sided operation's
 *     'remote' is the location id of the other side.
 */
#ifndef MAPPROF_REPORT_OTF2_H
#define MAPPROF_REPORT_OTF2_H

#include <stdint.h>

#define OTF2W_MAX_FINDINGS 4
#define OTF2W_ATTR_FINDING(i) (2u * (unsigned)(i))
#define OTF2W_ATTR_KIND(i) (2u * (unsigned)(i) + 1u)
#define OTF2W_METRIC 0u
#define OTF2W_METRIC_OVERLAP 1u
#define OTF2W_WIN 0u
#define OTF2W_NONE UINT32_MAX

struct otf2w;

/* The kinds of location and location group (OTF2's numbers). */
enum otf2w_location_type { OTF2W_CPU_THREAD = 1, OTF2W_STREAM = 2, OTF2W_METRIC_LOCATION = 3 };
enum otf2w_group_type { OTF2W_PROCESS = 1, OTF2W_ACCELERATOR = 2 };

/* The findings an event names, as attributes (kind: a string from otf2w_string()). */
struct otf2w_findings {
	int n;
	uint32_t id[OTF2W_MAX_FINDINGS];
	uint32_t kind[OTF2W_MAX_FINDINGS];
};

/*
 * A new archive 'traces' in the directory 'dir' (which must be empty or
 * not exist).  NULL with *err set (malloc'ed).
 */
struct otf2w *otf2w_open(const char *dir, char **err);

/* The reference of a string (defined once).  OTF2W_NONE out of memory. */
uint32_t otf2w_string(struct otf2w *w, const char *s);

/* A system tree node (parent OTF2W_NONE: the root).  OTF2W_NONE out of memory. */
uint32_t otf2w_node(struct otf2w *w, const char *name, const char *class_name, uint32_t parent);

/* A location group under 'node', created by 'creator' (OTF2W_NONE: none).  OTF2W_NONE out of memory. */
uint32_t otf2w_group(struct otf2w *w, const char *name, enum otf2w_group_type type, uint32_t node,
		     uint32_t creator);

/* A location of 'group' and its event writer.  OTF2W_NONE on error. */
uint32_t otf2w_location(struct otf2w *w, const char *name, enum otf2w_location_type type, uint32_t group);

/*
 * A region: 'file' and 'line' its source location (NULL and 0: unknown),
 * 'role' and 'paradigm' OTF2's OTF2_RegionRole and OTF2_Paradigm.
 * OTF2W_NONE out of memory.
 */
uint32_t otf2w_region(struct otf2w *w, const char *name, const char *file, uint32_t line, int role,
		      int paradigm);

/*
 * Records on location 'loc' at time 't' (ns, not before the location's
 * last record).  'f' (or NULL) the findings the event names.  0, or -1:
 * the archive failed (otf2w_close() says why).
 */
int otf2w_enter(struct otf2w *w, uint32_t loc, uint64_t t, uint32_t region, const struct otf2w_findings *f);
int otf2w_leave(struct otf2w *w, uint32_t loc, uint64_t t, uint32_t region);
/* A one-sided operation on OTF2W_WIN: 'get' (else a put) with the location 'remote', 'id' its match. */
int otf2w_rma(struct otf2w *w, uint32_t loc, uint64_t t, int get, uint32_t remote, uint64_t bytes, uint64_t id,
	      const struct otf2w_findings *f);
int otf2w_rma_done(struct otf2w *w, uint32_t loc, uint64_t t, uint64_t id);
/* The device memory in use: OTF2W_METRIC's value. */
int otf2w_metric(struct otf2w *w, uint32_t loc, uint64_t t, uint64_t bytes);
/* Transfers beside kernels: OTF2W_METRIC_OVERLAP's value (1 or 0). */
int otf2w_overlap(struct otf2w *w, uint32_t loc, uint64_t t, uint64_t value);

/*
 * Write the definitions (the clock: ns from 'offset', 'length' long,
 * 'realtime_ns' since the epoch at 'offset' or UINT64_MAX) and close.
 * 0, or -1 with *err set (malloc'ed; what libotf2 said).  Frees w either
 * way.
 */
int otf2w_close(struct otf2w *w, uint64_t offset, uint64_t length, uint64_t realtime_ns, char **err);

/* Close without the definitions (the caller removes the directory).  Accepts NULL. */
void otf2w_abort(struct otf2w *w);

#endif
