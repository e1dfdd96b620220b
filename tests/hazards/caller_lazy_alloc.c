/*
 * caller_lazy_alloc.c - the callee allocates its global buffer on its first
 * call: a region in the caller would map a NULL pointer, so the buffer
 * stays mapped by the construct.
 */
#include <stdio.h>
#include <stdlib.h>
#define N 4096
static double *buf;
static int n = N;

static void step(int s)
{
	if (!buf) {
		buf = malloc(n * sizeof(*buf));
		for (int v = 0; v < n; v++)
			buf[v] = v;
	}
	for (int it = 0; it < 4; it++) {
#pragma omp target teams distribute parallel for map(tofrom: buf[0:n])
		for (int v = 0; v < n; v++)
			buf[v] += s;
	}
}

int main(void)
{
	double sum = 0;
	for (int s = 0; s < 8; s++) {
		step(s);
	}
	for (int v = 0; v < n; v++)
		sum += buf[v];
	printf("sum=%.1f\n", sum);
	free(buf);
	return 0;
}
