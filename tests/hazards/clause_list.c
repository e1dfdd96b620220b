/*
 * clause_list.c - one construct whose map clause lists three arrays, two
 * of which the kernel only reads: 'mass' and 'vel' come back unchanged,
 * 'pos' comes back changed.  The plan must retype both inputs, each out of
 * the list into a clause of its own ('map(tofrom: pos, mass, vel)' ->
 * 'map(to: vel) map(to: mass) map(tofrom: pos)'), and leave 'pos' alone:
 * the host reads it afterwards.
 */
#include <stdio.h>

#define N 8192

int main(void)
{
	static double pos[N], mass[N], vel[N];
	double sum = 0;

	for (int i = 0; i < N; i++) {
		pos[i] = i;
		mass[i] = 1.0 + i % 3;
		vel[i] = 0.5;
	}
#pragma omp target teams distribute parallel for map(tofrom: pos[0:N], mass[0:N], vel[0:N])
	for (int i = 0; i < N; i++)
		pos[i] += vel[i] / mass[i];
	for (int i = 0; i < N; i++)
		sum += pos[i] + mass[i] + vel[i];
	printf("clause_list: sum %.6f\n", sum);
	return 0;
}
