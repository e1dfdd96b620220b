/*
 * unused_alloc.c - device memory that no kernel ever uses.
 *
 * A normal target region computes a sum of a.  After it, "target enter
 * data map(alloc:)" / "target exit data map(delete:)" allocate and free a
 * device copy of spare; no kernel runs while it exists (no kernel runs on
 * the device at all after it is allocated), so the allocation is unused.
 *
 * Data operations (all on device 0; N = 2048, 4-byte elements):
 *   target region: a     alloc 1, to_device 1 (8192 B), delete 1
 *                  s     alloc 1, from_device 1 (8 B), delete 1
 *                  kernel 1
 *   enter/exit data: spare alloc 1 (8192 B), delete 1
 * Totals: alloc 3, to_device 1, from_device 1, delete 3, kernel 1.
 * Equal hashes: none.
 *
 * tests/fixed/unused_alloc.c: the fix a developer would make for the findings of
 * samples/unused_alloc.c (marked "The fix"; the comments above are the sample's).
 * tests/e2e/diff_samples.sh diffs the two.
 */
#include <stdio.h>

#define N 2048

int main(void)
{
	static int a[N], spare[N];
	long s;

	for (int i = 0; i < N; i++)
		a[i] = i;

#pragma omp target map(to: a) map(from: s)
	{
		long t = 0;
		for (int i = 0; i < N; i++)
			t += a[i];
		s = t;
	}

	/* The fix: no device copy of spare (no kernel used it). */
	for (int i = 0; i < N; i++)
		spare[i] = i;	/* host-only work while the copy exists */

	printf("unused_alloc: sum=%ld spare[7]=%d\n", s, spare[7]);
	return 0;
}
