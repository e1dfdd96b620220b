/*
 * late_pause.c - offloads after the OpenMP runtime finalized the tool
 * (tests/e2e/record_late.sh).
 *
 * omp_pause_resource_all(omp_pause_hard) shuts the runtime down, and its
 * tool with it; the next OpenMP call starts the runtime again, without a
 * tool (a process has one tool start).  So the LATE regions after the pause
 * run, offloaded, with no event reaching any OMPT tool.
 * usage: late_pause BEFORE LATE
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>

#define N 1024
static double a[N];

static void region(int k)
{
#pragma omp target map(tofrom: a[0:N])
	for (int i = 0; i < N; i++)
		a[i] += k;
}

int main(int argc, char **argv)
{
	int before = argc > 1 ? atoi(argv[1]) : 3, late = argc > 2 ? atoi(argv[2]) : 5, rc;

	for (int k = 0; k < before; k++)
		region(k);
	rc = omp_pause_resource_all(omp_pause_hard);
	for (int k = 0; k < late; k++)
		region(1);
	printf("pause %d, a[0] = %g\n", rc, a[0]);
	return 0;
}
