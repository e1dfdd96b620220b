/*
 * detect_alloc.c - repeated and unused device allocations.
 *
 * repeated_alloc: the same host data (host address, device, size) is
 * allocated on a device again after an earlier allocation of it; each
 * allocation after the first is one occurrence, its alloc and delete are the
 * saving.  Why it costs: device allocation and free are slow (they may
 * synchronise the device); mapping the data once around the loop avoids
 * them.  Known false positives: freeing on purpose because device memory is
 * short; distinct variables that reuse one host address (a stack array in a
 * function called repeatedly) look like one.  Memory from omp_target_alloc
 * has host address 0 and counts as one "host data" per device and size.
 *
 * unused_alloc: an allocation whose lifetime (alloc begin to delete end, or
 * to the end of the run when it is never deleted) overlaps no kernel on its
 * device (closed intervals).  Why it costs: the allocation, the free and
 * usually transfers into it serve nothing.  Known false positives: memory
 * used by a kernel of another device through unified memory, or by the
 * host through omp_target_memcpy.
 *
 * Allocations stay in a map until their delete (the delete carries the seq
 * of its allocation, paired by 'mapprof record'); a delete without a known
 * allocation is ignored.  An allocation deleted with no kernel yet waits in a
 * heap until the stream passes its delete's end, since a kernel may begin
 * while the delete runs.
 */
#include <stdlib.h>

#include "report/detect/detect_alloc.h"

enum { LIVE_REPEATED = 1, LIVE_USED = 2 };

struct live_alloc {
	int64_t begin_ns, end_ns;
	uint64_t codeptr;
	uint64_t host_addr;
	uint64_t bytes;
	uint64_t kernels_then;   /* device's kernel count at the alloc */
	int32_t device;
	uint32_t flags;
};

struct pending_alloc {
	int64_t until_ns;        /* the delete's end */
	struct op_ref alloc, del;
	int device;
	uint64_t host_addr, bytes;
	uint64_t kernels_then;   /* device's kernel count at the delete */
};

void alloc_init(struct alloc_detector *d, unsigned kinds)
{
	d->kinds = kinds;
	hmap_init(&d->seen, 3, sizeof(uint64_t));
	hmap_init(&d->live, 1, sizeof(struct live_alloc));
	d->heap = NULL;
	d->nheap = d->heap_cap = 0;
}

void alloc_release(struct alloc_detector *d)
{
	hmap_release(&d->seen);
	hmap_release(&d->live);
	free(d->heap);
	d->heap = NULL;
}

static int emit(struct detect_ctx *ctx, enum finding_kind kind, const struct op_ref *alloc,
		const struct op_ref *del, int device, uint64_t host_addr, uint64_t bytes)
{
	struct occurrence occ = { 0 };

	occ.kind = kind;
	occ.nops = del ? 2 : 1;
	occ.ops[0] = *alloc;
	if (del)
		occ.ops[1] = *del;
	occ.ndevices = 1;
	occ.devices[0] = device;
	occ.data_addr = host_addr;
	occ.data_bytes = bytes;
	occ.bytes = bytes;
	return ctx_emit(ctx, &occ);
}

static int heap_less(const struct pending_alloc *a, const struct pending_alloc *b)
{
	return a->until_ns < b->until_ns || (a->until_ns == b->until_ns && a->del.seq < b->del.seq);
}

static int heap_push(struct alloc_detector *d, const struct pending_alloc *p)
{
	size_t i;

	if (d->nheap == d->heap_cap) {
		size_t ncap = d->heap_cap ? 2 * d->heap_cap : 16;
		struct pending_alloc *v = realloc(d->heap, ncap * sizeof(*v));
		if (!v)
			return -1;
		d->heap = v;
		d->heap_cap = ncap;
	}
	for (i = d->nheap++; i > 0 && heap_less(p, &d->heap[(i - 1) / 2]); i = (i - 1) / 2)
		d->heap[i] = d->heap[(i - 1) / 2];
	d->heap[i] = *p;
	return 0;
}

static void heap_pop(struct alloc_detector *d, struct pending_alloc *out)
{
	struct pending_alloc last = d->heap[--d->nheap];
	size_t i = 0;

	*out = d->heap[0];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= d->nheap)
			break;
		if (c + 1 < d->nheap && heap_less(&d->heap[c + 1], &d->heap[c]))
			c++;
		if (!heap_less(&d->heap[c], &last))
			break;
		d->heap[i] = d->heap[c];
		i = c;
	}
	if (d->nheap)
		d->heap[i] = last;
}

static int settle(struct detect_ctx *ctx, const struct pending_alloc *p)
{
	struct dev_stat *s = ctx_device(ctx, p->device);

	if (!s)
		return ctx_oom(ctx);
	if (s->kernels > p->kernels_then)
		return 0;
	return emit(ctx, FINDING_UNUSED_ALLOC, &p->alloc, &p->del, p->device, p->host_addr, p->bytes);
}

int alloc_advance(struct alloc_detector *d, struct detect_ctx *ctx, const struct event *ev)
{
	while (d->nheap && d->heap[0].until_ns < ev->begin_ns) {
		struct pending_alloc p;
		heap_pop(d, &p);
		if (settle(ctx, &p) < 0)
			return -1;
	}
	return 0;
}

static int on_alloc(struct alloc_detector *d, struct detect_ctx *ctx, const struct event *ev)
{
	uint64_t key[3] = { ev->src_addr, ev->bytes, dev_word(ev->dest_device) };
	uint64_t *count = hmap_put(&d->seen, key, NULL);
	struct dev_stat *s = ctx_device(ctx, ev->dest_device);
	uint64_t seq = (uint64_t)ev->seq;
	struct live_alloc *a;

	if (!count || !s)
		return ctx_oom(ctx);
	a = hmap_put(&d->live, &seq, NULL);
	if (!a)
		return ctx_oom(ctx);
	*a = (struct live_alloc){ ev->begin_ns, ev->end_ns, ev->codeptr, ev->src_addr, ev->bytes,
				  s->kernels, ev->dest_device, 0 };
	if ((*count)++)
		a->flags |= LIVE_REPEATED;
	/* A kernel begun earlier that is still running overlaps the lifetime. */
	if (s->max_end_ns >= ev->begin_ns)
		a->flags |= LIVE_USED;
	return 0;
}

static int on_delete(struct alloc_detector *d, struct detect_ctx *ctx, const struct event *ev)
{
	uint64_t seq = (uint64_t)ev->alloc_seq;
	struct live_alloc *a = ev->alloc_seq ? hmap_get(&d->live, &seq) : NULL;
	struct live_alloc la;
	struct op_ref alloc, del;
	struct dev_stat *s;

	if (!a)
		return 0;
	la = *a;
	hmap_del(&d->live, &seq);
	alloc = (struct op_ref){ ev->alloc_seq, la.begin_ns, la.end_ns, la.codeptr, ROLE_ALLOC, 0 };
	del = op_of(ev, ROLE_DELETE);
	if ((d->kinds & 1u << FINDING_REPEATED_ALLOC) && (la.flags & LIVE_REPEATED) &&
	    emit(ctx, FINDING_REPEATED_ALLOC, &alloc, &del, la.device, la.host_addr, la.bytes) < 0)
		return -1;
	if (!(d->kinds & 1u << FINDING_UNUSED_ALLOC) || (la.flags & LIVE_USED))
		return 0;
	s = ctx_device(ctx, la.device);
	if (!s)
		return ctx_oom(ctx);
	if (s->kernels > la.kernels_then)
		return 0;
	struct pending_alloc p = { ev->end_ns, alloc, del, la.device, la.host_addr, la.bytes, s->kernels };
	if (heap_push(d, &p) < 0)
		return ctx_oom(ctx);
	return 0;
}

int alloc_feed(struct alloc_detector *d, struct detect_ctx *ctx, const struct event *ev)
{
	if (!ev->bytes && ev->kind == EV_ALLOC)
		return 0;
	if (ev->kind == EV_ALLOC)
		return on_alloc(d, ctx, ev);
	if (ev->kind == EV_DELETE)
		return on_delete(d, ctx, ev);
	return 0;
}

/* A live allocation's seq: its key. */
static int64_t live_seq(const uint64_t *key, const void *val)
{
	(void)val;
	return (int64_t)key[0];
}

int alloc_finish(struct alloc_detector *d, struct detect_ctx *ctx)
{
	struct map_entry *live;
	size_t n;
	int rc = 0;

	while (d->nheap) {
		struct pending_alloc p;
		heap_pop(d, &p);
		if (settle(ctx, &p) < 0)
			return -1;
	}
	/* Never deleted: the lifetime runs to the end of the run (in the allocations' order). */
	if (!(live = map_by_seq(&d->live, live_seq, &n)))
		return ctx_oom(ctx);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct live_alloc *a = live[i].val;
		struct op_ref alloc = { live[i].seq, a->begin_ns, a->end_ns, a->codeptr, ROLE_ALLOC, 0 };
		struct dev_stat *s = ctx_device(ctx, a->device);

		if (!s)
			rc = ctx_oom(ctx);
		else if ((d->kinds & 1u << FINDING_REPEATED_ALLOC) && (a->flags & LIVE_REPEATED) &&
			 emit(ctx, FINDING_REPEATED_ALLOC, &alloc, NULL, a->device, a->host_addr, a->bytes) < 0)
			rc = -1;
		else if ((d->kinds & 1u << FINDING_UNUSED_ALLOC) && !(a->flags & LIVE_USED) &&
			 s->kernels == a->kernels_then &&
			 emit(ctx, FINDING_UNUSED_ALLOC, &alloc, NULL, a->device, a->host_addr, a->bytes) < 0)
			rc = -1;
	}
	free(live);
	return rc;
}
