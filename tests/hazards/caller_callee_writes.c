/*
 * caller_callee_writes.c - the construct's function has no loop of its own
 * and writes the array it maps before the construct, the same values each
 * call: a region around the caller's loop sends it with an update there.
 */
#include <stdio.h>
#define N 4096
static int x[N], y[N];

static void step(int s)
{
	for (int v = 0; v < N; v++)
		x[v] = v;   /* the same every call, not what main left */
#pragma omp target teams distribute parallel for map(to: x) map(tofrom: y)
	for (int v = 0; v < N; v++)
		y[v] += x[v];
}

int main(void)
{
	long sum = 0;
	for (int v = 0; v < N; v++)
		x[v] = 1000;
	for (int s = 0; s < 8; s++) {
		step(s);
	}
	for (int v = 0; v < N; v++)
		sum += y[v];
	printf("sum=%ld\n", sum);
	return 0;
}
