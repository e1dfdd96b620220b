/*
 * detect_duplicate.h - the detector of duplicate transfers: its state, and
 * the steps report/detect/detect.c drives it through (what it flags, why that costs
 * time, and its known false positives: detect_duplicate.c).
 */
#ifndef MAPPROF_REPORT_DETECT_DUPLICATE_H
#define MAPPROF_REPORT_DETECT_DUPLICATE_H

#include "lib/hmap.h"
#include "lib/spillmap.h"
#include "report/detect/detect_common.h"

struct dup_detector {
	struct spillmap seen;  /* (hash, bytes, dest) -> first receipt: every content
				  the run sent, the least recent in a file */
	struct hmap sources;   /* (hash, bytes, dest, host addr): contents with
				  several senders only */
};
void dup_init(struct dup_detector *d);
int dup_feed(struct dup_detector *d, struct detect_ctx *ctx, const struct event *ev);
/* A hint: 'ev' will be fed soon (spillmap_prefetch()). */
void dup_prefetch(const struct dup_detector *d, const struct event *ev);
void dup_release(struct dup_detector *d);

#endif
