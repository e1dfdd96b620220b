/*
 * late_first_kernel.c - the first step computes the input on the host and
 * launches nothing; later steps launch the kernel after the host
 * recomputes the same input.
 */
#include <stdio.h>
#define N 4096

static double x[N], y[N];

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++)
		x[i] = -1;
	for (int s = 0; s < 6; s++) {
		if (s > 0) {
#pragma omp target teams distribute parallel for map(to: x) map(tofrom: y)
			for (int i = 0; i < N; i++)
				y[i] += x[i];
		}
		for (int i = 0; i < N; i++)
			x[i] = i % 5;
	}
	for (int i = 0; i < N; i++)
		sum += y[i];
	printf("late_first_kernel: sum=%.1f\n", sum);
	return 0;
}
