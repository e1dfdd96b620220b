/*
 * detect.h - the five inefficient data mapping patterns, found in one pass
 * over a recorded run.
 *
 * Input: events (db/read/events.h) in the order  ORDER BY begin_ns, seq  over
 * data operations and kernels merged (db/read/events.h streams them so); feeding
 * them out of that order is an error.  Output: "occurrences", handed one at a
 * time to a callback as soon as they are certain.  An occurrence is the unit
 * users and tests count (see docs/report-json.md):
 *
 *   duplicate_transfer  one receipt of content (hash, size, destination
 *                       device) that this device had already received
 *   round_trip          one pair (T, R): R leaves buffer L on B for A, T is the
 *                       latest earlier transfer from A into L of the same size,
 *                       with the same content, not yet the send of another pair
 *   repeated_alloc      one allocation of (host address, device, size) after
 *                       the first
 *   unused_alloc        one allocation whose lifetime overlaps no kernel on
 *                       its device
 *   unused_transfer     one transfer to a device, overwritten (same
 *                       destination and size) before a kernel of that device
 *                       could read it, or after the device's last kernel
 *
 * Common rules: operations of zero bytes move nothing and are ignored;
 * transfers without a hash take part in no content comparison; associate and
 * disassociate are neither allocations nor transfers.  "Before" means earlier
 * in the stream order (begin_ns, then seq).
 *
 * The detectors are pure: no I/O, clock, environment or globals.  Their state
 * is bounded by distinct contents, buffers and live allocations, never by the
 * number of events.
 */
#ifndef MAPPROF_REPORT_DETECT_H
#define MAPPROF_REPORT_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "db/read/events.h"
#include "report/detect/detect_common.h"
#include "report/detect/occurrence.h"

struct detect;

/* All enabled detectors.  NULL when out of memory. */
struct detect *detect_new(const struct detect_config *cfg, occurrence_fn fn, void *arg);

/*
 * Feed the next event.  Returns 0, or -1 when the events are out of order,
 * memory ran out, or the callback asked to stop (*why says which: a static
 * string).
 */
int detect_feed(struct detect *d, const struct event *ev, const char **why);

/*
 * A hint that 'ev' comes a few events from now: the detectors start
 * loading the state it will touch (the duplicate detector's map is probed
 * at random and is the pass's largest wait for memory).  Changes nothing.
 */
void detect_prefetch(const struct detect *d, const struct event *ev);

/* End of the stream: settle what waited for it.  Returns 0 or -1 (as above). */
int detect_finish(struct detect *d, const char **why);

/* Accepts NULL. */
void detect_free(struct detect *d);

/* Convenience for tests and small inputs: new + feed each + finish + free. */
int detect_events(const struct detect_config *cfg, const struct event *ev, size_t n,
		  occurrence_fn fn, void *arg, const char **why);

#endif
