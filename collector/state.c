/*
 * state.c - the run's clock (see state.h): its origin and which clock events
 * read.  Defined here, below every other file, so that reading the clock
 * ties no file to the callbacks' file above them.
 */
#include <stdlib.h>
#include <string.h>

#include "collector/state.h"
#include "db/spool.h"

int64_t collector_start_ns;
int collector_tsc;

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
}
