/*
 * caller_writes_deep.c - the caller's loop calls, before the construct's
 * function, a function that calls another that writes the mapped array: a
 * region around the caller's loop must not send it itself (its first send
 * is an update).
 */
#include <stdio.h>
#define N 4096
static int x[N], y[N];

static void fill(void)
{
	for (int v = 0; v < N; v++)
		x[v] = v;
}

static void prep(void)
{
	fill();
}

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
		x[v] = 1000;
	for (int s = 0; s < 8; s++) {
		prep();
		step(s);
	}
	for (int v = 0; v < N; v++)
		sum += y[v];
	printf("sum=%ld\n", sum);
	return 0;
}

