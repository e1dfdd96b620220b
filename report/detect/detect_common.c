/*
 * detect_common.c - the detectors' shared context: device kernel counts,
 * occurrences handed to the callback, failures.
 */
#include <stdlib.h>

#include "report/detect/detect_common.h"
#include "lib/hmap.h"
#include "lib/sort.h"

struct dev_stat *ctx_device(struct detect_ctx *ctx, int device)
{
	for (size_t i = 0; i < ctx->ndevs; i++)
		if (ctx->devs[i].device == device)
			return &ctx->devs[i];
	if (ctx->ndevs == ctx->devs_cap) {
		size_t ncap = ctx->devs_cap ? 2 * ctx->devs_cap : 8;
		struct dev_stat *v = realloc(ctx->devs, ncap * sizeof(*v));
		if (!v)
			return NULL;
		ctx->devs = v;
		ctx->devs_cap = ncap;
	}
	ctx->devs[ctx->ndevs] = (struct dev_stat){ device, 0, -1 };
	return &ctx->devs[ctx->ndevs++];
}

int ctx_emit(struct detect_ctx *ctx, const struct occurrence *occ)
{
	if (ctx->fn(ctx->arg, occ)) {
		ctx->why = "stopped by the findings callback";
		return -1;
	}
	return 0;
}

int ctx_oom(struct detect_ctx *ctx)
{
	ctx->why = "out of memory";
	return -1;
}

struct map_entry *map_by_seq(const struct hmap *m, int64_t (*seq_of)(const uint64_t *key, const void *val),
			     size_t *n)
{
	struct map_entry *v = malloc((m->count ? m->count : 1) * sizeof(*v));
	const uint64_t *key;
	void *val;
	size_t pos = 0, k = 0;

	*n = 0;
	if (!v)
		return NULL;
	while (hmap_next(m, &pos, &key, &val))
		v[k++] = (struct map_entry){ seq_of(key, val), key, val };
	sort_array(v, k, sizeof(*v), sort_cmp_i64);
	*n = k;
	return v;
}
