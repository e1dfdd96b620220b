/*
 * hash.c - content hashes (see hash.h for the definition).
 *
 * XXH3-64 through libxxhash's runtime-dispatched entry point, which takes the
 * widest SIMD path the CPU has (AVX-512, AVX2, SSE2).
 *
 * Helpers: a few threads (one per core beyond the first, at most 3), started
 * at the first large transfer, that take chunks of pending jobs.  The thread
 * that owns a job also takes chunks when it finishes it, so a job completes
 * even if every helper is busy elsewhere.  Small buffers (< 2 chunks) are
 * hashed inline: waking a thread costs more than hashing them.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxh_x86dispatch.h>

#include "collector/collector.h"
#include "collector/hash.h"

#define MAX_HELPERS 3
#define INLINE_CHUNKS 64

struct hash_job {
	struct hash_job *next;        /* in the helpers' queue */
	const unsigned char *p;
	uint64_t n;
	uint32_t nchunks;
	_Atomic uint32_t next_chunk;  /* next chunk to take */
	int in_queue;                 /* under mu */
	int refs;                     /* helpers working on it, under mu */
	uint64_t *chunk_hash;
	uint64_t inline_hash[INLINE_CHUNKS];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
static struct hash_job *queue;
static int nhelpers = -1;  /* -1: not started */

static uint64_t chunk_len(const struct hash_job *j, uint32_t i)
{
	uint64_t off = (uint64_t)i * HASH_CHUNK_BYTES;
	return j->n - off < HASH_CHUNK_BYTES ? j->n - off : HASH_CHUNK_BYTES;
}

/* Take and hash chunks of j until none is left. */
static void work_on(struct hash_job *j)
{
	uint32_t i;
	while ((i = atomic_fetch_add_explicit(&j->next_chunk, 1, memory_order_relaxed)) < j->nchunks)
		j->chunk_hash[i] = XXH3_64bits_dispatch(j->p + (uint64_t)i * HASH_CHUNK_BYTES,
							 chunk_len(j, i));
}

/* Called with mu held. */
static void unqueue(struct hash_job *j)
{
	for (struct hash_job **pp = &queue; *pp; pp = &(*pp)->next) {
		if (*pp == j) {
			*pp = j->next;
			break;
		}
	}
	j->in_queue = 0;
}

/*
 * A helper holds a reference while it hashes chunks of a job; the owner frees
 * the job only when it left the queue and no helper holds it.  Every chunk
 * taken is hashed by whoever took it before it drops its reference, so then
 * every chunk is done.
 */
static void *helper_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		struct hash_job *j;
		while (!queue)
			pthread_cond_wait(&cv, &mu);
		j = queue;
		if (atomic_load_explicit(&j->next_chunk, memory_order_relaxed) >= j->nchunks) {
			unqueue(j);
			continue;
		}
		j->refs++;
		pthread_mutex_unlock(&mu);
		work_on(j);
		pthread_mutex_lock(&mu);
		if (--j->refs == 0)
			pthread_cond_broadcast(&cv);
	}
	return NULL;
}

/* Start the helpers once; called with mu held. */
static void start_helpers(void)
{
	long cores = sysconf(_SC_NPROCESSORS_ONLN);
	const char *env = getenv("MAPPROF_HASH_THREADS");
	sigset_t all, old;

	if (env && *env)
		cores = atol(env) + 1;

	nhelpers = 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (long i = 0; i < cores - 1 && i < MAX_HELPERS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, helper_main, NULL) == 0) {
			pthread_detach(t);
			nhelpers++;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static int job_init(struct hash_job *j, const void *p, uint64_t n)
{
	j->p = p;
	j->n = n;
	j->nchunks = (uint32_t)((n + HASH_CHUNK_BYTES - 1) / HASH_CHUNK_BYTES);
	atomic_init(&j->next_chunk, 0);
	j->in_queue = 0;
	j->refs = 0;
	j->chunk_hash = j->nchunks <= INLINE_CHUNKS ? j->inline_hash
		: malloc(j->nchunks * sizeof(uint64_t));
	return j->chunk_hash ? 0 : -1;
}

static void job_release(struct hash_job *j)
{
	if (j->chunk_hash != j->inline_hash)
		free(j->chunk_hash);
}

/* The hash of a job whose chunks are all hashed; releases its chunk array. */
static uint64_t job_result(struct hash_job *j)
{
	uint64_t h = XXH3_64bits_withSeed_dispatch(j->chunk_hash, j->nchunks * sizeof(uint64_t), j->n);
	job_release(j);
	return h;
}

uint64_t hash_bytes(const void *p, uint64_t n)
{
	struct hash_job j;

	if (n < HASH_CHUNK_BYTES)
		return XXH3_64bits_dispatch(p, (size_t)n);
	if (job_init(&j, p, n) < 0)
		return 0;
	work_on(&j);
	return job_result(&j);
}

struct hash_job *hash_start(const void *p, uint64_t n)
{
	struct hash_job *j;

	if (n < 2 * HASH_CHUNK_BYTES || nhelpers == 0)
		return NULL;
	j = malloc(sizeof(*j));
	if (!j || job_init(j, p, n) < 0) {
		free(j);
		return NULL;
	}
	pthread_mutex_lock(&mu);
	if (nhelpers < 0)
		start_helpers();
	if (nhelpers == 0) {
		pthread_mutex_unlock(&mu);
		job_release(j);
		free(j);
		return NULL;
	}
	j->in_queue = 1;
	j->next = queue;
	queue = j;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
	return j;
}

uint64_t hash_finish(struct hash_job *j)
{
	uint64_t h;

	work_on(j);
	pthread_mutex_lock(&mu);
	if (j->in_queue)
		unqueue(j);
	while (j->refs > 0)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	h = job_result(j);
	free(j);
	return h;
}

uint64_t hash_parallel(const void *p, uint64_t n)
{
	struct hash_job *j = hash_start(p, n);
	return j ? hash_finish(j) : hash_bytes(p, n);
}
