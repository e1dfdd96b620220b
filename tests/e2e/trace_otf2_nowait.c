/*
 * trace_otf2_nowait.c - 'nowait' copies beside kernels on one device, for
 * tests/e2e/trace_otf2.sh: four buffers of 16 MiB each sent to the device
 * by 'target enter data nowait' (the runtime's helper threads copy them at
 * the same time), each then worked on by a 'target nowait' kernel and
 * brought back by 'target exit data nowait'.  Copies that overlap must lie
 * on streams of their own in the OTF2 archive.
 */
#include <stdio.h>
#include <stdlib.h>

#define BUFS 4
#define N (4 * 1024 * 1024)

int main(void)
{
	double *b[BUFS];
	double s = 0;

	for (int k = 0; k < BUFS; k++) {
		b[k] = malloc(N * sizeof(double));
		if (!b[k])
			return 1;
		for (int i = 0; i < N; i++)
			b[k][i] = k + i * 1e-6;
	}
	for (int k = 0; k < BUFS; k++) {
		double *p = b[k];
#pragma omp target enter data map(to: p[0:N]) nowait depend(out: p[0])
#pragma omp target nowait depend(inout: p[0])
		for (int i = 0; i < N; i++)
			p[i] = 2 * p[i] + 1;
#pragma omp target exit data map(from: p[0:N]) nowait depend(in: p[0])
	}
#pragma omp taskwait
	for (int k = 0; k < BUFS; k++) {
		for (int i = 0; i < N; i += 4096)
			s += b[k][i];
		free(b[k]);
	}
	printf("trace_otf2_nowait: %.3f\n", s);
	return 0;
}
