/*
 * analysis.c - a recorded run through the detectors and the totals, into
 * findings (report/findings/analysis.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store/attribution.h"
#include "db/db.h"
#include "db/store/locations.h"
#include "report/findings/analysis.h"
#include "lib/batchq.h"
#include "lib/tempfile.h"
#include "report/detect/detect.h"
#include "report/findings/kernels.h"

static void analysis_reset(struct analysis *a)
{
	totals_release(&a->totals);
	findings_release(&a->findings);
	checks_release(&a->checks);
	results_release(&a->results);
	cost_release(&a->cost);
	kernel_sites_release(&a->kernel_sites);
	totals_init(&a->totals);
	findings_init(&a->findings);
	a->findings.buffer_ops = tempfile_buffer_records(0);
	results_init(&a->results);
	cost_init(&a->cost, a->host_device);
}

/*
 * A kernel or transfer into the overlap sweep (lib/overlap.h), on its
 * device: a kernel's, a to_device's destination, a from_device's source.
 */
static int overlap_add(struct analysis *a, const struct event *ev)
{
	int nowait = a->nowait.n && nowait_sites_has(&a->nowait, ev->codeptr);

	switch (ev->kind) {
	case EV_KERNEL:
		return overlap_feed(&a->overlap, ev->dest_device, 1, 0, ev->begin_ns, ev->end_ns);
	case EV_TO_DEVICE:
		return overlap_feed(&a->overlap, ev->dest_device, 0, nowait, ev->begin_ns, ev->end_ns);
	case EV_FROM_DEVICE:
		return overlap_feed(&a->overlap, ev->src_device, 0, nowait, ev->begin_ns, ev->end_ns);
	default:
		return 0;
	}
}

/*
 * One event through everything the analysis feeds, in two parts: what the
 * reading thread feeds when there is one (feed_threaded(): the kernels by
 * place and the timeline's span, about a tenth of the analysis' work, which
 * paced the pass), and the rest.  0, or -1 with *why.
 */
static int feed_reader_side(struct analysis *a, struct kernel_tally *kt, const struct event *ev,
			    const char **why)
{
	timeline_span_add(&a->span, ev);
	if (overlap_add(a, ev) < 0) {
		*why = "out of memory";
		return -1;
	}
	return kernel_tally_feed(kt, ev, why);
}

/* ev's first_copy is set here (cost_feed()), before the detectors read it. */
static int feed_rest(struct analysis *a, struct detect *d, struct event *ev, const char **why)
{
	if (totals_feed(&a->totals, ev) < 0 || results_feed(&a->results, ev, a->host_device) < 0 ||
	    cost_feed(&a->cost, ev) < 0) {
		*why = "out of memory";
		return -1;
	}
	return detect_feed(d, ev, why);
}

static int feed_one(struct analysis *a, struct detect *d, struct kernel_tally *kt, struct event *ev,
		    const char **why)
{
	return feed_reader_side(a, kt, ev, why) < 0 || feed_rest(a, d, ev, why) < 0 ? -1 : 0;
}

/* The reading thread: the stream's events into the queue, its status at the end. */
struct reader {
	struct db *db;
	struct event_stream *s;
	struct analysis *a;
	struct kernel_tally *kt;
	char *err;
};

static int read_events(void *arg, struct batchq *q)
{
	struct reader *r = arg;
	struct event *ev;
	const char *why = NULL;
	int rc;

	while ((ev = batchq_slot(q))) {
		if ((rc = event_stream_next(r->s, ev, &r->err)) != 1)
			return rc;
		if (feed_reader_side(r->a, r->kt, ev, &why) < 0) {
			if (asprintf(&r->err, "cannot analyse '%s': %s", db_path(r->db), why ? why : "out of memory") < 0)
				r->err = NULL;
			return -1;
		}
		batchq_push(q);
	}
	return 0;   /* the analysis gave up */
}

/* feed_threaded(): no thread could be started, nothing was read. */
#define NO_THREAD (-3)

/*
 * The events read on a thread of their own (SQLite's steps are a third of
 * the pass), which also feeds them to feed_reader_side(), while this one
 * feeds them to the rest, in the same order.  rc as event_stream_next's
 * last (-1 too when feed_reader_side() failed, with *err); 1 when the
 * analysis stopped (*why); NO_THREAD.
 */
struct feeder {
	struct analysis *a;
	struct detect *d;
	const char **why;
};

/*
 * The queue's batches through feed_one(), each event's detector state
 * asked for PREFETCH_AHEAD events before it is fed: 1 when the analysis
 * stopped, else 0.
 */
#define PREFETCH_AHEAD 16

static int consume(struct batchq *q, struct feeder *f)
{
	const void *recs;
	size_t n;

	while ((n = batchq_take(q, &recs)) > 0) {
		struct event *evs = (struct event *)recs;   /* the batch is this thread's until the next take */
		for (size_t i = 0; i < n && i < PREFETCH_AHEAD; i++)
			detect_prefetch(f->d, &evs[i]);
		for (size_t i = 0; i < n; i++) {
			if (i + PREFETCH_AHEAD < n)
				detect_prefetch(f->d, &evs[i + PREFETCH_AHEAD]);
			if (feed_rest(f->a, f->d, &evs[i], f->why) < 0) {
				batchq_cancel(q);
				return 1;
			}
		}
	}
	return 0;
}

static int feed_threaded(struct db *db, struct analysis *a, struct event_stream *s, struct detect *d,
			 struct kernel_tally *kt, const char **why, char **err)
{
	/*
	 * A deep queue: 256 Ki events (~31 MiB), about 0.2 s of either side's
	 * work.  Each side works in bursts (the findings' sort spills a million
	 * records at once; the reader writes the timeline's intervals out), and
	 * with 4 Ki events queued each waited for the other's: on 2 cores the
	 * reader was busy 74 % of the pass, the analysis 60 % (3 M events:
	 * 3.07 s for 2.26 s of reading); with 256 Ki, 2.55 s.
	 */
	struct batchq *q = batchq_new(sizeof(struct event), 4096, 64);
	struct reader r = { db, s, a, kt, NULL };
	struct feeder f = { a, d, why };
	int rc, stopped;

	if (!q || batchq_start(q, read_events, &r) < 0) {
		batchq_free(q);
		return NO_THREAD;
	}
	stopped = consume(q, &f);
	rc = batchq_finish(q);
	batchq_free(q);
	if (stopped) {
		free(r.err);
		return 1;
	}
	if (err)
		*err = r.err;
	else
		free(r.err);
	return rc;
}

/* One pass over the stream.  0, -1 (with *err) or EVENTS_RESTART. */
static int analyse_stream(struct db *db, struct analysis *a, enum events_mode mode, char **err)
{
	struct detect_config cfg = { a->host_device, 0 };
	struct event_stream *s;
	struct detect *d;
	struct kernel_tally *kt;
	const char *why = NULL;
	struct event ev;
	int rc = NO_THREAD;

	timeline_span_release(&a->span);
	timeline_span_init(&a->span);
	overlap_release(&a->overlap);
	overlap_init(&a->overlap);
	if (a->with_timeline && mode == EVENTS_BY_SEQ)
		timeline_span_record(&a->span, db);
	s = event_stream_open_rec(db, mode, a->keys, a->span.rec, err);
	d = s ? detect_new(&cfg, findings_add, &a->findings) : NULL;
	kt = d ? kernel_tally_new() : NULL;
	if (!kt) {
		if (s && err)
			*err = strdup("out of memory");
		detect_free(d);
		event_stream_close(s);
		timeline_span_release(&a->span);
		return -1;
	}
	if (batchq_wanted())
		rc = feed_threaded(db, a, s, d, kt, &why, err);
	if (rc == NO_THREAD)
		while ((rc = event_stream_next(s, &ev, err)) == 1)
			if (feed_one(a, d, kt, &ev, &why) < 0)
				break;
	if (rc == 0 && !why && detect_finish(d, &why) < 0 && !why)
		why = "detector failed";
	if (rc == 0 && !why)
		kernel_tally_finish(kt, &a->kernel_sites, &why);
	if (rc == 0)
		event_stream_damaged(s, &a->damaged_ops, &a->damaged_kernels);
	/* Every row was read when the stream ended (whatever the analysis made of them). */
	timeline_span_recorded(&a->span, rc == 0);
	detect_free(d);
	kernel_tally_free(kt);
	event_stream_close(s);
	if (rc < 0)
		return rc;
	if (why) {
		if (err && asprintf(err, "cannot analyse '%s': %s", db_path(db), why) < 0)
			*err = NULL;
		return -1;
	}
	return 0;
}

int analysis_pass(struct db *db, struct analysis *a, int with_timeline, char **err)
{
	int rc;

	memset(a, 0, sizeof(*a));
	a->with_timeline = with_timeline;
	totals_init(&a->totals);
	findings_init(&a->findings);
	a->findings.buffer_ops = tempfile_buffer_records(0);
	results_init(&a->results);
	overlap_init(&a->overlap);
	if (db_read_run(db, &a->run, err) < 0 || db_read_acc(db, &a->acc, err) < 0 ||
	    nowait_sites_read(db, &a->nowait, err) < 0 ||
	    !(a->keys = op_keys_new(db, err)))
		return -1;
	a->host_device = a->run.has_host_device ? a->run.host_device : -1;
	cost_init(&a->cost, a->host_device);
	rc = analyse_stream(db, a, EVENTS_BY_SEQ, err);
	if (rc == EVENTS_RESTART) {
		/* Threads reordered more events than the window holds: let SQLite sort. */
		analysis_reset(a);
		a->sorted = 1;
		rc = analyse_stream(db, a, EVENTS_SORTED, err);
	}
	if (rc >= 0 && checks_load(db, &a->checks, err) < 0)
		return -1;
	return rc < 0 ? -1 : 0;
}

int analysis_finish_begin(struct analysis *a, char **err)
{
	struct findings_context ctx;

	totals_finish(&a->totals);
	if (overlap_finish(&a->overlap) < 0) {
		if (err)
			*err = strdup("out of memory");
		return -1;
	}
	a->duration_ns = a->run.duration_ns > 0 ? a->run.duration_ns : 0;
	if (a->totals.last_end_ns > a->duration_ns)
		a->duration_ns = a->totals.last_end_ns;
	cost_finish(&a->cost);
	ctx = (struct findings_context){ a->run.modules, a->run.nmodules, a->host_device,
					 a->duration_ns, &a->cost };
	if (findings_finish_begin(&a->findings, &ctx) < 0) {
		if (err)
			*err = strdup("out of memory");
		return -1;
	}
	return 0;
}

int analysis_finish_end(struct analysis *a, char **err)
{
	if (findings_finish_end(&a->findings, 0) < 0) {
		if (err)
			*err = strdup("out of memory");
		return -1;
	}
	return 0;
}

int analysis_finish(struct analysis *a, char **err)
{
	return analysis_finish_begin(a, err) < 0 ? -1 : analysis_finish_end(a, err);
}

int analysis_merge_sites(struct analysis *a, const uint64_t (*pairs)[2], size_t n, char **err)
{
	if (n && !(a->site_pairs = malloc(n * sizeof(*a->site_pairs))))
		goto oom;
	if (n)
		memcpy(a->site_pairs, pairs, n * sizeof(*a->site_pairs));
	a->nsite_pairs = n;
	if (findings_merge_sites(&a->findings, pairs, n) == 0) {
		kernel_sites_merge(&a->kernel_sites, pairs, n);
		return 0;
	}
oom:
	if (err)
		*err = strdup("out of memory");
	return -1;
}

int analysis_run(struct db *db, struct analysis *a, char **err)
{
	return analysis_pass(db, a, 0, err) < 0 ? -1 : analysis_finish(a, err);
}

int analysis_run_page(struct db *db, struct analysis *a, char **err)
{
	return analysis_pass(db, a, 1, err) < 0 ? -1 : analysis_finish(a, err);
}

void analysis_release(struct analysis *a)
{
	if (!a)
		return;
	run_info_release(&a->run);
	acc_summary_release(&a->acc);
	op_keys_free(a->keys);
	a->keys = NULL;
	attribution_close(a->attr);
	a->attr = NULL;
	free(a->source_root);
	a->source_root = NULL;
	totals_release(&a->totals);
	findings_release(&a->findings);
	checks_release(&a->checks);
	results_release(&a->results);
	cost_release(&a->cost);
	kernel_sites_release(&a->kernel_sites);
	timeline_span_release(&a->span);
	nowait_sites_release(&a->nowait);
	overlap_release(&a->overlap);
	free(a->site_pairs);
	a->site_pairs = NULL;
	a->nsite_pairs = 0;
}

int run_incomplete(const struct run_info *run)
{
	return !run->status || strcmp(run->status, "complete");
}

/* A failure after opening: the database's damage, if that is the cause. */
