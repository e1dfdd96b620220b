/*
 * local_fill.c - a local array a helper refills at the start of every step
 * (the same values each time, not those it held before the loop).
 */
#include <stdio.h>
#define N 4096

static void fill(double *v, int n)
{
	for (int i = 0; i < n; i++)
		v[i] = 0.5 * i;
}

int main(void)
{
	double x[N], y[N], sum = 0;

	for (int i = 0; i < N; i++) {
		x[i] = 1.0;
		y[i] = 0;
	}
	for (int s = 0; s < 8; s++) {
		fill(x, N);
#pragma omp target teams distribute parallel for map(to: x) map(tofrom: y)
		for (int i = 0; i < N; i++)
			y[i] += x[i];
	}
	for (int i = 0; i < N; i++)
		sum += y[i];
	printf("local_fill: sum=%.1f\n", sum);
	return 0;
}
