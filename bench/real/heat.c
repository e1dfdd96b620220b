/*
 * heat.c - a heat solver that watches its own convergence: a 5-point
 * stencil on a periodic grid, the largest change of a step (a max
 * reduction) read back every step, and the field brought back every step
 * for the host's output, as many solvers do for a live plot or a restart
 * file.
 *
 * usage: heat [SIDE] [STEPS]   (default 512 x 512 doubles, 2 MiB an array, 200 steps)
 *
 * What moves, per step:
 *   naive: both grids to the device and back (map(tofrom:) on the sweep,
 *          map(tofrom:) of the change on its reduction), 4 x 2 MiB, and
 *          both allocated and freed on the device again.
 *   fixed (-DFIXED): one 'target data' region around the time loop holds
 *          the grids; each step the change (8 bytes) and the new field
 *          (2 MiB, 'target update from') come back: the shape of a solver
 *          after its first fix, whose host copies only ever receive data.
 *
 * Check: the initial field is one Fourier mode, which decays by an exact
 * factor per step; exit 1 if the field after STEPS steps is off the
 * closed form by more than 1e-9, or a step's change is not the closed
 * form's.  Prints a checksum of the final field.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ALPHA 0.2

static double mode(int side, int x, int y)
{
	return sin(2 * M_PI * x / side) * sin(2 * M_PI * 3 * y / side);
}

int main(int argc, char **argv)
{
	int side = argc > 1 ? atoi(argv[1]) : 512;
	int steps = argc > 2 ? atoi(argv[2]) : 200;
	size_t n = (size_t)side * side;
	double *u = malloc(n * sizeof(*u)), *v = malloc(n * sizeof(*v));
	double sum = 0, worst = 0, f = 1, amp = 0, sx, sy, g;
	int bad_steps = 0;

	if (!u || !v || side < 3 || steps < 0) {
		fprintf(stderr, "heat: bad size or out of memory\n");
		return 2;
	}
	sx = sin(M_PI / side);
	sy = sin(M_PI * 3 / side);
	g = 1 - 4 * ALPHA * (sx * sx + sy * sy);
	for (int y = 0; y < side; y++)
		for (int x = 0; x < side; x++) {
			u[(size_t)y * side + x] = mode(side, x, y);
			if (fabs(mode(side, x, y)) > amp)
				amp = fabs(mode(side, x, y));
		}

#ifdef FIXED
#pragma omp target data map(to: u[0:n]) map(alloc: v[0:n])
#endif
	for (int t = 0; t < steps; t++) {
		double change = 0;
#ifdef FIXED
#pragma omp target teams distribute parallel for
#else
#pragma omp target teams distribute parallel for map(tofrom: u[0:n], v[0:n])
#endif
		for (int y = 0; y < side; y++) {
			int up = (y + side - 1) % side, down = (y + 1) % side;
			for (int x = 0; x < side; x++) {
				int left = (x + side - 1) % side, right = (x + 1) % side;
				double c = u[(size_t)y * side + x];
				v[(size_t)y * side + x] = c + ALPHA * (u[(size_t)up * side + x] +
					u[(size_t)down * side + x] + u[(size_t)y * side + left] +
					u[(size_t)y * side + right] - 4 * c);
			}
		}
		/* The step's largest change, and the new field into u. */
#ifdef FIXED
#pragma omp target teams distribute parallel for reduction(max: change) map(tofrom: change)
#else
#pragma omp target teams distribute parallel for reduction(max: change) map(tofrom: u[0:n], v[0:n], change)
#endif
		for (size_t i = 0; i < n; i++) {
			double d = fabs(v[i] - u[i]);
			if (d > change)
				change = d;
			u[i] = v[i];
		}
#ifdef FIXED
#pragma omp target update from(u[0:n])
#endif
		/* The change is the mode's amplitude times (1 - g) before this step's decay. */
		if (fabs(change - amp * f * (1 - g)) > 1e-9)
			bad_steps++;
		f *= g;
	}

	for (int y = 0; y < side; y++)
		for (int x = 0; x < side; x++) {
			double got = u[(size_t)y * side + x];
			double e = fabs(got - f * mode(side, x, y));
			sum += got;
			if (e > worst)
				worst = e;
		}
	printf("heat: %dx%d, %d steps, checksum=%.9e, max error %.1e\n", side, side, steps, sum, worst);
	free(u);
	free(v);
	if (!(worst < 1e-9) || bad_steps) {
		fprintf(stderr, "heat: wrong field (off the closed form by %.1e, %d steps' change wrong)\n", worst,
			bad_steps);
		return 1;
	}
	return 0;
}
