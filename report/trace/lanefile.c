/*
 * lanefile.c - many byte streams in one temporary file (lanefile.h).
 *
 * The file is a sequence of blocks, each a header (struct head) and up to
 * LANEFILE_BLOCK - sizeof(struct head) bytes of one lane.  A block is
 * appended when its lane's buffer is full (or at lanefile_finish()), with
 * no next block; the lane's previous block then gets this one's offset as
 * its next.  A lane is read by following its blocks from the first.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "lib/grow.h"
#include "lib/tempfile.h"
#include "report/trace/lanefile.h"

struct head {
	uint64_t next;             /* the lane's next block (0: none; no lane's next is the file's first) */
	uint32_t len;              /* bytes after the header */
	uint32_t unused;
};

#define DATA (LANEFILE_BLOCK - sizeof(struct head))

struct lane {
	uint8_t *block;            /* a header's room, then DATA bytes; NULL until the first byte */
	size_t used;
	off_t first, last;         /* its blocks in the file, -1: none yet */
};

struct lanefile {
	int fd;
	off_t end;
	struct lane *lanes;
	size_t nlanes, caplanes;
};

struct lanefile *lanefile_new(void)
{
	struct lanefile *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	if ((f->fd = tempfile_open("otf2")) < 0) {
		free(f);
		return NULL;
	}
	return f;
}

/* The lane's buffer appended to the file as a block, linked after its last.  0, or -1 with errno. */
static int flush_lane(struct lanefile *f, struct lane *l)
{
	struct head h = { 0, (uint32_t)l->used, 0 };
	uint64_t at = (uint64_t)f->end;

	if (!l->used)
		return 0;
	memcpy(l->block, &h, sizeof(h));
	if (tempfile_io(f->fd, l->block, sizeof(h) + l->used, f->end, 1) < 0)
		return -1;
	if (l->last >= 0 && tempfile_io(f->fd, &at, sizeof(at), l->last + (off_t)offsetof(struct head, next), 1) < 0)
		return -1;
	if (l->first < 0)
		l->first = f->end;
	l->last = f->end;
	f->end += (off_t)(sizeof(h) + l->used);
	l->used = 0;
	return 0;
}

static struct lane *lane_at(struct lanefile *f, size_t lane)
{
	while (f->nlanes <= lane) {
		if (grow_one((void **)&f->lanes, &f->caplanes, f->nlanes, sizeof(*f->lanes)) < 0) {
			errno = ENOMEM;
			return NULL;
		}
		f->lanes[f->nlanes++] = (struct lane){ NULL, 0, -1, -1 };
	}
	return &f->lanes[lane];
}

int lanefile_put(struct lanefile *f, size_t lane, const void *p, size_t len)
{
	struct lane *l = lane_at(f, lane);
	const uint8_t *c = p;

	if (!l)
		return -1;
	if (!l->block && !(l->block = malloc(LANEFILE_BLOCK)))
		return -1;
	while (len) {
		size_t k = DATA - l->used < len ? DATA - l->used : len;
		memcpy(l->block + sizeof(struct head) + l->used, c, k);
		l->used += k;
		c += k;
		len -= k;
		if (l->used == DATA && flush_lane(f, l) < 0)
			return -1;
	}
	return 0;
}

int lanefile_finish(struct lanefile *f)
{
	int rc = 0;

	for (size_t i = 0; i < f->nlanes; i++) {
		if (!rc && flush_lane(f, &f->lanes[i]) < 0)
			rc = -1;
		free(f->lanes[i].block);
		f->lanes[i].block = NULL;
	}
	return rc;
}

void lanefile_free(struct lanefile *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->nlanes; i++)
		free(f->lanes[i].block);
	free(f->lanes);
	close(f->fd);
	free(f);
}

void lanefile_reader_init(struct lanefile_reader *r, const struct lanefile *f, size_t lane)
{
	r->f = f;
	r->next = lane < f->nlanes ? f->lanes[lane].first : -1;
	r->pos = r->len = 0;
}

int lanefile_refill(struct lanefile_reader *r)
{
	struct head h;

	while (r->next >= 0) {
		if (tempfile_io(r->f->fd, &h, sizeof(h), r->next, 0) < 0)
			return -1;
		if (h.len > DATA) {
			errno = EIO;
			return -1;
		}
		if (h.len && tempfile_io(r->f->fd, r->buf, h.len, r->next + (off_t)sizeof(h), 0) < 0)
			return -1;
		r->next = h.next ? (off_t)h.next : -1;
		r->pos = 0;
		r->len = h.len;
		if (h.len)
			return 1;
	}
	return 0;
}
