/*
 * findings.c - grouping occurrences into findings; fingerprints; savings.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lib/sat.h"
#include "report/findings/findings.h"
#include "lib/sort.h"

enum { KEY_WORDS = 6 };

void findings_init(struct findings *f)
{
	memset(f, 0, sizeof(*f));
	hmap_init(&f->index, KEY_WORDS, sizeof(uint64_t));
}

void findings_release(struct findings *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].ops);
	free(f->v);
	hmap_release(&f->index);
	memset(f, 0, sizeof(*f));
}

/*
 * The code pointers that define the group: both legs of a round trip; the
 * allocation (not the delete) of an allocation finding; the transfer else.
 */
static int group_codeptrs(const struct occurrence *occ, uint64_t key[2])
{
	key[0] = occ->ops[0].codeptr;
	key[1] = 0;
	if (occ->kind == FINDING_ROUND_TRIP && occ->nops > 1) {
		key[1] = occ->ops[1].codeptr;
		return 2;
	}
	return 1;
}

static void add_location(uint64_t *set, int *n, uint64_t codeptr)
{
	for (int i = 0; i < *n; i++)
		if (set[i] == codeptr)
			return;
	if (*n < FINDING_MAX_LOCATIONS)
		set[(*n)++] = codeptr;
}

static struct finding *group_of(struct findings *f, const struct occurrence *occ)
{
	uint64_t cp[2], key[KEY_WORDS], *pos;
	int nkey = group_codeptrs(occ, cp), created;
	struct finding *g;

	key[0] = (uint64_t)occ->kind << 8 | occ->flavour;
	key[1] = cp[0];
	key[2] = cp[1];
	key[3] = (uint64_t)(uint32_t)occ->devices[0] << 32 |
		 (uint32_t)(occ->ndevices > 1 ? occ->devices[1] : -1);
	key[4] = occ->data_addr;
	key[5] = occ->data_bytes;
	pos = hmap_put(&f->index, key, &created);
	if (!pos)
		return NULL;
	if (!created)
		return &f->v[*pos];
	if (f->n == f->cap) {
		size_t ncap = f->cap ? 2 * f->cap : 16;
		struct finding *v = realloc(f->v, ncap * sizeof(*v));
		if (!v) {
			hmap_del(&f->index, key);
			return NULL;
		}
		f->v = v;
		f->cap = ncap;
	}
	*pos = f->n;
	g = &f->v[f->n++];
	memset(g, 0, sizeof(*g));
	g->kind = occ->kind;
	g->flavour = occ->flavour;
	g->ndevices = occ->ndevices;
	g->devices[0] = occ->devices[0];
	g->devices[1] = occ->devices[1];
	g->data_addr = occ->data_addr;
	g->data_bytes = occ->data_bytes;
	g->nkey = nkey;
	g->key[0] = cp[0];
	g->key[1] = cp[1];
	for (int i = 0; i < nkey; i++)
		add_location(g->locations, &g->nlocations, cp[i]);
	g->first_seq = INT64_MAX;
	return g;
}

int findings_add(void *arg, const struct occurrence *occ)
{
	struct findings *f = arg;
	struct finding *g = group_of(f, occ);

	if (!g)
		return -1;
	if (g->nops + (size_t)occ->nops > g->ops_cap) {
		size_t ncap = g->ops_cap ? 2 * g->ops_cap : 4;
		struct finding_op *v = realloc(g->ops, ncap * sizeof(*v));
		if (!v)
			return -1;
		g->ops = v;
		g->ops_cap = ncap;
	}
	for (int i = 0; i < occ->nops; i++) {
		const struct op_ref *op = &occ->ops[i];
		g->ops[g->nops++] = (struct finding_op){ op->seq, op->begin_ns, op->end_ns,
							 (uint32_t)g->occurrences, op->role };
		add_location(g->locations, &g->nlocations, op->codeptr);
		if (op->seq < g->first_seq)
			g->first_seq = op->seq;
	}
	if (occ->has_origin)
		add_location(g->origins, &g->norigins, occ->origin.codeptr);
	g->occurrences++;
	g->bytes = sat_add_u64(g->bytes, occ->bytes);
	return 0;
}

static int cmp_op(const void *a, const void *b)
{
	const struct finding_op *x = a, *y = b;
	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

static int op_less(const struct finding_op *x, const struct finding_op *y)
{
	return x->begin_ns < y->begin_ns || (x->begin_ns == y->begin_ns && x->seq < y->seq);
}

/*
 * Detectors report in stream order, so most findings' operations arrive
 * sorted already (a round trip's send or an allocation settled late are the
 * exceptions): checking is a pass, sorting millions is not.  (begin_ns, seq)
 * is unique within a finding, so skipping the sort changes nothing.
 */
static int ops_sorted(const struct finding_op *ops, size_t n)
{
	for (size_t i = 1; i < n; i++)
		if (op_less(&ops[i], &ops[i - 1]))
			return 0;
	return 1;
}

/*
 * A running union of intervals arriving in (begin, seq) order, each seq
 * once, beside the sums of their durations and of their prices.
 */
struct sweep {
	int started;
	int64_t last_seq, begin_ns, end_ns, total_ns;
	int64_t own_ns, priced_ns;
};

/* est_ns: the operation's price, -1 for its own time. */
static void sweep_add(struct sweep *s, const struct finding_op *op, int64_t est_ns)
{
	int64_t end = op->end_ns > op->begin_ns ? op->end_ns : op->begin_ns;

	if (s->started && op->seq == s->last_seq)
		return;   /* the same operation, from another occurrence or finding */
	s->own_ns = sat_add_i64(s->own_ns, end - op->begin_ns);
	s->priced_ns = sat_add_i64(s->priced_ns, est_ns >= 0 ? est_ns : end - op->begin_ns);
	if (!s->started) {
		s->started = 1;
		s->begin_ns = op->begin_ns;
		s->end_ns = end;
	} else if (op->begin_ns > s->end_ns) {
		s->total_ns = sat_add_i64(s->total_ns, s->end_ns - s->begin_ns);
		s->begin_ns = op->begin_ns;
		s->end_ns = end;
	} else if (end > s->end_ns) {
		s->end_ns = end;
	}
	s->last_seq = op->seq;
}

static int64_t sweep_union(const struct sweep *s)
{
	return sat_add_i64(s->total_ns, s->started ? s->end_ns - s->begin_ns : 0);
}

/* The prices, scaled by the share of the operations' time that did not overlap. */
static int64_t sweep_total(const struct sweep *s)
{
	int64_t u = sweep_union(s);
	double v;

	if (s->own_ns <= 0 || u >= s->own_ns)
		return s->priced_ns;
	v = (double)s->priced_ns * ((double)u / (double)s->own_ns);
	return v >= (double)INT64_MAX ? INT64_MAX : (int64_t)(v + 0.5);
}

static int64_t price_of(const struct finding *g, const struct finding_op *op)
{
	return op->role < ROLE_COUNT ? g->est_ns[op->role] : -1;
}

int finding_op_saved(const struct finding *g, const struct finding_op *op)
{
	return !(g->kind == FINDING_ROUND_TRIP && g->flavour == FLAVOUR_HOST_DEVICE_HOST &&
		 op->role == ROLE_SEND);
}

size_t finding_saved_ops(const struct finding *g, struct priced_op *out)
{
	size_t k = 0;
	for (size_t i = 0; i < g->nops; i++)
		if (finding_op_saved(g, &g->ops[i]))
			out[k++] = (struct priced_op){ g->ops[i], price_of(g, &g->ops[i]) };
	return k;
}

/* The union of the operations of 'g' that fixing it removes. */
static int64_t finding_union_ns(const struct finding *g)
{
	struct sweep s = { 0 };
	for (size_t i = 0; i < g->nops; i++)
		if (finding_op_saved(g, &g->ops[i]))
			sweep_add(&s, &g->ops[i], price_of(g, &g->ops[i]));
	return sweep_total(&s);
}

int64_t ops_union_ns(const struct finding_op *ops, size_t n)
{
	struct sweep s = { 0 };
	for (size_t i = 0; i < n; i++)
		sweep_add(&s, &ops[i], -1);
	return sweep_union(&s);
}

int64_t priced_ops_ns(const struct priced_op *ops, size_t n)
{
	struct sweep s = { 0 };
	for (size_t i = 0; i < n; i++)
		sweep_add(&s, &ops[i].op, ops[i].est_ns);
	return sweep_total(&s);
}

/*
 * The union over several findings' sorted operation lists: a k-way merge
 * with a binary heap of cursors, so no combined copy is made.
 */
struct cursor {
	const struct finding *f;
	size_t pos;
};

static int cursor_less(const struct cursor *a, const struct cursor *b)
{
	return op_less(&a->f->ops[a->pos], &b->f->ops[b->pos]);
}

static void sift_down(struct cursor *h, size_t n, size_t i)
{
	for (;;) {
		size_t c = 2 * i + 1;
		struct cursor t;
		if (c >= n)
			return;
		if (c + 1 < n && cursor_less(&h[c + 1], &h[c]))
			c++;
		if (!cursor_less(&h[c], &h[i]))
			return;
		t = h[i];
		h[i] = h[c];
		h[c] = t;
		i = c;
	}
}

/* The union over the n findings whose cursors h holds (each with operations). */
static int64_t merge_union(struct cursor *h, size_t n)
{
	struct sweep s = { 0 };

	for (size_t i = n; i-- > 0;)
		sift_down(h, n, i);
	while (n) {
		/* A send kept by the fix is skipped here, not deduplicated: the
		 * same operation still counts where another finding removes it. */
		if (finding_op_saved(h[0].f, &h[0].f->ops[h[0].pos]))
			sweep_add(&s, &h[0].f->ops[h[0].pos], price_of(h[0].f, &h[0].f->ops[h[0].pos]));
		if (++h[0].pos == h[0].f->nops)
			h[0] = h[--n];
		sift_down(h, n, 0);
	}
	return sweep_total(&s);
}

/* Union over the findings of 'kind' (or all when kind < 0).  -1 when out of memory. */
static int64_t union_over(const struct findings *f, int kind)
{
	struct cursor *h = malloc((f->n ? f->n : 1) * sizeof(*h));
	size_t n = 0;
	int64_t total;

	if (!h)
		return -1;
	for (size_t i = 0; i < f->n; i++)
		if ((kind < 0 || (int)f->v[i].kind == kind) && f->v[i].nops)
			h[n++] = (struct cursor){ &f->v[i], 0 };
	total = merge_union(h, n);
	free(h);
	return total;
}

int64_t findings_union_ns(const struct findings *f, const size_t *members, size_t n)
{
	struct cursor *h = malloc((n ? n : 1) * sizeof(*h));
	size_t k = 0;
	int64_t total;

	if (!h)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (f->v[members[i]].nops)
			h[k++] = (struct cursor){ &f->v[members[i]], 0 };
	total = merge_union(h, k);
	free(h);
	return total;
}

const char *module_locate(const struct run_module *modules, size_t n, uint64_t addr,
			  uint64_t *offset)
{
	for (size_t i = 0; i < n; i++) {
		const struct run_module *m = &modules[i];
		if (addr >= m->low && addr < m->high && m->path) {
			const char *slash = strrchr(m->path, '/');
			*offset = addr - m->base;
			return slash ? slash + 1 : m->path;
		}
	}
	return NULL;
}

static void fnv(uint64_t *h, const char *s)
{
	for (; *s; s++) {
		*h ^= (unsigned char)*s;
		*h *= 0x100000001b3ULL;
	}
	*h ^= '|';
	*h *= 0x100000001b3ULL;
}

static void fnv_place(uint64_t *h, const struct findings_context *ctx, uint64_t addr)
{
	char buf[300];
	uint64_t off;
	const char *mod = addr ? module_locate(ctx->modules, ctx->nmodules, addr, &off) : NULL;

	if (mod)
		snprintf(buf, sizeof(buf), "%s+0x%llx", mod, (unsigned long long)off);
	else
		snprintf(buf, sizeof(buf), "%s", addr ? "?" : "-");
	fnv(h, buf);
}

static void fingerprint(struct finding *g, const struct findings_context *ctx)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	char buf[64];

	fnv(&h, finding_kind_name(g->kind));
	fnv(&h, flavour_name(g->flavour));
	for (int i = 0; i < g->nkey; i++)
		fnv_place(&h, ctx, g->key[i]);
	/* Globals are module-relative; heap and stack data are known by size only. */
	fnv_place(&h, ctx, g->data_addr);
	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)g->data_bytes);
	fnv(&h, buf);
	for (int i = 0; i < g->ndevices; i++) {
		if (g->devices[i] == ctx->host_device)
			snprintf(buf, sizeof(buf), "host");
		else
			snprintf(buf, sizeof(buf), "%d", g->devices[i]);
		fnv(&h, buf);
	}
	snprintf(g->fingerprint, sizeof(g->fingerprint), "%016llx", (unsigned long long)h);
}

static int cmp_finding(const void *a, const void *b)
{
	const struct finding *x = a, *y = b;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	if (x->first_seq != y->first_seq)
		return x->first_seq < y->first_seq ? -1 : 1;
	return (x->flavour > y->flavour) - (x->flavour < y->flavour);
}

/*
 * Same material: what tells such findings apart is their data (buffers
 * swapped between iterations), so they are told apart in the order of its
 * host address, which follows the order of the buffers' allocation, rather
 * than in report order, which a fix elsewhere (an occurrence fewer) can
 * change; the id decides only among findings of the same data.
 */
static int cmp_fingerprint(const void *a, const void *b)
{
	const struct finding *const *x = a, *const *y = b;
	int c = strcmp((*x)->fingerprint, (*y)->fingerprint);
	if (c)
		return c;
	if ((*x)->data_addr != (*y)->data_addr)
		return (*x)->data_addr < (*y)->data_addr ? -1 : 1;
	return ((*x)->id > (*y)->id) - ((*x)->id < (*y)->id);
}

/* Same material twice in one run: suffix "-2", "-3"... in data address order (cmp_fingerprint). */
static int disambiguate(struct findings *f)
{
	struct finding **by = malloc((f->n ? f->n : 1) * sizeof(*by));

	if (!by)
		return -1;
	for (size_t i = 0; i < f->n; i++)
		by[i] = &f->v[i];
	sort_array(by, f->n, sizeof(*by), cmp_fingerprint);
	for (size_t i = 1, run = 1; i < f->n; i++) {
		if (strncmp(by[i]->fingerprint, by[i - 1]->fingerprint, 16)) {
			run = 1;
			continue;
		}
		snprintf(by[i]->fingerprint + 16, sizeof(by[i]->fingerprint) - 16, "-%zu", ++run);
	}
	free(by);
	return 0;
}

/* The price of one operation of each role of 'g' (-1: its own time). */
static void price(struct finding *g, const struct cost_model *cost)
{
	for (int r = 0; r < ROLE_COUNT; r++) {
		enum cost_class cls;
		g->est_ns[r] = -1;
		if (!cost)
			continue;
		switch (r) {
		case ROLE_ALLOC: cls = COST_ALLOC; break;
		case ROLE_DELETE: cls = COST_DELETE; break;
		case ROLE_RETURN:   /* B -> A: devices {A, B} */
			cls = cost_transfer_class(cost, g->devices[1], g->devices[0]);
			break;
		default:            /* a transfer or a send: devices[0] -> devices[1] */
			if (g->ndevices < 2)
				continue;
			cls = cost_transfer_class(cost, g->devices[0], g->devices[1]);
			break;
		}
		g->est_ns[r] = cost_estimate_ns(cost, cls, g->data_bytes);
	}
}

int findings_finish(struct findings *f, const struct findings_context *ctx)
{
	int64_t duration = ctx->duration_ns > 0 ? ctx->duration_ns : 0;
	int64_t total;

	hmap_release(&f->index);
	if (f->n)
		sort_array(f->v, f->n, sizeof(f->v[0]), cmp_finding);
	memset(f->kinds, 0, sizeof(f->kinds));
	for (size_t i = 0; i < f->n; i++) {
		struct finding *g = &f->v[i];
		struct kind_summary *k = &f->kinds[g->kind];

		g->id = (int)i + 1;
		price(g, ctx->cost);
		if (!ops_sorted(g->ops, g->nops))
			sort_array(g->ops, g->nops, sizeof(g->ops[0]), cmp_op);
		g->savings_ns = finding_union_ns(g);
		if (g->savings_ns > duration)
			g->savings_ns = duration;
		fingerprint(g, ctx);
		k->findings++;
		k->occurrences += g->occurrences;
		k->bytes = sat_add_u64(k->bytes, g->bytes);
	}
	if (disambiguate(f) < 0)
		return -1;
	for (int kind = 0; kind < FINDING_KIND_COUNT; kind++) {
		int64_t s = f->kinds[kind].findings ? union_over(f, kind) : 0;
		if (s < 0)
			return -1;
		f->kinds[kind].savings_ns = s > duration ? duration : s;
	}
	total = union_over(f, -1);
	if (total < 0)
		return -1;
	f->duration_ns = duration;
	f->savings_ns = total > duration ? duration : total;
	if (!duration)
		f->predicted_speedup = 1.0;
	else if (f->savings_ns >= duration)
		f->predicted_speedup = 0;
	else
		f->predicted_speedup = (double)duration / (double)(duration - f->savings_ns);
	return 0;
}
