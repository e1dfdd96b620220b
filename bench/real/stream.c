/*
 * stream.c - the STREAM memory-bandwidth kernels (copy, scale, add,
 * triad) in a loop, as a bandwidth test or the vector updates of an
 * explicit solver are written: c = a; b = s c; c = a + b; a = b + s c.
 *
 * usage: stream [ITERATIONS]   (default 300; arrays of 524 288 doubles, 4 MiB each)
 *
 * What moves, per iteration (four kernels):
 *   naive: each kernel maps what it reads to the device and what it writes
 *          back (map(to:) and map(from:) on the kernel): 4 + 4 MiB for copy
 *          and scale, 8 + 4 MiB for add and triad, 40 MiB an iteration (and
 *          a's 4 + 4 MiB for the rescaling kernel every 8 iterations).
 *   fixed (-DFIXED): nothing; one 'target data' region around the loop sends
 *          a, b, c once and brings them back once.
 *
 * Check: every element of a, b and c equals the value the same four
 * operations give on scalars (STREAM's own check); exit 1 if any differs by
 * more than 1e-13 relative.  Prints a checksum.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define N (1 << 19)
#define SCALAR 3.0
#define RESCALE (1.0 / 4294967296.0)

static double a[N], b[N], c[N];

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 300;
	double ea = 1, eb = 2, ec = 0, worst = 0, sum = 0;

	for (int i = 0; i < N; i++) {
		a[i] = 1;
		b[i] = 2;
		c[i] = 0;
	}
#ifdef FIXED
#pragma omp target data map(tofrom: a, b, c)
#endif
	for (int k = 0; k < iters; k++) {
#pragma omp target teams distribute parallel for map(to: a) map(from: c)
		for (int i = 0; i < N; i++)
			c[i] = a[i];
#pragma omp target teams distribute parallel for map(to: c) map(from: b)
		for (int i = 0; i < N; i++)
			b[i] = SCALAR * c[i];
#pragma omp target teams distribute parallel for map(to: a, b) map(from: c)
		for (int i = 0; i < N; i++)
			c[i] = a[i] + b[i];
#pragma omp target teams distribute parallel for map(to: b, c) map(from: a)
		for (int i = 0; i < N; i++)
			a[i] = b[i] + SCALAR * c[i];
		/* Keeps the values in range (a grows 15-fold an iteration): an exact
		 * power of two, on every element and on the expected value alike. */
		if (k % 8 == 7) {
#pragma omp target teams distribute parallel for map(tofrom: a)
			for (int i = 0; i < N; i++)
				a[i] *= RESCALE;
		}
		ec = ea;
		eb = SCALAR * ec;
		ec = ea + eb;
		ea = eb + SCALAR * ec;
		if (k % 8 == 7)
			ea *= RESCALE;
	}
	for (int i = 0; i < N; i++) {
		double e = fmax(fmax(fabs(a[i] - ea) / fabs(ea), fabs(b[i] - eb) / fabs(eb)),
				fabs(c[i] - ec) / fabs(ec));
		if (e > worst)
			worst = e;
		sum += a[i] + b[i] + c[i];
	}
	printf("stream: %d iterations of %d doubles, checksum=%.9e, max relative error %.1e\n",
		iters, N, sum / N, worst);
	if (!(worst <= 1e-13)) {
		fprintf(stderr, "stream: wrong values (off STREAM's expected ones by %.1e)\n", worst);
		return 1;
	}
	return 0;
}
