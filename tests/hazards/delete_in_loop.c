/*
 * delete_in_loop.c - each step maps its input with enter data, a kernel
 * reads it, and exit data deletes it; the result comes back by update.
 */
#include <stdio.h>
#define N 4096

static double in[N], out[N];

int main(void)
{
	double sum = 0;

	for (int s = 0; s < 6; s++) {
		for (int i = 0; i < N; i++)
			in[i] = (i + s) % 7;
#pragma omp target enter data map(to: in) map(alloc: out)
#pragma omp target teams distribute parallel for
		for (int i = 0; i < N; i++)
			out[i] = in[i] * 2;
#pragma omp target update from(out)
#pragma omp target exit data map(delete: in, out)
		for (int i = 0; i < N; i++)
			sum += out[i];
	}
	printf("delete_in_loop: sum=%.1f\n", sum);
	return 0;
}
