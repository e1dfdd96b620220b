/*
 * swap_grids.c - a 1-D diffusion whose two grids swap pointers after every
 * sweep (issue #25, observation 3).
 *
 * Each sweep sends 'cur' and brings 'nxt' back; after the swap the grid
 * just brought back is sent again: a device->host->device round trip.
 * Both grids hold results on the device in turn, so a region around the
 * loop must bring both back (tofrom), not map one of them 'to'.
 */
#include <stdio.h>

#define N 2048
#define SWEEPS 300

int main(void)
{
	static double a[N], b[N];
	double *cur = a, *nxt = b, sum = 0;

	for (int i = 0; i < N; i++)
		a[i] = (i % 50 == 0) ? 100.0 : 0.0;
	for (int s = 0; s < SWEEPS; s++) {
#pragma omp target teams distribute parallel for map(to: cur[0:N]) map(from: nxt[0:N])
		for (int i = 0; i < N; i++)
			nxt[i] = i == 0 || i == N - 1 ? cur[i] : 0.25 * cur[i - 1] + 0.5 * cur[i] + 0.25 * cur[i + 1];
		double *t = cur;
		cur = nxt;
		nxt = t;
	}
	for (int i = 0; i < N; i++)
		sum += cur[i] * (i + 1);
	printf("swap_grids: checksum=%.6f\n", sum);
	return 0;
}
