/* lost_host_write, heap section in a 'target data' region: the host writes between two kernels. */
// expect: lost_host_write a[0:N] 16
#include <stdio.h>
#include <stdlib.h>
#define N 1000
int main(void)
{
	int *a = malloc(N * sizeof(int));
	for (int i = 0; i < N; i++)
		a[i] = i % 100;
	#pragma omp target data map(tofrom: a[0:N]) // <- bug
	{
		#pragma omp target
		for (int i = 0; i < N; i++)
			a[i] += 1;
		for (int i = 10; i < 14; i++)
			a[i] = -1;
#ifdef FIXED
		#pragma omp target update to(a[10:4])
#endif
		#pragma omp target
		for (int i = 0; i < N; i++)
			a[i] += 1;
	}
	printf("%d\n", a[10]);
	free(a);
	return 0;
}
