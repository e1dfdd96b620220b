/*
 * opspill.h - the operations of every finding in (begin_ns, seq) order, in
 * bounded memory.
 *
 * A long run has hundreds of millions of such operations: more than memory
 * holds, and every saving is a sweep over them in time order.  So they go
 * through lib/extsort.h: a buffer of fixed size, spilled sorted to a
 * temporary file when full, merged back when read.
 */
#ifndef MAPPROF_REPORT_OPSPILL_H
#define MAPPROF_REPORT_OPSPILL_H

#include <stddef.h>
#include <stdint.h>

/* One operation of a finding (32 bytes: there may be hundreds of millions). */
struct spill_op {
	int64_t seq;
	int64_t begin_ns;
	int64_t end_ns;
	uint32_t occurrence;   /* 0-based index of its occurrence in the finding */
	uint32_t tag;          /* finding slot << 4 | first copy << 3 | role (enum op_role) */
};

#define SPILL_TAG(slot, role, first) ((uint32_t)(slot) << 4 | (uint32_t)!!(first) << 3 | (uint32_t)(role))
#define SPILL_SLOT(tag) ((tag) >> 4)
#define SPILL_ROLE(tag) ((tag) & 7u)
#define SPILL_FIRST(tag) ((tag) >> 3 & 1u)
#define SPILL_MAX_SLOT (UINT32_MAX >> 4)

/* The default buffer: 2^20 operations (32 MiB). */
#define SPILL_DEFAULT_OPS ((size_t)1 << 20)

struct opspill;

/* A store whose buffer holds 'buffer_ops' operations (0: the default).  NULL out of memory. */
struct opspill *opspill_new(size_t buffer_ops);
void opspill_free(struct opspill *s);

/* The order operations come back in: begin_ns, then seq, then tag (a qsort() comparator). */
int opspill_cmp(const void *a, const void *b);

/* Add one; 0, or -1 with *why (static) when out of memory or the file failed. */
int opspill_add(struct opspill *s, const struct spill_op *op, const char **why);

/* Operations added, and runs written to the file (0: all in memory). */
uint64_t opspill_count(const struct opspill *s);
size_t opspill_runs(const struct opspill *s);

/*
 * Read every operation in (begin_ns, seq, tag) order; no more may be added
 * once a reader was opened.  Several passes may follow one another (not at
 * once).  NULL when out of memory.
 */
struct opspill_reader;
struct opspill_reader *opspill_read(struct opspill *s);
/* 1 with *op, 0 at the end, -1 when the file cannot be read. */
int opspill_next(struct opspill_reader *r, struct spill_op *op);
void opspill_reader_free(struct opspill_reader *r);

#endif
