/*
 * round_trip.c - naive: an array updated on the device in a loop with no
 * data region around it, so what comes back at the end of call k is sent,
 * unchanged, at the start of call k+1 (device->host->device round trip), and
 * the array is allocated and freed on every call (repeated allocation).
 * Fixed (-DFIXED): one enclosing 'target data' region; both legs of each
 * trip and the allocations go away, the first send and last return stay.
 */
#include <stdio.h>

#include "common.h"

#define CALLS 20

static double a[N];

int main(void)
{
#ifdef FIXED
#pragma omp target data map(tofrom: a)
#endif
	for (int k = 0; k < CALLS; k++) {
#pragma omp target map(tofrom: a)
		for (int j = 0; j < N; j += STRIDE)
			a[j] += 1;
	}
	printf("round_trip: %g\n", a[0]);
	return 0;
}
