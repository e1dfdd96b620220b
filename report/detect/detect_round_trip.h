/*
 * detect_round_trip.h - the detector of round trips: its state, and the
 * steps report/detect/detect.c drives it through (what it flags, why that costs
 * time, and its known false positives: detect_round_trip.c).
 */
#ifndef MAPPROF_REPORT_DETECT_ROUND_TRIP_H
#define MAPPROF_REPORT_DETECT_ROUND_TRIP_H

#include "lib/hmap.h"
#include "report/detect/detect_common.h"

struct rt_detector {
	struct hmap last;      /* (buffer device, buffer addr, source device, bytes)
				  -> latest transfer into that buffer from there */
};
void rt_init(struct rt_detector *d);
int rt_feed(struct rt_detector *d, struct detect_ctx *ctx, const struct event *ev);
void rt_release(struct rt_detector *d);

#endif
