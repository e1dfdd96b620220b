/*
 * opspill.c - the findings' operations in (begin_ns, seq) order through
 * lib/extsort.h (report/findings/opspill.h).
 */
#include <string.h>

#include "lib/extsort.h"
#include "lib/varint.h"
#include "report/findings/opspill.h"

int opspill_cmp(const void *a, const void *b)
{
	const struct spill_op *x = a, *y = b;
	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->tag > y->tag) - (x->tag < y->tag);
}

/*
 * An operation in a sorted run, after the one before it: its begin_ns and
 * seq as differences, its end_ns as its duration (zigzag varints: any
 * values come back, those of a real run in a byte or two each), then its
 * occurrence and tag.  ~7 bytes where the struct is 32 (3 M events: 33 MB
 * of temporary file became 7 MB; the report's time the same within noise,
 * the decoding on every read pass costing what the copies saved).
 */
enum { OP_CODE_MAX = 3 * VARINT_MAX + 2 * 5 };

static size_t op_encode(const void *prev, const void *rec, unsigned char *out)
{
	struct spill_op a, b;
	unsigned char *p = out;

	memcpy(&a, prev, sizeof(a));
	memcpy(&b, rec, sizeof(b));
	p = zigzag_put(p, (uint64_t)b.begin_ns - (uint64_t)a.begin_ns);
	p = zigzag_put(p, (uint64_t)b.seq - (uint64_t)a.seq);
	p = zigzag_put(p, (uint64_t)b.end_ns - (uint64_t)b.begin_ns);
	p = varint_put(p, b.occurrence);
	p = varint_put(p, b.tag);
	return (size_t)(p - out);
}

static size_t op_decode(void *rec, const unsigned char *in, size_t avail)
{
	/* No code is longer than OP_CODE_MAX: bytes past it (a damaged file) make no record. */
	const unsigned char *p = in, *end = in + (avail < OP_CODE_MAX ? avail : OP_CODE_MAX);
	uint64_t v[5];
	struct spill_op x;

	for (int i = 0; i < 5; i++)
		if (!varint_get_n(&p, end, &v[i]))
			return 0;
	if (v[3] > UINT32_MAX || v[4] > UINT32_MAX)
		return 0;
	memcpy(&x, rec, sizeof(x));
	x.begin_ns = (int64_t)((uint64_t)x.begin_ns + zigzag_value(v[0]));
	x.seq = (int64_t)((uint64_t)x.seq + zigzag_value(v[1]));
	x.end_ns = (int64_t)((uint64_t)x.begin_ns + zigzag_value(v[2]));
	x.occurrence = (uint32_t)v[3];
	x.tag = (uint32_t)v[4];
	memcpy(rec, &x, sizeof(x));
	return (size_t)(p - in);
}

struct opspill *opspill_new(size_t buffer_ops)
{
	struct extsort *s = extsort_new(sizeof(struct spill_op), opspill_cmp,
					buffer_ops ? buffer_ops : SPILL_DEFAULT_OPS);

	if (s)
		extsort_set_codec(s, op_encode, op_decode, OP_CODE_MAX);
	return (struct opspill *)s;
}

void opspill_free(struct opspill *s)
{
	extsort_free((struct extsort *)s);
}

int opspill_add(struct opspill *s, const struct spill_op *op, const char **why)
{
	return extsort_add((struct extsort *)s, op, why);
}

uint64_t opspill_count(const struct opspill *s)
{
	return extsort_count((const struct extsort *)s);
}

size_t opspill_runs(const struct opspill *s)
{
	return extsort_runs((const struct extsort *)s);
}

struct opspill_reader *opspill_read(struct opspill *s)
{
	return (struct opspill_reader *)extsort_read((struct extsort *)s);
}

int opspill_next(struct opspill_reader *r, struct spill_op *op)
{
	return extsort_next((struct extsort_reader *)r, op);
}

void opspill_reader_free(struct opspill_reader *r)
{
	extsort_reader_free((struct extsort_reader *)r);
}
