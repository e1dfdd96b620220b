/* never_written, a section of a stack array: 'enter data alloc', 'exit data from' the section. */
// expect: never_written b[100:200] 400
#include <stdio.h>
#define N 1000
int main(void)
{
	double b[N];
	for (int i = 0; i < N; i++)
		b[i] = 1;
#ifdef FIXED
	#pragma omp target enter data map(to: b[100:200])
#else
	#pragma omp target enter data map(alloc: b[100:200])
#endif
	#pragma omp target
	for (int i = 100; i < 250; i++)
		b[i] = i;
	#pragma omp target exit data map(from: b[100:200]) // <- bug
	printf("%g\n", b[299]);
	return 0;
}
