/*
 * hash.h - content hashes of transferred bytes, computed off the critical path.
 *
 * The hash of n bytes is the hash of one piece, the bytes themselves, when
 * n < HASH_CHUNK_BYTES.  Larger buffers are hashed in chunks of
 * HASH_CHUNK_BYTES (the last one shorter), and the hash is XXH3-64, seeded
 * with n, of the chunk hashes (each 8 bytes, little-endian) in order.  A
 * piece's hash is XXH3-64 of it, except under HASH_FUNCTION_AES (CPUs with
 * AES instructions, unless MAPPROF_HASH=xxh3), where a piece of
 * HASH_AES_MIN_BYTES or more is hashed by aeshash() (aeshash.h).  Equal bytes give equal hashes
 * whichever thread hashed which chunk, so chunks can be hashed in parallel:
 * a transfer's source is hashed by a helper thread while the runtime copies
 * it, and a destination hashed after the copy is split across idle cores.
 *
 * It also keeps which devices have memory the host can read (a transfer's
 * source can then be hashed while it is copied, whichever way it goes).
 */
#ifndef MAPPROF_COLLECTOR_HASH_H
#define MAPPROF_COLLECTOR_HASH_H

#include <stdint.h>

#define HASH_CHUNK_BYTES ((uint64_t)16 << 10)
/* The smallest buffer a helper thread may take part in hashing (hash.c). */
#define HASH_HELPER_MIN_BYTES ((uint64_t)1 << 20)

/* Pieces this long or longer go through aeshash() under HASH_FUNCTION_AES. */
#define HASH_AES_MIN_BYTES ((uint64_t)4 << 10)
/* Buffers this long or longer: their pieces through aeshash_streaming() (the same hash, read from memory). */
#define HASH_STREAMING_BYTES ((uint64_t)4 << 20)
/* Which definition this process hashes with (the stats row hash_function). */
#define HASH_FUNCTION_XXH3 1
#define HASH_FUNCTION_AES 2
int hash_function(void);

/* The hash, computed on this thread. */
uint64_t hash_bytes(const void *p, uint64_t n);

struct hash_job;

/*
 * Start hashing p[0..n) on a helper thread and return a job to end with
 * hash_finish() or hash_cancel(), or NULL when that is not worth it (small
 * buffer, no helper, no idle core): then call hash_bytes().  The bytes must
 * stay readable and unchanged until the job ends.
 */
struct hash_job *hash_start(const void *p, uint64_t n);

/* Hash what the helpers have not taken on this thread, wait, free the job, return the hash. */
uint64_t hash_finish(struct hash_job *job);

/* Stop the job without its hash: wait only for chunks in progress, free it. */
void hash_cancel(struct hash_job *job);

/* The hash of p[0..n), using a helper thread for large buffers. */
uint64_t hash_parallel(const void *p, uint64_t n);

/* Chunk indexes are 32-bit: buffers this large or larger are hashed by hash_bytes() alone. */
#define HASH_CHUNKED_MAX_BYTES ((uint64_t)UINT32_MAX * HASH_CHUNK_BYTES)
/* The chunks of an n-byte buffer (n below HASH_CHUNKED_MAX_BYTES): 1 below HASH_CHUNK_BYTES. */
static inline uint32_t hash_nchunks(uint64_t n)
{
	return n < HASH_CHUNK_BYTES ? 1 : (uint32_t)((n + HASH_CHUNK_BYTES - 1) / HASH_CHUNK_BYTES);
}
/* The length of chunk i of an n-byte buffer (the whole buffer below HASH_CHUNK_BYTES). */
static inline uint64_t hash_chunk_len(uint64_t n, uint32_t i)
{
	uint64_t off = (uint64_t)i * HASH_CHUNK_BYTES;
	return n - off < HASH_CHUNK_BYTES ? n - off : HASH_CHUNK_BYTES;
}
/* Chunk i of p[0..n) hashed on this thread (the whole buffer below HASH_CHUNK_BYTES). */
uint64_t hash_chunk(const void *p, uint64_t n, uint32_t i);
/* The hash of an n-byte buffer from its chunk hashes h[0..hash_nchunks(n)). */
uint64_t hash_combine(const uint64_t *h, uint64_t n);

/*
 * Bytes read to hash them, and bytes whose hash was known without reading
 * them (collector/wtrack.c counts those), since the start: the stats table.
 */
void hash_count_reused(uint64_t bytes);
void hash_stats(uint64_t *read, uint64_t *reused);
/* The helper threads started (0 before the first large transfer); *bytes: what they hashed. */
int hash_helpers(uint64_t *bytes);

/*
 * Device memory the host can read.  collector_device_note() is called at
 * device_initialize with the device's type string; the LLVM host-offload
 * plugin ("generic-64bit") keeps "device" buffers in host memory; other
 * devices' memory is never read.  The environment variable
 * MAPPROF_DEVICE_MEMORY_HOST overrides the type: 1 declares every device's
 * memory host-readable (APUs, unified shared memory), 0 none.
 */
void collector_device_note(int device_num, const char *type);
/* Nonzero when the host may read device_num's memory. */
int collector_device_host_addressable(int device_num);
/*
 * Nonzero when a from-device transfer's hash is taken from device_num's
 * memory while the runtime copies it, not from the host destination once
 * the copy is complete: only where MAPPROF_DEVICE_MEMORY_HOST=1 says so.
 * On host offload the destination after the copy is the cheaper read:
 * hashed from the device buffer before the copy, real/monitor.fixed and
 * real/heat.fixed ran 4 % slower recorded (2-core VM, 2026-11-30,
 * docs/performance.md).
 */
int collector_device_hash_during_copy(int device_num);
/*
 * Nonzero for LLVM's host-offload plugin (unless MAPPROF_DEVICE_MEMORY_HOST=0
 * says its memory is not to be read): its copies are complete when the data
 * op's end callback fires, so a copy back's destination is hashed there.  A
 * GPU's may still run then, also where =1 declares its memory host-readable.
 */
int collector_device_copies_at_once(int device_num);

#endif
