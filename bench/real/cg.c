/*
 * cg.c - an implicit heat-diffusion solver: each time step solves
 * (I + dt L) x = x_prev by conjugate gradients, L the 5-point Laplacian of
 * a 256 x 256 grid with insulated edges, stored by diagonals (a banded
 * matrix, as a finite-difference or finite-volume code builds it once and
 * never changes).  The host tests the residual after every iteration.
 *
 * usage: cg [STEPS]   (default 50 time steps, about 30 CG iterations each)
 *
 * The arrays: 65536 doubles, 0.5 MiB each; the matrix is 5 diagonals
 * (2.5 MiB), the vectors x, b, r, p, q (2.5 MiB).
 *
 * What moves, per CG iteration (three kernels: q = A p and p.q; x and r
 * updated and r.r; p updated):
 *   naive: every array each kernel reads goes to the device and every
 *          array it writes comes back, the unchanged matrix included
 *          (about 8 MiB an iteration), as a first port with a 'map' on every
 *          kernel does.
 *   fixed (-DFIXED): the matrix and the vectors stay on the device in one
 *          'target data' region; per iteration only the two dot products
 *          (8 bytes each) come back, and per time step the new right-hand
 *          side is computed on the device; x and b come back once at the end.
 *
 * Check: each solve must converge (relative residual under 1e-10, checked
 * again on the host with the host's matrix after the last step), and the
 * total heat, which the insulated edges conserve, must stay within 1e-9
 * relative of its start; exit 1 otherwise.  Prints a checksum of x.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define SIDE 256
#define N (SIDE * SIDE)
#define DT 4.0
#define TOL 1e-10
#define MAXIT 500

/* The matrix by diagonals: row i couples i-SIDE, i-1, i, i+1, i+SIDE. */
static double dn[N], dw[N], dc[N], de[N], ds[N];
static double x[N], b[N], r[N], p[N], q[N];

static void build(void)
{
	for (int i = 0; i < N; i++) {
		int row = i / SIDE, col = i % SIDE, deg = 0;
		dn[i] = row > 0 ? (deg++, -DT) : 0;
		ds[i] = row < SIDE - 1 ? (deg++, -DT) : 0;
		dw[i] = col > 0 ? (deg++, -DT) : 0;
		de[i] = col < SIDE - 1 ? (deg++, -DT) : 0;
		dc[i] = 1 + DT * deg;
		/* A hot square in a cold plate, with some texture. */
		x[i] = (abs(row - 90) < 30 && abs(col - 150) < 40 ? 100.0 : 0.0) + (i % 7) * 0.25;
	}
}

/* Host-side ||b - A x|| / ||b||, from the host's own copy of the matrix. */
static double host_residual(void)
{
	double rr = 0, bb = 0;
	for (int i = 0; i < N; i++) {
		double ax = dc[i] * x[i];
		if (i >= SIDE) ax += dn[i] * x[i - SIDE];
		if (i < N - SIDE) ax += ds[i] * x[i + SIDE];
		if (i % SIDE) ax += dw[i] * x[i - 1];
		if (i % SIDE != SIDE - 1) ax += de[i] * x[i + 1];
		rr += (b[i] - ax) * (b[i] - ax);
		bb += b[i] * b[i];
	}
	return sqrt(rr / bb);
}

static double total(void)
{
	double s = 0;
	for (int i = 0; i < N; i++)
		s += x[i];
	return s;
}

#ifdef FIXED
#define MAP_A
#define MAP_P
#define MAP_Q_OUT
#define MAP_Q_IN
#define MAP_XR
#define MAP_R_IN
#define MAP_P_INOUT
#define MAP_X_IN
#define MAP_B_OUT
#define MAP_X_INOUT
#define MAP_RP_OUT
#else
#define MAP_A map(to: dn, dw, dc, de, ds)
#define MAP_P map(to: p)
#define MAP_Q_OUT map(from: q)
#define MAP_Q_IN map(to: q)
#define MAP_XR map(tofrom: x, r)
#define MAP_R_IN map(to: r)
#define MAP_P_INOUT map(tofrom: p)
#define MAP_X_IN map(to: x)
#define MAP_B_OUT map(from: b)
#define MAP_X_INOUT map(tofrom: x)
#define MAP_RP_OUT map(from: r, p)
#endif

/* One time step: b = x; solve (I + dt L) x = b from x; returns iterations. */
static int solve(void)
{
	double rr = 0, pq, alpha, beta, bb = 0;
	int it;

#pragma omp target teams distribute parallel for MAP_A MAP_X_IN MAP_B_OUT MAP_RP_OUT \
	reduction(+: bb)
	for (int i = 0; i < N; i++) {
		/* b = x_prev, and x = x_prev as the first guess: r = b - A x = x_prev - A x_prev. */
		double ax = dc[i] * x[i];
		if (i >= SIDE) ax += dn[i] * x[i - SIDE];
		if (i < N - SIDE) ax += ds[i] * x[i + SIDE];
		if (i % SIDE) ax += dw[i] * x[i - 1];
		if (i % SIDE != SIDE - 1) ax += de[i] * x[i + 1];
		b[i] = x[i];
		r[i] = p[i] = x[i] - ax;
		bb += x[i] * x[i];
	}
#pragma omp target teams distribute parallel for MAP_R_IN reduction(+: rr)
	for (int i = 0; i < N; i++)
		rr += r[i] * r[i];
	for (it = 0; it < MAXIT && sqrt(rr / bb) > TOL; it++) {
		pq = 0;
#pragma omp target teams distribute parallel for MAP_A MAP_P MAP_Q_OUT reduction(+: pq)
		for (int i = 0; i < N; i++) {
			double ap = dc[i] * p[i];
			if (i >= SIDE) ap += dn[i] * p[i - SIDE];
			if (i < N - SIDE) ap += ds[i] * p[i + SIDE];
			if (i % SIDE) ap += dw[i] * p[i - 1];
			if (i % SIDE != SIDE - 1) ap += de[i] * p[i + 1];
			q[i] = ap;
			pq += p[i] * ap;
		}
		alpha = rr / pq;
		beta = rr;
		rr = 0;
#pragma omp target teams distribute parallel for MAP_XR MAP_P MAP_Q_IN reduction(+: rr)
		for (int i = 0; i < N; i++) {
			x[i] += alpha * p[i];
			r[i] -= alpha * q[i];
			rr += r[i] * r[i];
		}
		beta = rr / beta;
#pragma omp target teams distribute parallel for MAP_R_IN MAP_P_INOUT
		for (int i = 0; i < N; i++)
			p[i] = r[i] + beta * p[i];
	}
	return it;
}

int main(int argc, char **argv)
{
	int steps = argc > 1 ? atoi(argv[1]) : 50, iters = 0, worst_it = 0;
	double heat0, heat, res, sum;

	build();
	heat0 = total();
#ifdef FIXED
#pragma omp target data map(to: dn, dw, dc, de, ds) map(tofrom: x) map(from: b) map(alloc: r, p, q)
#endif
	for (int t = 0; t < steps; t++) {
		int it = solve();
		iters += it;
		if (it > worst_it)
			worst_it = it;
	}
	heat = total();
	res = host_residual();
	sum = 0;
	for (int i = 0; i < N; i++)
		sum += x[i] * (1 + i % 3);
	printf("cg: %d steps, %d CG iterations (at most %d a step), checksum=%.9e, "
	       "residual %.1e, heat drift %.1e\n", steps, iters, worst_it, sum, res,
	       fabs(heat - heat0) / heat0);
	if (worst_it >= MAXIT || !(res < 10 * TOL) || !(fabs(heat - heat0) < 1e-9 * heat0)) {
		fprintf(stderr, "cg: wrong solution (not converged, or heat not conserved)\n");
		return 1;
	}
	return 0;
}
