/*
 * kernels.h - the kernels by launching place (db/read/kernel_sites.h's rows),
 * gathered from the analysis' event stream instead of a query of their own.
 *
 * kernel_sites_read() grouped the kernels, and the transfers of the target
 * constructs that launched them, in SQL: a third of the stream's cost again
 * (a join, a sort of every transfer by construct).  The stream already
 * carries every sound kernel (with its construct's code pointer) and every
 * sound transfer (with its construct), so the sites are summed as it goes.
 * Memory is bounded: the sites are per place; a construct's transfers are
 * summed in a small cache by construct and, when evicted, go with the
 * constructs' kernels through lib/extsort.h, joined by construct at the
 * end.  The rows are those of kernel_sites_read(), in its order (sums of
 * integers where SQL summed doubles: the same below 2^53).
 */
#ifndef MAPPROF_REPORT_KERNELS_H
#define MAPPROF_REPORT_KERNELS_H

#include "db/read/events.h"
#include "db/read/kernel_sites.h"

struct kernel_tally;

/* NULL when out of memory. */
struct kernel_tally *kernel_tally_new(void);
void kernel_tally_free(struct kernel_tally *t);

/* One event of the stream (sound rows only).  0, or -1 with *why (static). */
int kernel_tally_feed(struct kernel_tally *t, const struct event *ev, const char **why);

/*
 * The sites into *out (released first), most total time first, then by
 * code pointer (as a signed 64-bit value, as SQLite orders it) and device.
 * 0, or -1 with *why (static).
 */
int kernel_tally_finish(struct kernel_tally *t, struct kernel_sites *out, const char **why);

/*
 * One site per directive: sites whose code pointers are call sites of one
 * directive (pairs as findings_merge_sites() takes them) summed into the
 * directive's first, then ordered again as kernel_tally_finish() orders.
 */
void kernel_sites_merge(struct kernel_sites *s, const uint64_t (*pairs)[2], size_t n);

#endif
