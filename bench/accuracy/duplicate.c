/*
 * duplicate.c - naive: a read-only array mapped on every call of a loop, so
 * the device receives the same 32 MiB again and again (duplicate transfer)
 * and allocates and frees it each time (repeated allocation).  Fixed
 * (-DFIXED): one enclosing 'target data' region; the constructs inside
 * find the array present and move nothing.
 */
#include <stdio.h>

#include "common.h"

#define CALLS 20

static double a[N];

int main(void)
{
	double s = 0;

	for (int j = 0; j < N; j++)
		a[j] = j % 7;
#ifdef FIXED
#pragma omp target data map(to: a)
#endif
	for (int k = 0; k < CALLS; k++) {
#pragma omp target map(to: a) map(tofrom: s)
		for (int j = 0; j < N; j += STRIDE)
			s += a[j];
	}
	printf("duplicate: %g\n", s);
	return 0;
}
