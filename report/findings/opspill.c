/*
 * opspill.c - finding operations sorted through a temporary file
 * (report/findings/opspill.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/sort.h"
#include "report/findings/opspill.h"

struct run {
	off_t off;          /* in records */
	size_t n;
};

struct opspill {
	struct spill_op *buf;
	size_t nbuf, alloc, cap;   /* held, allocated, most allocated */
	int sealed;         /* buf sorted: no more adds */
	int fd;             /* -1 until the first run */
	struct run *runs;
	size_t nruns, runs_cap;
	uint64_t count;
};

static int op_cmp(const struct spill_op *x, const struct spill_op *y)
{
	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->tag > y->tag) - (x->tag < y->tag);
}

static int op_qcmp(const void *a, const void *b)
{
	return op_cmp(a, b);
}

struct opspill *opspill_new(size_t buffer_ops)
{
	struct opspill *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->cap = buffer_ops ? buffer_ops : SPILL_DEFAULT_OPS;
	s->fd = -1;
	return s;
}

void opspill_free(struct opspill *s)
{
	if (!s)
		return;
	if (s->fd >= 0)
		close(s->fd);
	free(s->buf);
	free(s->runs);
	free(s);
}

uint64_t opspill_count(const struct opspill *s)
{
	return s ? s->count : 0;
}

size_t opspill_runs(const struct opspill *s)
{
	return s ? s->nruns : 0;
}

/* An unlinked file in $TMPDIR or /tmp. */
static int temp_fd(void)
{
	const char *dir = getenv("TMPDIR");
	char *path = NULL;
	int fd;

	if (!dir || !*dir)
		dir = "/tmp";
	if (asprintf(&path, "%s/mapprof-ops-XXXXXX", dir) < 0)
		return -1;
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

static int write_all(int fd, const void *p, size_t len, off_t off)
{
	const char *c = p;
	while (len) {
		ssize_t w = pwrite(fd, c, len, off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return -1;
		c += w;
		len -= (size_t)w;
		off += w;
	}
	return 0;
}

/* The full buffer, sorted, as a run at the end of the file. */
static int spill(struct opspill *s, const char **why)
{
	off_t off = s->nruns ? s->runs[s->nruns - 1].off + (off_t)s->runs[s->nruns - 1].n : 0;

	if (s->fd < 0 && (s->fd = temp_fd()) < 0) {
		*why = "cannot create a temporary file for the findings' operations";
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
	sort_array(s->buf, s->nbuf, sizeof(*s->buf), op_qcmp);
	if (write_all(s->fd, s->buf, s->nbuf * sizeof(*s->buf), off * (off_t)sizeof(*s->buf)) < 0) {
		*why = "cannot write the findings' operations to a temporary file";
		return -1;
	}
	s->runs[s->nruns++] = (struct run){ off, s->nbuf };
	s->nbuf = 0;
	return 0;
}

int opspill_add(struct opspill *s, const struct spill_op *op, const char **why)
{
	if (s->sealed) {
		*why = "operations added after reading";
		return -1;
	}
	if (s->nbuf == s->cap && spill(s, why) < 0)
		return -1;
	if (s->nbuf == s->alloc) {
		/* Grown to the cap, not allocated whole: most runs are small. */
		size_t ncap = s->alloc ? 2 * s->alloc : 64;
		struct spill_op *v;
		if (ncap > s->cap)
			ncap = s->cap;
		v = realloc(s->buf, ncap * sizeof(*v));
		if (!v) {
			*why = "out of memory";
			return -1;
		}
		s->buf = v;
		s->alloc = ncap;
	}
	s->buf[s->nbuf++] = *op;
	s->count++;
	return 0;
}

/* --- reading: a k-way merge of the runs and the buffer ------------------- */

#define READ_CHUNK 2048

struct source {
	const struct spill_op *cur, *end;   /* what is buffered */
	struct spill_op *chunk;             /* NULL for the memory buffer */
	off_t next;                         /* next record of the run to read */
	off_t stop;
};

struct opspill_reader {
	struct opspill *s;
	struct source *src;                 /* a heap of the sources not exhausted */
	size_t n;
	struct spill_op **chunks;           /* to free */
	size_t nchunks;
};

static int fill(struct opspill_reader *r, struct source *x)
{
	size_t want, len = 0;
	char *p = (char *)x->chunk;

	if (!x->chunk || x->next >= x->stop)
		return 0;
	want = (size_t)(x->stop - x->next) < READ_CHUNK ? (size_t)(x->stop - x->next) : READ_CHUNK;
	while (len < want * sizeof(*x->chunk)) {
		ssize_t got = pread(r->s->fd, p + len, want * sizeof(*x->chunk) - len,
				    x->next * (off_t)sizeof(*x->chunk) + (off_t)len);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -1;
		len += (size_t)got;
	}
	x->next += (off_t)want;
	x->cur = x->chunk;
	x->end = x->chunk + want;
	return 1;
}

static int src_less(const struct source *a, const struct source *b)
{
	return op_cmp(a->cur, b->cur) < 0;
}

static void sift(struct source *h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		struct source t;
		if (c >= n)
			return;
		if (c + 1 < n && src_less(&h[c + 1], &h[c]))
			c++;
		if (!src_less(&h[c], &h[i]))
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

struct opspill_reader *opspill_read(struct opspill *s)
{
	struct opspill_reader *r = calloc(1, sizeof(*r));

	if (!r)
		return NULL;
	if (!s->sealed) {
		sort_array(s->buf, s->nbuf, sizeof(*s->buf), op_qcmp);
		s->sealed = 1;
	}
	r->s = s;
	r->src = calloc(s->nruns + 1, sizeof(*r->src));
	r->chunks = calloc(s->nruns + 1, sizeof(*r->chunks));
	if (!r->src || !r->chunks) {
		opspill_reader_free(r);
		return NULL;
	}
	for (size_t i = 0; i < s->nruns; i++) {
		struct source *x = &r->src[r->n];
		x->chunk = r->chunks[r->nchunks++] = malloc(READ_CHUNK * sizeof(*x->chunk));
		if (!x->chunk) {
			opspill_reader_free(r);
			return NULL;
		}
		x->next = s->runs[i].off;
		x->stop = s->runs[i].off + (off_t)s->runs[i].n;
		if (fill(r, x) < 0) {
			opspill_reader_free(r);
			return NULL;
		}
		if (x->cur < x->end)
			r->n++;
	}
	if (s->nbuf) {
		struct source *x = &r->src[r->n++];
		memset(x, 0, sizeof(*x));
		x->cur = s->buf;
		x->end = s->buf + s->nbuf;
	}
	for (size_t i = r->n; i-- > 0;)
		sift(r->src, r->n, i);
	return r;
}

int opspill_next(struct opspill_reader *r, struct spill_op *op)
{
	struct source *top;

	if (!r->n)
		return 0;
	top = &r->src[0];
	*op = *top->cur++;
	if (top->cur == top->end) {
		int rc = fill(r, top);
		if (rc < 0)
			return -1;
		if (!rc)
			*top = r->src[--r->n];
	}
	sift(r->src, r->n, 0);
	return 1;
}

void opspill_reader_free(struct opspill_reader *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->nchunks; i++)
		free(r->chunks[i]);
	free(r->chunks);
	free(r->src);
	free(r);
}
