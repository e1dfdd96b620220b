/*
 * monitor.c - a time loop whose host watches the whole field every step
 * (a progress line, an in-situ check, a plot): the device advances the
 * field, the host reads all of it back to look at it.
 *
 * usage: monitor [N] [STEPS]   (default 262144 doubles, 2 MiB, 200 steps)
 *
 * What moves, per step:
 *   naive: the field to the device and back (map(tofrom:) on the step's
 *          kernel), 2 x 2 MiB, and its device copy allocated and freed.
 *   fixed (-DFIXED): the field back only ('target update from' after the
 *          kernel), inside one 'target data map(to:)' region around the
 *          loop: the shape a user's first fix leaves, where the host's
 *          copy only ever receives data.
 *
 * Check: each step relaxes every value towards 2 by a factor R, so after
 * STEPS steps value i is 2 + (x0(i) - 2) R^STEPS; exit 1 if any differs by
 * more than 1e-9, or if the host's view of a step (its sum) is not the
 * closed form's.  Prints a checksum of the final field.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define R 0.99

static double x0(size_t i)
{
	return (double)(i % 1000) / 250.0;
}

int main(int argc, char **argv)
{
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 262144;
	int steps = argc > 2 ? atoi(argv[2]) : 200;
	double *a = malloc(n * sizeof(*a)), base = 0, sum = 0, worst = 0, f = 1;
	int bad_steps = 0;

	if (!a || n < 1 || steps < 0) {
		fprintf(stderr, "monitor: bad size or out of memory\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		a[i] = x0(i);
		base += a[i] - 2;
	}

#ifdef FIXED
#pragma omp target data map(to: a[0:n])
#endif
	for (int t = 0; t < steps; t++) {
#ifdef FIXED
#pragma omp target teams distribute parallel for
#else
#pragma omp target teams distribute parallel for map(tofrom: a[0:n])
#endif
		for (size_t i = 0; i < n; i++)
			a[i] = 2 + (a[i] - 2) * R;
#ifdef FIXED
#pragma omp target update from(a[0:n])
#endif
		/* The host's look at the step: the field's sum against the closed form. */
		double s = 0;
		for (size_t i = 0; i < n; i++)
			s += a[i];
		f *= R;
		if (fabs(s - (2.0 * (double)n + base * f)) > 1e-6 * (double)n)
			bad_steps++;
	}

	f = pow(R, steps);
	for (size_t i = 0; i < n; i++) {
		double e = fabs(a[i] - (2 + (x0(i) - 2) * f));
		sum += a[i];
		if (e > worst)
			worst = e;
	}
	printf("monitor: %zu values, %d steps, checksum=%.9e, max error %.1e\n", n, steps, sum, worst);
	free(a);
	if (!(worst < 1e-9) || bad_steps) {
		fprintf(stderr, "monitor: wrong field (off the closed form by %.1e, %d steps seen wrong)\n", worst,
			bad_steps);
		return 1;
	}
	return 0;
}
