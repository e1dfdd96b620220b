/* lost_host_write, a global array: 'enter data to', the host writes one element, 'exit data from'. */
// expect: lost_host_write a 4
#include <stdio.h>
#define N 1000
int a[N];
int main(void)
{
	for (int i = 0; i < N; i++)
		a[i] = i % 100;
	#pragma omp target enter data map(to: a)
	#pragma omp target
	for (int i = 0; i < N; i++)
		a[i] += 1;
	a[5] = -1;
#ifdef FIXED
	#pragma omp target update to(a[5:1])
#endif
	#pragma omp target exit data map(from: a) // <- bug
	printf("%d\n", a[5]);
	return 0;
}
