/* race: the host writes the source of a nowait copy to the device before its task completes. */
// expect: race a[0:1000] 4
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#define N 1000
int main(void)
{
	int *a = malloc(N * sizeof(int));
	for (int i = 0; i < N; i++)
		a[i] = i % 100;
	#pragma omp target nowait map(to: a[0:1000]) depend(inout: a[0]) // <- bug
	{
		volatile long s = 0;
		for (long k = 0; k < 200000000; k++)
			s += 1;
		a[0] = (int)(s & 1);
	}
	usleep(30000);  /* the copy has started; the kernel is still running */
#ifdef FIXED
	#pragma omp taskwait
#endif
	a[3] = -1;
	#pragma omp taskwait
	printf("%d\n", a[3]);
	free(a);
	return 0;
}
