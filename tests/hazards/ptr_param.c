/*
 * ptr_param.c - a solver step takes its arrays as parameters; the caller
 * rewrites the input through another pointer before each step.
 */
#include <stdio.h>
#define N 4096

static void relax(double *restrict out, const double *restrict in, int n, int steps, double *src)
{
	for (int s = 0; s < steps; s++) {
		for (int i = 0; i < n; i++)
			src[i] = 1.0 + i % 4;
#pragma omp target teams distribute parallel for map(to: in[0:n]) map(tofrom: out[0:n])
		for (int i = 0; i < n; i++)
			out[i] += in[i];
	}
}

int main(void)
{
	static double a[N], b[N];
	double sum = 0;

	for (int i = 0; i < N; i++)
		a[i] = 100;
	relax(b, a, N, 5, a);
	for (int i = 0; i < N; i++)
		sum += b[i];
	printf("ptr_param: sum=%.1f\n", sum);
	return 0;
}
