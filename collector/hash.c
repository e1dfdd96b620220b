/*
 * hash.c - content hashes (see hash.h for the definition) and the helper
 * threads that compute them while the runtime copies.
 *
 * A piece (a chunk, or a whole buffer below a chunk) of HASH_AES_MIN_BYTES
 * or more goes through aeshash() (aeshash.h: AES rounds, 86-90 GB/s from
 * cache on the 2-core VM with VAES, against XXH3's 47-49 with AVX2) when the
 * CPU has AES instructions; shorter pieces, and every piece on CPUs without
 * them, through XXH3-64, from libxxhash's header compiled in: inputs up to
 * 240 bytes take its scalar path inline, longer ones the widest SIMD build
 * the CPU has (AVX-512, AVX2: xxh3_simd.c; SSE2 otherwise).  Both choices
 * come from what glibc already learned of the CPU at start-up (no cpuid,
 * which traps in a VM); the stats row hash_function says which definition a
 * recording used.  MAPPROF_HASH=xxh3 keeps to XXH3 on any CPU.
 *
 * Helpers: threads that take chunks of queued jobs, oldest job first,
 * started at the first large transfer.  The thread that owns a job takes the
 * chunks still left when the copy is over, so a job completes even if every
 * helper is busy elsewhere, and never costs much more than hashing inline.
 * How many: a job goes to as many helpers (at most 3, and fewer than the
 * cores this process may run on) as there are idle cores: those /proc/stat
 * shows idle over the last 100 ms.  While the program's threads compute or
 * spin (OpenMP threads between parallel regions, KMP_BLOCKTIME), or other
 * processes (the other ranks of an MPI job) take the cores, there are none,
 * and the job is hashed on the caller's thread.  Measured on 2 cores with
 * host offload (issue #15, bench/real): a helper on a core the program's
 * threads use took that core from them (a blocked LU ran 14% faster without
 * it).  Counting spinning OpenMP threads' cores as idle gained nothing once
 * the hash was aeshash (paired medians against no helpers: lud syn 1.010,
 * stream.naive 1.022, lu.naive 0.997) and sometimes tripled a run (lud syn
 * 0.6 s -> 1.7-2.0 s: the owner asleep in job_quiesce() while its helper
 * waited for a core).  On idle cores a helper hides the hash behind the
 * runtime's copy.  Helpers and owners never busy-wait: they sleep on a
 * condition variable, so a helper costs nothing while no job is queued.
 *
 * Below 1 MiB the bytes sit in the owner's cache and hashing them there
 * costs less than the hand-off (512 KiB transfers ran slower handed off).
 *
 * Jobs come from a small static pool: hashing allocates nothing from the
 * program's heap per transfer.  Whether the runtime's device buffers are
 * reused or freed to the system and page-faulted again on every map depends
 * on that heap's layout, and changing it changed transfer_heavy's time more
 * than hashing does.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#if defined(MAPPROF_XXH3_X86)
#include <sys/platform/x86.h>
#endif

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "collector/aeshash.h"
#include "collector/hash.h"

#if defined(MAPPROF_XXH3_X86)
uint64_t mapprof_xxh3_avx2(const void *p, size_t n);
uint64_t mapprof_xxh3_avx512(const void *p, size_t n);
#endif

static uint64_t xxh3_sse2(const void *p, size_t n)
{
	return XXH3_64bits(p, n);
}

static uint64_t (*xxh3_wide)(const void *, size_t) = xxh3_sse2;
static int use_aes;  /* HASH_FUNCTION_AES: pieces from HASH_AES_MIN_BYTES go through aeshash() */

__attribute__((constructor)) static void xxh3_pick(void)
{
	const char *force = getenv("MAPPROF_HASH");

#if defined(MAPPROF_XXH3_X86)
	if (CPU_FEATURE_ACTIVE(AVX512F))
		xxh3_wide = mapprof_xxh3_avx512;
	else if (CPU_FEATURE_ACTIVE(AVX2))
		xxh3_wide = mapprof_xxh3_avx2;
#endif
	use_aes = strcmp(aeshash_impl(), "portable") != 0 && !(force && !strcmp(force, "xxh3"));
}

int hash_function(void)
{
	return use_aes ? HASH_FUNCTION_AES : HASH_FUNCTION_XXH3;
}

/*
 * Feed a chunk hash to the streaming state.  Not inlined: inlined, gcc 12
 * follows the header's long-input branches with an 8-byte object and warns
 * (-Warray-bounds) about code that never runs.
 */
__attribute__((noinline)) static void xxh3_update(XXH3_state_t *st, const void *p, size_t n)
{
	XXH3_64bits_update(st, p, n);
}

/* XXH3-64 of p[0..n). */
static inline uint64_t xxh3(const void *p, size_t n)
{
	return n <= 240 ? XXH3_64bits(p, n) : xxh3_wide(p, n);
}

/*
 * The hash of one piece: a chunk, or a whole buffer below HASH_CHUNK_BYTES
 * (hash.h), of a total-byte buffer.  The same hash either way; the pieces of
 * a buffer of HASH_STREAMING_BYTES or more take the AES build that reads
 * memory fastest (aeshash.c), the others the one fastest in cache.
 */
static inline uint64_t piece(const void *p, size_t n, uint64_t total)
{
	if (!use_aes || n < HASH_AES_MIN_BYTES)
		return xxh3(p, n);
	return total >= HASH_STREAMING_BYTES ? aeshash_streaming(p, n) : aeshash(p, n);
}

#define MAX_HELPERS 3
/* Chunk hashes hash_bytes() combines at once (1 MiB of buffer, 512 bytes of stack: it may run
 * in a signal handler, on a small alternate stack). */
#define HASH_BATCH 64
#define INLINE_CHUNKS 256
#define POOL_JOBS 32

struct hash_job {
	struct hash_job *next;        /* in the queue, under mu */
	const unsigned char *p;
	uint64_t n;
	uint32_t nchunks;             /* 1 below HASH_CHUNK_BYTES: the whole buffer */
	_Atomic uint32_t next_chunk;  /* next chunk to take */
	_Atomic uint32_t busy;        /* helpers hashing chunks of it */
	int in_queue;                 /* under mu */
	int pool_slot;                /* -1: malloc'ed */
	uint64_t *chunk_hash;
	uint64_t inline_hash[INLINE_CHUNKS];
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER;  /* helpers wait for jobs */
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;  /* owners wait for helpers */
static struct hash_job *queue_head, *queue_tail;           /* under mu */
static int parked;               /* helpers waiting on work_cv, under mu */
static _Atomic int nhelpers = -1;  /* -1: not started */

static struct hash_job pool[POOL_JOBS];
static _Atomic uint32_t pool_used;  /* bit i: pool[i] is taken */

static _Atomic uint64_t bytes_read, bytes_reused;
static _Atomic uint64_t helper_busy_ns;  /* time helpers spent hashing */
static _Atomic uint64_t helper_bytes;    /* bytes they hashed */

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Take and hash chunks of j until none is left; the bytes hashed. */
static uint64_t work_on(struct hash_job *j)
{
	uint64_t bytes = 0;
	uint32_t i;
	while ((i = atomic_fetch_add_explicit(&j->next_chunk, 1, memory_order_relaxed)) < j->nchunks) {
		j->chunk_hash[i] = piece(j->p + (uint64_t)i * HASH_CHUNK_BYTES, hash_chunk_len(j->n, i), j->n);
		bytes += hash_chunk_len(j->n, i);
	}
	return bytes;
}

uint64_t hash_chunk(const void *p, uint64_t n, uint32_t i)
{
	uint64_t len = hash_chunk_len(n, i);

	atomic_fetch_add_explicit(&bytes_read, len, memory_order_relaxed);
	return piece((const unsigned char *)p + (uint64_t)i * HASH_CHUNK_BYTES, (size_t)len, n);
}

void hash_count_reused(uint64_t bytes)
{
	atomic_fetch_add_explicit(&bytes_reused, bytes, memory_order_relaxed);
}

int hash_helpers(uint64_t *bytes)
{
	int n = atomic_load_explicit(&nhelpers, memory_order_relaxed);
	*bytes = atomic_load_explicit(&helper_bytes, memory_order_relaxed);
	return n > 0 ? n : 0;
}

void hash_stats(uint64_t *read, uint64_t *reused)
{
	*read = atomic_load_explicit(&bytes_read, memory_order_relaxed);
	*reused = atomic_load_explicit(&bytes_reused, memory_order_relaxed);
}

static int chunks_left(struct hash_job *j)
{
	return atomic_load_explicit(&j->next_chunk, memory_order_relaxed) < j->nchunks;
}

/* Called with mu held. */
static void unqueue(struct hash_job *j)
{
	struct hash_job *prev = NULL;
	for (struct hash_job *q = queue_head; q; prev = q, q = q->next) {
		if (q == j) {
			if (prev)
				prev->next = j->next;
			else
				queue_head = j->next;
			if (queue_tail == j)
				queue_tail = prev;
			break;
		}
	}
	j->in_queue = 0;
}

/* The oldest queued job with chunks left, dropping finished ones; called with mu held. */
static struct hash_job *next_job(void)
{
	while (queue_head && !chunks_left(queue_head))
		unqueue(queue_head);
	return queue_head;
}

/*
 * A helper counts itself in j->busy while it hashes chunks of j, and stops
 * touching j once it has counted itself out; the owner frees j only when j
 * left the queue and busy is 0.  Every chunk taken is hashed by whoever took
 * it before that, so then every chunk is done.
 */
static void *helper_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mu);
	for (;;) {
		struct hash_job *j = next_job();
		if (!j) {
			parked++;
			pthread_cond_wait(&work_cv, &mu);
			parked--;
			continue;
		}
		atomic_fetch_add_explicit(&j->busy, 1, memory_order_relaxed);
		pthread_mutex_unlock(&mu);
		int64_t t0 = mono_ns();
		atomic_fetch_add_explicit(&helper_bytes, work_on(j), memory_order_relaxed);
		atomic_fetch_add_explicit(&helper_busy_ns, (uint64_t)(mono_ns() - t0), memory_order_relaxed);
		pthread_mutex_lock(&mu);
		int owner_may_wait = !j->in_queue;
		/* Release: the owner that sees busy reach 0 sees the chunk hashes. */
		if (atomic_fetch_sub_explicit(&j->busy, 1, memory_order_release) == 1 && owner_may_wait)
			pthread_cond_broadcast(&idle_cv);
	}
	return NULL;
}

/*
 * fork() holds mu so that the child gets it unlocked; the child has no
 * helpers, and the parent's jobs are abandoned there.
 */
static void at_fork_prepare(void)
{
	pthread_mutex_lock(&mu);
}

static void at_fork_parent(void)
{
	pthread_mutex_unlock(&mu);
}

static void at_fork_child(void)
{
	pthread_mutex_unlock(&mu);
	pthread_cond_init(&work_cv, NULL);
	pthread_cond_init(&idle_cv, NULL);
	queue_head = queue_tail = NULL;
	parked = 0;
	atomic_store(&nhelpers, -1);
}

/* The cores this process may run on. */
static long usable_cores(void)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set) == 0)
		return CPU_COUNT(&set);
	return sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * How many cores are idle now, measured: the idle share of every CPU's time
 * in /proc/stat over the last IDLE_PERIOD_NS or more, our helpers' own
 * hashing counted as idle (it would be without them).  The program's
 * OpenMP threads spinning in a barrier count as busy: the runtime chose to
 * keep those cores.  So do other processes (the other ranks of an MPI job).
 * -1 until two readings exist.  Read without stdio or malloc.
 */
#define IDLE_PERIOD_NS 100000000
static pthread_mutex_t idle_mu = PTHREAD_MUTEX_INITIALIZER;
static _Atomic int idle_now = -1;
static _Atomic int64_t idle_at;
static uint64_t idle_prev, total_prev, busy_prev;

static int read_cpu_ticks(uint64_t *idle, uint64_t *total)
{
	char buf[512], *q = buf;
	uint64_t v[8] = { 0 };
	int fd = open("/proc/stat", O_RDONLY | O_CLOEXEC);
	ssize_t n = fd < 0 ? -1 : read(fd, buf, sizeof(buf) - 1);

	if (fd >= 0)
		close(fd);
	if (n < 5 || strncmp(buf, "cpu ", 4))
		return -1;
	buf[n] = 0;
	q += 4;
	/* user nice system idle iowait irq softirq steal (guest time is in user) */
	for (int i = 0; i < 8; i++) {
		while (*q == ' ')
			q++;
		while (*q >= '0' && *q <= '9')
			v[i] = v[i] * 10 + (uint64_t)(*q++ - '0');
	}
	*idle = v[3] + v[4];
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	return 0;
}

static int cores_idle_now(void)
{
	int64_t now = mono_ns();
	int v = atomic_load_explicit(&idle_now, memory_order_relaxed);
	uint64_t idle, total, busy;

	if (now - atomic_load_explicit(&idle_at, memory_order_relaxed) < IDLE_PERIOD_NS ||
	    pthread_mutex_trylock(&idle_mu))
		return v;
	if (read_cpu_ticks(&idle, &total) == 0) {
		busy = atomic_load_explicit(&helper_busy_ns, memory_order_relaxed);
		if (total_prev && total > total_prev) {
			long cpus = sysconf(_SC_NPROCESSORS_ONLN);
			double ticks_ns = 1e9 / (double)sysconf(_SC_CLK_TCK);
			double idle_ticks = (double)(idle - idle_prev) + (double)(busy - busy_prev) / ticks_ns;
			v = (int)(idle_ticks * (double)cpus / (double)(total - total_prev));
			atomic_store_explicit(&idle_now, v, memory_order_relaxed);
		}
		idle_prev = idle;
		total_prev = total;
		busy_prev = busy;
	}
	atomic_store_explicit(&idle_at, now, memory_order_relaxed);
	pthread_mutex_unlock(&idle_mu);
	return v;
}

/* Start the helpers once; called with mu held. */
static void start_helpers(void)
{
	const char *env = getenv("MAPPROF_HASH_THREADS");
	long want = env && *env ? atol(env) : usable_cores() - 1;
	sigset_t all, old;
	static int atfork_set;
	int started = 0;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	for (long i = 0; i < want && i < MAX_HELPERS; i++) {
		pthread_t t;
		if (pthread_create(&t, NULL, helper_main, NULL) == 0) {
			pthread_detach(t);
			started++;
		}
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (started && !atfork_set) {
		pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
		atfork_set = 1;
	}
	atomic_store(&nhelpers, started);
}

/*
 * Memory for a job beyond the static pool: mapped, never from malloc, so
 * that the program's heap stays as it would be without us (text.h).
 */
static void *job_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static void job_free(struct hash_job *j)
{
	if (j->chunk_hash != j->inline_hash)
		munmap(j->chunk_hash, j->nchunks * sizeof(uint64_t));
	if (j->pool_slot >= 0)
		atomic_fetch_and_explicit(&pool_used, ~(1u << j->pool_slot), memory_order_release);
	else
		munmap(j, sizeof(*j));
}

static struct hash_job *job_new(const void *p, uint64_t n)
{
	uint32_t used = atomic_load_explicit(&pool_used, memory_order_relaxed);
	struct hash_job *j = NULL;
	int slot = -1;

	while (used != UINT32_MAX) {
		int i = __builtin_ctz(~used);
		if (atomic_compare_exchange_weak_explicit(&pool_used, &used, used | 1u << i,
							  memory_order_acquire, memory_order_relaxed)) {
			slot = i;
			j = &pool[i];
			break;
		}
	}
	if (!j && !(j = job_map(sizeof(*j))))
		return NULL;
	j->pool_slot = slot;
	j->p = p;
	j->n = n;
	j->nchunks = hash_nchunks(n);
	atomic_init(&j->next_chunk, 0);
	atomic_init(&j->busy, 0);
	j->in_queue = 0;
	j->next = NULL;
	j->chunk_hash = j->nchunks <= INLINE_CHUNKS ? j->inline_hash
		: job_map(j->nchunks * sizeof(uint64_t));
	if (!j->chunk_hash) {
		j->chunk_hash = j->inline_hash;
		job_free(j);
		return NULL;
	}
	return j;
}

/* Take j off the queue and wait (asleep) until no helper works on it. */
static void job_quiesce(struct hash_job *j)
{
	pthread_mutex_lock(&mu);
	if (j->in_queue)
		unqueue(j);
	while (atomic_load_explicit(&j->busy, memory_order_acquire))
		pthread_cond_wait(&idle_cv, &mu);
	pthread_mutex_unlock(&mu);
}

/* The hash of p[0..n) from its chunk hashes h[0..nchunks). */
static uint64_t combine(const uint64_t *h, uint32_t nchunks, uint64_t n)
{
	if (n < HASH_CHUNK_BYTES)
		return h[0];
	return XXH3_64bits_withSeed(h, nchunks * sizeof(uint64_t), n);
}

uint64_t hash_combine(const uint64_t *h, uint64_t n)
{
	return combine(h, hash_nchunks(n), n);
}

/* h[0..k) = the hashes of chunks from, from + 1, ... of p[0..n). */
static void chunk_hashes(uint64_t *h, const unsigned char *p, uint64_t n, uint64_t from, uint64_t k)
{
	for (uint64_t j = 0, off = from * HASH_CHUNK_BYTES; j < k; j++, off += HASH_CHUNK_BYTES)
		h[j] = piece(p + off, n - off < HASH_CHUNK_BYTES ? n - off : HASH_CHUNK_BYTES, n);
}

uint64_t hash_bytes(const void *p, uint64_t n)
{
	uint64_t h[HASH_BATCH], nchunks = (n + HASH_CHUNK_BYTES - 1) / HASH_CHUNK_BYTES;
	XXH3_state_t st;

	atomic_fetch_add_explicit(&bytes_read, n, memory_order_relaxed);
	if (n < HASH_CHUNK_BYTES)
		return piece(p, (size_t)n, n);
	/*
	 * Streaming over the chunk hashes equals hashing them in one array; they
	 * go in batches (one update per chunk cost 4-10 % of the hashing).
	 */
	if (nchunks <= HASH_BATCH) {
		chunk_hashes(h, p, n, 0, nchunks);
		return combine(h, (uint32_t)nchunks, n);
	}
	XXH3_INITSTATE(&st);
	XXH3_64bits_reset_withSeed(&st, n);
	for (uint64_t i = 0; i < nchunks; i += HASH_BATCH) {
		uint64_t k = nchunks - i < HASH_BATCH ? nchunks - i : HASH_BATCH;
		chunk_hashes(h, p, n, i, k);
		xxh3_update(&st, h, k * sizeof(*h));
	}
	return XXH3_64bits_digest(&st);
}

/* Helpers a job may have now: idle cores (see the top), or all under MAPPROF_HASH_THREADS. */
static int helpers_allowed(void)
{
	static int gate = -1;  /* 1: by idle cores; 0: MAPPROF_HASH_THREADS set */
	int idle;

	if (gate < 0) {
		const char *env = getenv("MAPPROF_HASH_THREADS");
		gate = !(env && *env);
	}
	if (!gate)
		return MAX_HELPERS;
	idle = cores_idle_now();
	return idle > 0 ? idle : 0;
}

struct hash_job *hash_start(const void *p, uint64_t n)
{
	struct hash_job *j;
	int allowed;

	if (n < HASH_HELPER_MIN_BYTES || n >= HASH_CHUNKED_MAX_BYTES ||
	    atomic_load_explicit(&nhelpers, memory_order_relaxed) == 0)
		return NULL;
	/* No core idle now: hashing on this thread takes none. */
	if ((allowed = helpers_allowed()) < 1)
		return NULL;
	if (atomic_load_explicit(&nhelpers, memory_order_acquire) < 0) {
		pthread_mutex_lock(&mu);
		if (atomic_load(&nhelpers) < 0)
			start_helpers();
		pthread_mutex_unlock(&mu);
		if (atomic_load(&nhelpers) == 0)
			return NULL;
	}
	j = job_new(p, n);
	if (!j)
		return NULL;
	pthread_mutex_lock(&mu);
	j->in_queue = 1;
	if (queue_tail)
		queue_tail->next = j;
	else
		queue_head = j;
	queue_tail = j;
	for (int k = 0; k < allowed && k < parked; k++)
		pthread_cond_signal(&work_cv);
	pthread_mutex_unlock(&mu);
	return j;
}

uint64_t hash_finish(struct hash_job *j)
{
	uint64_t h;

	atomic_fetch_add_explicit(&bytes_read, j->n, memory_order_relaxed);
	work_on(j);
	job_quiesce(j);
	h = combine(j->chunk_hash, j->nchunks, j->n);
	job_free(j);
	return h;
}

void hash_cancel(struct hash_job *j)
{
	atomic_store_explicit(&j->next_chunk, j->nchunks, memory_order_relaxed);
	job_quiesce(j);
	job_free(j);
}

uint64_t hash_parallel(const void *p, uint64_t n)
{
	/* Splitting needs two chunks: this thread takes the first one at once. */
	struct hash_job *j = n >= 2 * HASH_HELPER_MIN_BYTES ? hash_start(p, n) : NULL;
	return j ? hash_finish(j) : hash_bytes(p, n);
}

/* --- which devices' memory the host can read --------------------------------- */

#define MAX_DEVICES 64

static _Atomic unsigned char host_addressable[MAX_DEVICES];
static _Atomic unsigned char host_plugin[MAX_DEVICES];  /* LLVM's host offload, not overridden */
static _Atomic int source_during_copy;  /* MAPPROF_DEVICE_MEMORY_HOST=1 */

void collector_device_note(int device_num, const char *type)
{
	const char *env = getenv("MAPPROF_DEVICE_MEMORY_HOST");
	int plugin = type && !strcmp(type, "generic-64bit"), yes = plugin, during = env && !strcmp(env, "1");

	if (during)
		yes = 1;
	else if (env && !strcmp(env, "0"))
		yes = 0;
	atomic_store_explicit(&source_during_copy, during, memory_order_relaxed);

	if (device_num >= 0 && device_num < MAX_DEVICES) {
		atomic_store_explicit(&host_addressable[device_num], (unsigned char)yes,
				      memory_order_relaxed);
		atomic_store_explicit(&host_plugin[device_num],
				      (unsigned char)(plugin && yes),
				      memory_order_relaxed);
	}
}

int collector_device_copies_at_once(int device_num)
{
	return device_num >= 0 && device_num < MAX_DEVICES &&
	       atomic_load_explicit(&host_plugin[device_num], memory_order_relaxed);
}

int collector_device_host_addressable(int device_num)
{
	return device_num >= 0 && device_num < MAX_DEVICES &&
	       atomic_load_explicit(&host_addressable[device_num], memory_order_relaxed);
}

int collector_device_hash_during_copy(int device_num)
{
	return atomic_load_explicit(&source_during_copy, memory_order_relaxed) &&
	       collector_device_host_addressable(device_num);
}
