/*
 * cost.h - what an operation of a given size costs in this run: the
 * noise-robust estimate behind every predicted saving.
 *
 * On host offload (and on a GPU less so) one transfer's time varies with
 * page faults, the first touch of fresh memory, the scheduler: summing the
 * very operations a fix removes gives a prediction that moves by tens of
 * percent from one recording of a program to the next.  So the savings are
 * priced instead from the run's own operations of that kind and size: per
 * class (to a device, from a device, device to device, allocation, delete)
 * and power-of-two size bucket, the typical time per byte of the transfers
 * (the median: the run's steady transfer) and the typical time of the
 * allocations and deletes, and per byte of the first copies into fresh
 * memory (the 10 % trimmed mean, without the slowest and the fastest tenth:
 * it weighs both the cheap and the page-mapping kind; the median under 5
 * operations), which ignore the slow operations that make one recording
 * differ from the next (cost.c says why these two, with the numbers); a
 * bucket with one operation prices it at its own time.
 *
 * Fed every event of the stream by analysis_run(); memory: per bucket, one
 * count per distinct sample value (a float: the median and the trimmed mean
 * over them are the ones over every sample, bit for bit), never per operation.  A run with
 * more than COST_MAX_DISTINCT distinct values in all coarsens the values of
 * its fullest buckets (a few low mantissa bits rounded off, 1 part in 2^19
 * at first): bounded memory at any length, exact below that.
 */
#ifndef MAPPROF_REPORT_COST_H
#define MAPPROF_REPORT_COST_H

#include <stddef.h>
#include <stdint.h>

#include "db/read/events.h"
#include "lib/hmap.h"

enum cost_class {
	COST_TO_DEVICE,      /* host -> device */
	COST_FROM_DEVICE,    /* device -> host */
	COST_DEVICE_DEVICE,
	COST_ALLOC,
	COST_DELETE,
	COST_TO_DEVICE_FIRST,  /* host -> device into memory allocated for it, not written
				  since: the first touch of fresh pages (page faults on host
				  offload) */
	COST_CLASS_COUNT
};

#define COST_BUCKETS 65      /* bytes 0, then one per power of two */

#define COST_MAX_DISTINCT (1u << 18)

struct cost_bucket {
	struct hmap values;  /* float bits of a sample -> uint64_t count; samples:
			      * ns per byte (transfers), ns (others) */
	uint64_t n;          /* samples */
	int shift;           /* low mantissa bits rounded off (0: exact) */
	double median;       /* after cost_finish(): the typical sample (cost.c central()) */
};

struct cost_model {
	int host_device;
	size_t distinct;     /* values held in all buckets */
	struct cost_bucket b[COST_CLASS_COUNT][COST_BUCKETS];
	struct hmap fresh;   /* {device, address} of allocations not yet written */
};

void cost_init(struct cost_model *c, int host_device);
void cost_release(struct cost_model *c);

/*
 * Account one event (others than data operations are ignored), and set its
 * first_copy: a copy from the host into device memory allocated (at that
 * address) and not written since is priced apart, COST_TO_DEVICE_FIRST.
 * Written: by a copy to that address (from the host or another device), or
 * by any kernel of the device (which may write it).  A copy into the
 * middle of an allocation is not a first copy, nor a later one to its
 * start; memory the runtime reuses at an address it freed counts as fresh
 * again.  0, or -1 when out of memory.
 */
int cost_feed(struct cost_model *c, struct event *ev);

/* The typical samples (the median or the trimmed mean: cost.c central()); frees the samples. */
void cost_finish(struct cost_model *c);

/* The class of a transfer between these devices (the host: c->host_device). */
enum cost_class cost_transfer_class(const struct cost_model *c, int src_device, int dest_device);

/*
 * What an operation of this class and size costs in this run (after
 * cost_finish()): ns, rounded; -1 when the run had no such operation.
 */
int64_t cost_estimate_ns(const struct cost_model *c, enum cost_class cls, uint64_t bytes);

/*
 * The same for a copy that need not have touched fresh memory (a 'to' that a
 * fix maps 'alloc': the page faults move into the kernel that writes the
 * data): from copies into memory already written of this size (*other_size
 * 0), else per byte of the next larger size the run has, else of copies
 * back to the host of this size or larger (1), else from first copies (2);
 * -1 when none.
 */
int64_t cost_estimate_warm_ns(const struct cost_model *c, enum cost_class cls, uint64_t bytes, int *other_size);

/*
 * What a copy of 'bytes' into fresh device memory costs beyond one into
 * memory already written: the page faults of its first touch (host
 * offload).  0 when the run cannot say (no first copies of that size, or
 * nothing but first copies), and when the difference cannot be page faults
 * but is the directions' or sizes' the warm price was taken from: first
 * copies less than half as slow again as warm ones (a first touch zeroes
 * each page before the copy writes it, a pass as long as the copy's own
 * write, and adds the faults), or less than 100 ns more per 4 KiB page
 * (zeroing it at 40 GB/s: an allocator that hands freed, touched memory
 * back faults nothing).
 */
int64_t cost_fault_premium_ns(const struct cost_model *c, uint64_t bytes);

#endif
