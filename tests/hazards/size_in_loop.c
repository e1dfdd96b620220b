/*
 * size_in_loop.c - the section's length is computed inside the loop (the
 * same each step); before the loop it holds another value.
 */
#include <stdio.h>
#define N 4096

static double a[N], b[N];

int main(void)
{
	double sum = 0;
	int m = 16;

	for (int i = 0; i < N; i++)
		a[i] = i % 7;
	for (int s = 0; s < 6; s++) {
		m = N;
#pragma omp target teams distribute parallel for map(to: a[0:m]) map(tofrom: b[0:m])
		for (int i = 0; i < m; i++)
			b[i] += a[i];
	}
	for (int i = 0; i < N; i++)
		sum += b[i];
	printf("size_in_loop: m=%d sum=%.1f\n", m, sum);
	return 0;
}
