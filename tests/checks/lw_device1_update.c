/* lost_host_write on device 1, two devices: the host writes after 'update to', then 'update from'. */
// expect: lost_host_write x[0:N] 8
#include <stdio.h>
#include <omp.h>
#define N 512
int main(void)
{
	static long x[N], y[N];
	if (omp_get_num_devices() < 2)
		return 77;
	for (int i = 0; i < N; i++)
		x[i] = y[i] = i % 100;
	#pragma omp target enter data map(to: x[0:N]) device(1)
	#pragma omp target enter data map(to: y[0:N]) device(0)
	#pragma omp target device(1)
	for (int i = 0; i < N; i++)
		x[i] *= 2;
	x[7] = -1;
#ifdef FIXED
	#pragma omp target update to(x[7:1]) device(1)
#endif
	#pragma omp target update from(x[0:N]) device(1) // <- bug
	#pragma omp target exit data map(from: y[0:N]) device(0)
	#pragma omp target exit data map(delete: x[0:N]) device(1)
	printf("%ld %ld\n", x[7], y[1]);
	return 0;
}
