/*
 * spillmap.c - recently used entries in memory, the rest in sorted runs of
 * a temporary file (lib/spillmap.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "lib/spillmap.h"
#include "lib/huge.h"
#include "lib/tempfile.h"

#define BLOCK 128                           /* records per index entry */
#define BLOOM_BITS ((uint64_t)1 << 28)      /* 32 MiB */
#define BLOOM_K 5

struct spillmap_run {
	off_t off;                          /* bytes */
	size_t n;                           /* records */
	uint64_t *index;                    /* the key of every BLOCK-th record */
};

void spillmap_init(struct spillmap *m, size_t key_words, size_t val_size, size_t max_entries)
{
	memset(m, 0, sizeof(*m));
	m->key_words = key_words;
	m->val_size = val_size;
	m->rec_size = 8 * key_words + val_size;
	m->max_entries = max_entries ? max_entries : ((size_t)1 << 18) + ((size_t)1 << 17);
	m->fd = -1;
	hmap_init(&m->mem, key_words, 8 + val_size);
}

void spillmap_release(struct spillmap *m)
{
	if (!m)
		return;
	hmap_release(&m->mem);
	for (size_t i = 0; i < m->nruns; i++)
		free(m->runs[i].index);
	free(m->runs);
	if (m->bloom)
		munmap(m->bloom, BLOOM_BITS / 8);
	free(m->evict_buf[0]);
	free(m->evict_buf[1]);
	free(m->evict_count);
	m->evict_buf[0] = m->evict_buf[1] = NULL;
	m->evict_count = NULL;
	m->evict_cap = 0;
	if (m->fd >= 0)
		close(m->fd);
	m->runs = NULL;
	m->bloom = NULL;
	m->nruns = 0;
	m->fd = -1;
}

static int key_cmp(const uint64_t *a, const uint64_t *b, size_t words)
{
	for (size_t i = 0; i < words; i++)
		if (a[i] != b[i])
			return a[i] < b[i] ? -1 : 1;
	return 0;
}

static size_t key_words_for_sort;

static int rec_cmp(const void *a, const void *b)
{
	return key_cmp(a, b, key_words_for_sort);
}

static uint64_t mix(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdULL;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ULL;
	x ^= x >> 33;
	return x;
}

static void bloom_hashes(const struct spillmap *m, const uint64_t *key, uint64_t *h1, uint64_t *h2)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL;
	for (size_t i = 0; i < m->key_words; i++)
		h = mix(h ^ key[i]) + i;
	*h1 = h;
	*h2 = mix(h + 0x632be59bd9b4e019ULL) | 1;
}

/*
 * A blocked filter: the K bits of a key are in one 64-byte block (one
 * cache line, one miss per lookup instead of K), picked by h1; h2 picks
 * the bits in it.
 */
#define BLOCK_WORDS 8
#define NBLOCKS (BLOOM_BITS / (64 * BLOCK_WORDS))

/* The block of 'key' (its first hash picks it); its second hash, for the bits, in *h2. */
static uint64_t *bloom_block(const struct spillmap *m, const uint64_t *key, uint64_t *h2)
{
	uint64_t h1;
	bloom_hashes(m, key, &h1, h2);
	return m->bloom + (h1 & (NBLOCKS - 1)) * BLOCK_WORDS;
}

static void bloom_add(struct spillmap *m, const uint64_t *key)
{
	uint64_t h2, *b = bloom_block(m, key, &h2);
	for (int i = 0; i < BLOOM_K; i++) {
		unsigned bit = (unsigned)(h2 >> (9 * i)) & 511;
		b[bit >> 6] |= (uint64_t)1 << (bit & 63);
	}
}

static int bloom_has(const struct spillmap *m, const uint64_t *key)
{
	uint64_t h2;
	const uint64_t *b;
	if (!m->bloom)
		return 0;
	b = bloom_block(m, key, &h2);
	for (int i = 0; i < BLOOM_K; i++) {
		unsigned bit = (unsigned)(h2 >> (9 * i)) & 511;
		if (!(b[bit >> 6] & (uint64_t)1 << (bit & 63)))
			return 0;
	}
	return 1;
}


/* bloom_add() of n records, each block asked for a few records ahead (each is a miss). */
static void bloom_add_all(struct spillmap *m, const char *recs, size_t n)
{
	enum { AHEAD = 8 };
	for (size_t i = 0; i < n; i++) {
		if (i + AHEAD < n) {
			uint64_t h2;
			__builtin_prefetch(bloom_block(m, (const uint64_t *)(recs + (i + AHEAD) * m->rec_size), &h2), 1);
		}
		bloom_add(m, (const uint64_t *)(recs + i * m->rec_size));
	}
}

/* The index of a run whose records are at r->off (bytes) on file; reads them. */
static int build_index(struct spillmap *m, struct spillmap_run *r)
{
	size_t nidx = (r->n + BLOCK - 1) / BLOCK;

	free(r->index);
	r->index = malloc((nidx ? nidx : 1) * 8 * m->key_words);
	if (!r->index)
		return -1;
	for (size_t i = 0; i < nidx; i++)
		if (tempfile_io(m->fd, r->index + i * m->key_words, 8 * m->key_words,
			   r->off + (off_t)(i * BLOCK * m->rec_size), 0) < 0)
			return -1;
	return 0;
}

/* A sequential reader of a run, for merging. */
struct cursor {
	const struct spillmap *m;
	off_t next, stop;
	char *buf;
	size_t pos, len;                    /* records buffered, read */
};

#define CHUNK 4096

static int cursor_fill(struct cursor *c)
{
	size_t want;
	if (c->pos < c->len || c->next >= c->stop)
		return 0;
	want = (size_t)(c->stop - c->next) / c->m->rec_size;
	if (want > CHUNK)
		want = CHUNK;
	if (tempfile_io(c->m->fd, c->buf, want * c->m->rec_size, c->next, 0) < 0)
		return -1;
	c->next += (off_t)(want * c->m->rec_size);
	c->pos = 0;
	c->len = want;
	return 0;
}

static const char *cursor_at(const struct cursor *c)
{
	return c->pos < c->len ? c->buf + c->pos * c->m->rec_size : NULL;
}

/*
 * Runs merge FANIN at a time, once the newest FANIN are of a size (see
 * evict()): each record is rewritten about log4(runs) times, where merging
 * pairs rewrote it log2(runs) times (at 10 M events the pairs wrote 334 MB
 * for 88 MB of contents), and at most 3 runs of each size are looked in.
 */
#define FANIN 4

/* Merge the last k runs into one at the end of the file (of equal keys, the newest run's wins). */
static int merge_last(struct spillmap *m, size_t k)
{
	struct spillmap_run *first = &m->runs[m->nruns - k];
	struct cursor c[FANIN];
	size_t rs = m->rec_size, nout = 0, total = 0;
	char *out = malloc(CHUNK * rs);
	off_t off = m->end;
	int rc = -1;

	for (size_t i = 0; i < k; i++) {
		const struct spillmap_run *r = &first[i];
		c[i] = (struct cursor){ m, r->off, r->off + (off_t)(r->n * rs), malloc(CHUNK * rs), 0, 0 };
	}
	if (!out)
		goto out;
	for (size_t i = 0; i < k; i++)
		if (!c[i].buf)
			goto out;
	for (;;) {
		const char *take = NULL;
		size_t from = 0;
		for (size_t i = 0; i < k; i++) {
			const char *x;
			if (cursor_fill(&c[i]) < 0)
				goto out;
			x = cursor_at(&c[i]);
			/* Newer runs come later: on a tie the later one is taken. */
			if (x && (!take || key_cmp((const uint64_t *)x, (const uint64_t *)take, m->key_words) <= 0)) {
				take = x;
				from = i;
			}
		}
		if (!take)
			break;
		memcpy(out + nout * rs, take, rs);
		/* The older copies of the same key go. */
		for (size_t i = 0; i < from; i++) {
			const char *x = cursor_at(&c[i]);
			if (x && !key_cmp((const uint64_t *)x, (const uint64_t *)take, m->key_words))
				c[i].pos++;
		}
		c[from].pos++;
		if (++nout == CHUNK) {
			if (tempfile_io(m->fd, out, nout * rs, off, 1) < 0)
				goto out;
			off += (off_t)(nout * rs);
			total += nout;
			nout = 0;
		}
	}
	if (nout && tempfile_io(m->fd, out, nout * rs, off, 1) < 0)
		goto out;
	total += nout;
	off += (off_t)(nout * rs);
#ifdef FALLOC_FL_PUNCH_HOLE
	/* Everything from the oldest merged run on is dead now: the runs and what earlier merges left. */
	(void)fallocate(m->fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, first->off, m->end - first->off);
#endif
	for (size_t i = 1; i < k; i++) {
		free(first[i].index);
		first[i].index = NULL;
	}
	first->off = m->end;
	first->n = total;
	m->end = off;
	m->nruns -= k - 1;
	rc = build_index(m, first);
out:
	free(out);
	for (size_t i = 0; i < k; i++)
		free(c[i].buf);
	return rc;
}

/* evict()'s sweep: the entries not used since 'old' copied out and dropped. */
struct evicting {
	const struct spillmap *m;
	uint64_t old;
	char *recs;
	size_t n;
};

static int evict_one(const uint64_t *key, void *val, void *arg)
{
	struct evicting *e = arg;
	const struct spillmap *m = e->m;
	char *rec = e->recs + e->n * m->rec_size;
	uint64_t stamp;

	memcpy(&stamp, val, 8);
	if (stamp >= e->old)
		return 0;
	memcpy(rec, key, 8 * m->key_words);
	memcpy(rec + 8 * m->key_words, (char *)val + 8, m->val_size);
	e->n++;
	return 1;
}

/*
 * Sort n records of recs by key into out: counted into buckets by the top
 * SORT_BITS of the first key word's range (content hashes: even buckets of
 * a few records), each bucket then by insertion, or qsort() when one is
 * large (a skewed range).  Linear where qsort() was n log n with a call a
 * compare and a fresh scratch (page faults) each time.
 */
#define SORT_BITS 16
#define SORT_SMALL 24

static void sort_recs(const struct spillmap *m, const char *recs, char *out, size_t n)
{
	uint32_t *start = m->evict_count;
	size_t rs = m->rec_size, kw = m->key_words;
	char tmp[8 * HMAP_MAX_KEY_WORDS + 256];
	uint64_t lo_key = UINT64_MAX, hi_key = 0;
	int shift = 0;

	if (rs > sizeof(tmp)) {
		memcpy(out, recs, n * rs);
		key_words_for_sort = kw;
		qsort(out, n, rs, rec_cmp);
		return;
	}
	for (size_t i = 0; i < n; i++) {
		uint64_t k = ((const uint64_t *)(recs + i * rs))[0];
		lo_key = k < lo_key ? k : lo_key;
		hi_key = k > hi_key ? k : hi_key;
	}
	while (shift < 64 && (hi_key - lo_key) >> shift >> SORT_BITS)
		shift++;
#define BUCKET(r) ((((const uint64_t *)(r))[0] - lo_key) >> shift)
	memset(start, 0, ((1u << SORT_BITS) + 1) * sizeof(*start));
	for (size_t i = 0; i < n; i++)
		start[BUCKET(recs + i * rs) + 1]++;
	for (size_t b = 1; b <= 1u << SORT_BITS; b++)
		start[b] += start[b - 1];
	for (size_t i = 0; i < n; i++) {
		const char *r = recs + i * rs;
		memcpy(out + (size_t)start[BUCKET(r)]++ * rs, r, rs);
	}
#undef BUCKET
	/* start[b] is now bucket b's end, the next one's beginning. */
	for (size_t b = 0, lo = 0; b < 1u << SORT_BITS; lo = start[b++]) {
		size_t hi = start[b];
		if (hi - lo > SORT_SMALL) {
			key_words_for_sort = kw;
			qsort(out + lo * rs, hi - lo, rs, rec_cmp);
			continue;
		}
		for (size_t i = lo + 1; i < hi; i++) {
			size_t j = i;
			if (key_cmp((const uint64_t *)(out + (j - 1) * rs), (const uint64_t *)(out + i * rs), kw) <= 0)
				continue;
			memcpy(tmp, out + i * rs, rs);
			while (j > lo && key_cmp((const uint64_t *)(out + (j - 1) * rs), (const uint64_t *)tmp, kw) > 0) {
				memcpy(out + j * rs, out + (j - 1) * rs, rs);
				j--;
			}
			memcpy(out + j * rs, tmp, rs);
		}
	}
}

/* Write out the entries not used in the last max_entries / 2 puts. */
static int evict(struct spillmap *m, const char **why)
{
	struct evicting e = { m, m->clock > m->max_entries / 2 ? m->clock - m->max_entries / 2 : 0, NULL, 0 };
	size_t n, want = m->mem.count ? m->mem.count : 1;
	char *recs;
	struct spillmap_run *runs;

	*why = "out of memory";
	if (m->evict_cap < want) {
		free(m->evict_buf[0]);
		free(m->evict_buf[1]);
		m->evict_buf[0] = malloc(want * m->rec_size);
		m->evict_buf[1] = malloc(want * m->rec_size);
		huge_advise(m->evict_buf[0], want * m->rec_size);
		huge_advise(m->evict_buf[1], want * m->rec_size);
		if (!m->evict_count)
			m->evict_count = malloc(((1u << SORT_BITS) + 1) * sizeof(*m->evict_count));
		m->evict_cap = m->evict_buf[0] && m->evict_buf[1] && m->evict_count ? want : 0;
		if (!m->evict_cap)
			return -1;
	}
	e.recs = m->evict_buf[1];
	hmap_sweep(&m->mem, evict_one, &e);
	if (!(n = e.n))
		return 0;
	recs = m->evict_buf[0];
	sort_recs(m, e.recs, recs, n);
	if (!m->bloom) {
		/* Zeroed pages, touched as used, page aligned: a block is one cache line. */
		void *p = mmap(NULL, BLOOM_BITS / 8, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			return -1;
		huge_advise(p, BLOOM_BITS / 8);
		m->bloom = p;
	}
	bloom_add_all(m, recs, n);
	*why = "cannot write to a temporary file";
	if (m->fd < 0 && (m->fd = tempfile_open("seen")) < 0)
		return -1;
	if (tempfile_io(m->fd, recs, n * m->rec_size, m->end, 1) < 0)
		return -1;
	*why = "out of memory";
	if (!(runs = realloc(m->runs, (m->nruns + 1) * sizeof(*runs))))
		return -1;
	m->runs = runs;
	m->runs[m->nruns++] = (struct spillmap_run){ m->end, n, NULL };
	m->end += (off_t)(n * m->rec_size);
	m->spilled += n;
	*why = "cannot read back a temporary file";
	if (build_index(m, &m->runs[m->nruns - 1]) < 0)
		return -1;
	/*
	 * The newest FANIN runs merge when the oldest of them is at most twice
	 * the newest (a size class): O(log n) runs, each record rewritten
	 * O(log n) times, base FANIN.
	 */
	while (m->nruns >= FANIN && m->runs[m->nruns - FANIN].n <= 2 * m->runs[m->nruns - 1].n)
		if (merge_last(m, FANIN) < 0)
			return -1;
	return 0;
}

/* Look 'key' up in the runs, newest first: 1 with its value in 'val', 0 absent, -1 error. */
static int find_on_file(struct spillmap *m, const uint64_t *key, void *val)
{
	size_t kw = m->key_words;
	char *block = NULL;
	int rc = 0;

	for (size_t r = m->nruns; r-- > 0 && rc == 0;) {
		const struct spillmap_run *run = &m->runs[r];
		size_t nidx = (run->n + BLOCK - 1) / BLOCK, lo = 0, hi = nidx, b, cnt;
		/* The last block whose first key <= key. */
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			if (key_cmp(run->index + mid * kw, key, kw) <= 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (!lo)
			continue;
		b = lo - 1;
		cnt = run->n - b * BLOCK < BLOCK ? run->n - b * BLOCK : BLOCK;
		if (!block && !(block = malloc(BLOCK * m->rec_size)))
			return -1;
		if (tempfile_io(m->fd, block, cnt * m->rec_size, run->off + (off_t)(b * BLOCK * m->rec_size), 0) < 0) {
			rc = -1;
			break;
		}
		lo = 0;
		hi = cnt;
		while (lo < hi) {
			size_t mid = lo + (hi - lo) / 2;
			int c = key_cmp((const uint64_t *)(block + mid * m->rec_size), key, kw);
			if (!c) {
				memcpy(val, block + mid * m->rec_size + 8 * kw, m->val_size);
				rc = 1;
				break;
			}
			if (c < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
	}
	free(block);
	return rc;
}

void spillmap_prefetch(const struct spillmap *m, const uint64_t *key)
{
	hmap_prefetch(&m->mem, key);
	if (m->bloom) {
		uint64_t h2;
		__builtin_prefetch(bloom_block(m, key, &h2));
	}
}

void *spillmap_put(struct spillmap *m, const uint64_t *key, int *created, const char **why)
{
	unsigned char *v = hmap_get(&m->mem, key), tmp[256];
	int on_file = 0, made;

	m->clock++;
	if (v) {
		memcpy(v, &m->clock, 8);
		*created = 0;
		return v + 8;
	}
	if (m->mem.count >= m->max_entries && evict(m, why) < 0)
		return NULL;
	if (bloom_has(m, key)) {
		if (m->val_size > sizeof(tmp)) {
			*why = "value too large";
			return NULL;
		}
		on_file = find_on_file(m, key, tmp);
		if (on_file < 0) {
			*why = "cannot read back a temporary file";
			return NULL;
		}
	}
	v = hmap_put(&m->mem, key, &made);
	if (!v) {
		*why = "out of memory";
		return NULL;
	}
	memcpy(v, &m->clock, 8);
	if (on_file) {
		memcpy(v + 8, tmp, m->val_size);
		m->reloaded++;
	}
	*created = !on_file;
	return v + 8;
}
