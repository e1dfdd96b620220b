/*
 * check.c - the mapping bugs of 'mapprof record --check' (check.h says
 * which and how; docs/checks.md what each costs and cannot see).
 *
 * One struct dbuf per live device buffer; the canary goes only into those
 * the host can write (the host-offload plugin's "device" memory is host
 * memory).  Beside each, in
 * one anonymous mapping that costs pages only where it is touched: three
 * bitmaps of one bit a byte (sent: written by a transfer since the
 * allocation; known: the shadow holds the host's bytes at their last sync
 * with this buffer; foreign: written from a host address that is not the
 * mapped one, as the runtime does to attach a pointer) and the shadow.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "collector/check.h"
#include "collector/hash.h"
#include "collector/output.h"
#include "collector/text.h"

int check_on;

#define DBUFS_MAX 4096
#define FLIGHTS_MAX 256
#define SKIP_DEVICES 64
/* Fewer canary bytes in a row are taken for data that happens to match. */
#define CANARY_MIN_RUN 4
/* Shadows of host ranges kept at once (virtual; pages are taken as they are written). */
#define SHADOW_MAX_BYTES ((uint64_t)64 << 30)
/* Frames of one check kind written at most: a bug in a loop repeats. */
#define FRAMES_MAX 100000

/* The canary: the byte at offset o of a buffer is canary[o % 8]. */
static const unsigned char canary[8] = { 0xd3, 0x5a, 0xc7, 0xe1, 0x9b, 0x2f, 0x6c, 0xb4 };

struct dbuf {
	int dev;
	int canary;             /* filled at its allocation */
	uint64_t dev_addr, host_addr, bytes;
	uint64_t *sent, *known, *foreign;
	unsigned char *shadow;  /* NULL: no room (SHADOW_MAX_BYTES) */
	void *map;
	size_t map_bytes;
};

/* A nowait copy between its start and its task's completion. */
struct flight {
	const void *task;
	uint64_t seq;
	int dev;
	int to_device;
	uint64_t host_addr, bytes;
	unsigned char *snap;
	size_t map_bytes;
};

enum check_kind { CK_NEVER_WRITTEN, CK_LOST_HOST_WRITE, CK_RACE, CK_COUNT };
static const char *const kind_names[CK_COUNT] = { "never_written", "lost_host_write", "race" };

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct dbuf *bufs;
static int nbufs;
static struct flight flights[FLIGHTS_MAX];
static int nflights;
static uint64_t shadow_bytes, canary_bytes, frames[CK_COUNT], untracked_bufs, untracked_flights;
static unsigned char skip_said[SKIP_DEVICES];

void check_start(void)
{
	const char *env = getenv("MAPPROF_CHECK");

	check_on = env && !strcmp(env, "1");
}

/* --- bitmaps ------------------------------------------------------------- */

static void bits_set(uint64_t *m, uint64_t lo, uint64_t hi, int on)
{
	while (lo < hi && (lo & 63)) {
		m[lo >> 6] = on ? m[lo >> 6] | (1ull << (lo & 63)) : m[lo >> 6] & ~(1ull << (lo & 63));
		lo++;
	}
	if (hi - lo >= 64 && lo < hi) {
		memset(&m[lo >> 6], on ? 0xff : 0, ((hi - lo) >> 6) * 8);
		lo += (hi - lo) & ~(uint64_t)63;
	}
	for (; lo < hi; lo++)
		m[lo >> 6] = on ? m[lo >> 6] | (1ull << (lo & 63)) : m[lo >> 6] & ~(1ull << (lo & 63));
}

static int bit(const uint64_t *m, uint64_t i)
{
	return (int)(m[i >> 6] >> (i & 63)) & 1;
}

/* --- what is found ------------------------------------------------------- */

/* A range of bad bytes as it is found, byte by byte in increasing order. */
struct bad {
	uint64_t first, end, count;
	uint64_t run_start, run_len;  /* the run in progress (never_written's) */
};

static void bad_add(struct bad *b, uint64_t lo, uint64_t len)
{
	if (!b->count || lo < b->first)
		b->first = lo;
	if (lo + len > b->end)
		b->end = lo + len;
	b->count += len;
}

static void found(enum check_kind k, uint64_t seq, int dev, uint64_t host_addr, const struct bad *b)
{
	if (!b->count || frames[k] >= FRAMES_MAX)
		return;
	frames[k]++;
	output_frame(SPOOL_CHECK, kind_names[k], (int64_t)seq, (int64_t)dev, (int64_t)host_addr,
		     (int64_t)b->first, (int64_t)b->end, (int64_t)b->count, (const char *)NULL);
}

/* A check that cannot run on a device, said once per device and kind. */
static void skipped(int dev, enum check_kind k, const char *why)
{
	char note[320];

	if (dev < 0 || dev >= SKIP_DEVICES || (skip_said[dev] & (1u << k)))
		return;
	skip_said[dev] |= (unsigned char)(1u << k);
	snprintf(note, sizeof(note), "%s: %s", kind_names[k], why);
	output_frame(SPOOL_CHECK, "skipped", (int64_t)-1, (int64_t)dev, (int64_t)0, (int64_t)0, (int64_t)0,
		     (int64_t)0, note);
}

/*
 * Why the canary cannot be written into a device's memory that the host
 * cannot address: the vendor's driver would do it (cuMemsetD8 or
 * hipMemset, loaded with dlopen), which this collector does not call.
 */
static const char *no_fill_reason(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD);

	if (!h)
		h = dlopen("libamdhip64.so", RTLD_LAZY | RTLD_NOLOAD);
	if (h) {
		dlclose(h);
		return "the device's memory is not host memory; filling it through the vendor's driver "
		       "(loaded in this process) is not implemented, so no canary was written";
	}
	return "the device's memory is not host memory and no vendor driver (libcuda.so.1, "
	       "libamdhip64.so) is loaded to fill it with a canary";
}

/* --- device buffers ------------------------------------------------------ */

static struct dbuf *dbuf_find(int dev, uint64_t addr)
{
	for (int i = nbufs - 1; i >= 0; i--)
		if (bufs[i].dev == dev && addr >= bufs[i].dev_addr &&
		    addr - bufs[i].dev_addr < bufs[i].bytes)
			return &bufs[i];
	return NULL;
}

static void dbuf_release(struct dbuf *b)
{
	if (b->shadow)
		shadow_bytes -= b->bytes;
	if (b->map)
		munmap(b->map, b->map_bytes);
	*b = bufs[--nbufs];
}

static void fill_canary(unsigned char *p, uint64_t n)
{
	uint64_t word, i = 0;

	memcpy(&word, canary, 8);
	for (; i < n && ((uintptr_t)(p + i) & 7); i++)
		p[i] = canary[i & 7];
	if (!(i & 7))
		for (; i + 8 <= n; i += 8)
			memcpy(p + i, &word, 8);
	for (; i < n; i++)
		p[i] = canary[i & 7];
}

void check_alloc(uint64_t seq, int dev, uint64_t host_addr, uint64_t dev_addr, uint64_t bytes)
{
	(void)seq;
	int fill = collector_device_host_addressable(dev);

	if (!bytes || !dev_addr)
		return;
	uint64_t words = (bytes + 63) / 64;
	size_t bitmap = (size_t)words * 8;
	pthread_mutex_lock(&mu);
	struct dbuf *old = dbuf_find(dev, dev_addr);
	if (old)
		dbuf_release(old);  /* its delete was not seen */
	if (!bufs)
		bufs = text_alloc(DBUFS_MAX * sizeof(*bufs));
	if (!bufs || nbufs == DBUFS_MAX) {
		untracked_bufs++;
		pthread_mutex_unlock(&mu);
		return;
	}
	struct dbuf *b = &bufs[nbufs];
	memset(b, 0, sizeof(*b));
	b->dev = dev;
	b->dev_addr = dev_addr;
	b->host_addr = host_addr;
	b->bytes = bytes;
	int shadow = shadow_bytes + bytes <= SHADOW_MAX_BYTES;
	b->map_bytes = 3 * bitmap + (shadow ? (size_t)bytes : 0);
	b->map = mmap(NULL, b->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		      -1, 0);
	if (b->map == MAP_FAILED) {
		untracked_bufs++;
		pthread_mutex_unlock(&mu);
		return;
	}
	b->sent = b->map;
	b->known = b->sent + words;
	b->foreign = b->known + words;
	if (shadow) {
		b->shadow = (unsigned char *)(b->foreign + words);
		shadow_bytes += bytes;
	}
	nbufs++;
	if (fill) {
		/* Nothing has the new buffer yet: the canary goes in before its first transfer. */
		fill_canary((unsigned char *)(uintptr_t)dev_addr, bytes);
		b->canary = 1;
		canary_bytes += bytes;
	} else if (dev >= 0 && dev < SKIP_DEVICES && !(skip_said[dev] & (1u << CK_NEVER_WRITTEN))) {
		/* Its shadow still serves lost_host_write, which reads host memory only. */
		skipped(dev, CK_NEVER_WRITTEN, no_fill_reason());
	}
	pthread_mutex_unlock(&mu);
}

void check_delete(int dev, uint64_t dev_addr)
{
	pthread_mutex_lock(&mu);
	struct dbuf *b = dbuf_find(dev, dev_addr);
	if (b && b->dev_addr == dev_addr)
		dbuf_release(b);
	pthread_mutex_unlock(&mu);
}

/* --- copies in flight (race) --------------------------------------------- */

static void flight_add(const void *task, uint64_t seq, int dev, int to_device, uint64_t host_addr,
		       uint64_t bytes)
{
	if (nflights == FLIGHTS_MAX) {
		untracked_flights++;
		return;
	}
	struct flight *f = &flights[nflights];
	f->map_bytes = (size_t)bytes;
	f->snap = mmap(NULL, f->map_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
		       -1, 0);
	if (f->snap == MAP_FAILED) {
		untracked_flights++;
		return;
	}
	memcpy(f->snap, (const void *)(uintptr_t)host_addr, bytes);
	f->task = task;
	f->seq = seq;
	f->dev = dev;
	f->to_device = to_device;
	f->host_addr = host_addr;
	f->bytes = bytes;
	nflights++;
}

/* Bytes of host range [h, h + n) that differ from 'was' (the same range earlier), where 'ok'. */
static void compare(struct bad *b, const unsigned char *now, const unsigned char *was, uint64_t n,
		    const struct dbuf *d, uint64_t doff)
{
	const uint64_t step = 4096;

	for (uint64_t at = 0; at < n; at += step) {
		uint64_t len = n - at < step ? n - at : step;
		if (!memcmp(now + at, was + at, len))
			continue;
		for (uint64_t i = at; i < at + len; i++) {
			uint64_t start = i;
			while (i < at + len && now[i] != was[i] &&
			       (!d || (bit(d->known, doff + i) && !bit(d->foreign, doff + i))))
				i++;
			if (i > start)
				bad_add(b, start, i - start);
		}
	}
}

/* A copy of this task changed host bytes that its earlier copies had kept: not the host's writes. */
static void flights_refresh(const void *task, uint64_t host_addr, uint64_t bytes)
{
	for (int i = 0; i < nflights; i++) {
		struct flight *f = &flights[i];
		if (f->task != task)
			continue;
		uint64_t lo = host_addr > f->host_addr ? host_addr : f->host_addr;
		uint64_t hi = host_addr + bytes < f->host_addr + f->bytes ? host_addr + bytes
									  : f->host_addr + f->bytes;
		if (lo < hi)
			memcpy(f->snap + (lo - f->host_addr), (const void *)(uintptr_t)lo, hi - lo);
	}
}

void check_task_done(const void *task)
{
	pthread_mutex_lock(&mu);
	for (int i = 0; i < nflights;) {
		struct flight *f = &flights[i];
		if (f->task != task) {
			i++;
			continue;
		}
		struct bad b = { 0 };
		compare(&b, (const unsigned char *)(uintptr_t)f->host_addr, f->snap, f->bytes, NULL, 0);
		found(CK_RACE, f->seq, f->dev, f->host_addr, &b);
		munmap(f->snap, f->map_bytes);
		*f = flights[--nflights];
	}
	pthread_mutex_unlock(&mu);
}

/* --- transfers ----------------------------------------------------------- */

void check_transfer_begin(uint64_t seq, int to_device, int src_dev, uint64_t src_addr, int dst_dev,
			  uint64_t dst_addr, uint64_t bytes, int host_dev, const void *task)
{
	struct dbuf *d;

	if (!bytes || !src_addr || !dst_addr)
		return;
	pthread_mutex_lock(&mu);
	if (to_device && (d = dbuf_find(dst_dev, dst_addr))) {
		uint64_t off = dst_addr - d->dev_addr;
		uint64_t n = bytes < d->bytes - off ? bytes : d->bytes - off;
		bits_set(d->sent, off, off + n, 1);
		if (src_dev == host_dev && src_addr == d->host_addr + off) {
			/* The host's bytes at this sync. */
			if (d->shadow) {
				memcpy(d->shadow + off, (const void *)(uintptr_t)src_addr, n);
				bits_set(d->known, off, off + n, 1);
			}
			bits_set(d->foreign, off, off + n, 0);
		} else {
			/* Not the host's bytes of this range (another device's, a pointer attached). */
			bits_set(d->known, off, off + n, 0);
			bits_set(d->foreign, off, off + n, 1);
		}
	}
	if (to_device && task && src_dev == host_dev)
		flight_add(task, seq, dst_dev, 1, src_addr, bytes);
	if (!to_device && dst_dev == host_dev && (d = dbuf_find(src_dev, src_addr)) && d->shadow) {
		/* The host's writes since the last sync, which this copy is about to undo. */
		uint64_t off = src_addr - d->dev_addr;
		uint64_t n = bytes < d->bytes - off ? bytes : d->bytes - off;
		if (dst_addr == d->host_addr + off) {
			struct bad b = { 0 };
			compare(&b, (const unsigned char *)(uintptr_t)dst_addr, d->shadow + off, n, d, off);
			found(CK_LOST_HOST_WRITE, seq, src_dev, dst_addr, &b);
		}
	}
	pthread_mutex_unlock(&mu);
}

/* Canary runs of at least CANARY_MIN_RUN bytes (or the whole copy) not sent to the buffer. */
static void scan_canary(struct bad *b, const unsigned char *p, uint64_t n, const struct dbuf *d, uint64_t off)
{
	uint64_t min = n < CANARY_MIN_RUN ? n : CANARY_MIN_RUN, run = 0, start = 0;

	for (uint64_t i = 0; i < n; i++) {
		uint64_t o = off + i;
		int hit = p[i] == canary[o & 7] && !bit(d->sent, o);
		if (hit) {
			if (!run++)
				start = i;
			continue;
		}
		if (run >= min)
			bad_add(b, start, run);
		run = 0;
		/* Skip ahead a word at a time while no byte of it can match. */
		while (i + 9 < n) {
			uint64_t x, c;
			memcpy(&x, p + i + 1, 8);
			for (int k = 0; k < 8; k++)
				((unsigned char *)&c)[k] = canary[(o + 1 + (uint64_t)k) & 7];
			x ^= c;
			if ((x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull)
				break;  /* some byte matches */
			i += 8;
			o += 8;
		}
	}
	if (run >= min)
		bad_add(b, start, run);
}

void check_copied_back(uint64_t seq, int src_dev, uint64_t src_addr, uint64_t dst_addr, uint64_t bytes,
		       const void *task)
{
	struct dbuf *d;

	if (!bytes || !dst_addr)
		return;
	pthread_mutex_lock(&mu);
	if ((d = dbuf_find(src_dev, src_addr))) {
		uint64_t off = src_addr - d->dev_addr;
		uint64_t n = bytes < d->bytes - off ? bytes : d->bytes - off;
		struct bad b = { 0 };
		if (d->canary)
			scan_canary(&b, (const unsigned char *)(uintptr_t)dst_addr, n, d, off);
		found(CK_NEVER_WRITTEN, seq, src_dev, dst_addr, &b);
		if (d->shadow && dst_addr == d->host_addr + off) {
			memcpy(d->shadow + off, (const void *)(uintptr_t)dst_addr, n);
			bits_set(d->known, off, off + n, 1);
		}
	}
	/* Other devices' buffers of this host range: not the host's writes either. */
	for (int i = 0; i < nbufs; i++) {
		struct dbuf *o = &bufs[i];
		if (o == d || !o->shadow || !o->host_addr)
			continue;
		uint64_t lo = dst_addr > o->host_addr ? dst_addr : o->host_addr;
		uint64_t hi = dst_addr + bytes < o->host_addr + o->bytes ? dst_addr + bytes
									 : o->host_addr + o->bytes;
		if (lo < hi)
			memcpy(o->shadow + (lo - o->host_addr), (const void *)(uintptr_t)lo, hi - lo);
	}
	if (task) {
		flights_refresh(task, dst_addr, bytes);
		if (collector_device_host_addressable(src_dev))
			flight_add(task, seq, src_dev, 0, dst_addr, bytes);
		else
			skipped(src_dev, CK_RACE, "a nowait copy back completes with its task on this device: "
				"the host's writes to its destination before that are not told apart from the copy's");
	}
	pthread_mutex_unlock(&mu);
}

void check_at_fork(enum fork_moment when)
{
	if (!check_on)
		return;
	if (when == FORK_PREPARE) {
		pthread_mutex_lock(&mu);
	} else if (when == FORK_PARENT) {
		pthread_mutex_unlock(&mu);
	} else {
		/* The parent's shadows and snapshots stay mapped in the child, unused: forgotten, not freed. */
		pthread_mutex_init(&mu, NULL);
		nbufs = 0;
		nflights = 0;
		memset(skip_said, 0, sizeof(skip_said));
		memset(frames, 0, sizeof(frames));
	}
}

void check_stats(void)
{
	if (!check_on)
		return;
	output_frame(SPOOL_STAT, "check", (int64_t)1);
	output_frame(SPOOL_STAT, "check_canary_bytes", (int64_t)canary_bytes);
	output_frame(SPOOL_STAT, "check_untracked_buffers", (int64_t)untracked_bufs);
	output_frame(SPOOL_STAT, "check_untracked_copies", (int64_t)untracked_flights);
}
