/*
 * update_loop.c - an OpenACC program (GCC: gcc -fopenacc) whose device copy
 * of 'a' is created once, while 'b' is brought back to the host after
 * every step: what mapprof records of OpenACC through the OpenACC Profiling
 * Interface (docs/openacc.md).
 *
 * Constructs, in order: enter data (a, b); then STEPS times a parallel loop
 * and an update self (b); a data region around one more parallel loop
 * (async queue 2) and a wait; exit data.  Without a GPU (host fallback)
 * libgomp reports these constructs and no transfer: see docs/openacc.md.
 */
#include <stdio.h>
#include <stdlib.h>

#define N 4096
#define STEPS 4

int main(void)
{
	double *a = malloc(N * sizeof(*a)), *b = malloc(N * sizeof(*b)), sum = 0;

	if (!a || !b)
		return 1;
	for (int i = 0; i < N; i++)
		a[i] = i;
#pragma acc enter data copyin(a[0:N]) create(b[0:N])
	for (int s = 0; s < STEPS; s++) {
#pragma acc parallel loop present(a[0:N], b[0:N])
		for (int i = 0; i < N; i++)
			b[i] = a[i] * (s + 1);
#pragma acc update self(b[0:N])
		sum += b[N - 1];
	}
#pragma acc data present(a[0:N])
	{
#pragma acc parallel loop async(2)
		for (int i = 0; i < N; i++)
			a[i] += 1;
#pragma acc wait(2)
	}
#pragma acc exit data copyout(a[0:N]) delete(b[0:N])
	printf("%.1f %.1f\n", sum, a[N - 1]);
	free(a);
	free(b);
	return 0;
}
