/*
 * two_kernels_one_loop.c - a relaxation whose time loop holds two kernels,
 * each with its own map clauses: a sweep from u into v, then a kernel that
 * copies v back into u and finds the step's largest change (a max
 * reduction the host reads to decide when to stop).
 *
 * Both directives repeat in the same loop, so each one's plan would wrap
 * that loop in a 'target data' region: the second plan is covered by the
 * first (one region around the loop; a second would nest inside it).  The
 * host reads 'change' after every step: it must still come back.
 */
#include <math.h>
#include <stdio.h>

#define N 4096
#define STEPS 200

int main(void)
{
	static double u[N], v[N];
	int steps = 0;

	for (int i = 0; i < N; i++)
		u[i] = (i % 64 == 0) ? 1.0 : 0.0;
	for (int t = 0; t < STEPS; t++) {
		double change = 0;
#pragma omp target teams distribute parallel for map(to: u[0:N]) map(from: v[0:N])
		for (int i = 0; i < N; i++)
			v[i] = i == 0 || i == N - 1 ? u[i] : 0.25 * u[i - 1] + 0.5 * u[i] + 0.25 * u[i + 1];
#pragma omp target teams distribute parallel for reduction(max: change) map(tofrom: u[0:N], change) map(to: v[0:N])
		for (int i = 0; i < N; i++) {
			double d = fabs(v[i] - u[i]);
			if (d > change)
				change = d;
			u[i] = v[i];
		}
		steps++;
		if (change < 1e-6)
			break;
	}
	double sum = 0;
	for (int i = 0; i < N; i++)
		sum += u[i];
	printf("two_kernels_one_loop: %d steps, sum %.12f\n", steps, sum);
	return 0;
}
