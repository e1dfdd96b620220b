/* race: a global sent nowait with 'depend'; the host's write needs a task depending on it too. */
// expect: race g 8
#include <stdio.h>
#include <unistd.h>
#define N 256
long g[N];
int main(void)
{
	for (int i = 0; i < N; i++)
		g[i] = i % 100;
	#pragma omp parallel
	#pragma omp single
	{
		#pragma omp target nowait map(to: g) depend(out: g) // <- bug
		{
			volatile long s = 0;
			for (long k = 0; k < 200000000; k++)
				s += 1;
			g[0] = s & 1;
		}
		usleep(30000);
#ifdef FIXED
		#pragma omp task depend(inout: g)
		g[9] = -1;
#else
		g[9] = -1;
#endif
		#pragma omp taskwait
	}
	printf("%ld\n", g[9]);
	return 0;
}
