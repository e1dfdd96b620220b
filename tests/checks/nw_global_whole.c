/* never_written, a global array mapped 'from' whole: the kernel leaves its last 10 ints. */
// expect: never_written a 40
#include <stdio.h>
#define N 1000
int a[N];
int main(void)
{
#ifdef FIXED
	int n = N;
#else
	int n = N - 10;
#endif
	#pragma omp target map(from: a) // <- bug
	for (int i = 0; i < n; i++)
		a[i] = i % 100;
	printf("%d\n", a[N - 1]);
	return 0;
}
