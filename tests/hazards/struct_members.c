/*
 * struct_members.c - two members of one struct in one map clause: the
 * kernel changes 's.a' and only reads 's.b'.  A plan that retypes 's.b'
 * must tell the members apart (both start with 's'): 'map(tofrom: s.a,
 * s.b)' -> 'map(to: s.b) map(tofrom: s.a)', never 's.a' mapped 'to' (the
 * device's results would be lost).
 */
#include <stdio.h>

#define N 4096

static struct {
	double a[N], b[N];
} s;

int main(void)
{
	double sum = 0;

	for (int i = 0; i < N; i++) {
		s.a[i] = i;
		s.b[i] = 2;
	}
#pragma omp target teams distribute parallel for map(tofrom: s.a[0:N], s.b[0:N])
	for (int i = 0; i < N; i++)
		s.a[i] *= s.b[i];
	for (int i = 0; i < N; i++)
		sum += s.a[i] + s.b[i];
	printf("struct_members: sum %.6f\n", sum);
	return 0;
}
