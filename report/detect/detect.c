/*
 * detect.c - runs the five detectors side by side over one event stream.
 *
 * The driver checks the stream order, keeps the per-device kernel counts the
 * "unused" detectors share, and hands every event to each enabled detector.
 */
#include <stdlib.h>
#include <string.h>

#include "report/detect/detect.h"
#include "report/detect/detect_alloc.h"
#include "report/detect/detect_duplicate.h"
#include "report/detect/detect_round_trip.h"
#include "report/detect/detect_unused_transfer.h"

struct detect {
	struct detect_config cfg;
	struct detect_ctx ctx;
	int started;
	int64_t last_begin_ns, last_seq;
	struct dup_detector dup;
	struct rt_detector rt;
	struct alloc_detector alloc;
	struct ut_detector ut;
};

static int enabled(const struct detect *d, enum finding_kind kind)
{
	return !d->cfg.kinds || (d->cfg.kinds & (1u << kind));
}

struct detect *detect_new(const struct detect_config *cfg, occurrence_fn fn, void *arg)
{
	struct detect *d = calloc(1, sizeof(*d));
	unsigned alloc_kinds;

	if (!d)
		return NULL;
	d->cfg = *cfg;
	d->ctx.cfg = &d->cfg;
	d->ctx.fn = fn;
	d->ctx.arg = arg;
	dup_init(&d->dup);
	rt_init(&d->rt);
	alloc_kinds = (enabled(d, FINDING_REPEATED_ALLOC) ? 1u << FINDING_REPEATED_ALLOC : 0) |
		      (enabled(d, FINDING_UNUSED_ALLOC) ? 1u << FINDING_UNUSED_ALLOC : 0);
	alloc_init(&d->alloc, alloc_kinds);
	ut_init(&d->ut);
	return d;
}

void detect_prefetch(const struct detect *d, const struct event *ev)
{
	if (enabled(d, FINDING_DUPLICATE_TRANSFER))
		dup_prefetch(&d->dup, ev);
}

int detect_feed(struct detect *d, const struct event *ev, const char **why)
{
	struct detect_ctx *ctx = &d->ctx;
	int rc = 0;

	if (d->started && (ev->begin_ns < d->last_begin_ns ||
			   (ev->begin_ns == d->last_begin_ns && ev->seq <= d->last_seq))) {
		*why = "events out of order (want ORDER BY begin_ns, seq)";
		return -1;
	}
	d->started = 1;
	d->last_begin_ns = ev->begin_ns;
	d->last_seq = ev->seq;

	if (d->alloc.kinds && alloc_advance(&d->alloc, ctx, ev) < 0)
		goto fail;
	if (ev->kind == EV_KERNEL) {
		struct dev_stat *s = ctx_device(ctx, ev->dest_device);
		if (!s) {
			ctx_oom(ctx);
			goto fail;
		}
		s->kernels++;
		if (ev->end_ns > s->max_end_ns)
			s->max_end_ns = ev->end_ns;
		return 0;
	}
	if (enabled(d, FINDING_DUPLICATE_TRANSFER))
		rc |= dup_feed(&d->dup, ctx, ev);
	if (!rc && enabled(d, FINDING_ROUND_TRIP))
		rc |= rt_feed(&d->rt, ctx, ev);
	if (!rc && d->alloc.kinds)
		rc |= alloc_feed(&d->alloc, ctx, ev);
	if (!rc && enabled(d, FINDING_UNUSED_TRANSFER))
		rc |= ut_feed(&d->ut, ctx, ev);
	if (!rc)
		return 0;
fail:
	*why = ctx->why ? ctx->why : "detector failed";
	return -1;
}

int detect_finish(struct detect *d, const char **why)
{
	if ((d->alloc.kinds && alloc_finish(&d->alloc, &d->ctx) < 0) ||
	    (enabled(d, FINDING_UNUSED_TRANSFER) && ut_finish(&d->ut, &d->ctx) < 0)) {
		*why = d->ctx.why ? d->ctx.why : "detector failed";
		return -1;
	}
	return 0;
}

void detect_free(struct detect *d)
{
	if (!d)
		return;
	dup_release(&d->dup);
	rt_release(&d->rt);
	alloc_release(&d->alloc);
	ut_release(&d->ut);
	free(d->ctx.devs);
	free(d);
}

int detect_events(const struct detect_config *cfg, const struct event *ev, size_t n,
		  occurrence_fn fn, void *arg, const char **why)
{
	struct detect *d = detect_new(cfg, fn, arg);
	int rc = 0;

	if (!d) {
		*why = "out of memory";
		return -1;
	}
	for (size_t i = 0; i < n && !rc; i++)
		rc = detect_feed(d, &ev[i], why);
	if (!rc)
		rc = detect_finish(d, why);
	detect_free(d);
	return rc;
}
