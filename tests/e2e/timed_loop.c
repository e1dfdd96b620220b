/*
 * timed_loop.c - the recording tests' program that runs for a while:
 * 'loop SECONDS [PAUSE_US]' runs tiny target regions (6 events each) in
 * batches of BATCH, sleeping PAUSE_US between batches, until SECONDS have
 * passed (at least one batch), prints 'done N' (the regions run) and exits
 * with STATUS.  BATCH, PAUSE_US and STATUS are set at build time
 * (-DBATCH=64 ...); with -DPAUSE_FROM_ARGV the pause is the second argument.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#ifndef BATCH
#define BATCH 1
#endif
#ifndef PAUSE_US
#define PAUSE_US 200
#endif
#ifndef STATUS
#define STATUS 0
#endif

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 0, x = 0;
	int pause_us = PAUSE_US;
	struct timespec t0, t;
	long n = 0;

#ifdef PAUSE_FROM_ARGV
	if (argc > 2)
		pause_us = atoi(argv[2]);
#endif
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		for (int i = 0; i < BATCH; i++, n++) {
#pragma omp target map(tofrom: x)
			x += 1;
		}
		if (pause_us)
			usleep(pause_us);
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while ((t.tv_sec - t0.tv_sec) + (t.tv_nsec - t0.tv_nsec) / 1e9 < secs);
	printf("done %ld\n", n);
	return STATUS;
}
