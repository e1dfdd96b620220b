/*
 * detect_duplicate.c - duplicate transfers: a device (or the host) receives
 * content it has already received.
 *
 * Why it costs: the bytes cross the link again although the receiver held
 * them; the usual cause is a map clause on each of several constructs where
 * one enclosing 'target data' region would do.
 *
 * Each transfer with a hash and a non-zero size is keyed by (hash, size,
 * destination device); every receipt after the first is one occurrence.  Its
 * flavour says whether the same host data was sent before (same_data: a
 * missed reuse) or only other data with identical content (same_content:
 * typically zero-initialised arrays, rarely worth fixing).  The host data of a
 * transfer is its host-side address (source when it leaves the host,
 * destination when it arrives there).
 *
 * Known false positives: the receiver may have overwritten or freed its copy
 * in between (a kernel wrote the buffer, or it was unmapped): the content
 * still travelled twice, but keeping it may cost memory.  Hash collisions
 * are assumed away (64-bit XXH3 and equal size).
 */
#include <stdlib.h>

#include "report/detect/detect_duplicate.h"
#include "lib/tempfile.h"

/*
 * One per distinct content received: millions on a long run, so the flag
 * shares a word with the seq (never negative) and a map slot is 48 bytes.
 */
struct dup_seen {
	uint64_t seq : 63;      /* the first receipt */
	uint64_t several_sources : 1;
	uint64_t codeptr;
	uint64_t host_addr;     /* its host-side address */
};

static void content_key(const struct event *ev, uint64_t key[2])
{
	key[0] = ev->hash;
	key[1] = ev->bytes << 16 | (uint16_t)ev->dest_device;
}

void dup_init(struct dup_detector *d)
{
	/* Contents held in memory (0: spillmap's default), the rest in a file. */
	spillmap_init(&d->seen, 2, sizeof(struct dup_seen), tempfile_buffer_records(0));
	hmap_init(&d->sources, 3, 0);
}

void dup_release(struct dup_detector *d)
{
	spillmap_release(&d->seen);
	hmap_release(&d->sources);
}

static int add_source(struct dup_detector *d, const uint64_t ckey[2], uint64_t addr, int *known)
{
	uint64_t key[3] = { ckey[0], ckey[1], addr };
	int created;

	if (!hmap_put(&d->sources, key, &created))
		return -1;
	if (known)
		*known = !created;
	return 0;
}

void dup_prefetch(const struct dup_detector *d, const struct event *ev)
{
	uint64_t key[2];

	if (!ev_is_transfer(ev) || !ev->has_hash || !ev->bytes)
		return;
	content_key(ev, key);
	spillmap_prefetch(&d->seen, key);
}

int dup_feed(struct dup_detector *d, struct detect_ctx *ctx, const struct event *ev)
{
	uint64_t key[2], addr;
	struct dup_seen *seen;
	struct occurrence occ = { 0 };
	int created, same;

	if (!ev_is_transfer(ev) || !ev->has_hash || !ev->bytes)
		return 0;
	content_key(ev, key);
	addr = transfer_host_addr(ev, ctx->cfg->host_device);
	seen = spillmap_put(&d->seen, key, &created, &ctx->why);
	if (!seen)
		return -1;
	if (created) {
		seen->seq = (uint64_t)ev->seq;
		seen->codeptr = ev->codeptr;
		seen->host_addr = addr;
		return 0;
	}
	/*
	 * Most contents come from one place only: remember further senders
	 * only once a second one shows up.
	 */
	if (addr == seen->host_addr) {
		same = 1;
	} else if (!seen->several_sources) {
		seen->several_sources = 1;
		if (add_source(d, key, seen->host_addr, NULL) < 0 || add_source(d, key, addr, NULL) < 0)
			return ctx_oom(ctx);
		same = 0;
	} else if (add_source(d, key, addr, &same) < 0) {
		return ctx_oom(ctx);
	}

	occ.kind = FINDING_DUPLICATE_TRANSFER;
	occ.flavour = same ? FLAVOUR_SAME_DATA : FLAVOUR_SAME_CONTENT;
	occ.nops = 1;
	occ.ops[0] = op_of(ev, ROLE_TRANSFER);
	occ.has_origin = 1;
	occ.origin = (struct op_ref){ (int64_t)seen->seq, 0, 0, seen->codeptr, ROLE_TRANSFER, 0 };
	occ.ndevices = 2;
	occ.devices[0] = ev->src_device;
	occ.devices[1] = ev->dest_device;
	occ.data_addr = addr;
	occ.data_bytes = ev->bytes;
	occ.attach = ev->attach;
	occ.bytes = ev->bytes;
	return ctx_emit(ctx, &occ);
}
