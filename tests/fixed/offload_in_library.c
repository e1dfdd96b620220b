/*
 * offload_in_library.c - the target region lives in a shared library
 * (samples/lib/offload_kernels.c, liboffload_kernels.so); main only calls
 * it.  Every data op and kernel below is attributed to the library.
 *
 * main calls lib_dot(x, y) and then lib_dot(x, z): x is unchanged, so its
 * second transfer (from the library's line) is a duplicate.
 *
 * Data operations (all on device 0; N = 1000, 8-byte elements, 8000 B):
 *   per call: x   alloc 1, to_device 1, delete 1
 *             y/z alloc 1, to_device 1, delete 1
 *             r[k] alloc 1, from_device 1 (8 B), delete 1
 *             kernel 1
 * Totals (2 calls): alloc 6, to_device 4, from_device 2, delete 6, kernel 2.
 * Equal hashes: the two to_device of x.  y, z and the two results differ.
 *
 * tests/fixed/offload_in_library.c: the fix a developer would make for the findings of
 * samples/offload_in_library.c (marked "The fix"; the comments above are the sample's).
 * tests/e2e/diff_samples.sh diffs the two.
 */
#include <stdio.h>

#define N 1000

/* From liboffload_kernels.so (samples/lib/offload_kernels.c). */
void lib_dot(const double *x, const double *y, double *out, int n);

int main(void)
{
	static double x[N], y[N], z[N];
	double r[2];

	for (int i = 0; i < N; i++) {
		x[i] = 1.0 + i % 10;
		y[i] = 0.5 * i;
		z[i] = 2.0;
	}

	/*
	 * The fix: x goes to the device once, for both calls; the library's
	 * map(to: x[0:n]) finds it present and sends nothing.
	 */
#pragma omp target data map(to: x)
	{
		lib_dot(x, y, &r[0], N);
		lib_dot(x, z, &r[1], N);
	}

	printf("offload_in_library: x.y=%.1f x.z=%.1f\n", r[0], r[1]);
	return 0;
}
