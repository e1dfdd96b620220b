/*
 * hash_reuse_cost.c - the shape of bench/real/cg.c's naive port, small: a
 * matrix sent unchanged before every kernel (its hash worth reusing), and
 * two vectors that go to the device and back between their sends (each
 * round trip two protection changes and a scan to save one hash of 64
 * KiB: never worth it).  tests/e2e/hash_reuse_cost.sh.
 */
#include <stdio.h>
#include <stdlib.h>

#define M (1024 * 1024 / 8)  /* the matrix: 1 MiB */
#define V (64 * 1024 / 8)    /* the vectors: 64 KiB, write tracking's smallest range */
#define ITERS 400

static double mat[M], x[V], y[V];

int main(void)
{
	double s = 0;

	for (long i = 0; i < M; i++)
		mat[i] = (double)(i % 97) / 97;
	for (long i = 0; i < V; i++)
		x[i] = 1;
	for (int it = 0; it < ITERS; it++) {
#pragma omp target teams distribute parallel for map(to: mat, x) map(from: y)
		for (long i = 0; i < V; i++)
			y[i] = mat[i] * x[i] + mat[i + V] * x[(i + 1) % V];
#pragma omp target teams distribute parallel for map(to: y) map(tofrom: x)
		for (long i = 0; i < V; i++)
			x[i] = 0.5 * (x[i] + y[i]);
	}
	for (long i = 0; i < V; i++)
		s += x[i];
	printf("%.9e\n", s);
	return 0;
}
