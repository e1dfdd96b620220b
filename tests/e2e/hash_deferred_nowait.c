/* A nowait 'target update from' with no construct end or delete after it: tests/e2e/hash_deferred.sh. */
#include <stdio.h>
#define N 4096
int main(void) {
	double a[N]; double s = 0;
	for (int i = 0; i < N; i++) a[i] = 0;
	#pragma omp target enter data map(to: a)
	for (int it = 0; it < 4; it++) {
		#pragma omp target nowait
		for (int i = 0; i < N; i++) a[i] = i * it;
		#pragma omp taskwait
		#pragma omp target update from(a) nowait
		#pragma omp taskwait
		for (int i = 0; i < N; i++) s += a[i];
	}
	/* A nowait kernel construct: clang calls __tgt_target_kernel with the nowait flag in its arguments. */
	double b[N];
	#pragma omp target map(from: b) nowait
	for (int i = 0; i < N; i++) b[i] = 2.0 * i;
	#pragma omp taskwait
	for (int i = 0; i < N; i++) s += b[i];
	#pragma omp target exit data map(delete: a)
	printf("%g\n", s);
	return 0;
}
