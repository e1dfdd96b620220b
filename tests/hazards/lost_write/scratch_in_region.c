/*
 * scratch_in_region.c - the host uses its copy of a mapped array as scratch
 * inside a 'target data' region, counting on the region's copy back at its
 * end to restore it. 'record --check' reports the restore
 * (lost_host_write): the program relies on it.
 */
#include <stdio.h>
#define N 4096

static double w[N], out[N];

int main(void)
{
	double sum = 0, scratch = 0;

	for (int i = 0; i < N; i++)
		w[i] = 1.0 + i % 3;
#pragma omp target data map(tofrom: w) map(from: out)
	{
#pragma omp target teams distribute parallel for
		for (int i = 0; i < N; i++)
			out[i] = 2 * w[i];
		for (int i = 0; i < N; i++)
			w[i] = i;
		for (int i = 0; i < N; i++)
			scratch += w[i];
	}
	for (int i = 0; i < N; i++)
		sum += w[i] + out[i];
	printf("scratch_in_region: scratch=%.1f sum=%.1f\n", scratch, sum);
	return 0;
}
