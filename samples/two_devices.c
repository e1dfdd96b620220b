/*
 * two_devices.c - the same computation offloaded to device(0) and device(1).
 *
 * The same target region runs once on each device.  Both devices receive
 * the whole input a (equal content, but different receiving devices: not a
 * duplicate); device d computes half d of the result r.
 *
 * Data operations (N = 2048, 4-byte elements; H = N / 2):
 *   per device d in {0, 1}:
 *     a            alloc 1, to_device 1 (8192 B, host -> d), delete 1
 *     r[d*H : H]   alloc 1, from_device 1 (4096 B, d -> host), delete 1
 *     kernel 1
 * Totals: alloc 4, to_device 2, from_device 2, delete 4, kernel 2.
 * Equal hashes: the two to_device of a (one per device).  The two halves
 * of r differ.
 */
#include <stdio.h>

#define N 2048
#define H (N / 2)

int main(void)
{
	static int a[N], r[N];
	long s = 0;

	for (int i = 0; i < N; i++)
		a[i] = i % 97;

	for (int d = 0; d < 2; d++) {
#pragma omp target device(d) map(to: a) map(from: r[d * H:H])
		for (int i = d * H; i < (d + 1) * H; i++)
			r[i] = a[i] * a[i] + i;
	}

	for (int i = 0; i < N; i++)
		s += r[i];
	printf("two_devices: checksum=%ld\n", s);
	return 0;
}
