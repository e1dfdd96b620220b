/*
 * caller_shadowed_bound.c - the callee maps 'x[0:n]' with a global 'n'; the
 * caller declares a local 'n' second in a declaration list ('int shown, n =
 * 16;'), which a region in the caller would name instead: the plan keeps
 * the region around the callee's loop.
 */
#include <stdio.h>
#define N 4096

static int n = N;
static int x[N], y[N];

static void step(int s)
{
	for (int it = 0; it < 4; it++) {
#pragma omp target teams distribute parallel for map(to: x[0:n]) map(tofrom: y[0:n])
		for (int v = 0; v < n; v++)
			y[v] += x[v] + s;
	}
}

int main(void)
{
	long sum = 0;
	int shown, n = 16;   /* how many values to print */
	for (int v = 0; v < N; v++)
		x[v] = v;
	for (int s = 0; s < 8; s++) {
		step(s);
	}
	for (shown = 0; shown < n; shown++)
		sum += y[shown];
	printf("sum=%ld\n", sum);
	return 0;
}
