/*
 * detect.h - the five inefficient data mapping patterns, found in one pass
 * over a recorded run.
 *
 * Input: events (db/events.h) in the order  ORDER BY begin_ns, seq  over
 * data operations and kernels merged (db/events.h streams them so); feeding
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

#include "db/events.h"

enum finding_kind {
	FINDING_DUPLICATE_TRANSFER,
	FINDING_ROUND_TRIP,
	FINDING_REPEATED_ALLOC,
	FINDING_UNUSED_ALLOC,
	FINDING_UNUSED_TRANSFER,
	FINDING_KIND_COUNT
};

/* What distinguishes occurrences of one kind that a user treats differently. */
enum flavour {
	FLAVOUR_NONE,
	FLAVOUR_SAME_DATA,          /* duplicate: the same host data sent again */
	FLAVOUR_SAME_CONTENT,       /* duplicate: other data with identical content */
	FLAVOUR_HOST_DEVICE_HOST,   /* round trip: a device copy returned unchanged */
	FLAVOUR_DEVICE_HOST_DEVICE, /* round trip: the host sends back what it got */
	FLAVOUR_DEVICE_DEVICE,      /* round trip between two devices */
	FLAVOUR_OVERWRITTEN,        /* unused transfer: overwritten before a kernel */
	FLAVOUR_AFTER_LAST_KERNEL,  /* unused transfer: no kernel ran afterwards */
	FLAVOUR_COUNT
};

/* "duplicate_transfer", ... / "same_data", ... ("" for FLAVOUR_NONE). Static. */
const char *finding_kind_name(enum finding_kind kind);
const char *flavour_name(enum flavour flavour);

/* The role an operation plays in its occurrence. */
enum op_role {
	ROLE_TRANSFER,   /* duplicate, unused transfer */
	ROLE_SEND,       /* round trip: T */
	ROLE_RETURN,     /* round trip: R */
	ROLE_ALLOC,
	ROLE_DELETE,
	ROLE_COUNT
};

const char *op_role_name(enum op_role role);

/* One recorded operation, as much of it as findings need. */
struct op_ref {
	int64_t seq;
	int64_t begin_ns;
	int64_t end_ns;
	uint64_t codeptr;
	enum op_role role;
};

struct occurrence {
	enum finding_kind kind;
	enum flavour flavour;
	/*
	 * The operations that would disappear if the problem were fixed, in
	 * role order (send before return, alloc before delete); their time is
	 * the occurrence's savings.
	 */
	int nops;
	struct op_ref ops[2];
	/* duplicate_transfer: the first receipt of this content (not a saving). */
	int has_origin;
	struct op_ref origin;
	/*
	 * Devices involved: duplicate, unused transfer: {source, destination};
	 * round trip: {A, B} (A sent, B held the buffer); allocations: {device}.
	 */
	int ndevices;
	int devices[2];
	/*
	 * The data: its host address (0 when there is none, as for memory from
	 * omp_target_alloc or a transfer between devices) and size.
	 */
	uint64_t data_addr;
	uint64_t data_bytes;
	/* Bytes wasted: moved by the redundant transfers (both legs of a round
	 * trip), or allocated. */
	uint64_t bytes;
};

/* Called for each occurrence; returning non-zero stops the detection (-1). */
typedef int (*occurrence_fn)(void *arg, const struct occurrence *occ);

struct detect_config {
	int host_device;        /* the host's device number (run.host_device) */
	unsigned kinds;         /* bit (1 << kind) enables a detector; 0 = all */
};

struct detect;

/* All enabled detectors.  NULL when out of memory. */
struct detect *detect_new(const struct detect_config *cfg, occurrence_fn fn, void *arg);

/*
 * Feed the next event.  Returns 0, or -1 when the events are out of order,
 * memory ran out, or the callback asked to stop (*why says which: a static
 * string).
 */
int detect_feed(struct detect *d, const struct event *ev, const char **why);

/* End of the stream: settle what waited for it.  Returns 0 or -1 (as above). */
int detect_finish(struct detect *d, const char **why);

/* Accepts NULL. */
void detect_free(struct detect *d);

/* Convenience for tests and small inputs: new + feed each + finish + free. */
int detect_events(const struct detect_config *cfg, const struct event *ev, size_t n,
		  occurrence_fn fn, void *arg, const char **why);

#endif
