/*
 * caller_two_loops.c - the construct's function is inlined into two loops
 * of the caller: a region around one of them does not hold the data of the
 * other's constructs on the same lines.
 */
#include <stdio.h>
#define N 4096
static int x[N], y[N];

static void step(int s)
{
	for (int it = 0; it < 4; it++) {
#pragma omp target teams distribute parallel for map(to: x) map(tofrom: y)
		for (int v = 0; v < N; v++)
			y[v] += x[v] + s;
	}
}

int main(void)
{
	long sum = 0;
	for (int v = 0; v < N; v++)
		x[v] = v;
	for (int s = 0; s < 8; s++) {
		step(s);
	}
	for (int v = 0; v < N; v++)
		x[v] = 2 * v;
	for (int s = 0; s < 8; s++) {
		step(s);
	}
	for (int v = 0; v < N; v++)
		sum += y[v];
	printf("sum=%ld\n", sum);
	return 0;
}
