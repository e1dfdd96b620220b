/*
 * stencil.c - an explicit 2-D heat-diffusion solver, the inner loop of
 * many simulation codes (heat transfer, image smoothing, the Jacobi sweeps
 * of a multigrid smoother): a 5-point stencil on a periodic grid, one sweep
 * per time step from one array into another, the arrays swapped after each.
 *
 * usage: stencil [SIDE] [STEPS]   (default 720 x 720 doubles, 4 MiB an array, 300 steps)
 *
 * What moves, per time step:
 *   naive: the old grid to the device and the new grid back (map(to:) and
 *          map(from:) on the sweep's kernel), 2 x 4 MiB, and both allocated
 *          and freed on the device again.
 *   fixed (-DFIXED): nothing; one 'target data' region around the time loop
 *          sends the grids once and brings them back once.
 *
 * Check: the initial field is a sum of two Fourier modes, and each mode of
 * the discrete operator decays by an exact factor per step, so the field
 * after STEPS steps is known in closed form; exit 1 if any point differs
 * from it by more than 1e-9.  Prints a checksum of the final field.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define ALPHA 0.2   /* diffusion number: stable below 0.25 */

static double mode(int side, int kx, int ky, int x, int y)
{
	return cos(2 * M_PI * kx * x / side) * cos(2 * M_PI * ky * y / side);
}

/* The factor one step multiplies mode (kx, ky) by. */
static double decay(int side, int kx, int ky)
{
	double sx = sin(M_PI * kx / side), sy = sin(M_PI * ky / side);
	return 1 - 4 * ALPHA * (sx * sx + sy * sy);
}

int main(int argc, char **argv)
{
	int side = argc > 1 ? atoi(argv[1]) : 720;
	int steps = argc > 2 ? atoi(argv[2]) : 300;
	size_t n = (size_t)side * side;
	double *u = malloc(n * sizeof(*u)), *v = malloc(n * sizeof(*v));
	double *first = u, *second = v, sum = 0, worst = 0, f1, f2;

	if (!u || !v || side < 3 || steps < 0) {
		fprintf(stderr, "stencil: bad size or out of memory\n");
		return 2;
	}
	for (int y = 0; y < side; y++)
		for (int x = 0; x < side; x++)
			u[(size_t)y * side + x] = mode(side, 1, 2, x, y) + 0.5 * mode(side, 7, 3, x, y);

#ifdef FIXED
#pragma omp target data map(tofrom: first[0:n], second[0:n])
#endif
	for (int t = 0; t < steps; t++) {
#pragma omp target teams distribute parallel for map(to: u[0:n]) map(from: v[0:n])
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
		double *w = u;
		u = v;
		v = w;
	}

	f1 = pow(decay(side, 1, 2), steps);
	f2 = 0.5 * pow(decay(side, 7, 3), steps);
	for (int y = 0; y < side; y++)
		for (int x = 0; x < side; x++) {
			double got = u[(size_t)y * side + x];
			double e = fabs(got - f1 * mode(side, 1, 2, x, y) - f2 * mode(side, 7, 3, x, y));
			sum += got;
			if (e > worst)
				worst = e;
		}
	printf("stencil: %dx%d, %d steps, checksum=%.9e, max error %.1e\n", side, side, steps,
		sum, worst);
	free(first);
	free(second);
	if (!(worst < 1e-9)) {
		fprintf(stderr, "stencil: wrong field (off the closed form by %.1e)\n", worst);
		return 1;
	}
	return 0;
}
