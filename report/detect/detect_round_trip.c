/*
 * detect_round_trip.c - round trips: data that A sent into a buffer on B
 * comes back from that buffer to A unchanged.
 *
 * Why it costs: both legs are wasted.  Host->device->host: the device copy
 * came back unmodified (a 'from' or 'tofrom' that could be 'to').
 * Device->host->device: the host sends back what it just received, as with
 * a kernel called in a loop with no enclosing data region.
 *
 * For each transfer R leaving buffer L = (B, address) for device A, T is the
 * latest earlier transfer from A into L of the same size.  (T, R) is one
 * occurrence when T and R carry the same content and T is not yet the send
 * of another pair.  Buffers are identified by device and address, so a host
 * buffer is the host address the data arrived at and later leaves from: the
 * device side may be reallocated at another address in between and the trip
 * is still found.  A transfer can be the return of one pair and the send of
 * the next (to, from, to of unchanged data: two trips).  Unlike matching by
 * content alone, one return never pairs with several sends, sends are taken
 * in time order only, and content that comes back by another way (through a
 * second device or buffer) is no round trip here.
 *
 * Known false positives: a kernel may have read and rewritten the same
 * values (the content is unchanged, yet the device did work on it).
 */
#include "lib/sat.h"
#include "report/detect/detect_round_trip.h"

enum { RT_HAS_HASH = 1, RT_PAIRED = 2, RT_FIRST_COPY = 4 };

struct rt_last {
	int64_t seq, begin_ns, end_ns;
	uint64_t codeptr;
	uint64_t hash;
	uint64_t src_addr;
	uint64_t flags;
};

static void buffer_key(uint64_t key[3], int buf_dev, uint64_t buf_addr, int from_dev, uint64_t bytes)
{
	key[0] = buf_addr;
	key[1] = bytes;
	key[2] = dev_word(buf_dev) << 32 | dev_word(from_dev);
}

void rt_init(struct rt_detector *d)
{
	hmap_init(&d->last, 3, sizeof(struct rt_last));
}

void rt_release(struct rt_detector *d)
{
	hmap_release(&d->last);
}

static int emit_trip(struct detect_ctx *ctx, const struct rt_last *t, const struct event *r)
{
	int host = ctx->cfg->host_device;
	struct occurrence occ = { 0 };

	occ.kind = FINDING_ROUND_TRIP;
	occ.nops = 2;
	occ.ops[0] = (struct op_ref){ t->seq, t->begin_ns, t->end_ns, t->codeptr, ROLE_SEND,
				      (t->flags & RT_FIRST_COPY) != 0 };
	occ.ops[1] = op_of(r, ROLE_RETURN);
	occ.ndevices = 2;
	occ.devices[0] = r->dest_device;   /* A */
	occ.devices[1] = r->src_device;    /* B */
	if (r->dest_device == host) {
		occ.flavour = FLAVOUR_HOST_DEVICE_HOST;
		occ.data_addr = t->src_addr;
	} else if (r->src_device == host) {
		occ.flavour = FLAVOUR_DEVICE_HOST_DEVICE;
		occ.data_addr = r->src_addr;
	} else {
		occ.flavour = FLAVOUR_DEVICE_DEVICE;
	}
	occ.data_bytes = r->bytes;
	occ.bytes = sat_add_u64(r->bytes, r->bytes);
	return ctx_emit(ctx, &occ);
}

int rt_feed(struct rt_detector *d, struct detect_ctx *ctx, const struct event *ev)
{
	uint64_t key[3];
	struct rt_last *t;

	if (!ev_is_transfer(ev) || !ev->bytes)
		return 0;

	/* As a return: ev leaves L = (src device, src addr) for A = dest device. */
	buffer_key(key, ev->src_device, ev->src_addr, ev->dest_device, ev->bytes);
	t = hmap_get(&d->last, key);
	if (t && ev->has_hash && (t->flags & RT_HAS_HASH) && !(t->flags & RT_PAIRED) &&
	    t->hash == ev->hash) {
		t->flags |= RT_PAIRED;
		if (emit_trip(ctx, t, ev) < 0)
			return -1;
	}

	/* As a send: ev is now the latest transfer from its source into its destination. */
	buffer_key(key, ev->dest_device, ev->dest_addr, ev->src_device, ev->bytes);
	t = hmap_put(&d->last, key, NULL);
	if (!t)
		return ctx_oom(ctx);
	*t = (struct rt_last){ ev->seq, ev->begin_ns, ev->end_ns, ev->codeptr, ev->hash, ev->src_addr,
			       (ev->has_hash ? RT_HAS_HASH : 0) | (ev->first_copy ? RT_FIRST_COPY : 0) };
	return 0;
}
