/*
 * exit_in_data_region.c - the program calls exit(0) inside a target data
 * region, after some transfers: nothing recorded before the exit may be
 * lost, and the region's deletes never happen.
 *
 * Data operations (all on device 0; N = 1024, 4-byte elements, 4096 B):
 *   target data:  a  alloc 1, to_device 1
 *                 b  alloc 1, to_device 1
 *   target:       both present, no data op; kernel 1 (b[i] += a[i])
 *   update from:  b  from_device 1
 *   exit(0) inside the region: no delete, no from_device at region end.
 * Totals: alloc 2, to_device 2, from_device 1, delete 0, kernel 1.
 * Equal hashes: none.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 1024

int main(void)
{
	static int a[N], b[N];
	long s = 0;

	for (int i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 7;
	}

#pragma omp target data map(to: a) map(tofrom: b)
	{
#pragma omp target
		for (int i = 0; i < N; i++)
			b[i] += a[i];
#pragma omp target update from(b)
		for (int i = 0; i < N; i++)
			s += b[i];
		printf("exit_in_data_region: sum=%ld\n", s);
		exit(0);	/* leaves the data region without ending it */
	}
	return 0;
}
