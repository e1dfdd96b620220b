/*
 * exit_from.c - data kept by enter/exit data; after the last kernel the
 * host changes the array and pushes it with 'target update', and the
 * 'exit data' brings the device copy back.  The update reaches no kernel,
 * but deleting it would bring back the older device copy.
 */
#include <stdio.h>

#define N 1024

int main(void)
{
	static int a[N];
	long sum = 0;

	for (int i = 0; i < N; i++)
		a[i] = i;
#pragma omp target enter data map(to: a[0:N])
#pragma omp target teams distribute parallel for
	for (int i = 0; i < N; i++)
		a[i] *= 3;
#pragma omp target update from(a[0:N])
	for (int i = 0; i < N; i += 2)
		a[i] = -a[i];
#pragma omp target update to(a[0:N])
#pragma omp target exit data map(from: a[0:N])
	for (int i = 0; i < N; i++)
		sum += a[i] * (i % 5);
	printf("exit_from: checksum=%ld\n", sum);
	return 0;
}
