/*
 * kernels.c - the kernels by launching place, from the event stream
 * (report/findings/kernels.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lib/extsort.h"
#include "lib/hmap.h"
#include "lib/sat.h"
#include "lib/sort.h"
#include "lib/tempfile.h"
#include "report/findings/findings.h"
#include "report/findings/kernels.h"

/*
 * Constructs whose transfers are being summed, by id modulo the size: a
 * construct's operations come close together in time, so one of them is
 * evicted (to the sorter) about once, long after its last operation.
 */
#define CACHE_SLOTS 4096
#define SLOT_PAIRS 2

struct place {
	uint64_t codeptr;
	int64_t device;
};

struct slot {
	int64_t target;
	int used;
	int npairs;
	struct place pairs[SLOT_PAIRS];   /* its kernels' distinct places */
	int64_t to, from, n, ns;          /* its transfers */
};

/*
 * What the sorter holds: some of a construct's transfers (sums, maybe none)
 * and, when kind is 1, one of its kernels' places.
 */
struct rec {
	int64_t target;
	int64_t kind;
	uint64_t codeptr;
	int64_t device;
	int64_t to, from, n, ns;
};

struct kernel_tally {
	struct hmap sites;                /* (codeptr, device) -> struct kernel_site */
	struct slot *cache;
	struct extsort *recs;
};

static int cmp_i64(int64_t a, int64_t b)
{
	return (a > b) - (a < b);
}

/* Total: the order does not depend on where the sorter cut its runs. */
static int cmp_rec(const void *a, const void *b)
{
	const struct rec *x = a, *y = b;
	int c;

	if ((c = cmp_i64(x->target, y->target)) || (c = cmp_i64(x->kind, y->kind)) ||
	    (c = (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr)) ||
	    (c = cmp_i64(x->device, y->device)) || (c = cmp_i64(x->to, y->to)) ||
	    (c = cmp_i64(x->from, y->from)) || (c = cmp_i64(x->n, y->n)))
		return c;
	return cmp_i64(x->ns, y->ns);
}

struct kernel_tally *kernel_tally_new(void)
{
	struct kernel_tally *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	hmap_init(&t->sites, 2, sizeof(struct kernel_site));
	t->cache = calloc(CACHE_SLOTS, sizeof(*t->cache));
	/* 2^18 records (16 MiB) in memory: most runs never touch the file. */
	t->recs = extsort_new(sizeof(struct rec), cmp_rec, tempfile_buffer_records((size_t)1 << 18));
	if (!t->cache || !t->recs) {
		kernel_tally_free(t);
		return NULL;
	}
	return t;
}

void kernel_tally_free(struct kernel_tally *t)
{
	if (!t)
		return;
	hmap_release(&t->sites);
	free(t->cache);
	extsort_free(t->recs);
	free(t);
}

static int flush_pairs(struct kernel_tally *t, struct slot *s, const char **why)
{
	for (int i = 0; i < s->npairs; i++) {
		struct rec r = { s->target, 1, s->pairs[i].codeptr, s->pairs[i].device, 0, 0, 0, 0 };
		if (extsort_add(t->recs, &r, why) < 0)
			return -1;
	}
	s->npairs = 0;
	return 0;
}

/* The slot's sums and places to the sorter: one record, and one more per further place. */
static int flush(struct kernel_tally *t, struct slot *s, const char **why)
{
	struct rec r = { s->target, 0, 0, 0, s->to, s->from, s->n, s->ns };
	int first = 0;

	if (s->npairs) {
		r.kind = 1;
		r.codeptr = s->pairs[0].codeptr;
		r.device = s->pairs[0].device;
		first = 1;
	}
	if ((s->n || s->npairs) && extsort_add(t->recs, &r, why) < 0)
		return -1;
	for (int i = first; i < s->npairs; i++) {
		struct rec p = { s->target, 1, s->pairs[i].codeptr, s->pairs[i].device, 0, 0, 0, 0 };
		if (extsort_add(t->recs, &p, why) < 0)
			return -1;
	}
	memset(s, 0, sizeof(*s));
	return 0;
}

/* The cache slot of construct 'target', emptied for it when another held it. */
static struct slot *slot_of(struct kernel_tally *t, int64_t target, const char **why)
{
	struct slot *s = &t->cache[(uint64_t)target % CACHE_SLOTS];

	if (s->used && s->target != target && flush(t, s, why) < 0)
		return NULL;
	if (!s->used) {
		s->used = 1;
		s->target = target;
	}
	return s;
}

static int on_kernel(struct kernel_tally *t, const struct event *ev, const char **why)
{
	uint64_t key[2] = { ev->codeptr, (uint64_t)(int64_t)ev->dest_device };
	int64_t dur = ev->end_ns - ev->begin_ns;
	int created;
	struct kernel_site *k = hmap_put(&t->sites, key, &created);
	struct slot *s;
	struct place p = { ev->codeptr, ev->dest_device };

	if (!k) {
		*why = "out of memory";
		return -1;
	}
	if (created) {
		k->codeptr = ev->codeptr;
		k->device = ev->dest_device;
		k->min_ns = k->max_ns = dur;
	}
	k->launches++;
	k->total_ns = sat_add_i64(k->total_ns, dur);
	if (dur < k->min_ns)
		k->min_ns = dur;
	if (dur > k->max_ns)
		k->max_ns = dur;
	if (!ev->has_target_id)
		return 0;
	if (!(s = slot_of(t, ev->target_id, why)))
		return -1;
	for (int i = 0; i < s->npairs; i++)
		if (s->pairs[i].codeptr == p.codeptr && s->pairs[i].device == p.device)
			return 0;
	if (s->npairs == SLOT_PAIRS && flush_pairs(t, s, why) < 0)
		return -1;
	s->pairs[s->npairs++] = p;
	return 0;
}

int kernel_tally_feed(struct kernel_tally *t, const struct event *ev, const char **why)
{
	struct slot *s;

	if (ev->kind == EV_KERNEL)
		return on_kernel(t, ev, why);
	if ((ev->kind != EV_TO_DEVICE && ev->kind != EV_FROM_DEVICE) || !ev->has_target_id)
		return 0;
	if (!(s = slot_of(t, ev->target_id, why)))
		return -1;
	if (ev->kind == EV_TO_DEVICE)
		s->to = sat_add_i64(s->to, (int64_t)ev->bytes);
	else
		s->from = sat_add_i64(s->from, (int64_t)ev->bytes);
	s->n++;
	s->ns = sat_add_i64(s->ns, ev->end_ns - ev->begin_ns);
	return 0;
}

/* Most total time first, then code pointer (signed, as SQLite compares it), then device. */
static int cmp_site(const void *a, const void *b)
{
	const struct kernel_site *x = a, *y = b;
	int c;

	if ((c = cmp_i64(y->total_ns, x->total_ns)) || (c = cmp_i64((int64_t)x->codeptr, (int64_t)y->codeptr)))
		return c;
	return cmp_i64(x->device, y->device);
}

/* Add a construct's transfers to the distinct places that launched it. */
static void credit(struct kernel_tally *t, const struct rec *sum, const struct place *places, size_t n)
{
	if (!sum->n)
		return;   /* SQL's join: only a construct with transfers */
	for (size_t i = 0; i < n; i++) {
		uint64_t key[2] = { places[i].codeptr, (uint64_t)places[i].device };
		struct kernel_site *k;
		int dup = 0;
		/* A place once per construct (SQL's DISTINCT); the records come sorted by place. */
		if (i && places[i - 1].codeptr == places[i].codeptr && places[i - 1].device == places[i].device)
			dup = 1;
		if (dup || !(k = hmap_get(&t->sites, key)))
			continue;
		k->bytes_to = sat_add_i64(k->bytes_to, sum->to);
		k->bytes_from = sat_add_i64(k->bytes_from, sum->from);
		k->transfers = sat_add_i64(k->transfers, sum->n);
		k->transfer_ns = sat_add_i64(k->transfer_ns, sum->ns);
	}
}

/*
 * The transfers of the constructs, added to the places that launched them:
 * the records of one construct come together (its places in order); its
 * places are few (the kernels of one construct), held until its last.
 */
static int join(struct kernel_tally *t, const char **why)
{
	struct extsort_reader *r = extsort_read(t->recs);
	struct rec x, sum = { 0 };
	struct place *places = NULL;
	size_t n = 0, cap = 0;
	int have, rc = 0;

	if (!r) {
		*why = "cannot read the kernels' constructs back";
		return -1;
	}
	sum.target = INT64_MIN;
	while ((have = extsort_next(r, &x)) == 1) {
		if (x.target != sum.target) {
			credit(t, &sum, places, n);
			memset(&sum, 0, sizeof(sum));
			sum.target = x.target;
			n = 0;
		}
		sum.to = sat_add_i64(sum.to, x.to);
		sum.from = sat_add_i64(sum.from, x.from);
		sum.n = sat_add_i64(sum.n, x.n);
		sum.ns = sat_add_i64(sum.ns, x.ns);
		if (x.kind != 1)
			continue;
		if (n == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			struct place *v = realloc(places, ncap * sizeof(*v));
			if (!v) {
				*why = "out of memory";
				rc = -1;
				break;
			}
			places = v;
			cap = ncap;
		}
		places[n++] = (struct place){ x.codeptr, x.device };
	}
	if (have < 0) {
		*why = "cannot read the kernels' constructs back";
		rc = -1;
	}
	if (rc == 0)
		credit(t, &sum, places, n);
	free(places);
	extsort_reader_free(r);
	return rc;
}

int kernel_tally_finish(struct kernel_tally *t, struct kernel_sites *out, const char **why)
{
	size_t pos = 0, n = 0;
	const uint64_t *key;
	void *val;

	kernel_sites_release(out);
	for (size_t i = 0; i < CACHE_SLOTS; i++)
		if (t->cache[i].used && flush(t, &t->cache[i], why) < 0)
			return -1;
	if (join(t, why) < 0)
		return -1;
	out->v = malloc((t->sites.count ? t->sites.count : 1) * sizeof(*out->v));
	if (!out->v) {
		*why = "out of memory";
		return -1;
	}
	while (hmap_next(&t->sites, &pos, &key, &val))
		out->v[n++] = *(const struct kernel_site *)val;
	out->n = n;
	sort_array(out->v, n, sizeof(*out->v), cmp_site);
	return 0;
}

static int cmp_place(const void *a, const void *b)
{
	const struct kernel_site *x = a, *y = b;
	int c = cmp_i64((int64_t)x->codeptr, (int64_t)y->codeptr);
	return c ? c : cmp_i64(x->device, y->device);
}

void kernel_sites_merge(struct kernel_sites *s, const uint64_t (*pairs)[2], size_t n)
{
	size_t kept = 0;

	if (!n || !s->n)
		return;
	for (size_t i = 0; i < s->n; i++)
		s->v[i].codeptr = findings_site_of(pairs, n, s->v[i].codeptr);
	sort_array(s->v, s->n, sizeof(*s->v), cmp_place);
	for (size_t i = 0; i < s->n; i++) {
		struct kernel_site *k = &s->v[kept - (kept > 0)], *x = &s->v[i];
		if (kept && !cmp_place(k, x)) {
			k->launches += x->launches;
			k->total_ns = sat_add_i64(k->total_ns, x->total_ns);
			k->min_ns = x->min_ns < k->min_ns ? x->min_ns : k->min_ns;
			k->max_ns = x->max_ns > k->max_ns ? x->max_ns : k->max_ns;
			k->bytes_to = sat_add_i64(k->bytes_to, x->bytes_to);
			k->bytes_from = sat_add_i64(k->bytes_from, x->bytes_from);
			k->transfers += x->transfers;
			k->transfer_ns = sat_add_i64(k->transfer_ns, x->transfer_ns);
			continue;
		}
		s->v[kept++] = *x;
	}
	s->n = kept;
	sort_array(s->v, s->n, sizeof(*s->v), cmp_site);
}
