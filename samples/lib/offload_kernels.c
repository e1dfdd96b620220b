/*
 * offload_kernels.c - the offload code of offload_in_library: a shared
 * library (build/samples/liboffload_kernels.so) that holds the target
 * region, so its data ops and kernel come from code outside the main binary.
 *
 * lib_dot() runs one target region on device 0 with these data operations:
 *   x         alloc 1, to_device 1 (n * 8 B), delete 1
 *   y         alloc 1, to_device 1 (n * 8 B), delete 1
 *   out[0:1]  alloc 1, from_device 1 (8 B), delete 1
 *   kernel 1
 */

/* *out = the dot product of x[0:n] and y[0:n], computed on device 0. */
void lib_dot(const double *x, const double *y, double *out, int n)
{
#pragma omp target map(to: x[0:n], y[0:n]) map(from: out[0:1])
	{
		double s = 0;
		for (int i = 0; i < n; i++)
			s += x[i] * y[i];
		out[0] = s;
	}
}
