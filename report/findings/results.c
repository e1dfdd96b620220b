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
	free(r->sent);
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

/*
 * A pointer attach: an 8-byte send inside the device copy of a range sent
 * earlier in the same construct (the struct's send comes first, then its
 * member's section, then the attach).  Marks that range.
 */
static int note_send(struct results *r, const struct event *ev, size_t pos)
{
	if (ev->target_id != r->sent_target) {
		r->nsent = 0;
		r->sent_target = ev->target_id;
	}
	if (ev->bytes == sizeof(uint64_t) && ev->target_id)
		for (size_t i = 0; i < r->nsent; i++) {
			struct result_range *s = &r->v[r->sent[i]];
			if (r->sent[i] != pos && ev->dest_addr >= s->dev_addr &&
			    ev->dest_addr - s->dev_addr < s->bytes)
				s->holds_pointer = 1;
		}
	if (r->nsent == r->capsent) {
		size_t ncap = r->capsent ? 2 * r->capsent : 16;
		size_t *v = realloc(r->sent, ncap * sizeof(*v));
		if (!v)
			return -1;
		r->sent = v;
		r->capsent = ncap;
	}
	r->sent[r->nsent++] = pos;
	return 0;
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
	if (!back) {
		x->dev_addr = ev->dest_addr;
		if (note_send(r, ev, (size_t)(x - r->v)) < 0)
			return -1;
	}
	if (back) {
		x->returned = 1;
		x->ret_seq = ev->seq;
		x->ret_codeptr = ev->codeptr;
		x->ret_has_hash = ev->has_hash;
		x->ret_hash = ev->hash;
	}
	return 0;
}
