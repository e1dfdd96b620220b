/*
 * data_region_in_loop.c - a 'target data' region around a call, inside a
 * loop, as a blocked solver maps its matrix for each block step: the
 * kernels are in the callee; the fixed variant (-DFIXED) maps once around
 * the loop instead, the '#ifdef'/'#endif' right above the loop.  A plan's
 * region goes above the loop (past the '#endif'), and the copy back it keeps
 * goes after the region's statement, not between the directive and it.
 */
#include <stdio.h>

#define N 65536

static double a[N];

static void step(double *v, int n, int k)
{
#pragma omp target teams distribute parallel for
	for (int i = 0; i < n; i++)
		v[i] = v[i] * 0.5 + k;
}

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++)
		a[i] = i;
#ifdef FIXED
#pragma omp target data map(tofrom: a[0:N])
#endif
	for (int k = 0; k < 8; k++) {
#ifndef FIXED
#pragma omp target data map(tofrom: a[0:N])
#endif
		step(a, N, k);
	}
	for (int i = 0; i < N; i++)
		sum += a[i];
	printf("%.3f\n", sum);
	return 0;
}
