/*
 * lu.c - blocked LU decomposition, as in a dense linear solver (the
 * factorisation step of LINPACK/HPL or of a direct solver in a circuit or
 * structural code), without pivoting on a diagonally dominant matrix.
 *
 * usage: lu [N] [NB]   (default 2048 x 2048 doubles, 32 MiB, blocks of 64)
 *
 * Each block step k factors the diagonal block (one device thread), solves
 * the column panel below it and the row panel to its right (a kernel each),
 * and updates the trailing matrix (most of the flops), four kernels a step.
 *
 * What moves, per block step (N / NB = 32 steps):
 *   naive: the whole matrix, to the device and back (map(tofrom:) inside the
 *          step loop): 2 x 32 MiB a step, though the factored rows above
 *          the block and columns left of it no longer change.
 *   fixed (-DFIXED): nothing; one 'target data' region around the loop sends
 *          the matrix once and brings it back once.
 *
 * Check: entries of L*U (at 256 spread positions) against the original
 * matrix, which is a formula of (i, j); exit 1 if any differs by more than
 * 1e-9 relative.  Prints a checksum of the factors.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static double orig(int n, int i, int j)
{
	unsigned h = (unsigned)i * 2654435761u ^ (unsigned)j * 40503u;
	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return (h & 0xffff) / 65536.0 + (i == j ? n : 0);
}

/* One block step of the right-looking factorisation of a[n*n] (row-major). */
static void step(double *a, int n, int k0, int k1)
{
	/* The diagonal block, unblocked (nb^3/3 flops: one device thread). */
#pragma omp target
	for (int j = k0; j < k1; j++)
		for (int i = j + 1; i < k1; i++) {
			double l = a[(size_t)i * n + j] /= a[(size_t)j * n + j];
			for (int c = j + 1; c < k1; c++)
				a[(size_t)i * n + c] -= l * a[(size_t)j * n + c];
		}
	/* Column panel: L21 = A21 U11^-1, one row each. */
#pragma omp target teams distribute parallel for
	for (int i = k1; i < n; i++)
		for (int j = k0; j < k1; j++) {
			double s = a[(size_t)i * n + j];
			for (int p = k0; p < j; p++)
				s -= a[(size_t)i * n + p] * a[(size_t)p * n + j];
			a[(size_t)i * n + j] = s / a[(size_t)j * n + j];
		}
	/* Row panel: U12 = L11^-1 A12, one column each. */
#pragma omp target teams distribute parallel for
	for (int c = k1; c < n; c++)
		for (int i = k0 + 1; i < k1; i++) {
			double s = a[(size_t)i * n + c];
			for (int p = k0; p < i; p++)
				s -= a[(size_t)i * n + p] * a[(size_t)p * n + c];
			a[(size_t)i * n + c] = s;
		}
	/* Trailing update: A22 -= L21 U12, one row each. */
#pragma omp target teams distribute parallel for
	for (int i = k1; i < n; i++)
		for (int p = k0; p < k1; p++) {
			double l = a[(size_t)i * n + p];
			for (int c = k1; c < n; c++)
				a[(size_t)i * n + c] -= l * a[(size_t)p * n + c];
		}
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2048;
	int nb = argc > 2 ? atoi(argv[2]) : 64;
	size_t nn = (size_t)n * n;
	double *a = malloc(nn * sizeof(*a)), sum = 0, worst = 0;

	if (!a || n < 1 || nb < 1) {
		fprintf(stderr, "lu: bad size or out of memory\n");
		return 2;
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < n; j++)
			a[(size_t)i * n + j] = orig(n, i, j);

#ifdef FIXED
#pragma omp target data map(tofrom: a[0:nn])
#endif
	for (int k0 = 0; k0 < n; k0 += nb) {
		int k1 = k0 + nb < n ? k0 + nb : n;
#ifndef FIXED
#pragma omp target data map(tofrom: a[0:nn])
#endif
		step(a, n, k0, k1);
	}

	for (size_t i = 0; i < nn; i++)
		sum += a[i];
	for (int s = 0; s < 256; s++) {
		int i = (int)((s * 7919u) % (unsigned)n), j = (int)((s * 104729u + 13) % (unsigned)n);
		int m = i < j ? i : j;
		double v = i <= j ? a[(size_t)i * n + j] : 0;   /* L's unit diagonal times U(i,j) */
		for (int p = 0; p < m; p++)
			v += a[(size_t)i * n + p] * a[(size_t)p * n + j];
		if (i > j)
			v += a[(size_t)i * n + j] * a[(size_t)j * n + j];
		double e = fabs(v - orig(n, i, j)) / fabs(orig(n, i, j) + 1);
		if (e > worst)
			worst = e;
	}
	printf("lu: n=%d nb=%d checksum=%.6e max relative error %.1e\n", n, nb, sum, worst);
	free(a);
	if (!(worst < 1e-9)) {
		fprintf(stderr, "lu: wrong factors (L*U differs from A by %.1e)\n", worst);
		return 1;
	}
	return 0;
}
