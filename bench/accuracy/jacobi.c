/*
 * jacobi.c - a 2-D Jacobi solver offloaded one sweep at a time, the shape
 * of issue 25's observation 5: naive, every sweep maps its grids itself
 * (f and u sent, unew returned, all three allocated and freed), and the
 * grids swap by pointer; the host reads nothing between sweeps.  Fixed
 * (-DFIXED): one 'target data' region around the loop, the swap done on
 * the device by alternating which grid is read, so nothing moves between
 * sweeps.  Both print the same checksum.
 */
#include <stdio.h>
#include <stdlib.h>

#define NX 512
#define NY 512
#define SWEEPS 20
#define G (NX * NY)   /* doubles a grid: 2 MiB */

static void sweep(const double *f, const double *u, double *unew)
{
#pragma omp target teams distribute parallel for map(to: f[0:G], u[0:G]) map(from: unew[0:G])
	for (int i = 0; i < G; i++) {
		int x = i % NX, y = i / NX;
		if (x == 0 || y == 0 || x == NX - 1 || y == NY - 1)
			unew[i] = u[i];
		else
			unew[i] = 0.25 * (u[i - 1] + u[i + 1] + u[i - NX] + u[i + NX] + f[i]);
	}
}

int main(void)
{
	double *f = calloc(G, sizeof(double)), *a = calloc(G, sizeof(double));
	double *b = calloc(G, sizeof(double)), *u = a, *unew = b, sum = 0;

	if (!f || !a || !b)
		return 1;
	for (int i = 0; i < G; i++) {
		f[i] = (i % 17) * 1e-3;
		b[i] = -1;   /* overwritten by the first sweep: only keeps a and b apart */
	}
#ifdef FIXED
#pragma omp target data map(to: f[0:G]) map(tofrom: a[0:G], b[0:G])
#endif
	for (int k = 0; k < SWEEPS; k++) {
		double *t;
		sweep(f, u, unew);
		t = u;
		u = unew;
		unew = t;
	}
	for (int i = 0; i < G; i++)
		sum += u[i];
	printf("jacobi: %.9g\n", sum);
	free(f);
	free(a);
	free(b);
	return 0;
}
