/*
 * round_trip_to.c - naive: an array the kernel only reads is mapped
 * 'tofrom', so it comes back unchanged (host->device->host round trip).
 * Fixed (-DFIXED): 'map(to: ...)'.  The natural fix removes the return leg
 * only (the send is still needed), and the model prices only that leg.
 *
 * The array is written in full before the loop: left untouched, the fixed
 * program's sends read the kernel's shared zero page (b is never written
 * there), while the naive one's returns make b real memory first, so its
 * sends are slower; on a quiet 16-core host a copy loop shaped like this
 * pair sent 20 x 32 MiB in 358 ms from an untouched array and in 399-400 ms
 * from a written one.  That difference, no finding's, made the fix measure
 * 178 ms for a 109 ms return leg (39 % error).
 */
#include <stdio.h>

#include "common.h"

#define CALLS 20

static double b[N];

int main(void)
{
	double s = 0;

	for (int j = 0; j < N; j++)
		b[j] = j % 7;
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
