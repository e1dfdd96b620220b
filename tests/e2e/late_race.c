/*
 * late_race.c - a thread offloading in a loop while the process ends
 * (tests/e2e/record_late.sh): the collector finishes at the end, and the
 * thread's calls after that are the end's race, not offloads the recording
 * missed.
 * usage: late_race exit|_exit
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define N 256
static double a[N];
static volatile int started;

static void *worker(void *arg)
{
	(void)arg;
	for (;;) {
#pragma omp target map(tofrom: a[0:N])
		for (int i = 0; i < N; i++)
			a[i] += 1;
		started = 1;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	pthread_create(&t, NULL, worker, NULL);
	while (!started)
		usleep(1000);
	usleep(100000);
	fflush(stdout);
	if (argc > 1 && !strcmp(argv[1], "_exit"))
		_exit(0);
	exit(0);
}
