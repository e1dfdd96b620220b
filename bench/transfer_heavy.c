/*
 * transfer_heavy.c - many large to/from maps in a loop: the worst case for a
 * collector that hashes every transferred byte.
 *
 * usage: transfer_heavy [ITERATIONS] [MIB]   (default 200 iterations of 8 MiB each way)
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 200;
	size_t n = (argc > 2 ? (size_t)atoi(argv[2]) : 8) * 1024 * 1024 / sizeof(double);
	double *a = malloc(n * sizeof(*a)), *b = malloc(n * sizeof(*b));
	double check = 0;

	for (size_t i = 0; i < n; i++)
		a[i] = (double)i;
	for (int it = 0; it < iters; it++) {
		a[it % n] += 1;  /* new content every iteration: no duplicates to skip */
#pragma omp target map(to: a[0:n]) map(from: b[0:n])
		for (size_t i = 0; i < n; i += 4096)
			b[i] = a[i] * 2;
		check += b[0];
	}
	printf("%g\n", check);
	free(a);
	free(b);
	return 0;
}
