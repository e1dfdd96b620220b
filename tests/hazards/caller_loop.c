/*
 * caller_loop.c - the construct sits in a function; the loop that repeats
 * it is in the caller, and the data is a struct member.
 */
#include <stdio.h>

#define N 2048

struct grid {
	int n;
	double *v;
	double norm;
};

static void relax(struct grid *g, const double *rhs)
{
	double *v = g->v, norm = 0;
	int n = g->n;

#pragma omp target teams distribute parallel for map(tofrom: v[0:n]) map(to: rhs[0:n]) reduction(+: norm)
	for (int i = 0; i < n; i++) {
		v[i] = 0.5 * (v[i] + rhs[i]);
		norm += v[i];
	}
	g->norm = norm;
}

int main(void)
{
	static double data[N], rhs[N];
	struct grid g = { N, data, 0 };
	double sum = 0;

	for (int i = 0; i < N; i++)
		rhs[i] = i % 17;
	for (int it = 0; it < 20; it++) {
		relax(&g, rhs);
		sum += g.norm;
	}
	printf("caller_loop: sum=%.6f v3=%.6f\n", sum, g.v[3]);
	return 0;
}
