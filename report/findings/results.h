/*
 * results.h - what the program computed, as far as the recording shows it:
 * for every host range data came back to, the content hash of the last
 * from-device transfer into it (its final content as the device returned
 * it), and of the last transfer either way (the host's content the last
 * time a transfer saw it).  'mapprof diff' compares these between two runs
 * (report/compare/diff.h) to say whether a change kept the results.
 *
 * Fed the event stream in order by analysis_run(); a range is keyed by its
 * host address and size, so it is a run's own, never matched across runs
 * here (heap addresses move): the comparison names ranges by their variable.
 */
#ifndef MAPPROF_REPORT_RESULTS_H
#define MAPPROF_REPORT_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "db/read/events.h"
#include "lib/hmap.h"

/* One host range a transfer touched, in order of its first transfer. */
struct result_range {
	uint64_t host_addr, bytes;
	int returned;                 /* a from-device transfer reached it */
	int64_t ret_seq;              /* the last one of those */
	uint64_t ret_codeptr;
	int ret_has_hash;
	uint64_t ret_hash;
	int64_t last_seq;             /* the last transfer of it, either way */
	uint64_t last_codeptr;
	int last_has_hash;
	uint64_t last_hash;
	/*
	 * A struct whose pointer member the runtime attached on the device (an
	 * 8-byte transfer into its device copy, 'map(s) map(s.v[0:n])'): its
	 * host content holds a heap address, which moves from run to run, so
	 * two runs' hashes of it may differ while the program computed the same.
	 */
	int holds_pointer;
	uint64_t dev_addr;            /* its device copy, as its last send saw it */
};

struct results {
	struct result_range *v;       /* every range a transfer touched */
	size_t n, cap;
	struct hmap index;            /* (host_addr, bytes) -> position in v */
	/* The ranges sent in the current construct (their positions in v): where an attach lands. */
	size_t *sent;
	size_t nsent, capsent;
	int64_t sent_target;
};

void results_init(struct results *r);
void results_release(struct results *r);

/*
 * Account one event of the stream (transfers to or from 'host'; others
 * are ignored).  0, or -1 when out of memory.
 */
int results_feed(struct results *r, const struct event *ev, int host);

#endif
