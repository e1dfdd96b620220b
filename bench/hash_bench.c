/*
 * hash_bench.c - throughput of the collector's content hash on 4 KiB, 1 MiB
 * and 256 MiB buffers (GB/s = 1e9 bytes per second).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/collector.h"

static double secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(void)
{
	static const size_t sizes[] = { 4096, 1 << 20, (size_t)256 << 20 };
	unsigned char *buf = malloc(sizes[2]);
	uint64_t sink = 0;

	if (!buf)
		return 1;
	for (size_t i = 0; i < sizes[2]; i++)
		buf[i] = (unsigned char)(i * 131 + 7);
	for (int s = 0; s < 3; s++) {
		size_t n = sizes[s];
		/* About 2 GB of hashing per size, at least 4 passes. */
		long reps = (long)(2e9 / n) < 4 ? 4 : (long)(2e9 / n);
		double best = 1e30;
		for (int trial = 0; trial < 3; trial++) {
			double t0 = secs();
			for (long r = 0; r < reps; r++)
				sink += hash_bytes(buf + (r % 4) * (n < sizes[2] / 8 ? n : 0), n);
			double t = secs() - t0;
			if (t < best)
				best = t;
		}
		printf("hash %-8s %6.1f GB/s\n", s == 0 ? "4KiB" : s == 1 ? "1MiB" : "256MiB",
		       (double)n * reps / best / 1e9);
	}
	fprintf(stderr, "(checksum %llx)\n", (unsigned long long)sink);
	free(buf);
	return 0;
}
