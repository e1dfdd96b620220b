/*
 * occurrence.h - what a detector hands out: one occurrence of an inefficient
 * data mapping pattern (its kind and flavour, the operations a fix would
 * remove, their devices and data), and the names the database and the JSON
 * give to kinds, flavours and roles.
 *
 * The vocabulary shared by the detectors (report/detect*.c), the findings
 * that group their occurrences (report/findings/findings.h) and the outputs.
 */
#ifndef MAPPROF_REPORT_OCCURRENCE_H
#define MAPPROF_REPORT_OCCURRENCE_H

#include <stdint.h>

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
	int first_copy;    /* a copy into fresh device memory (struct event's) */
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
	/*
	 * A pointer's attach (struct event's attach): the runtime sends every
	 * one from one buffer of its own, so the data address alone would make
	 * one finding of different pointers' attaches.
	 */
	int attach;
	/* Bytes wasted: moved by the redundant transfers (both legs of a round
	 * trip), or allocated. */
	uint64_t bytes;
};

/* Called for each occurrence; returning non-zero stops the detection (-1). */
typedef int (*occurrence_fn)(void *arg, const struct occurrence *occ);

/* One sentence of advice for a finding of this kind and flavour (static). */
const char *finding_advice(enum finding_kind kind, enum flavour flavour);

#endif
