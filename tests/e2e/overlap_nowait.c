/*
 * overlap_nowait.c - a 'nowait' copy beside a kernel on one device, for
 * tests/e2e/overlap.sh: 'target enter data nowait' sends 64 MiB (a hidden
 * helper thread copies it) while a blocking 'target' kernel on other data
 * runs for about 100 ms; then 'taskwait', a kernel that reads the copy,
 * and a blocking copy back after it.  The first copy and the first kernel
 * overlap on device 0; the copy back overlaps nothing.
 */
#include <stdio.h>
#include <stdlib.h>

#define N (8 * 1024 * 1024)
#define M 1024

int main(void)
{
	double *big = malloc(N * sizeof(double)), small[M], s = 0;

	if (!big)
		return 1;
	for (int i = 0; i < N; i++)
		big[i] = i * 1e-6;
	for (int i = 0; i < M; i++)
		small[i] = i;
#pragma omp target enter data map(to: big[0:N]) nowait
#pragma omp target map(tofrom: small[0:M])
	for (int r = 0; r < 40000; r++)
		for (int i = 0; i < M; i++)
			small[i] = small[i] * 0.999 + 1.0;
#pragma omp taskwait
#pragma omp target map(tofrom: s)
	for (int i = 0; i < N; i += 4096)
		s += big[i];
#pragma omp target exit data map(from: big[0:N])
	printf("overlap_nowait: %.3f %.3f\n", s, small[7]);
	free(big);
	return 0;
}
