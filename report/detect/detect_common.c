/*
 * detect_common.c - the detectors' shared context: device kernel counts,
 * occurrences handed to the callback, failures.
 */
#include <stdlib.h>

#include "report/detect/detect_common.h"

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
