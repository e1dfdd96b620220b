/*
 * hash_reuse_round_trip.c - the published tool's "torture" shape for write
 * tracking (tests/e2e/hash_reuse_round_trip.sh): a 4 MiB array mapped
 * tofrom around each step, sent again by 'target update to' inside, changed
 * by a kernel and brought back at the region's end.  Each step sends it
 * twice and copies it back once.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define N ((long)4 << 20)
#define STEPS 150

int main(void)
{
	int8_t *a = calloc(N, 1);
	long sum = 0;

	if (!a)
		return 1;
	for (int step = 0; step < STEPS; step++) {
#pragma omp target data map(tofrom : a[0:N])
		{
#pragma omp target update to(a[0:N])
#pragma omp target teams distribute parallel for
			for (long i = 0; i < N; i++)
				a[i] = (int8_t)(a[i] + 1);
		}
	}
	for (long i = 0; i < N; i += 4096)
		sum += a[i];
	printf("%ld\n", sum);
	free(a);
	return 0;
}
