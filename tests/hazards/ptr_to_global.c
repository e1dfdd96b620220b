/*
 * ptr_to_global.c - the kernel maps a global grid through a local pointer;
 * the host resets the grid by its own name at the start of every step.
 */
#include <stdio.h>
#define N 4096

static double grid[N], acc[N];

int main(void)
{
	double *g = grid, sum = 0;

	for (int i = 0; i < N; i++)
		grid[i] = 9;
	for (int s = 0; s < 6; s++) {
		for (int i = 0; i < N; i++)
			grid[i] = i % 4;
#pragma omp target teams distribute parallel for map(to: g[0:N]) map(tofrom: acc)
		for (int i = 0; i < N; i++)
			acc[i] += g[i];
	}
	for (int i = 0; i < N; i++)
		sum += acc[i];
	printf("ptr_to_global: sum=%.1f\n", sum);
	return 0;
}
