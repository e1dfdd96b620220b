/*
 * hash_bench.c - throughput of the collector's content hash on 4 KiB, 1 MiB
 * and 256 MiB buffers (GB/s = 1e9 bytes per second), then what hashing adds
 * to a copy the way the collector schedules it: an 8 MiB memcpy alone, with
 * the source hashed during the copy (hash_start before, hash_finish after:
 * to-device transfers, and from-device ones when device memory is host
 * memory), and with the destination hashed after it (hash_parallel: other
 * from-device transfers).  Medians of interleaved runs, in microseconds.
 * Then each aeshash build the CPU has, over 16 KiB pieces (as hash_bytes()
 * takes them) of a 1 MiB buffer in cache and a 64 MiB one read from memory:
 * which build aeshash() and aeshash_streaming() should use (aeshash.c).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "collector/aeshash.h"
#include "collector/hash.h"

#if defined(MAPPROF_XXH3_X86)
uint64_t mapprof_aeshash_aesni(const void *p, size_t n);
uint64_t mapprof_aeshash_vaes256(const void *p, size_t n);
uint64_t mapprof_aeshash_vaes512(const void *p, size_t n);
#endif

static double secs(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void throughput(void)
{
	static const size_t sizes[] = { 4096, 1 << 20, (size_t)256 << 20 };
	unsigned char *buf = malloc(sizes[2]);
	uint64_t sink = 0;

	if (!buf)
		return;
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
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

enum { COPY_ALONE, HASH_DURING, HASH_AFTER, MODES, ROUNDS = 200 };

static void overlap(size_t n)
{
	static const char *names[MODES] = { "alone", "+ hash during", "+ hash after" };
	unsigned char *src = malloc(n), *dst = malloc(n);
	static double us[MODES][ROUNDS];
	uint64_t sink = 0;

	if (!src || !dst)
		return;
	memset(src, 1, n);
	memset(dst, 2, n);
	for (int r = 0; r < ROUNDS; r++) {
		for (int m = 0; m < MODES; m++) {
			struct hash_job *j = NULL;
			double t0 = secs();
			src[r] = (unsigned char)r;
			if (m == HASH_DURING)
				j = hash_start(src, n);
			memcpy(dst, src, n);
			if (m == HASH_DURING)
				sink += j ? hash_finish(j) : hash_bytes(src, n);
			else if (m == HASH_AFTER)
				sink += hash_parallel(dst, n);
			us[m][r] = (secs() - t0) * 1e6;
		}
	}
	for (int m = 0; m < MODES; m++) {
		qsort(us[m], ROUNDS, sizeof(double), cmp_double);
		printf("copy %zuMiB %-14s %7.0f us", n >> 20, names[m], us[m][ROUNDS / 2]);
		if (m != COPY_ALONE)
			printf(" (%+.0f%%)", 100 * (us[m][ROUNDS / 2] / us[COPY_ALONE][ROUNDS / 2] - 1));
		printf("\n");
	}
	fprintf(stderr, "(checksum %llx)\n", (unsigned long long)sink);
	free(src);
	free(dst);
}

static void builds(void)
{
#if defined(MAPPROF_XXH3_X86)
	static const struct {
		const char *name;
		uint64_t (*f)(const void *, size_t);
	} b[] = {
		{ "aesni", mapprof_aeshash_aesni },
		{ "vaes256", mapprof_aeshash_vaes256 },
		{ "vaes512", mapprof_aeshash_vaes512 },
	};
	enum { NB = 3, REPS = 21 };
	const int have[NB] = {
		__builtin_cpu_supports("aes") && __builtin_cpu_supports("sse4.1"),
		__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx2"),
		__builtin_cpu_supports("vaes") && __builtin_cpu_supports("avx512f"),
	};
	static const size_t sizes[] = { (size_t)1 << 20, (size_t)64 << 20 };
	unsigned char *buf = malloc(sizes[1]);
	static double t[NB][REPS];
	uint64_t sink = 0;

	if (!buf)
		return;
	memset(buf, 5, sizes[1]);
	printf("aeshash in use: %s, for buffers from %llu MiB: %s\n", aeshash_impl(),
	       (unsigned long long)(HASH_STREAMING_BYTES >> 20), aeshash_streaming_impl());
	for (int s = 0; s < 2; s++) {
		size_t n = sizes[s];
		/* Interleaved: each round runs every build once. */
		for (int r = 0; r < REPS; r++)
			for (int k = 0; k < NB; k++) {
				if (!have[k])
					continue;
				double t0 = secs();
				for (size_t off = 0; off < n; off += HASH_CHUNK_BYTES)
					sink += b[k].f(buf + off, HASH_CHUNK_BYTES);
				t[k][r] = secs() - t0;
			}
		for (int k = 0; k < NB; k++) {
			if (!have[k])
				continue;
			qsort(t[k], REPS, sizeof(double), cmp_double);
			printf("aeshash %-8s %-6s %6.1f GB/s\n", b[k].name, s ? "64MiB" : "1MiB",
			       (double)n / t[k][REPS / 2] / 1e9);
		}
	}
	fprintf(stderr, "(checksum %llx)\n", (unsigned long long)sink);
	free(buf);
#endif
}

int main(int argc, char **argv)
{
	/* The helper measured below: one, whatever else runs on the machine. */
	setenv("MAPPROF_HASH_THREADS", "1", 0);
	if (argc < 2 || strcmp(argv[1], "--overlap-only"))
		throughput();
	overlap((size_t)8 << 20);
	if (argc < 2 || strcmp(argv[1], "--overlap-only"))
		builds();
	return 0;
}
