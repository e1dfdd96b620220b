/*
 * record_wakeups.c - an offload program that goes quiet for a while, then
 * sends a burst of events: argv[1] seconds asleep after its first region
 * (written "quiet" to stdout, flushed, as the sleep starts), then argv[2]
 * updates of 8 doubles (a[8..15]) to the device, as fast as it can.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	static double a[64];
	double quiet_s = argc > 1 ? atof(argv[1]) : 2.0;
	long burst = argc > 2 ? atol(argv[2]) : 20000;

#pragma omp target data map(tofrom : a)
	{
#pragma omp target
		a[0] += 1.0;
		printf("quiet\n");
		fflush(stdout);
		usleep((useconds_t)(quiet_s * 1e6));
		for (long i = 0; i < burst; i++) {
			a[8] = (double)i;
#pragma omp target update to(a[8 : 8])
		}
	}
	printf("a[0] = %.1f\n", a[0]);
	return 0;
}
