/*
 * host_input.c - a time loop whose forcing term the host computes between
 * kernels, beside coefficients that never change, a counter the host
 * reads, a reduction and a macro-written section.
 *
 * A region around the loop may keep 'coef' on the device, but 'force' must
 * be sent again after the host rewrites it, and 'energy' (a reduction the
 * host accumulates) must come back after every step.
 */
#include <stdio.h>

#define N 2048
#define STEPS 10
#define ALL(p) p[0:N]

int main(void)
{
	static double coef[N], force[N], u[N];
	double total = 0;
	int hot = 0;

	for (int i = 0; i < N; i++)
		coef[i] = 1.0 / (1 + i % 9);
	for (int t = 0; t < STEPS; t++) {
		double energy = 0;
		for (int i = 0; i < N; i++)
			force[i] = (i + t) % 5;
#pragma omp target teams distribute parallel for map(to: ALL(coef), force[0:N]) map(tofrom: ALL(u)) \
	reduction(+: energy)
		for (int i = 0; i < N; i++) {
			u[i] = u[i] * 0.9 + coef[i] * force[i];
			energy += u[i] * u[i];
		}
		total += energy;
		hot += energy > 1000.0;
	}
	printf("host_input: hot=%d total=%.6f u7=%.6f\n", hot, total, u[7]);
	return 0;
}
