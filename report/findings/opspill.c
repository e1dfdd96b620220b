/*
 * opspill.c - the findings' operations in (begin_ns, seq) order through
 * lib/extsort.h (report/findings/opspill.h).
 */
#include "lib/extsort.h"
#include "report/findings/opspill.h"

static int op_cmp(const void *a, const void *b)
{
	const struct spill_op *x = a, *y = b;
	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	if (x->seq != y->seq)
		return x->seq < y->seq ? -1 : 1;
	return (x->tag > y->tag) - (x->tag < y->tag);
}

struct opspill *opspill_new(size_t buffer_ops)
{
	return (struct opspill *)extsort_new(sizeof(struct spill_op), op_cmp,
					     buffer_ops ? buffer_ops : SPILL_DEFAULT_OPS);
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
