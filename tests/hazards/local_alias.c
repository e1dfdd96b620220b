/*
 * local_alias.c - the host rewrites a local array through a pointer to it
 * at every step (the same values each time).
 */
#include <stdio.h>
#define N 4096

int main(void)
{
	static double x[N], y[N];
	double *p = x, sum = 0;

	for (int i = 0; i < N; i++)
		x[i] = 3;
	for (int s = 0; s < 6; s++) {
		for (int i = 0; i < N; i++)
			p[i] = i & 7;
#pragma omp target teams distribute parallel for map(to: x) map(tofrom: y)
		for (int i = 0; i < N; i++)
			y[i] += x[i];
	}
	for (int i = 0; i < N; i++)
		sum += y[i];
	printf("local_alias: sum=%.1f\n", sum);
	return 0;
}
