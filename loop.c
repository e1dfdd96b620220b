#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
int main(int argc, char **argv)
{
	double secs = atof(argv[1]), x = 0;
	int pause_us = atoi(argv[2]);
	struct timespec t0, t;
	long n = 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < 64; i++, n++) {
#pragma omp target map(tofrom: x)
			x += 1;
		}
		if (pause_us)
			usleep(pause_us);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("done %ld\n", n);
	return 7;
}
