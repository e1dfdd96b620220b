/*
 * threads_regions.c - the ingest tests' program of several event buffers:
 * 'threads_regions N' runs N tiny target regions on each of four OpenMP
 * threads (each thread its own buffer, chunks reaching the spool out of
 * order) and prints how many gave the right answer (4 N).
 */
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv)
{
	int regions = atoi(argv[1]);
	long total = 0;
#pragma omp parallel num_threads(4) reduction(+: total)
	{
		double a[4] = { 1, 2, 3, 4 }, b[4];
		for (int r = 0; r < regions; r++) {
#pragma omp target map(to: a[0:4]) map(from: b[0:4])
			for (int i = 0; i < 4; i++)
				b[i] = a[i] * 2;
			total += b[3] == 8;
		}
	}
	printf("%ld\n", total);
	return 0;
}
