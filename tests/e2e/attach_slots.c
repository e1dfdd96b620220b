/* attach_slots.c - tests/e2e/attach_slots.sh: structs mapped with their pointer members' pointees,
 * whose device copies get the pointees' device addresses ("attached" pointers). */
#include <stdio.h>
#include <stdlib.h>
#define N 8192  /* 64 KiB arrays: write tracking takes them (wtrack.h) */
#define M 4
struct S { int n; int k; double *v; };
static struct S s, w, l, c, o, a[M];
/* Large enough for write tracking (64 KiB), its pointer in its fifth 16 KiB hash chunk. */
static struct B { double pad[8192]; double *v; } big;

/* The kernel reads s and writes s.v[]: s comes back unchanged. */
static void reads_struct(void)
{
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: s) map(tofrom: s.v[0:N])
		for (int i = 0; i < s.n; i++)
			s.v[i] += 1;
	}
}

/* The kernel changes a scalar member of w: w comes back changed. */
static void writes_member(void)
{
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: w) map(tofrom: w.v[0:N])
		{
			for (int i = 0; i < w.n; i++)
				w.v[i] += 1;
			w.k += 1;
		}
	}
}

/* The pointee mapped from its second element: the runtime attaches the device address of o.v[0],
 * outside the buffer of o.v[1..N-1]. */
static void reads_struct_from_second(void)
{
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: o) map(tofrom: o.v[1:N-1])
		for (int i = 1; i < o.n; i++)
			o.v[i] += 1;
	}
}

/* An array of structs, each element's pointer attached: a comes back unchanged. */
static void reads_array(void)
{
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: a[0:M]) map(tofrom: a[0].v[0:N], a[1].v[0:N], a[2].v[0:N], a[3].v[0:N])
		for (int j = 0; j < M; j++)
			for (int i = 0; i < a[j].n; i++)
				a[j].v[i] += 1;
	}
}

/* A large struct, sent again and again unchanged: its hash never comes from write tracking. */
static void reads_large(void)
{
	for (int it = 0; it < 4; it++) {
#pragma omp target map(tofrom: big) map(tofrom: big.v[0:N])
		for (int i = 0; i < N; i++)
			big.v[i] += big.pad[i];
	}
}

/* The pointer attached by a later directive than the struct's copy. */
static void attaches_later(void)
{
#pragma omp target enter data map(to: l)
#pragma omp target enter data map(to: l.v[0:N])
#pragma omp target map(tofrom: l.v[0:N])
	for (int i = 0; i < N; i++)
		l.v[i] += 1;
#pragma omp target exit data map(from: l.v[0:N])
#pragma omp target exit data map(from: l)
}

/* The same, the device changing a member of c before the pointer is attached. */
static void attaches_later_changed(void)
{
#pragma omp target enter data map(to: c)
#pragma omp target
	c.k = 5;
#pragma omp target enter data map(to: c.v[0:N])
#pragma omp target map(tofrom: c.v[0:N])
	for (int i = 0; i < N; i++)
		c.v[i] += 2;
#pragma omp target exit data map(from: c.v[0:N])
#pragma omp target exit data map(from: c)
}

int main(void)
{
	double sum = 0;

	s.n = w.n = l.n = c.n = o.n = N;
	s.v = calloc(N, sizeof(double));
	w.v = calloc(N, sizeof(double));
	l.v = calloc(N, sizeof(double));
	c.v = calloc(N, sizeof(double));
	o.v = calloc(N, sizeof(double));
	big.v = calloc(N, sizeof(double));
	for (int i = 0; i < 8192; i++)
		big.pad[i] = 1;
	for (int j = 0; j < M; j++) {
		a[j].n = N;
		a[j].v = calloc(N, sizeof(double));
	}
	reads_struct();
	reads_struct_from_second();
	writes_member();
	reads_array();
	reads_large();
	attaches_later();
	attaches_later_changed();
	for (int j = 0; j < M; j++)
		sum += a[j].v[7];
	printf("%g %g %d %g %g %g %d %g %g %g\n", s.v[5], w.v[5], w.k, sum, l.v[3], big.v[9], c.k, c.v[3],
	       o.v[0], o.v[5]);
	return 0;
}
