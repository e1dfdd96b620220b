/*
 * repeated_alloc.c - the same host array is allocated and freed on the
 * device in every iteration of a loop instead of once around it.
 *
 * tmp is device scratch space (map(alloc:), never transferred); it is
 * mapped by the target region inside the loop, so its device copy is
 * allocated and deleted 5 times at the same host address and size.  Each
 * iteration's result goes to its own element out[it], so out causes no
 * repeated allocation (5 different host addresses) and no equal contents.
 *
 * Data operations (all on device 0; N = 1000, 8-byte elements):
 *   5 times: tmp     alloc 1 (8000 B), delete 1
 *            out[it] alloc 1 (8 B), from_device 1, delete 1
 *            kernel 1
 * Totals: alloc 10, to_device 0, from_device 5, delete 10, kernel 5.
 * Equal hashes: none (out[it] = 499500 * (it + 1)).
 *
 * tests/fixed/repeated_alloc.c: the fix a developer would make for the findings of
 * samples/repeated_alloc.c (marked "The fix"; the comments above are the sample's).
 * tests/e2e/diff_samples.sh diffs the two.
 */
#include <stdio.h>

#define N 1000
#define ITERS 5

int main(void)
{
	static double tmp[N];
	double out[ITERS];
	double total = 0;

	/* The fix: tmp is allocated once, around the loop. */
#pragma omp target data map(alloc: tmp)
	for (int it = 0; it < ITERS; it++) {
#pragma omp target map(alloc: tmp) map(from: out[it:1])
		{
			double s = 0;
			for (int j = 0; j < N; j++)
				tmp[j] = (double)j * (it + 1);
			for (int j = 0; j < N; j++)
				s += tmp[j];
			out[it] = s;
		}
	}

	for (int it = 0; it < ITERS; it++)
		total += out[it];
	printf("repeated_alloc: total=%.0f\n", total);
	return 0;
}
