/*
 * tealeaf.c - a heat-conduction mini-app shaped like TeaLeaf: two materials
 * of different density on a 2-D grid with a halo, the conduction
 * coefficients on cell faces recomputed from the density each time step,
 * and each implicit step solved by conjugate gradients, kernel by kernel
 * (init, w = A p, u and r updated, p updated), the host deciding after
 * each iteration from the residual.
 *
 * usage: tealeaf [SIDE] [STEPS]   (default 256 x 256 cells, 0.5 MiB an array, 8 steps)
 *
 * The arrays (with the halo): the density, u (temperature), u0 (the step's
 * right-hand side), the face coefficients kx and ky, and the CG vectors r,
 * p and w: eight arrays.
 *
 * What moves, per CG iteration (three kernels):
 *   naive: every array a kernel touches goes to the device and comes back
 *          (map(tofrom:) on every kernel, as a first port that maps
 *          everything both ways does): 10 array copies each way an
 *          iteration, the unchanged coefficients included (about 10 MiB).
 *   fixed (-DFIXED): one 'target data' region around the time loop holds
 *          every array on the device; per iteration only the reductions
 *          (8 bytes each) come back, and u once at the end.
 *
 * Check: each solve must converge (relative residual under 1e-10), and the
 * total heat, which the insulated edges (zero coefficients on the outer
 * faces) conserve, must stay within 1e-8 relative of its start; exit 1
 * otherwise.  Prints a checksum of u.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define RX 4.0      /* dt / dx^2 */
#define TOL 1e-10
#define MAXIT 1000

#ifdef FIXED
#define TOFROM(...)
#else
#define TOFROM(...) map(tofrom: __VA_ARGS__)
#endif

static int nx, ny, w;  /* interior cells per row and column; a row with its halo */
static size_t n;       /* cells with the halo */
static double *density, *u, *u0, *kx, *ky, *r, *p, *wv;

/* (A v)[c]: v less the net conduction out of cell c. */
#pragma omp declare target
static inline double apply(const double *v, const double *cx, const double *cy, size_t c, int row)
{
	return (1 + cx[c] + cx[c + 1] + cy[c] + cy[c + row]) * v[c] - cx[c] * v[c - 1] -
	       cx[c + 1] * v[c + 1] - cy[c] * v[c - row] - cy[c + row] * v[c + row];
}
#pragma omp end declare target

/* Two materials: a dense disc in a light plate; heat starts in a square. */
static void set_field(void)
{
	for (int j = 0; j < ny + 2; j++)
		for (int i = 0; i < w; i++) {
			size_t c = (size_t)j * w + i;
			double dx = i - 0.6 * nx, dy = j - 0.4 * ny;
			int inside = i >= 1 && i <= nx && j >= 1 && j <= ny;
			density[c] = dx * dx + dy * dy < 0.05 * nx * ny ? 10.0 : 1.0;
			u[c] = inside ? (abs(i - nx / 4) < nx / 8 && abs(j - ny / 3) < ny / 8 ? 25.0 : 0.1) *
						density[c]
				      : 0;
			u0[c] = r[c] = p[c] = wv[c] = kx[c] = ky[c] = 0;
		}
}

static double total(void)
{
	double s = 0;
	for (int j = 1; j <= ny; j++)
		for (int i = 1; i <= nx; i++)
			s += u[(size_t)j * w + i];
	return s;
}

/* One implicit step: u0 = u, coefficients from the density, then CG on A u = u0. */
static int step(double *res)
{
	double *d = density, *U = u, *U0 = u0, *KX = kx, *KY = ky, *R = r, *P = p, *W = wv;
	double rro = 0, bb = 0, pw, rrn, alpha, beta;
	size_t nn = n;
	int X = nx, Y = ny, row = w, it;

	/* Coefficients on the faces (zero on the outer ones: insulated), and the right-hand side. */
#pragma omp target teams distribute parallel for collapse(2) TOFROM(d[0:nn], U[0:nn], U0[0:nn], KX[0:nn], KY[0:nn])
	for (int j = 1; j <= Y + 1; j++)
		for (int i = 1; i <= X + 1; i++) {
			size_t c = (size_t)j * row + i;
			KX[c] = i > 1 && i <= X && j <= Y
					? RX * (d[c - 1] + d[c]) / (2 * d[c - 1] * d[c]) : 0;
			KY[c] = j > 1 && j <= Y && i <= X
					? RX * (d[c - row] + d[c]) / (2 * d[c - row] * d[c]) : 0;
			U0[c] = U[c];
		}
	/* r = u0 - A u, p = r. */
#pragma omp target teams distribute parallel for collapse(2) reduction(+: rro, bb) \
	TOFROM(U[0:nn], U0[0:nn], KX[0:nn], KY[0:nn], R[0:nn], P[0:nn])
	for (int j = 1; j <= Y; j++)
		for (int i = 1; i <= X; i++) {
			size_t c = (size_t)j * row + i;
			R[c] = P[c] = U0[c] - apply(U, KX, KY, c, row);
			rro += R[c] * R[c];
			bb += U0[c] * U0[c];
		}
	for (it = 0; it < MAXIT && sqrt(rro / bb) > TOL; it++) {
		pw = 0;
#pragma omp target teams distribute parallel for collapse(2) reduction(+: pw) \
	TOFROM(P[0:nn], W[0:nn], KX[0:nn], KY[0:nn])
		for (int j = 1; j <= Y; j++)
			for (int i = 1; i <= X; i++) {
				size_t c = (size_t)j * row + i;
				W[c] = apply(P, KX, KY, c, row);
				pw += P[c] * W[c];
			}
		alpha = rro / pw;
		rrn = 0;
#pragma omp target teams distribute parallel for collapse(2) reduction(+: rrn) \
	TOFROM(U[0:nn], R[0:nn], P[0:nn], W[0:nn])
		for (int j = 1; j <= Y; j++)
			for (int i = 1; i <= X; i++) {
				size_t c = (size_t)j * row + i;
				U[c] += alpha * P[c];
				R[c] -= alpha * W[c];
				rrn += R[c] * R[c];
			}
		beta = rrn / rro;
		rro = rrn;
#pragma omp target teams distribute parallel for collapse(2) TOFROM(R[0:nn], P[0:nn])
		for (int j = 1; j <= Y; j++)
			for (int i = 1; i <= X; i++) {
				size_t c = (size_t)j * row + i;
				P[c] = R[c] + beta * P[c];
			}
	}
	*res = sqrt(rro / bb);
	return it;
}

int main(int argc, char **argv)
{
	int side = argc > 1 ? atoi(argv[1]) : 256, steps = argc > 2 ? atoi(argv[2]) : 8;
	int iters = 0, worst_it = 0;
	double heat0, heat, res, worst_res = 0, sum = 0;
	double **arrays[] = { &density, &u, &u0, &kx, &ky, &r, &p, &wv };

	nx = ny = side;
	w = nx + 2;
	n = (size_t)w * (ny + 2);
	if (side < 4 || steps < 0) {
		fprintf(stderr, "tealeaf: bad size\n");
		return 2;
	}
	for (size_t a = 0; a < sizeof(arrays) / sizeof(arrays[0]); a++)
		if (!(*arrays[a] = malloc(n * sizeof(double)))) {
			fprintf(stderr, "tealeaf: out of memory\n");
			return 2;
		}
	set_field();
	heat0 = total();
	{
		double *d = density, *U = u, *U0 = u0, *KX = kx, *KY = ky, *R = r, *P = p, *W = wv;
		size_t nn = n;
		(void)d, (void)U, (void)U0, (void)KX, (void)KY, (void)R, (void)P, (void)W, (void)nn;
#ifdef FIXED
#pragma omp target data map(to: d[0:nn]) map(tofrom: U[0:nn]) map(alloc: U0[0:nn], KX[0:nn], KY[0:nn], R[0:nn], P[0:nn], W[0:nn])
#endif
		for (int t = 0; t < steps; t++) {
			int it = step(&res);
			iters += it;
			if (it > worst_it)
				worst_it = it;
			if (res > worst_res)
				worst_res = res;
		}
	}
	heat = total();
	for (size_t c = 0; c < n; c++)
		sum += u[c] * (1 + c % 3);
	printf("tealeaf: %d x %d cells, %d steps, %d CG iterations (at most %d a step), "
	       "checksum=%.9e, residual %.1e, heat drift %.1e\n", nx, ny, steps, iters, worst_it, sum,
	       worst_res, fabs(heat - heat0) / heat0);
	for (size_t a = 0; a < sizeof(arrays) / sizeof(arrays[0]); a++)
		free(*arrays[a]);
	if (worst_it >= MAXIT || !(worst_res <= TOL) || !(fabs(heat - heat0) < 1e-8 * heat0)) {
		fprintf(stderr, "tealeaf: wrong solution (not converged, or heat not conserved)\n");
		return 1;
	}
	return 0;
}
