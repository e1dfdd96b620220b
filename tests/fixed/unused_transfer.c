/*
 * unused_transfer.c - transfers to the device that no kernel could read.
 *
 * a is allocated once on the device (enter data map(alloc:)).  It is sent
 * with "target update to" (v1), then changed on the host and sent again
 * (v2) before any kernel ran, so the first transfer was overwritten unused.
 * One kernel reads v2.  Then a is changed and sent a third time (v3), after
 * the device's last kernel, so that transfer is unused too.
 *
 * Data operations (all on device 0; N = 1024, 4-byte elements):
 *   enter data:      a  alloc 1 (4096 B)
 *   update to (v1):  a  to_device 1   <- overwritten before any kernel
 *   update to (v2):  a  to_device 1
 *   target region:   a  already present: no data op
 *                    s  alloc 1, from_device 1 (8 B), delete 1
 *                    kernel 1
 *   update to (v3):  a  to_device 1   <- after the last kernel
 *   exit data:       a  delete 1
 * Totals: alloc 2, to_device 3, from_device 1, delete 2, kernel 1.
 * Equal hashes: none (v1, v2, v3 differ).
 *
 * tests/fixed/unused_transfer.c: the fix a developer would make for the findings of
 * samples/unused_transfer.c (marked "The fix"; the comments above are the sample's).
 * tests/e2e/diff_samples.sh diffs the two.
 */
#include <stdio.h>

#define N 1024

static void fill(int *a, int v)
{
	for (int i = 0; i < N; i++)
		a[i] = v * i + v;
}

int main(void)
{
	static int a[N];
	long s;

#pragma omp target enter data map(alloc: a)
	fill(a, 2);
#pragma omp target update to(a)		/* v2: read by the kernel */

	/* a is present: map(alloc:) only takes a reference, moves nothing. */
#pragma omp target map(alloc: a) map(from: s)
	{
		long t = 0;
		for (int i = 0; i < N; i++)
			t += a[i];
		s = t;
	}

	fill(a, 3);
	/* The fix: v3 is no longer sent, no kernel would read it. */
#pragma omp target exit data map(delete: a)

	printf("unused_transfer: sum=%ld\n", s);
	return 0;
}
