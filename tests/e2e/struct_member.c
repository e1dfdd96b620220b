/* struct_member.c - tests/e2e/struct_member.sh: a struct with a pointer member mapped in a loop
 * (issue 26, item 13), a struct re-allocated each iteration, omp_target_memcpy from two call sites. */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#define N 4096
struct S { int n; double *v; };
static struct S s;
static void copies(double *dv, double *h, int from_a)
{
	if (from_a)
		omp_target_memcpy(dv, h, N * sizeof(double), 0, 0, 0, omp_get_initial_device());
	else
		omp_target_memcpy(dv, h, N * sizeof(double), 0, 0, 0, omp_get_initial_device());
}
int main(void)
{
	s.n = N;
	s.v = calloc(N, sizeof(double));
	for (int it = 0; it < 8; it++) {
#pragma omp target map(tofrom: s) map(tofrom: s.v[0:N])
		for (int i = 0; i < s.n; i++)
			s.v[i] += 1;
	}
	/* Re-allocated each iteration: another address each time. */
	for (int it = 0; it < 8; it++) {
		struct S *p = malloc(sizeof *p);
		p->n = N;
		p->v = calloc(N, sizeof(double));
#pragma omp target map(tofrom: p[0:1]) map(tofrom: p->v[0:N])
		for (int i = 0; i < p->n; i++)
			p->v[i] += 1;
		free(p->v);
		free(p);
	}
	double *h = malloc(N * sizeof(double));
	for (int i = 0; i < N; i++)
		h[i] = i;
	for (int it = 0; it < 4; it++) {
		double *dv = omp_target_alloc(N * sizeof(double), 0);
		copies(dv, h, 1);
		copies(dv, h, 0);
		omp_target_free(dv, 0);
	}
	printf("%g\n", s.v[5]);
	return 0;
}
