/*
 * extsort.h - fixed-size records sorted in bounded memory.
 *
 * Some passes of the report must see records in an order they do not
 * arrive in (the findings' operations by time, the timeline's allocation
 * endpoints by time), and a long run has hundreds of millions of them:
 * more than memory holds.  So they are kept in a buffer of fixed size; a
 * full buffer is sorted and written as a run to an unlinked temporary file
 * ($TMPDIR, else /tmp), and reading them back merges the runs and the
 * buffer.  Records that fit in the buffer never touch a file.
 */
#ifndef MAPPROF_LIB_EXTSORT_H
#define MAPPROF_LIB_EXTSORT_H

#include <stddef.h>
#include <stdint.h>

struct extsort;
struct extsort_reader;

/*
 * A sorter of records of 'size' bytes in the order of cmp (which must be
 * total, so that the order does not depend on where the runs were cut),
 * holding 'buffer' records in memory (0: 2^20).  NULL out of memory.
 */
struct extsort *extsort_new(size_t size, int (*cmp)(const void *, const void *), size_t buffer);
void extsort_free(struct extsort *s);

/*
 * Runs written compactly (before the first add; otherwise, or with a
 * max_len over 256, the runs stay whole records).  encode writes rec, the
 * record after prev in its sorted run (all zero bytes before the first),
 * into out, at most max_len bytes, and returns how many; decode reads one
 * code from in (avail bytes there, at least max_len but at a run's end)
 * into rec, which holds the run's record before it on entry, and returns
 * the bytes it took, or 0 when they make no record.  Every byte of a
 * record must come back as it was added.  For records that sort by
 * numbers close to one another, differences as varints take a third of
 * the bytes or less: a smaller temporary file, decoded on every read pass.
 */
void extsort_set_codec(struct extsort *s, size_t (*encode)(const void *prev, const void *rec, unsigned char *out),
		       size_t (*decode)(void *rec, const unsigned char *in, size_t avail), size_t max_len);

/* Add one; 0, or -1 with *why (static) when out of memory or the file failed. */
int extsort_add(struct extsort *s, const void *rec, const char **why);

/* Records added; runs written to the file (0: all in memory). */
uint64_t extsort_count(const struct extsort *s);
size_t extsort_runs(const struct extsort *s);

/*
 * Read every record in order; none may be added once a reader was opened.
 * Passes may follow one another (not at once).  NULL when out of memory or
 * the file cannot be read.
 */
struct extsort_reader *extsort_read(struct extsort *s);
/* 1 with the record in *rec, 0 at the end, -1 when the file cannot be read. */
int extsort_next(struct extsort_reader *r, void *rec);
void extsort_reader_free(struct extsort_reader *r);

#endif
