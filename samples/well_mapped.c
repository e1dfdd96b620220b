/*
 * well_mapped.c - a program that maps its data well: no findings expected.
 *
 * One target data region around a loop of 4 kernels: a goes to the device
 * once, b comes back once, and each is allocated and freed once.  The
 * kernels find both present, so they move no data.
 *
 * Data operations (all on device 0; N = 4096, 8-byte elements, 32768 B):
 *   a  alloc 1, to_device 1, delete 1
 *   b  alloc 1, from_device 1, delete 1
 *   kernels 4
 * Totals: alloc 2, to_device 1, from_device 1, delete 2, kernel 4.
 * Equal hashes: none.
 */
#include <stdio.h>

#define N 4096
#define STEPS 4

int main(void)
{
	static double a[N], b[N];
	double s = 0;

	for (int i = 0; i < N; i++)
		a[i] = 0.5 * i;

#pragma omp target data map(to: a) map(from: b)
	for (int k = 0; k < STEPS; k++) {
#pragma omp target parallel for
		for (int i = 0; i < N; i++)
			b[i] = (k == 0 ? 0.0 : b[i]) + a[i] * (k + 1);
	}

	for (int i = 0; i < N; i++)
		s += b[i];
	printf("well_mapped: sum=%.1f\n", s);
	return 0;
}
