/*
 * overlap.h - how much of a run's transfer time ran beside kernels on the
 * same device, and how much more could have (docs/report-json.md,
 * "Overlap", defines each number).  Used by the report's pass
 * (report/findings/analysis.c) and the trace export (report/trace/trace.c),
 * which each say which device an event is on.
 *
 * Per device, over intervals fed in begin order (the event stream's,
 * db/read/events.h):
 *   transfer_ns  the measure of the union of its transfers' intervals,
 *                each nanosecond once;
 *   kernel_ns    the same for its kernels;
 *   overlap_ns   the measure of (union of transfers) ∩ (union of kernels):
 *                the time a transfer and a kernel of the device were both
 *                in flight, each nanosecond once;
 *   nowait_ns    the union of the transfers of 'nowait' call sites;
 *   nowait_alone_ns  the part of nowait_ns with no kernel of the device in
 *                flight;
 *   could_ns     min(nowait_alone_ns, kernel_ns - overlap_ns): nowait
 *                transfer time that ran alone, no more than the kernel time
 *                that had no transfer beside it (a copy hides only behind
 *                a kernel that runs).
 *
 * Events come in begin order, so a running sweep needs O(1) state per
 * device: the open merged interval of each class and the time up to which
 * everything is counted.  Memory grows with the devices, never with the
 * events.
 *
 * The overlapped spans themselves are handed to 'on_span' as they happen,
 * for the trace writers: a span's begin when the event that starts it is
 * fed (always the current stream time), its end once the stream has
 * passed it (overlap_flush()) or at overlap_finish().  Callbacks come in
 * time order when the caller calls overlap_flush(t) before each event at
 * time t.  The spans of a device are exactly the set whose measure is its
 * overlap_ns.
 */
#ifndef MAPPROF_LIB_OVERLAP_H
#define MAPPROF_LIB_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

/* An open merged interval of one class of a device. */
struct overlap_ivl {
	int open;
	int64_t begin_ns, end_ns;
};

struct overlap_device {
	int device;
	struct overlap_ivl xfer, kernel, nowait;
	int64_t done_ns;            /* every class is counted up to here */
	int64_t transfer_ns, kernel_ns, overlap_ns, nowait_ns, nowait_alone_ns;
	int in_span;                /* an overlapped span began and has not ended */
	int64_t span_end_ns;        /* the least it lasts so far */
};

/* The numbers of one device, or of the run (the sum over its devices). */
struct overlap_sums {
	int64_t transfer_ns, kernel_ns, overlap_ns, nowait_ns, nowait_alone_ns, could_ns;
};

struct overlap {
	struct overlap_device *devices;   /* sorted by device after overlap_finish() */
	size_t ndevices, cap;
	/*
	 * Called with begin 1 at a span's begin, 0 at its end; NULL: none.
	 * A negative return stops nothing but is kept (overlap_feed() and
	 * overlap_flush() return -1 after it).
	 */
	int (*on_span)(void *arg, int device, int begin, int64_t t_ns);
	void *arg;
};

void overlap_init(struct overlap *o);
void overlap_release(struct overlap *o);

/*
 * Feed one interval of 'device' (in begin order over all devices):
 * a kernel, or a transfer ('nowait': of a nowait call site).  0, or -1 out
 * of memory or when on_span failed.
 */
int overlap_feed(struct overlap *o, int device, int is_kernel, int nowait, int64_t begin_ns,
		 int64_t end_ns);

/* End the spans that ended before t_ns (on_span).  0, or -1 when on_span failed. */
int overlap_flush(struct overlap *o, int64_t t_ns);

/* Count every device to its end, end the open spans, sort the devices.  0, or -1 as above. */
int overlap_finish(struct overlap *o);

/* The numbers of one device (after overlap_finish()), could_ns included. */
struct overlap_sums overlap_device_sums(const struct overlap_device *d);

/* The sum over the devices. */
struct overlap_sums overlap_run_sums(const struct overlap *o);

#endif
