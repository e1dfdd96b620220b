/*
 * attach_moves.c - two structs whose pointer members the host turns
 * between two buffers each, all mapped once; a construct in a loop maps the
 * members' pointees: the runtime attaches a pointer again whenever the
 * host's pointer holds another address, though nothing is mapped anew.
 * tests/e2e/attach_moves.sh.
 */
#include <stdio.h>

#define N 2048
#define STEPS 8

struct S {
	int n;
	double *v;
};

static struct S p, q;
static double a0[N], a1[N], b0[N], b1[N];

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++)
		a0[i] = i, a1[i] = 2 * i, b0[i] = 3 * i, b1[i] = 4 * i;
	p.v = a0;
	q.v = b0;
#pragma omp target enter data map(to: p, q, a0, a1, b0, b1)
	p.n = q.n = N;   /* host only: the kernel reads no n */
	for (int it = 0; it < STEPS; it++) {
		if (it % 2)
			p.v = p.v == a0 ? a1 : a0;
		else
			q.v = q.v == b0 ? b1 : b0;
#pragma omp target map(to: p.v[0:N], q.v[0:N]) map(tofrom: sum)
		sum += p.v[1] + q.v[2];
	}
#pragma omp target exit data map(delete: p, q, a0, a1, b0, b1)
	printf("%g\n", sum);
	return 0;
}
