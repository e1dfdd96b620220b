/*
 * detect_unused_transfer.h - the detector of unused transfers: its state,
 * and the steps report/detect/detect.c drives it through (what it flags, why that
 * costs time, and its known false positives: detect_unused_transfer.c).
 */
#ifndef MAPPROF_REPORT_DETECT_UNUSED_TRANSFER_H
#define MAPPROF_REPORT_DETECT_UNUSED_TRANSFER_H

#include "lib/hmap.h"
#include "report/detect/detect_common.h"

struct ut_detector {
	struct hmap latest;    /* (device, dest addr, bytes) -> latest transfer there */
};
void ut_init(struct ut_detector *d);
int ut_feed(struct ut_detector *d, struct detect_ctx *ctx, const struct event *ev);
int ut_finish(struct ut_detector *d, struct detect_ctx *ctx);
void ut_release(struct ut_detector *d);

#endif
