/*
 * totals.c - run totals over the event stream.
 */
#include <stdlib.h>
#include <string.h>

#include "lib/sat.h"
#include "report/findings/totals.h"
#include "lib/sort.h"

void totals_init(struct run_totals *t)
{
	memset(t, 0, sizeof(*t));
	t->first_begin_ns = -1;
}

void totals_release(struct run_totals *t)
{
	if (!t)
		return;
	free(t->devices);
	t->devices = NULL;
	t->ndevices = t->devices_cap = 0;
}

static void busy_add(struct busy *b, int64_t begin_ns, int64_t end_ns)
{
	if (end_ns < begin_ns)
		end_ns = begin_ns;
	if (!b->started) {
		b->started = 1;
		b->begin_ns = begin_ns;
		b->end_ns = end_ns;
	} else if (begin_ns > b->end_ns) {
		b->total_ns = sat_add_i64(b->total_ns, b->end_ns - b->begin_ns);
		b->begin_ns = begin_ns;
		b->end_ns = end_ns;
	} else if (end_ns > b->end_ns) {
		b->end_ns = end_ns;
	}
}

static void busy_close(struct busy *b)
{
	if (b->started)
		b->total_ns = sat_add_i64(b->total_ns, b->end_ns - b->begin_ns);
	b->started = 0;
}

static struct device_totals *device(struct run_totals *t, int num)
{
	for (size_t i = 0; i < t->ndevices; i++)
		if (t->devices[i].device == num)
			return &t->devices[i];
	if (t->ndevices == t->devices_cap) {
		size_t ncap = t->devices_cap ? 2 * t->devices_cap : 8;
		struct device_totals *v = realloc(t->devices, ncap * sizeof(*v));
		if (!v)
			return NULL;
		t->devices = v;
		t->devices_cap = ncap;
	}
	memset(&t->devices[t->ndevices], 0, sizeof(t->devices[0]));
	t->devices[t->ndevices].device = num;
	return &t->devices[t->ndevices++];
}

int totals_feed(struct run_totals *t, const struct event *ev)
{
	struct device_totals *src = NULL, *dst = NULL;

	t->events++;
	if (t->first_begin_ns < 0)
		t->first_begin_ns = ev->begin_ns;
	if (ev->end_ns > t->last_end_ns)
		t->last_end_ns = ev->end_ns;
	switch (ev->kind) {
	case EV_KERNEL:
		if (!(dst = device(t, ev->dest_device)))
			return -1;
		t->kernels++;
		dst->kernels++;
		busy_add(&t->kernel, ev->begin_ns, ev->end_ns);
		break;
	case EV_TO_DEVICE:
	case EV_FROM_DEVICE:
		if (!(src = device(t, ev->src_device)) || !(dst = device(t, ev->dest_device)))
			return -1;
		t->transfers++;
		t->transfer_bytes = sat_add_u64(t->transfer_bytes, ev->bytes);
		src->transfers_out++;
		src->bytes_out = sat_add_u64(src->bytes_out, ev->bytes);
		dst->transfers_in++;
		dst->bytes_in = sat_add_u64(dst->bytes_in, ev->bytes);
		busy_add(&t->transfer, ev->begin_ns, ev->end_ns);
		break;
	case EV_ALLOC:
		if (!(dst = device(t, ev->dest_device)))
			return -1;
		t->allocs++;
		dst->allocs++;
		dst->alloc_bytes = sat_add_u64(dst->alloc_bytes, ev->bytes);
		busy_add(&t->alloc, ev->begin_ns, ev->end_ns);
		break;
	case EV_DELETE:
		t->deletes++;
		busy_add(&t->alloc, ev->begin_ns, ev->end_ns);
		break;
	default:
		t->others++;
		break;
	}
	return 0;
}

static int cmp_device(const void *a, const void *b)
{
	const struct device_totals *x = a, *y = b;
	return (x->device > y->device) - (x->device < y->device);
}

void totals_finish(struct run_totals *t)
{
	busy_close(&t->transfer);
	busy_close(&t->alloc);
	busy_close(&t->kernel);
	if (t->ndevices)
		sort_array(t->devices, t->ndevices, sizeof(t->devices[0]), cmp_device);
}

int totals_moved_nothing(const struct run_totals *t)
{
	if (!t->kernels || t->transfer_bytes)
		return 0;
	for (size_t i = 0; i < t->ndevices; i++)
		if (t->devices[i].alloc_bytes)
			return 0;
	return 1;
}
