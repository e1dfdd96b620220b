/*
 * enter_in_loop.c - enter/exit data inside the time loop around a kernel
 * that updates the array in place; the host changes part of it between
 * steps.
 */
#include <stdio.h>
#define N 4096

static double x[N];

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++)
		x[i] = i % 13;
	for (int s = 0; s < 6; s++) {
#pragma omp target enter data map(to: x)
#pragma omp target teams distribute parallel for
		for (int i = 0; i < N; i++)
			x[i] = x[i] * 0.5 + 1;
#pragma omp target exit data map(from: x)
		x[s] = -1;
	}
	for (int i = 0; i < N; i++)
		sum += x[i];
	printf("enter_in_loop: sum=%.6f\n", sum);
	return 0;
}
