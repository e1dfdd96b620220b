/*
 * test_hash.c - the collector's content hash: one piece below one chunk
 * (XXH3-64, or aeshash from 4 KiB where the CPU has AES instructions, its
 * portable build as the reference), the documented chunked hash above, and the same value whether computed on
 * one thread or split across helper threads, while the buffer is being
 * copied, with many jobs in flight from several threads, after a cancelled
 * job and in a forked child.  Also which devices' memory counts as host
 * memory.  Runs with three helpers (more than the cores of a small machine)
 * unless MAPPROF_HASH_THREADS says otherwise.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xxhash.h>

#include "collector/aeshash.h"
#include "collector/hash.h"
#include "check.h"

/* k chunks past the smallest buffer helpers take part in: a job, not inline. */
#define JOB(k) (HASH_HELPER_MIN_BYTES + (k) * HASH_CHUNK_BYTES)

static unsigned char *filled(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 2654435761u) >> 13 ^ seed);
	return p;
}

/* One piece, as hash.h defines it (aeshash's portable build: no AES instructions). */
static uint64_t piece(const unsigned char *p, uint64_t n)
{
	if (hash_function() == HASH_FUNCTION_AES && n >= HASH_AES_MIN_BYTES)
		return aeshash_portable(p, n);
	return XXH3_64bits(p, n);
}

/* The definition in hash.h, written out independently. */
static uint64_t reference(const unsigned char *p, uint64_t n)
{
	if (n < HASH_CHUNK_BYTES)
		return piece(p, n);
	uint64_t nchunks = (n + HASH_CHUNK_BYTES - 1) / HASH_CHUNK_BYTES;
	unsigned char *le = malloc(nchunks * 8);
	for (uint64_t i = 0; i < nchunks; i++) {
		uint64_t off = i * HASH_CHUNK_BYTES;
		uint64_t h = piece(p + off, n - off < HASH_CHUNK_BYTES ? n - off : HASH_CHUNK_BYTES);
		for (int b = 0; b < 8; b++)
			le[i * 8 + b] = (unsigned char)(h >> (8 * b));
	}
	uint64_t h = XXH3_64bits_withSeed(le, nchunks * 8, n);
	free(le);
	return h;
}

static void test_small_is_one_piece(void)
{
	unsigned char *p = filled(HASH_CHUNK_BYTES, 1);
	static const uint64_t sizes[] = { 0, 1, 8, 240, 241, HASH_AES_MIN_BYTES - 1, HASH_AES_MIN_BYTES,
					  HASH_AES_MIN_BYTES + 17, HASH_CHUNK_BYTES - 1 };
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		CHECK(hash_bytes(p, sizes[i]) == piece(p, sizes[i]));
		CHECK(hash_parallel(p, sizes[i]) == piece(p, sizes[i]));
		if (sizes[i] < HASH_AES_MIN_BYTES)
			CHECK(hash_bytes(p, sizes[i]) == XXH3_64bits(p, sizes[i]));
	}
	/* Where the CPU has AES instructions, they are used (this VM and GPU hosts have them). */
	printf("  hash_function %d, aeshash build %s\n", hash_function(), aeshash_impl());
	if (strcmp(aeshash_impl(), "portable"))
		CHECK(hash_function() == HASH_FUNCTION_AES || getenv("MAPPROF_HASH"));
	free(p);
}

static void test_large_matches_definition(void)
{
	static const uint64_t sizes[] = {
		HASH_CHUNK_BYTES, HASH_CHUNK_BYTES + 1, 2 * HASH_CHUNK_BYTES,
		5 * HASH_CHUNK_BYTES + 12345, JOB(3) + 17, 300 * HASH_CHUNK_BYTES + 3,  /* > inline chunk array */
		64 * HASH_CHUNK_BYTES, 64 * HASH_CHUNK_BYTES + 1,  /* hash_bytes()'s batch of chunk hashes */
		HASH_STREAMING_BYTES - 1, HASH_STREAMING_BYTES, HASH_STREAMING_BYTES + 4097,
	};
	unsigned char *p = filled(301 * HASH_CHUNK_BYTES, 2);
	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint64_t want = reference(p, sizes[i]);
		CHECK(hash_bytes(p, sizes[i]) == want);
		CHECK(hash_parallel(p, sizes[i]) == want);
		struct hash_job *j = hash_start(p, sizes[i]);
		if (j)
			CHECK(hash_finish(j) == want);
	}
	/* A chunk hashed alone (write tracking's re-hash) as within its buffer, read from memory or not. */
	for (uint64_t n = HASH_STREAMING_BYTES - HASH_CHUNK_BYTES; n <= HASH_STREAMING_BYTES; n += HASH_CHUNK_BYTES)
		CHECK(hash_chunk(p, n + 5000, 3) == piece(p + 3 * HASH_CHUNK_BYTES, HASH_CHUNK_BYTES));
	free(p);
}

static void test_content_not_address(void)
{
	/* Equal bytes at different addresses hash equal; one changed byte differs. */
	size_t n = 3 * HASH_CHUNK_BYTES + 7;
	unsigned char *a = filled(n, 3), *b = filled(n, 3);
	CHECK(hash_parallel(a, n) == hash_parallel(b, n));
	b[2 * HASH_CHUNK_BYTES + 5] ^= 1;
	CHECK(hash_parallel(a, n) != hash_parallel(b, n));
	/* The size is part of the hash: a prefix differs from the whole. */
	CHECK(hash_bytes(a, n) != hash_bytes(a, n - 1));
	free(a);
	free(b);
}

static void test_many_jobs_in_flight(void)
{
	/* Several jobs started before any is finished, finished out of order. */
	enum { JOBS = 6 };
	size_t n = JOB(4) + 100;
	unsigned char *p[JOBS];
	struct hash_job *j[JOBS];
	for (int i = 0; i < JOBS; i++) {
		p[i] = filled(n, 10 + i);
		j[i] = hash_start(p[i], n);
	}
	for (int i = JOBS - 1; i >= 0; i--) {
		uint64_t got = j[i] ? hash_finish(j[i]) : hash_bytes(p[i], n);
		CHECK(got == reference(p[i], n));
		free(p[i]);
	}
}

static void test_sizes_around_thresholds(void)
{
	/* Inline below the job threshold, one job above; chunk edges either side. */
	static const uint64_t bases[] = { HASH_CHUNK_BYTES, 2 * HASH_CHUNK_BYTES, 3 * HASH_CHUNK_BYTES,
					  HASH_HELPER_MIN_BYTES, 2 * HASH_HELPER_MIN_BYTES };
	unsigned char *p = filled(2 * HASH_HELPER_MIN_BYTES + 2, 4);
	for (size_t b = 0; b < sizeof(bases) / sizeof(bases[0]); b++) {
		uint64_t base = bases[b];
		for (int d = -2; d <= 2; d++) {
			uint64_t n = base + d, want = reference(p, n);
			CHECK(hash_bytes(p, n) == want);
			CHECK(hash_parallel(p, n) == want);
			struct hash_job *j = hash_start(p, n);
			CHECK((j ? hash_finish(j) : hash_bytes(p, n)) == want);
		}
	}
	free(p);
}

static void test_hashed_while_copied(void)
{
	/* The collector's use: start on the source, copy it, finish. */
	size_t n = JOB(8) + 5;
	unsigned char *src = filled(n, 5), *dst = malloc(n);
	for (int r = 0; r < 20; r++) {
		src[r * 4099] ^= (unsigned char)r;
		uint64_t want = reference(src, n);
		struct hash_job *j = hash_start(src, n);
		memcpy(dst, src, n);
		CHECK((j ? hash_finish(j) : hash_bytes(src, n)) == want);
		CHECK(hash_parallel(dst, n) == want);
	}
	free(src);
	free(dst);
}

static void test_more_jobs_than_the_pool(void)
{
	/* 40 jobs in flight (the static pool holds fewer), some cancelled. */
	enum { JOBS = 40 };
	size_t n = JOB(2) + 1;
	unsigned char *p = filled(n + JOBS, 6);
	struct hash_job *j[JOBS];
	for (int i = 0; i < JOBS; i++)
		j[i] = hash_start(p + i, n);
	for (int i = 0; i < JOBS; i++) {
		if (i % 3 == 0) {
			if (j[i])
				hash_cancel(j[i]);
			continue;
		}
		CHECK((j[i] ? hash_finish(j[i]) : hash_bytes(p + i, n)) == reference(p + i, n));
	}
	/* Slots of finished and cancelled jobs are reused. */
	for (int i = 0; i < JOBS; i++)
		j[i] = hash_start(p + i, n);
	for (int i = 0; i < JOBS; i++)
		CHECK((j[i] ? hash_finish(j[i]) : hash_bytes(p + i, n)) == reference(p + i, n));
	free(p);
}

struct owner_arg {
	int seed;
	int failures;
};

static void *owner_main(void *arg)
{
	struct owner_arg *a = arg;
	size_t n = JOB(3) + (size_t)a->seed;
	unsigned char *p = filled(n, (unsigned)a->seed);
	uint64_t want = reference(p, n);
	for (int r = 0; r < 30; r++) {
		struct hash_job *j = hash_start(p, n);
		uint64_t got = j ? hash_finish(j) : hash_bytes(p, n);
		a->failures += got != want;
	}
	free(p);
	return NULL;
}

static void test_owners_on_several_threads(void)
{
	/* nowait regions: jobs owned by several threads at once share the helpers. */
	enum { OWNERS = 4 };
	pthread_t t[OWNERS];
	struct owner_arg a[OWNERS];
	for (int i = 0; i < OWNERS; i++) {
		a[i] = (struct owner_arg){ 20 + i, 0 };
		CHECK(pthread_create(&t[i], NULL, owner_main, &a[i]) == 0);
	}
	for (int i = 0; i < OWNERS; i++) {
		pthread_join(t[i], NULL);
		CHECK_INT(a[i].failures, 0);
	}
}

static void test_forked_child(void)
{
	/* A child forked while a job is in flight hashes on its own; the parent's job still ends. */
	size_t n = JOB(6) + 9;
	unsigned char *p = filled(n, 7);
	uint64_t want = reference(p, n);
	struct hash_job *j = hash_start(p, n);
	pid_t pid = fork();
	if (pid == 0) {
		struct hash_job *k = hash_start(p, n);
		int ok = (k ? hash_finish(k) : hash_bytes(p, n)) == want && hash_parallel(p, n) == want;
		_exit(ok ? 0 : 1);
	}
	CHECK(pid > 0);
	CHECK((j ? hash_finish(j) : hash_bytes(p, n)) == want);
	int status = -1;
	CHECK(waitpid(pid, &status, 0) == pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(p);
}

static void test_device_memory(void)
{
	/* By type: the LLVM host plugin's "devices" are host memory, GPUs are not. */
	unsetenv("MAPPROF_DEVICE_MEMORY_HOST");
	collector_device_note(0, "generic-64bit");
	collector_device_note(1, "sm_90");
	collector_device_note(2, NULL);
	collector_device_note(-1, "generic-64bit");
	collector_device_note(100000, "generic-64bit");
	CHECK(collector_device_host_addressable(0));
	CHECK(!collector_device_host_addressable(1));
	CHECK(!collector_device_host_addressable(2));
	CHECK(!collector_device_host_addressable(3));  /* never initialised */
	CHECK(!collector_device_host_addressable(-1));
	CHECK(!collector_device_host_addressable(100000));
	/* Copies back are hashed at their destination, host offload's too: at the op's end there. */
	CHECK(!collector_device_hash_during_copy(0));
	CHECK(!collector_device_hash_during_copy(1));
	CHECK(collector_device_copies_at_once(0));
	CHECK(!collector_device_copies_at_once(1));
	/* The environment overrides the type both ways; =1 hashes the device buffer during the copy. */
	setenv("MAPPROF_DEVICE_MEMORY_HOST", "1", 1);
	collector_device_note(1, "gfx942");
	CHECK(collector_device_host_addressable(1));
	CHECK(collector_device_hash_during_copy(1));
	CHECK(!collector_device_hash_during_copy(3));  /* never initialised */
	CHECK(!collector_device_copies_at_once(1));    /* a GPU's copies may still run at the op's end */
	setenv("MAPPROF_DEVICE_MEMORY_HOST", "0", 1);
	collector_device_note(0, "generic-64bit");
	CHECK(!collector_device_host_addressable(0));
	CHECK(!collector_device_hash_during_copy(0));
	CHECK(!collector_device_copies_at_once(0));    /* the GPU's path */
	unsetenv("MAPPROF_DEVICE_MEMORY_HOST");
	collector_device_note(0, "generic-64bit");
	CHECK(collector_device_host_addressable(0));
	CHECK(!collector_device_hash_during_copy(0));
}

int main(void)
{
	setenv("MAPPROF_HASH_THREADS", "3", 0);
	RUN(test_small_is_one_piece);
	RUN(test_large_matches_definition);
	RUN(test_content_not_address);
	RUN(test_many_jobs_in_flight);
	RUN(test_sizes_around_thresholds);
	RUN(test_hashed_while_copied);
	RUN(test_more_jobs_than_the_pool);
	RUN(test_owners_on_several_threads);
	RUN(test_forked_child);
	RUN(test_device_memory);
	return check_done();
}
