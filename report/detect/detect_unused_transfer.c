/*
 * detect_unused_transfer.c - transfers to a device that no kernel could read.
 *
 * A transfer X to a device d (not the host) is one occurrence when no kernel
 * of d could have read it:
 *   overwritten        a later transfer Y wrote the same destination (same
 *                      address and size) on d, and no kernel of d began
 *                      between X and Y nor was running when X began;
 *   after_last_kernel  no kernel of d began after X nor was running when X
 *                      began (the device's last kernel ended before X).
 * Why it costs: the bytes moved for nothing.  Typical causes: 'target update
 * to' twice in a row, mapping data 'to' a region whose kernel is skipped, or
 * a 'to' at the end of a program.
 *
 * The last transfer into each (device, address, size) is kept, tagged with
 * the device's kernel count when it arrived; a kernel of d makes every such
 * candidate of d used by bumping that count, with no scan.  What stays
 * unused at the end of the stream arrived after the last kernel.
 *
 * Known false positives: a kernel of another device reading d's memory, or
 * host code reading it through omp_target_memcpy.  A smaller or larger write
 * at the same address does not count as overwriting (it would not replace
 * all of X), so those cases are reported only if no kernel ran afterwards.
 */
#include <stdlib.h>

#include "report/detect/detect_unused_transfer.h"

struct ut_latest {
	int64_t seq, begin_ns, end_ns;
	uint64_t codeptr;
	uint64_t host_addr;
	uint64_t kernels_then;
	int32_t src_device;
	uint16_t used;
	uint16_t first_copy;   /* the event's (a copy into fresh device memory) */
};

void ut_init(struct ut_detector *d)
{
	hmap_init(&d->latest, 3, sizeof(struct ut_latest));
}

void ut_release(struct ut_detector *d)
{
	hmap_release(&d->latest);
}

static int emit(struct detect_ctx *ctx, const struct ut_latest *x, int device, uint64_t bytes,
		enum flavour flavour)
{
	struct occurrence occ = { 0 };

	occ.kind = FINDING_UNUSED_TRANSFER;
	occ.flavour = flavour;
	occ.nops = 1;
	occ.ops[0] = (struct op_ref){ x->seq, x->begin_ns, x->end_ns, x->codeptr, ROLE_TRANSFER, x->first_copy };
	occ.ndevices = 2;
	occ.devices[0] = x->src_device;
	occ.devices[1] = device;
	occ.data_addr = x->host_addr;
	occ.data_bytes = bytes;
	occ.bytes = bytes;
	return ctx_emit(ctx, &occ);
}

int ut_feed(struct ut_detector *d, struct detect_ctx *ctx, const struct event *ev)
{
	uint64_t key[3] = { ev->dest_addr, ev->bytes, dev_word(ev->dest_device) };
	struct ut_latest *x;
	struct dev_stat *s;
	int created;

	if (!ev_is_transfer(ev) || !ev->bytes || ev->dest_device == ctx->cfg->host_device)
		return 0;
	s = ctx_device(ctx, ev->dest_device);
	x = s ? hmap_put(&d->latest, key, &created) : NULL;
	if (!x)
		return ctx_oom(ctx);
	if (!created && !x->used && x->kernels_then == s->kernels &&
	    emit(ctx, x, ev->dest_device, ev->bytes, FLAVOUR_OVERWRITTEN) < 0)
		return -1;
	*x = (struct ut_latest){ ev->seq, ev->begin_ns, ev->end_ns, ev->codeptr,
				 transfer_host_addr(ev, ctx->cfg->host_device), s->kernels,
				 ev->src_device, s->max_end_ns >= ev->begin_ns, (uint16_t)ev->first_copy };
	return 0;
}

/* The latest transfer's seq. */
static int64_t latest_seq(const uint64_t *key, const void *val)
{
	(void)key;
	return ((const struct ut_latest *)val)->seq;
}

int ut_finish(struct ut_detector *d, struct detect_ctx *ctx)
{
	struct map_entry *latest;
	size_t n;
	int rc = 0;

	/* In the transfers' order. */
	if (!(latest = map_by_seq(&d->latest, latest_seq, &n)))
		return ctx_oom(ctx);
	for (size_t i = 0; i < n && rc == 0; i++) {
		const struct ut_latest *x = latest[i].val;
		const uint64_t *key = latest[i].key;
		int device = (int32_t)(uint32_t)key[2];
		struct dev_stat *s;

		if (x->used)
			continue;
		if (!(s = ctx_device(ctx, device)))
			rc = ctx_oom(ctx);
		else if (s->kernels == x->kernels_then &&
			 emit(ctx, x, device, key[1], FLAVOUR_AFTER_LAST_KERNEL) < 0)
			rc = -1;
	}
	free(latest);
	return rc;
}
