/*
 * state.c - the run's clock (see state.h): its origin and which clock events
 * read.  Defined here, below every other file, so that reading the clock
 * ties no file to the callbacks' file above them.
 */
#include <stdlib.h>
#include <string.h>

#include "collector/state.h"
#include "db/spool/spool.h"

int64_t collector_start_ns;
int collector_tsc;
_Atomic int64_t collector_own_ticks;
static int64_t start_ticks;   /* event_time() at the start */

/*
 * The timestamp counter for event times?  'mapprof record' says so in
 * MAPPROF_CLOCK ("tsc" or "monotonic"); loaded by hand, ask the kernel.
 */
static int use_tsc(void)
{
#if defined(__x86_64__)
	const char *v = getenv("MAPPROF_CLOCK");
	if (v && *v)
		return !strcmp(v, "tsc");
	return spool_tsc_usable();
#else
	return 0;
#endif
}

void state_clock_start(void)
{
	collector_start_ns = now_ns();
	collector_tsc = use_tsc();
	start_ticks = event_time();
}

int64_t state_ticks_ns(int64_t ticks)
{
	int64_t dt = event_time() - start_ticks, dns = now_ns() - collector_start_ns;

	if (!collector_tsc)
		return ticks;
	return dt > 0 && dns > 0 ? (int64_t)((double)ticks * (double)dns / (double)dt) : 0;
}
