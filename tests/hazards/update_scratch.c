/*
 * update_scratch.c - directives that move nothing a kernel uses (issue #25,
 * observation 4).
 *
 * A diagnostics buffer is mapped with 'enter data' but the pass that would
 * use it is switched off, and the host pushes the reset field to the device
 * with 'target update' after the last kernel.  The fixes delete those
 * directives: a 'target update map(alloc: ...)' or an empty 'target enter
 * data' would not compile.
 */
#include <stdio.h>

#define N 4096
#define STEPS 4

static double field[N], scratch[N];

int main(int argc, char **argv)
{
	int diagnostics = argc > 1;
	double sum = 0;

	(void)argv;
	for (int i = 0; i < N; i++)
		field[i] = i % 7;
#pragma omp target enter data map(to: field[0:N])
	for (int s = 0; s < STEPS; s++) {
#pragma omp target teams distribute parallel for
		for (int i = 0; i < N; i++)
			field[i] = field[i] * 0.75 + 1.0;
	}
#pragma omp target update from(field[0:N])
	for (int i = 0; i < N; i++)
		sum += field[i];
#pragma omp target enter data map(alloc: scratch[0:N])
	if (diagnostics) {
#pragma omp target teams distribute parallel for
		for (int i = 0; i < N; i++)
			scratch[i] = field[i] * field[i];
	}
#pragma omp target exit data map(delete: scratch[0:N])
	for (int i = 0; i < N; i++)
		field[i] = 0;
#pragma omp target update to(field[0:N])
#pragma omp target exit data map(delete: field[0:N])
	printf("update_scratch: checksum=%.6f\n", sum);
	return 0;
}
