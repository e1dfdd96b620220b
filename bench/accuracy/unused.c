/*
 * unused.c - naive: a scratch buffer mapped with 'target enter data' and
 * released before any kernel ran (unused allocation, and repeated), then an
 * array sent again with 'target update to' after the device's last kernel
 * (unused transfers: each overwritten by the next, the last never read).
 * Fixed (-DFIXED): neither the scratch mapping nor the updates.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define SCRATCH 400
#define UPDATES 20

static double x[N];

int main(void)
{
	double *scratch = malloc(N * sizeof(*scratch)), s = 0;

	if (!scratch)
		return 1;
	for (int r = 0; r < SCRATCH; r++) {
#ifndef FIXED
#pragma omp target enter data map(alloc: scratch[0:N])
#pragma omp target exit data map(delete: scratch[0:N])
#endif
		scratch[r] = r;
	}
#pragma omp target enter data map(to: x)
#pragma omp target map(tofrom: s)
	for (int j = 0; j < N; j += STRIDE)
		s += x[j];
	for (int r = 0; r < UPDATES; r++) {
		x[0] = r;
#ifndef FIXED
#pragma omp target update to(x)
#endif
	}
#pragma omp target exit data map(delete: x)
	printf("unused: %g %g\n", s, scratch[1]);
	free(scratch);
	return 0;
}
