/*
 * round_trip_to.c - naive: an array the kernel only reads is mapped
 * 'tofrom', so it comes back unchanged (host->device->host round trip).
 * Fixed (-DFIXED): 'map(to: ...)'.  The natural fix removes the return leg
 * only: the send is still needed, yet the savings model counts both legs
 * of the trip, so this pair measures that known over-estimate.
 */
#include <stdio.h>

#include "common.h"

#define CALLS 20

static double b[N];

int main(void)
{
	double s = 0;

	for (int k = 0; k < CALLS; k++) {
		b[0] = k;   /* new content each call: no duplicate transfer */
#ifdef FIXED
#pragma omp target map(to: b) map(tofrom: s)
#else
#pragma omp target map(tofrom: b) map(tofrom: s)
#endif
		for (int j = 0; j < N; j += STRIDE)
			s += b[j];
	}
	printf("round_trip_to: %g\n", s);
	return 0;
}
