/*
 * unrolled_loop.c - target constructs in a loop the compiler unrolls: four
 * call sites of the runtime for each directive, with the same file, line
 * and column.  Its findings are those of the loop kept rolled
 * (tests/e2e/findings_per_directive.sh), each listing its call sites; a
 * region a plan puts around the loop goes above its hint.
 */
#include <stdio.h>

#define N 4096

static double a[N], b[N];

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++) {
		a[i] = i;
		b[i] = 0.5 * i;
	}
#pragma clang loop unroll(full)
	// four passes (a comment between the loop hint and its loop)
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: a[0:N]) map(to: b[0:N])
		for (int i = 0; i < N; i++)
			a[i] += b[i];
	}
	for (int i = 0; i < N; i++)
		sum += a[i];
	printf("%.1f\n", sum);
	return 0;
}
