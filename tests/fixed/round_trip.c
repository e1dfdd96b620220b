/*
 * round_trip.c - data comes back to where it came from, unchanged.
 *
 * Part 1 is the paper's Listing 2: a kernel called in a loop (4 times) with
 * no target data region around the loop, so a is implicitly mapped tofrom
 * on every call.  What comes back from the device at the end of call k is
 * sent, unmodified, to the device at the start of call k+1: a device->host->
 * device round trip, 3 times.  a is also allocated and deleted 4 times.
 * Part 2 is the classic host->device->host trip: b is mapped tofrom, the
 * kernel only reads it (scale == 1), and b comes back unchanged.
 *
 * Data operations (all on device 0; N = 512, 4-byte elements, 2048 B each):
 *   part 1, 4 times: a  alloc 1, to_device 1, from_device 1, delete 1
 *                    kernel 1
 *   part 2:          b  alloc 1, to_device 1, from_device 1, delete 1
 *                    kernel 1
 * Totals: alloc 5, to_device 5, from_device 5, delete 5, kernel 5.
 * Equal hashes: from_device of a in call k == to_device of a in call k+1
 * (k = 1..3); b's to_device == b's from_device.  a's contents are 0, j, 2j,
 * 3j, 4j over the calls, so no two to_device of a are equal.
 *
 * tests/fixed/round_trip.c: the fix a developer would make for the findings of
 * samples/round_trip.c (marked "The fix"; the comments above are the sample's).
 * tests/e2e/diff_samples.sh diffs the two.
 */
#include <stdio.h>

#define N 512
#define CALLS 4

int main(void)
{
	int a[N] = { 0 }, b[N];
	int scale = 1;
	long s = 0;

	/* The fix: a stays on the device across the calls. */
#pragma omp target data map(tofrom: a)
	for (int i = 0; i < CALLS; i++) {
		/* a is present now: the implicit map(tofrom: a) moves nothing. */
#pragma omp target parallel for
		for (int j = 0; j < N; j++)
			a[j] += j;
	}

	for (int j = 0; j < N; j++)
		b[j] = 3 * j + 1;
	/* b goes out and comes back, but scale is 1: nothing changed. */
#pragma omp target parallel for map(tofrom: b)
	for (int j = 0; j < N; j++)
		if (scale != 1)
			b[j] *= scale;

	for (int j = 0; j < N; j++)
		s += a[j] + b[j];
	printf("round_trip: checksum=%ld\n", s);
	return 0;
}
