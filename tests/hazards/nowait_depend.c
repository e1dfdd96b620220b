/*
 * nowait_depend.c - two kernels chained by depend clauses, launched with
 * nowait in a loop; the host reads a counter after each step.
 */
#include <stdio.h>

#define N 4096
#define STEPS 6

int main(void)
{
	static float x[N], y[N];
	int count = 0;
	long seen = 0;

	for (int i = 0; i < N; i++)
		x[i] = (float)(i % 11);
	for (int s = 0; s < STEPS; s++) {
		count = 0;
#pragma omp target teams distribute parallel for map(to: x[0:N]) map(tofrom: y[0:N], count) \
	nowait depend(inout: y[0:N]) depend(inout: count)
		for (int i = 0; i < N; i++) {
			y[i] = y[i] * 0.5f + x[i];
			if (y[i] > 15.0f) {
#pragma omp atomic
				count++;
			}
		}
#pragma omp taskwait
		seen += count;
	}
	printf("nowait_depend: seen=%ld y5=%.3f\n", seen, y[5]);
	return 0;
}
