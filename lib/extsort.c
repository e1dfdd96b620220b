/*
 * extsort.c - records sorted through a temporary file (lib/extsort.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/extsort.h"
#include "lib/huge.h"
#include "lib/tempfile.h"

/*
 * Coded runs are written ENC_BYTES at a time, read back CODED_CHUNK bytes
 * at a time per run; one record's code is at most CODED_MAX bytes.
 */
enum { ENC_BYTES = 256 << 10, CODED_CHUNK = 64 << 10, CODED_MAX = 256 };

struct run {
	off_t pos, len;     /* in bytes */
	size_t n;           /* records */
};

struct extsort {
	size_t size;
	int (*cmp)(const void *, const void *);
	char *buf;
	size_t nbuf, alloc, cap;   /* held, allocated, most allocated */
	int sealed;         /* buf sorted: no more adds */
	int fd;             /* -1 until the first run */
	struct run *runs;
	size_t nruns, runs_cap;
	uint64_t count;
	off_t fend;         /* the file's bytes so far */
	/* extsort_set_codec(): runs written through encode, read through decode. */
	size_t (*encode)(const void *prev, const void *rec, unsigned char *out);
	size_t (*decode)(void *rec, const unsigned char *in, size_t avail);
	size_t max_len;
	/* sort_buffer()'s scratch, kept from one run to the next (see there). */
	char *tmp;
	size_t *bounds;
	size_t tmp_n;       /* records tmp holds (and bounds covers) */
};

/*
 * One record copied: the sizes the report sorts by their constant, so that
 * the compiler moves the words in place (a call to memcpy() per record was
 * 4 % of a 10 M-event report's samples, most of them in merge()).
 */
static inline void copy_rec(void *dst, const void *src, size_t size)
{
	switch (size) {
	case 8: memcpy(dst, src, 8); break;
	case 16: memcpy(dst, src, 16); break;
	case 24: memcpy(dst, src, 24); break;
	case 32: memcpy(dst, src, 32); break;
	case 40: memcpy(dst, src, 40); break;
	case 48: memcpy(dst, src, 48); break;
	case 64: memcpy(dst, src, 64); break;
	default: memcpy(dst, src, size); break;
	}
}

struct extsort *extsort_new(size_t size, int (*cmp)(const void *, const void *), size_t buffer)
{
	struct extsort *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->size = size;
	s->cmp = cmp;
	s->cap = buffer ? buffer : (size_t)1 << 20;
	s->fd = -1;
	return s;
}

void extsort_set_codec(struct extsort *s, size_t (*encode)(const void *prev, const void *rec, unsigned char *out),
		       size_t (*decode)(void *rec, const unsigned char *in, size_t avail), size_t max_len)
{
	if (s->count || !encode || !decode || !max_len || max_len > CODED_MAX)
		return;   /* too late, or not a codec: runs stay whole records */
	s->encode = encode;
	s->decode = decode;
	s->max_len = max_len;
}

void extsort_free(struct extsort *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	free(s->runs);
	free(s->tmp);
	free(s->bounds);
	free(s);
}

uint64_t extsort_count(const struct extsort *s)
{
	return s ? s->count : 0;
}

size_t extsort_runs(const struct extsort *s)
{
	return s ? s->nruns : 0;
}

/*
 * Sort the buffer.  The report's records mostly come nearly in order (the
 * findings' operations and the allocation endpoints follow the stream's
 * time), so the sort takes the ascending stretches as they are, makes each
 * at least MIN_RUN long by insertion, and merges neighbours through a
 * scratch buffer: linear on sorted input, n log n at worst.  qsort() (a
 * merge sort too, blind to order) when the scratch cannot be had.
 */
#define MIN_RUN 32

static void insertion(char *base, size_t lo, size_t hi, size_t start, size_t size,
		      int (*cmp)(const void *, const void *), char *hold)
{
	for (size_t i = start; i < hi; i++) {
		size_t j = i;
		if (cmp(base + (i - 1) * size, base + i * size) <= 0)
			continue;
		copy_rec(hold, base + i * size, size);
		while (j > lo && cmp(base + (j - 1) * size, hold) > 0)
			j--;
		memmove(base + (j + 1) * size, base + j * size, (i - j) * size);
		copy_rec(base + j * size, hold, size);
	}
}

static void merge(const char *src, char *dst, size_t lo, size_t mid, size_t hi, size_t size,
		  int (*cmp)(const void *, const void *))
{
	size_t i = lo, j = mid, k = lo;

	/* Already in order across the seam: one copy. */
	if (cmp(src + (mid - 1) * size, src + mid * size) <= 0) {
		memcpy(dst + lo * size, src + lo * size, (hi - lo) * size);
		return;
	}
	while (i < mid && j < hi) {
		if (cmp(src + j * size, src + i * size) < 0)
			copy_rec(dst + k++ * size, src + j++ * size, size);
		else
			copy_rec(dst + k++ * size, src + i++ * size, size);
	}
	memcpy(dst + k * size, src + i * size, (mid - i) * size);
	k += mid - i;
	memcpy(dst + k * size, src + j * size, (hi - j) * size);
}

static void sort_buffer(struct extsort *s)
{
	size_t n = s->nbuf, size = s->size, nruns = 0, *bounds;
	char *tmp, *hold, *src, *dst;

	if (n < 2)
		return;
	/*
	 * The scratch is kept for the next run: allocated and freed at every
	 * run, a large one came from mmap() each time and every page of it was
	 * faulted in again (a page fault is a trip to the hypervisor in a VM:
	 * two thirds of a 3 M-event report's 74,000 faults).  It is as large
	 * as the buffer, which a run fills to its cap.
	 */
	if (s->tmp_n < n) {
		free(s->tmp);
		free(s->bounds);
		s->tmp = malloc(n * size + size);
		huge_advise(s->tmp, n * size + size);
		s->bounds = malloc((n / MIN_RUN + 2) * sizeof(*s->bounds));
		s->tmp_n = s->tmp && s->bounds ? n : 0;
		if (!s->tmp_n) {
			free(s->tmp);
			free(s->bounds);
			s->tmp = NULL;
			s->bounds = NULL;
			qsort(s->buf, n, size, s->cmp);
			return;
		}
	}
	tmp = s->tmp;
	bounds = s->bounds;
	hold = tmp + n * size;
	/* The runs: ascending stretches, each at least MIN_RUN (but the last). */
	for (size_t lo = 0; lo < n;) {
		size_t hi = lo + 1;
		while (hi < n && s->cmp(s->buf + (hi - 1) * size, s->buf + hi * size) <= 0)
			hi++;
		if (hi - lo < MIN_RUN) {
			size_t end = lo + MIN_RUN < n ? lo + MIN_RUN : n;
			insertion(s->buf, lo, end, hi, size, s->cmp, hold);
			hi = end;
		}
		bounds[nruns++] = lo;
		lo = hi;
	}
	bounds[nruns] = n;
	/* Neighbours merged, back and forth between the buffer and the scratch. */
	src = s->buf;
	dst = tmp;
	while (nruns > 1) {
		size_t m = 0, r;
		for (r = 0; r + 1 < nruns; r += 2) {
			merge(src, dst, bounds[r], bounds[r + 1], bounds[r + 2], size, s->cmp);
			bounds[m++] = bounds[r];
		}
		if (r < nruns) {
			memcpy(dst + bounds[r] * size, src + bounds[r] * size, (bounds[r + 1] - bounds[r]) * size);
			bounds[m++] = bounds[r];
		}
		bounds[m] = n;
		nruns = m;
		{
			char *t = src;
			src = dst;
			dst = t;
		}
	}
	if (src != s->buf)
		memcpy(s->buf, src, n * size);
}

/*
 * The sorted buffer through the codec at the file's end: its bytes; -1 when
 * a write failed (the run is not whole: never taken as one), -2 out of memory.
 */
static off_t write_coded(struct extsort *s)
{
	unsigned char *out = malloc(ENC_BYTES + s->max_len), *p = out;
	char *zero = calloc(1, s->size);
	const char *prev = zero;
	off_t at = s->fend, rc = -1;

	if (!out || !zero) {
		rc = -2;
		goto out;
	}
	for (size_t i = 0; i < s->nbuf; i++) {
		const char *rec = s->buf + i * s->size;
		p += s->encode(prev, rec, p);
		prev = rec;
		if ((size_t)(p - out) >= ENC_BYTES) {
			if (tempfile_io(s->fd, out, (size_t)(p - out), at, 1) < 0)
				goto out;
			at += p - out;
			p = out;
		}
	}
	if (p > out && tempfile_io(s->fd, out, (size_t)(p - out), at, 1) < 0)
		goto out;
	at += p - out;
	rc = at - s->fend;
out:
	free(zero);
	free(out);
	return rc;
}

/* The full buffer, sorted, as a run at the end of the file. */
static int spill(struct extsort *s, const char **why)
{
	off_t len;

	if (s->fd < 0 && (s->fd = tempfile_open("sort")) < 0) {
		*why = "cannot create a temporary file to sort in";
		return -1;
	}
	if (s->nruns == s->runs_cap) {
		size_t ncap = s->runs_cap ? 2 * s->runs_cap : 16;
		struct run *v = realloc(s->runs, ncap * sizeof(*v));
		if (!v) {
			*why = "out of memory";
			return -1;
		}
		s->runs = v;
		s->runs_cap = ncap;
	}
	sort_buffer(s);
	if (s->encode) {
		len = write_coded(s);
	} else {
		len = (off_t)(s->nbuf * s->size);
		if (tempfile_io(s->fd, s->buf, (size_t)len, s->fend, 1) < 0)
			len = -1;
	}
	if (len < 0) {
		*why = len == -2 ? "out of memory" : "cannot write to a temporary file to sort in";
		return -1;
	}
	s->runs[s->nruns++] = (struct run){ s->fend, len, s->nbuf };
	s->fend += len;
	s->nbuf = 0;
	return 0;
}

int extsort_add(struct extsort *s, const void *rec, const char **why)
{
	if (s->sealed) {
		*why = "records added after reading";
		return -1;
	}
	if (s->nbuf == s->cap && spill(s, why) < 0)
		return -1;
	if (s->nbuf == s->alloc) {
		/*
		 * Most runs are small: doubled from 64 records, but once past
		 * 1 MiB straight to a cap of up to 64 MiB (a larger one, asked
		 * for with MAPPROF_REPORT_BUFFER, is still doubled towards).
		 * Each doubling copied the buffer into fresh pages (faults:
		 * trips to the hypervisor here); the cap's pages are only
		 * touched as they fill, huge (lib/huge.h).
		 */
		size_t ncap = s->alloc ? 2 * s->alloc : 64;
		char *v;
		if (ncap > s->cap ||
		    (ncap * s->size > ((size_t)1 << 20) && s->cap <= ((size_t)64 << 20) / s->size))
			ncap = s->cap;
		v = realloc(s->buf, ncap * s->size);
		if (!v) {
			*why = "out of memory";
			return -1;
		}
		s->buf = v;
		s->alloc = ncap;
		huge_advise(v, ncap * s->size);
	}
	copy_rec(s->buf + s->nbuf++ * s->size, rec, s->size);
	s->count++;
	return 0;
}

/* --- reading: a k-way merge of the runs and the buffer ------------------- */

#define READ_CHUNK 2048

/*
 * A run read back: whole records, cur..end in chunk; or coded ones, the
 * current record decoded into rec (cur points there), its code's bytes
 * bp..bend in chunk, 'left' records still to decode.
 */
struct source {
	const char *cur, *end;              /* what is buffered */
	char *chunk;                        /* NULL for the memory buffer */
	off_t next;                         /* the next byte of the run to read */
	off_t stop;                         /* the run's end */
	char *rec;                          /* coded: the record decoded last */
	const unsigned char *bp, *bend;
	size_t left;
};

struct extsort_reader {
	struct extsort *s;
	struct source *src;                 /* a heap of the sources not exhausted */
	size_t n;
	char **chunks;                      /* to free */
	size_t nchunks;
};

/* Whole records: the next chunk of the run.  1, 0 at its end, -1 when the file fails. */
static int fill(struct extsort_reader *r, struct source *x)
{
	size_t size = r->s->size, want;

	if (!x->chunk || x->next >= x->stop)
		return 0;
	want = (size_t)(x->stop - x->next) < READ_CHUNK * size ? (size_t)(x->stop - x->next) : READ_CHUNK * size;
	if (tempfile_io(r->s->fd, x->chunk, want, x->next, 0) < 0)
		return -1;
	x->next += (off_t)want;
	x->cur = x->chunk;
	x->end = x->chunk + want;
	return 1;
}

/*
 * Coded records: the next one decoded into x->rec (the chunk topped up
 * first when less than one code's most is left of it).  1, 0 at the run's
 * end, -1 when the file fails or its bytes make no record.
 */
static int decode_next(struct extsort_reader *r, struct source *x)
{
	const struct extsort *s = r->s;
	size_t have, took;

	if (!x->left)
		return 0;
	have = (size_t)(x->bend - x->bp);
	if (have < s->max_len && x->next < x->stop) {
		size_t room = CODED_CHUNK - have;
		size_t want = (size_t)(x->stop - x->next) < room ? (size_t)(x->stop - x->next) : room;
		memmove(x->chunk, x->bp, have);
		if (tempfile_io(s->fd, x->chunk + have, want, x->next, 0) < 0)
			return -1;
		x->next += (off_t)want;
		x->bp = (const unsigned char *)x->chunk;
		x->bend = x->bp + have + want;
		have += want;
	}
	took = have ? s->decode(x->rec, x->bp, have) : 0;
	if (!took || took > have)
		return -1;
	x->bp += took;
	x->left--;
	return 1;
}

/* The source's next record made current: 1, 0 when it has none, -1 when the file fails. */
static int advance(struct extsort_reader *r, struct source *x)
{
	if (x->rec)
		return decode_next(r, x);
	x->cur += r->s->size;
	return x->cur < x->end ? 1 : fill(r, x);
}

static void sift(struct extsort_reader *r, size_t i)
{
	struct source *h = r->src;
	size_t n = r->n;
	int (*cmp)(const void *, const void *) = r->s->cmp;

	for (;;) {
		size_t c = 2 * i + 1;
		struct source t;
		if (c >= n)
			return;
		if (c + 1 < n && cmp(h[c + 1].cur, h[c].cur) < 0)
			c++;
		if (cmp(h[c].cur, h[i].cur) >= 0)
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

struct extsort_reader *extsort_read(struct extsort *s)
{
	struct extsort_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (!s->sealed) {
		sort_buffer(s);
		s->sealed = 1;
		/* No more runs: the scratch goes. */
		free(s->tmp);
		free(s->bounds);
		s->tmp = NULL;
		s->bounds = NULL;
		s->tmp_n = 0;
	}
	r->s = s;
	r->src = calloc(s->nruns + 1, sizeof(*r->src));
	r->chunks = calloc(s->nruns + 1, sizeof(*r->chunks));
	if (!r->src || !r->chunks) {
		extsort_reader_free(r);
		return NULL;
	}
	for (size_t i = 0; i < s->nruns; i++) {
		struct source *x = &r->src[r->n];
		size_t bytes = s->decode ? CODED_CHUNK + s->size : READ_CHUNK * s->size;
		int rc;
		memset(x, 0, sizeof(*x));
		x->chunk = r->chunks[r->nchunks++] = calloc(1, bytes);
		if (!x->chunk) {
			extsort_reader_free(r);
			return NULL;
		}
		x->next = s->runs[i].pos;
		x->stop = s->runs[i].pos + s->runs[i].len;
		if (s->decode) {
			/* The record slot after the chunk: the heap moves sources, not it. */
			x->rec = x->chunk + CODED_CHUNK;
			x->cur = x->rec;
			x->bp = x->bend = (const unsigned char *)x->chunk;
			x->left = s->runs[i].n;
			rc = decode_next(r, x);
		} else {
			rc = fill(r, x);
		}
		if (rc < 0) {
			extsort_reader_free(r);
			return NULL;
		}
		if (rc > 0)
			r->n++;
	}
	if (s->nbuf) {
		struct source *x = &r->src[r->n++];
		memset(x, 0, sizeof(*x));
		x->cur = s->buf;
		x->end = s->buf + s->nbuf * s->size;
	}
	for (size_t i = r->n; i-- > 0;)
		sift(r, i);
	return r;
}

int extsort_next(struct extsort_reader *r, void *rec)
{
	struct source *top;
	int rc;

	if (!r->n)
		return 0;
	top = &r->src[0];
	copy_rec(rec, top->cur, r->s->size);
	rc = advance(r, top);
	if (rc < 0)
		return -1;
	if (!rc)
		*top = r->src[--r->n];
	sift(r, 0);
	return 1;
}

void extsort_reader_free(struct extsort_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nchunks; i++)
		free(r->chunks[i]);
	free(r->chunks);
	free(r->src);
	free(r);
}
