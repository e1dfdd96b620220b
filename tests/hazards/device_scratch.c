/*
 * device_scratch.c - a kernel uses an array mapped 'to' as scratch on the
 * device: the program sends the host's copy again at every step.
 */
#include <stdio.h>
#define N 4096

static double t[N], y[N];

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++)
		t[i] = i % 3;
	for (int s = 0; s < 6; s++) {
#pragma omp target teams distribute parallel for map(to: t) map(tofrom: y)
		for (int i = 0; i < N; i++) {
			t[i] = t[i] * 2 + 1;
			y[i] += t[i];
		}
	}
	for (int i = 0; i < N; i++)
		sum += y[i];
	printf("device_scratch: sum=%.1f\n", sum);
	return 0;
}
