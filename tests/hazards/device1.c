/*
 * device1.c - a solver step offloaded to device(1) in a loop (issue #25,
 * observation 2).
 *
 * The input goes to device 1 on every step.  A 'target data' region put
 * around the loop must name device(1) too: on device 0 it would hold
 * copies no construct uses, and its copy back would overwrite the results.
 */
#include <stdio.h>

#define N 4096
#define STEPS 8

int main(void)
{
	static double in[N], out[N];
	double sum = 0;

	for (int i = 0; i < N; i++)
		in[i] = (i % 13) * 0.5;
	for (int s = 0; s < STEPS; s++) {
#pragma omp target teams distribute parallel for device(1) map(to: in[0:N]) map(tofrom: out[0:N])
		for (int i = 0; i < N; i++)
			out[i] = out[i] * 0.5 + in[i] * (s + 1);
	}
	for (int i = 0; i < N; i++)
		sum += out[i];
	printf("device1: checksum=%.6f\n", sum);
	return 0;
}
