/*
 * lanefile.h - many byte streams ("lanes") in one unlinked temporary file,
 * for the OTF2 archive (report/trace/otf2.c): each location's records are
 * put here as they come, in any interleaving, and read back one location
 * after another, so that libotf2 holds one event writer at a time instead
 * of one per location.
 *
 * A lane keeps one block (LANEFILE_BLOCK bytes) in memory; a full one is
 * appended to the file and linked after the lane's previous block, so
 * memory grows with the lanes, never with what they hold.
 */
#ifndef MAPPROF_REPORT_LANEFILE_H
#define MAPPROF_REPORT_LANEFILE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define LANEFILE_BLOCK 4096

struct lanefile;

/* An empty lane file in $TMPDIR (else /tmp).  NULL with errno set. */
struct lanefile *lanefile_new(void);

/* Append 'len' bytes to lane 'lane' (any number: lanes are made as needed).  0, or -1 with errno. */
int lanefile_put(struct lanefile *f, size_t lane, const void *p, size_t len);

/* Every lane's last block out, the lanes' buffers freed: nothing is put after it.  0, or -1 with errno. */
int lanefile_finish(struct lanefile *f);

/* Frees f and its file.  Accepts NULL. */
void lanefile_free(struct lanefile *f);

/* Reads one lane from its start (after lanefile_finish()); its fields are lanefile.c's. */
struct lanefile_reader {
	const struct lanefile *f;
	off_t next;                /* the next block's offset, -1: none */
	uint8_t buf[LANEFILE_BLOCK];
	size_t pos, len;
};

/* Start reading lane 'lane' (one that was never put to is empty). */
void lanefile_reader_init(struct lanefile_reader *r, const struct lanefile *f, size_t lane);

/* The lane's next block into r->buf.  1, 0 at the lane's end, or -1 with errno. */
int lanefile_refill(struct lanefile_reader *r);

/* The lane's next byte (0..255), -1 at its end, or -2 with errno set. */
static inline int lanefile_getc(struct lanefile_reader *r)
{
	if (r->pos == r->len) {
		int rc = lanefile_refill(r);
		if (rc <= 0)
			return rc ? -2 : -1;
	}
	return r->buf[r->pos++];
}

#endif
