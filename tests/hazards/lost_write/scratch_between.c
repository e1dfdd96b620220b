/*
 * scratch_between.c - enter data / exit data around host code that uses
 * the host's copy as scratch; no kernel runs in between, and the exit's
 * copy back restores the host's copy. 'record --check' reports the restore
 * (lost_host_write): the program relies on it.
 */
#include <stdio.h>
#define N 4096

static double buf[N];

int main(void)
{
	double scratch = 0, sum = 0;

	for (int i = 0; i < N; i++)
		buf[i] = i % 11;
#pragma omp target enter data map(to: buf)
	for (int i = 0; i < N; i++)
		buf[i] = 2.0 * i;
	for (int i = 0; i < N; i++)
		scratch += buf[i];
#pragma omp target exit data map(from: buf)
	for (int i = 0; i < N; i++)
		sum += buf[i];
	printf("scratch_between: scratch=%.1f sum=%.1f\n", scratch, sum);
	return 0;
}
