/*
 * repeated_alloc.c - naive: a device scratch buffer ('map(alloc: ...)') is
 * allocated and freed on every call of a loop (repeated allocation).
 * Fixed (-DFIXED): allocated once by an enclosing 'target data' region.
 */
#include <stdio.h>
#include <stdlib.h>

#include "common.h"

#define CALLS 400

int main(void)
{
	double *t = malloc(N * sizeof(*t)), s = 0;

	if (!t)
		return 1;
#ifdef FIXED
#pragma omp target data map(alloc: t[0:N])
#endif
	for (int k = 0; k < CALLS; k++) {
#pragma omp target map(alloc: t[0:N]) map(tofrom: s)
		for (int j = 0; j < N; j += 64 * STRIDE) {
			t[j] = j + k;
			s += t[j];
		}
	}
	printf("repeated_alloc: %g\n", s);
	free(t);
	return 0;
}
