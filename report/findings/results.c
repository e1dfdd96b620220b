/*
 * results.c - the last content of every host range a transfer touched
 * (report/findings/results.h).
 */
#include <stdlib.h>
#include <string.h>

#include "report/findings/results.h"

void results_init(struct results *r)
{
	memset(r, 0, sizeof(*r));
	hmap_init(&r->index, 2, sizeof(size_t));
}

void results_release(struct results *r)
{
	if (!r)
		return;
	free(r->v);
	hmap_release(&r->index);
	memset(r, 0, sizeof(*r));
}

static struct result_range *range_of(struct results *r, uint64_t addr, uint64_t bytes)
{
	uint64_t key[2] = { addr, bytes };
	int created;
	size_t *pos = hmap_put(&r->index, key, &created);

	if (!pos)
		return NULL;
	if (!created)
		return &r->v[*pos];
	if (r->n == r->cap) {
		size_t ncap = r->cap ? 2 * r->cap : 16;
		struct result_range *v = realloc(r->v, ncap * sizeof(*v));
		if (!v) {
			hmap_del(&r->index, key);
			return NULL;
		}
		r->v = v;
		r->cap = ncap;
	}
	*pos = r->n;
	memset(&r->v[r->n], 0, sizeof(r->v[0]));
	r->v[r->n].host_addr = addr;
	r->v[r->n].bytes = bytes;
	return &r->v[r->n++];
}

int results_feed(struct results *r, const struct event *ev, int host)
{
	struct result_range *x;
	int back;

	if (ev->kind == EV_TO_DEVICE && ev->src_device == host && ev->dest_device != host)
		back = 0;
	else if (ev->kind == EV_FROM_DEVICE && ev->dest_device == host && ev->src_device != host)
		back = 1;
	else
		return 0;
	if (!(x = range_of(r, back ? ev->dest_addr : ev->src_addr, ev->bytes)))
		return -1;
	/* The stream is in begin order: the last one fed is the last one. */
	x->last_seq = ev->seq;
	x->last_codeptr = ev->codeptr;
	x->last_has_hash = ev->has_hash;
	x->last_hash = ev->hash;
	if (back) {
		x->returned = 1;
		x->ret_seq = ev->seq;
		x->ret_codeptr = ev->codeptr;
		x->ret_has_hash = ev->has_hash;
		x->ret_hash = ev->hash;
	}
	return 0;
}
