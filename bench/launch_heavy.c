/*
 * launch_heavy.c - many tiny target regions: the collector's per-event cost.
 *
 * usage: launch_heavy [REGIONS]   (default 20000; each region: alloc, to, kernel, from, delete)
 */
#include <stdio.h>
#include <stdlib.h>

int main(int argc, char **argv)
{
	int regions = argc > 1 ? atoi(argv[1]) : 20000;
	double x = 0;

	for (int r = 0; r < regions; r++) {
#pragma omp target map(tofrom: x)
		x += 1;
	}
	printf("%g\n", x);
	return 0;
}
