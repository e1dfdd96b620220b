/*
 * loop_writes_first.c - the host writes the mapped array inside the loop,
 * before the construct, the same values each pass: the region's own copy at
 * its start would send the older content, so the first send is an update.
 */
#include <stdio.h>
#define N 4096
static int x[N], y[N];

int main(void)
{
	long sum = 0;
	for (int v = 0; v < N; v++)
		x[v] = 1000;
	for (int s = 0; s < 8; s++) {
		for (int v = 0; v < N; v++)
			x[v] = v;
#pragma omp target teams distribute parallel for map(to: x) map(tofrom: y)
		for (int v = 0; v < N; v++)
			y[v] += x[v];
	}
	for (int v = 0; v < N; v++)
		sum += y[v];
	printf("sum=%ld\n", sum);
	return 0;
}
