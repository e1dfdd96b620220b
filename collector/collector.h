/*
 * collector.h - what collector.c (the OMPT tool) offers the other interface
 * at its level: openacc.c, the OpenACC Profiling Interface, which records
 * into the same buffers and spool with the same sequence numbers.
 */
#ifndef MAPPROF_COLLECTOR_COLLECTOR_H
#define MAPPROF_COLLECTOR_COLLECTOR_H

#include <stdint.h>

#include "collector/state.h"

/*
 * Start recording for a runtime that does not start OMPT tools (GCC's
 * libgomp runs OpenACC): claim the spool, write the run's frames ('runtime'
 * as its runtime string) and start the buffers, as ompt_start_tool and
 * tool_initialize do.  0, or -1 when this process does not record (a tool
 * started already, a rank left out, no spool).
 */
int collector_start_other(const char *runtime) COLLECTOR_HIDDEN;

/* The next event sequence number and target construct id, shared with the OMPT callbacks. */
uint64_t collector_next_seq(void) COLLECTOR_HIDDEN;
uint64_t collector_next_target_id(void) COLLECTOR_HIDDEN;

#endif
