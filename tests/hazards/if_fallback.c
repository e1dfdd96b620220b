/*
 * if_fallback.c - the kernel runs on the device only for large steps (an
 * if clause on a global size); small steps run on the host.
 */
#include <stdio.h>
#define N 4096

static double u[N];
static int active;

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++)
		u[i] = i % 3;
	for (int s = 0; s < 8; s++) {
		active = s % 3 == 0 ? 64 : N;
#pragma omp target teams distribute parallel for if(active > 1000) map(tofrom: u)
		for (int i = 0; i < N; i++)
			u[i] = u[i] * 0.5 + s;
	}
	for (int i = 0; i < N; i++)
		sum += u[i];
	printf("if_fallback: sum=%.6f\n", sum);
	return 0;
}
