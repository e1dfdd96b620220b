/*
 * duplicate_transfer.c - the device receives content it already has.
 *
 * Part 1 is the paper's Listing 1: two separate target regions each
 * map(to:) the same, unchanged array a, so the second transfer of a is a
 * duplicate (a target data region around both would send it once).  a is
 * also allocated and deleted twice at the same host address.
 * Part 2: two DIFFERENT zero-filled arrays x and y of the same size are both
 * sent to the device: equal content, different variables.
 *
 * Data operations (all on device 0; N = 1024, 4-byte elements):
 *   region 1: a     alloc 1, to_device 1 (4096 B), delete 1
 *             sum   alloc 1, to_device 1 (4 B, =0), from_device 1, delete 1
 *   region 2: a     alloc 1, to_device 1 (same hash as region 1), delete 1
 *             prod  alloc 1, to_device 1 (4 B, =1), from_device 1, delete 1
 *   region 3: x     alloc 1, to_device 1 (4096 zero bytes), delete 1
 *             y     alloc 1, to_device 1 (same hash as x), delete 1
 *             zeros alloc 1, from_device 1 (4 B, =2048), delete 1
 *   kernels 3.
 * Totals: alloc 7, to_device 6, from_device 3, delete 7, kernel 3.
 * Equal hashes: a's two transfers; x and y.  No other pair is equal (the
 * results sum=3070, prod (odd) and zeros=2048 differ from 0 and 1).
 *
 * tests/fixed/duplicate_transfer.c: the fix a developer would make for the findings of
 * samples/duplicate_transfer.c (marked "The fix"; the comments above are the sample's).
 * tests/e2e/diff_samples.sh diffs the two.
 */
#include <stdio.h>

#define N 1024

static unsigned a[N];
static int x[N], y[N];	/* zero-initialised, never written */

int main(void)
{
	unsigned sum = 0, prod = 1;
	int zeros;

	for (int i = 0; i < N; i++)
		a[i] = 1 + 2 * (i % 3);	/* odd: the product never wraps to 0 */

	/* The fix: a goes to the device once, for both regions. */
#pragma omp target data map(to: a)
	{
		/* Part 1: a is present, this region sends nothing ... */
#pragma omp target map(to: a) map(tofrom: sum)
#pragma omp parallel for reduction(+: sum)
		for (int i = 0; i < N; i++)
			sum += a[i];

		/* ... nor this one (unsigned: the product wraps mod 2^32). */
#pragma omp target map(to: a) map(tofrom: prod)
#pragma omp parallel for reduction(*: prod)
		for (int i = 0; i < N; i++)
			prod *= a[i];
	}

	/* Part 2: two variables, one content. */
#pragma omp target map(to: x, y) map(from: zeros)
	{
		int c = 0;
		for (int i = 0; i < N; i++)
			c += (x[i] == 0) + (y[i] == 0);
		zeros = c;
	}

	printf("duplicate_transfer: sum=%u prod=%u zeros=%d\n", sum, prod, zeros);
	return 0;
}
