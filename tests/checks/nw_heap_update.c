/* never_written, heap data: 'enter data alloc', a kernel writing half, 'update from' all of it. */
// expect: never_written a[0:N] 2000
#include <stdio.h>
#include <stdlib.h>
#define N 1000
int main(void)
{
	int *a = calloc(N, sizeof(int));
	#pragma omp target enter data map(alloc: a[0:N])
	#pragma omp target
	for (int i = 0; i < N / 2; i++)
		a[i] = i % 100;
#ifdef FIXED
	#pragma omp target update from(a[0:N / 2])
#else
	#pragma omp target update from(a[0:N]) // <- bug
#endif
	#pragma omp target exit data map(delete: a[0:N])
	printf("%d\n", a[N - 1]);
	free(a);
	return 0;
}
