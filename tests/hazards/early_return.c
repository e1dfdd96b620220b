/*
 * early_return.c - an iterative solver that leaves its loop by 'return' once
 * it has converged.  A 'target data' region around the loop would be left by
 * that return, which OpenMP forbids ("cannot return from OpenMP region"): a
 * plan must not wrap it, and must say why (tests/e2e/plans_keep_results.sh).
 */
#include <stdio.h>

#define N 4096

static int solve(double *x, double tol)
{
	for (int it = 0; it < 1000; it++) {
		double err = 0;
#pragma omp target teams distribute parallel for map(tofrom: x[0:N]) reduction(max: err)
		for (int i = 0; i < N; i++) {
			double v = 0.5 * x[i];
			double d = x[i] - v;
			err = d > err ? d : err;
			x[i] = v;
		}
		if (err < tol)
			return it;
	}
	return -1;
}

int main(void)
{
	static double x[N];
	double sum = 0;

	for (int i = 0; i < N; i++)
		x[i] = i % 17;
	int its = solve(x, 1e-6);
	for (int i = 0; i < N; i++)
		sum += x[i];
	printf("early_return: %d iterations, sum=%.6f\n", its, sum);
	return 0;
}
