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
#include "report/findings/opspill.h"

enum { KEY_WORDS = 6 };

void findings_init(struct findings *f)
{
	memset(f, 0, sizeof(*f));
	hmap_init(&f->index, KEY_WORDS, sizeof(uint64_t));
}

static void finish_free(struct findings *f);

void findings_release(struct findings *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].events);
	free(f->v);
	hmap_release(&f->index);
	opspill_free(f->ops);
	free(f->pos_of_slot);
	free(f->slot_to);
	free(f->occ_base);
	finish_free(f);
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

/* The key of a finding: what its occurrences share (findings.h). */
static void group_key(uint64_t key[KEY_WORDS], enum finding_kind kind, enum flavour flavour, const uint64_t cp[2],
		      int ndevices, const int devices[2], uint64_t data_addr, uint64_t data_bytes, int attach)
{
	key[0] = (uint64_t)(uint32_t)attach << 32 | (uint64_t)kind << 8 | flavour;
	key[1] = cp[0];
	key[2] = cp[1];
	key[3] = (uint64_t)(uint32_t)devices[0] << 32 | (uint32_t)(ndevices > 1 ? devices[1] : -1);
	key[4] = data_addr;
	key[5] = data_bytes;
}

static struct finding *group_of(struct findings *f, const struct occurrence *occ)
{
	uint64_t cp[2], key[KEY_WORDS], *pos;
	int nkey = group_codeptrs(occ, cp), created;
	struct finding *g;

	group_key(key, occ->kind, occ->flavour, cp, occ->ndevices, occ->devices, occ->data_addr, occ->data_bytes,
		  occ->attach);
	pos = hmap_put(&f->index, key, &created);
	if (!pos)
		return NULL;
	if (!created)
		return &f->v[*pos];
	if (f->n == f->cap || f->n > SPILL_MAX_SLOT) {
		size_t ncap = f->cap ? 2 * f->cap : 16;
		struct finding *v = f->n > SPILL_MAX_SLOT ? NULL : realloc(f->v, ncap * sizeof(*v));
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
	g->attach = occ->attach;
	g->nkey = nkey;
	g->key[0] = cp[0];
	g->key[1] = cp[1];
	for (int i = 0; i < nkey; i++)
		add_location(g->locations, &g->nlocations, cp[i]);
	g->first_seq = INT64_MAX;
	g->first_op_seq = -1;
	g->slot = (uint32_t)f->n - 1;
	return g;
}

/*
 * Keep seq among the FINDING_MAX_EVENTS + 1 smallest distinct seqs (one
 * more tells that there were more).  Operations arrive mostly in seq
 * order: once full, a later seq costs one comparison.  -1 out of memory.
 */
static int keep_event(struct finding *g, int64_t seq)
{
	size_t lo = 0, hi = g->nkept;

	if (g->nkept == FINDING_MAX_EVENTS + 1 && seq > g->events[g->nkept - 1])
		return 0;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (g->events[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < g->nkept && g->events[lo] == seq)
		return 0;
	if (g->nkept == g->kept_cap && g->kept_cap < FINDING_MAX_EVENTS + 1) {
		size_t ncap = g->kept_cap ? 2 * g->kept_cap : 4;
		int64_t *v;
		if (ncap > FINDING_MAX_EVENTS + 1)
			ncap = FINDING_MAX_EVENTS + 1;
		v = realloc(g->events, ncap * sizeof(*v));
		if (!v)
			return -1;
		g->events = v;
		g->kept_cap = ncap;
	}
	if (g->nkept == g->kept_cap)
		g->nkept--;   /* the largest goes */
	memmove(&g->events[lo + 1], &g->events[lo], (g->nkept - lo) * sizeof(*g->events));
	g->events[lo] = seq;
	g->nkept++;
	return 0;
}

int findings_add(void *arg, const struct occurrence *occ)
{
	struct findings *f = arg;
	struct finding *g = group_of(f, occ);

	const char *why = NULL;

	if (!g)
		return -1;
	if (!f->ops && !(f->ops = opspill_new(f->buffer_ops)))
		return -1;
	for (int i = 0; i < occ->nops; i++) {
		const struct op_ref *op = &occ->ops[i];
		struct spill_op rec = { op->seq, op->begin_ns, op->end_ns, (uint32_t)g->occurrences,
					SPILL_TAG(g->slot, op->role, op->first_copy) };
		if (opspill_add(f->ops, &rec, &why) < 0 || keep_event(g, op->seq) < 0)
			return -1;
		g->nops++;
		/* (Counted where they are saved: a host->device->host trip's send is not.) */
		g->first_copies += op->first_copy && !(occ->kind == FINDING_ROUND_TRIP &&
						       occ->flavour == FLAVOUR_HOST_DEVICE_HOST && op->role == ROLE_SEND);
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

uint64_t findings_site_of(const uint64_t (*pairs)[2], size_t n, uint64_t codeptr)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (pairs[mid][0] == codeptr)
			return pairs[mid][1];
		if (pairs[mid][0] < codeptr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return codeptr;
}

/* Fold 'from' into 'to' (its kept seqs merged, its own freed).  -1 when out of memory. */
static int merge_into(struct finding *to, struct finding *from)
{
	for (size_t e = 0; e < from->nkept; e++)
		if (keep_event(to, from->events[e]) < 0)
			return -1;
	for (int i = 0; i < from->nlocations; i++)
		add_location(to->locations, &to->nlocations, from->locations[i]);
	for (int i = 0; i < from->norigins; i++)
		add_location(to->origins, &to->norigins, from->origins[i]);
	to->occurrences += from->occurrences;
	to->nops += from->nops;
	to->first_copies += from->first_copies;
	to->bytes = sat_add_u64(to->bytes, from->bytes);
	if (from->first_seq < to->first_seq)
		to->first_seq = from->first_seq;
	free(from->events);
	from->events = NULL;
	return 0;
}

/* g keyed by its directive's first call sites, listed first among its locations. */
static void key_by_site(struct finding *g, const uint64_t (*pairs)[2], size_t n)
{
	uint64_t seen[FINDING_MAX_LOCATIONS];
	int nseen = 0;

	for (int i = 0; i < g->nkey; i++) {
		g->key[i] = findings_site_of(pairs, n, g->key[i]);
		add_location(seen, &nseen, g->key[i]);
	}
	for (int i = 0; i < g->nlocations; i++)
		add_location(seen, &nseen, g->locations[i]);
	memcpy(g->locations, seen, (size_t)nseen * sizeof(*seen));
	g->nlocations = nseen;
}

int findings_merge_sites(struct findings *f, const uint64_t (*pairs)[2], size_t n)
{
	struct hmap by;
	uint32_t *slot_to;
	uint64_t *occ_base;
	size_t kept = 0;
	int rc = -1;

	if (!n || !f->n || f->slot_to)
		return 0;
	slot_to = malloc(f->n * sizeof(*slot_to));
	occ_base = calloc(f->n, sizeof(*occ_base));
	if (!slot_to || !occ_base) {
		free(slot_to);
		free(occ_base);
		return -1;
	}
	hmap_release(&f->index);   /* findings_add() is over */
	hmap_init(&by, KEY_WORDS, sizeof(uint64_t));
	/*
	 * Before finish a finding's slot is its position, so slot_to holds
	 * positions as well as slots.  Nothing moves until every key is placed.
	 */
	for (size_t i = 0; i < f->n; i++) {
		const struct finding *g = &f->v[i];
		uint64_t key[KEY_WORDS], *pos;
		uint64_t cp[2] = { findings_site_of(pairs, n, g->key[0]),
				   g->nkey > 1 ? findings_site_of(pairs, n, g->key[1]) : 0 };
		int created;

		group_key(key, g->kind, g->flavour, cp, g->ndevices, g->devices, g->data_addr, g->data_bytes,
			  g->attach);
		if (!(pos = hmap_put(&by, key, &created)))
			goto out;
		if (created)
			*pos = i;
		slot_to[g->slot] = (uint32_t)*pos;   /* a position, made a slot below */
	}
	for (size_t i = 0; i < f->n; i++) {
		struct finding *g = &f->v[i];
		size_t into = slot_to[g->slot];
		if (into == i)
			continue;
		occ_base[g->slot] = f->v[into].occurrences;
		if (merge_into(&f->v[into], g) < 0)
			goto out;
	}
	for (size_t i = 0; i < f->n; i++) {
		struct finding *g = &f->v[i];
		if (slot_to[g->slot] != i)
			continue;
		key_by_site(g, pairs, n);
		if (kept != i)
			f->v[kept] = *g;
		kept++;
	}
	f->nslots = f->n;
	f->n = kept;
	f->slot_to = slot_to;
	f->occ_base = occ_base;
	slot_to = NULL;
	occ_base = NULL;
	rc = 0;
out:
	hmap_release(&by);
	free(slot_to);
	free(occ_base);
	return rc;
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

/*
 * A first copy into fresh device memory costs its page faults too: priced
 * from such copies, which a fix that keeps the data mapped saves with the
 * allocation.  Not for an unused transfer: mapping it 'alloc' keeps the
 * fresh memory, and the kernel that writes it takes the faults instead.
 */
static int64_t price_of(const struct finding *g, const struct finding_op *op)
{
	if (op->role >= ROLE_COUNT)
		return -1;
	if (op->first_copy && g->kind != FINDING_UNUSED_TRANSFER && g->est_first_ns[op->role] >= 0)
		return g->est_first_ns[op->role];
	return g->est_ns[op->role];
}

int finding_op_saved(const struct finding *g, const struct finding_op *op)
{
	return !(g->kind == FINDING_ROUND_TRIP && g->flavour == FLAVOUR_HOST_DEVICE_HOST &&
		 op->role == ROLE_SEND);
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

int findings_each_op(const struct findings *f,
		     int (*fn)(void *arg, size_t pos, const struct finding_op *op), void *arg)
{
	struct opspill_reader *r;
	struct spill_op rec;
	int rc;

	if (!f->ops || !f->n)
		return 0;
	if (!f->pos_of_slot || !(r = opspill_read(f->ops)))
		return -1;
	while ((rc = opspill_next(r, &rec)) == 1) {
		struct finding_op op = { rec.seq, rec.begin_ns, rec.end_ns, rec.occurrence,
					 SPILL_ROLE(rec.tag), SPILL_FIRST(rec.tag) };
		size_t slot = SPILL_SLOT(rec.tag);
		if (slot >= (f->slot_to ? f->nslots : f->n)) {
			rc = -1;
			break;
		}
		if (f->occ_base)
			op.occurrence += f->occ_base[slot];
		if ((rc = fn(arg, f->pos_of_slot[slot], &op)) != 0)
			break;
	}
	opspill_reader_free(r);
	return rc;
}

struct saved_pass {
	const struct findings *f;
	struct priced_op **out;
	size_t *n;
};

static int saved_op(void *arg, size_t pos, const struct finding_op *op)
{
	struct saved_pass *p = arg;
	const struct finding *g = &p->f->v[pos];

	if (p->out[pos] && finding_op_saved(g, op) && p->n[pos] < g->nops)
		p->out[pos][p->n[pos]++] = (struct priced_op){ *op, price_of(g, op) };
	return 0;
}

int findings_saved_ops(const struct findings *f, struct priced_op **out, size_t *n)
{
	struct saved_pass p = { f, out, n };

	for (size_t i = 0; i < f->n; i++)
		n[i] = 0;
	return findings_each_op(f, saved_op, &p) < 0 ? -1 : 0;
}

/* The sums of findings_unions_ns(): a sweep per set of several findings. */
struct unions {
	const struct findings *f;
	const size_t *set_of;
	size_t nsets;
	size_t *one;                /* by set: its one finding with operations, or SIZE_MAX */
	unsigned char *several;     /* by set: it has several: swept */
	struct sweep *s;            /* by set, when any has several */
	int any;
};

void findings_unions_free(struct unions *u)
{
	if (!u)
		return;
	free(u->s);
	free(u->one);
	free(u->several);
	free(u);
}

struct unions *findings_unions_begin(const struct findings *f, const size_t *set_of, size_t nsets)
{
	struct unions *u = calloc(1, sizeof(*u));

	if (!u || !(u->one = malloc((nsets ? nsets : 1) * sizeof(*u->one))) ||
	    !(u->several = calloc(nsets ? nsets : 1, 1))) {
		findings_unions_free(u);
		return NULL;
	}
	u->f = f;
	u->set_of = set_of;
	u->nsets = nsets;
	for (size_t k = 0; k < nsets; k++)
		u->one[k] = SIZE_MAX;
	for (size_t i = 0; i < f->n; i++) {
		size_t k = set_of[i];
		if (k >= nsets || !f->v[i].nops)
			continue;
		if (u->one[k] != SIZE_MAX && u->one[k] != i)
			u->any = u->several[k] = 1;
		u->one[k] = i;
	}
	if (u->any && !(u->s = calloc(nsets, sizeof(*u->s)))) {
		findings_unions_free(u);
		return NULL;
	}
	return u;
}

int findings_unions_need_ops(const struct unions *u)
{
	return u->any;
}

int findings_unions_op(void *arg, size_t pos, const struct finding_op *op)
{
	struct unions *u = arg;
	size_t k = u->set_of[pos];
	const struct finding *g = &u->f->v[pos];

	/* A send kept by the fix is skipped here, not deduplicated: the same
	 * operation still counts where another finding removes it. */
	if (u->any && k != SIZE_MAX && u->several[k] && finding_op_saved(g, op))
		sweep_add(&u->s[k], op, price_of(g, op));
	return 0;
}

void findings_unions_end(struct unions *u, int64_t *out)
{
	for (size_t k = 0; k < u->nsets; k++)
		out[k] = u->several[k] ? sweep_total(&u->s[k]) : u->one[k] != SIZE_MAX ? u->f->v[u->one[k]].union_ns : 0;
	findings_unions_free(u);
}

int findings_unions_ns(const struct findings *f, const size_t *set_of, size_t nsets, int64_t *out)
{
	struct unions *u = findings_unions_begin(f, set_of, nsets);

	if (!u)
		return -1;
	if (u->any && findings_each_op(f, findings_unions_op, u) < 0) {
		findings_unions_free(u);
		return -1;
	}
	findings_unions_end(u, out);
	return 0;
}

struct sets_pass {
	const struct findings *f;
	const size_t *start, *sets;
	const int64_t *const *keep, *const *only;
	const size_t *nkeep, *nonly;
	struct sweep *s, *left;
	struct hmap *freed;   /* per set: {finding, occurrence} of an allocation its 'only' removes */
};

int seq_listed(const int64_t *v, size_t n, int64_t seq)
{
	size_t lo = 0, hi = n;

	while (v && lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (v[mid] == seq)
			return 1;
		if (v[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	return 0;
}

static int sets_op(void *arg, size_t pos, const struct finding_op *op)
{
	struct sets_pass *p = arg;
	const struct finding *g = &p->f->v[pos];

	if (!finding_op_saved(g, op))
		return 0;
	for (size_t j = p->start[pos]; j < p->start[pos + 1]; j++) {
		size_t k = p->sets[j];
		int kept = p->keep && seq_listed(p->keep[k], p->nkeep[k], op->seq);
		if (!kept && p->only && p->only[k]) {
			/*
			 * A patch names the allocations it removes, not their
			 * deletes (OMPT gives a delete no host address): the delete
			 * of an occurrence whose allocation it removes goes too.
			 */
			uint64_t key[2] = { pos, op->occurrence };
			if (seq_listed(p->only[k], p->nonly[k], op->seq)) {
				if (op->role == ROLE_ALLOC && !hmap_put(&p->freed[k], key, NULL))
					return -1;
			} else if (op->role != ROLE_DELETE || !hmap_del(&p->freed[k], key)) {
				continue;
			}
		}
		sweep_add(kept ? &p->left[k] : &p->s[k], op, price_of(g, op));
	}
	return 0;
}

int findings_sets_ns(const struct findings *f, const size_t *start, const size_t *sets, size_t nsets,
		     const int64_t *const *keep, const size_t *nkeep, const int64_t *const *only,
		     const size_t *nonly, int64_t *out, int64_t *left)
{
	struct sets_pass p = { f, start, sets, keep, only, nkeep, nonly, NULL, NULL, NULL };
	int rc = -1;

	p.s = calloc(nsets ? nsets : 1, sizeof(*p.s));
	p.left = calloc(nsets ? nsets : 1, sizeof(*p.left));
	p.freed = calloc(nsets ? nsets : 1, sizeof(*p.freed));
	for (size_t k = 0; p.freed && k < nsets; k++)
		hmap_init(&p.freed[k], 2, 1);
	if (p.s && p.left && p.freed && findings_each_op(f, sets_op, &p) == 0) {
		for (size_t k = 0; k < nsets; k++) {
			out[k] = sweep_total(&p.s[k]);
			left[k] = sweep_total(&p.left[k]);
		}
		rc = 0;
	}
	for (size_t k = 0; p.freed && k < nsets; k++)
		hmap_release(&p.freed[k]);
	free(p.freed);
	free(p.s);
	free(p.left);
	return rc;
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
	if (g->attach) {
		/* Which pointer (its map entry): the others' fingerprints stay as they were. */
		snprintf(buf, sizeof(buf), "attach %d", g->attach);
		fnv(&h, buf);
	}
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
	g->priced_other_size = 0;
	for (int r = 0; r < ROLE_COUNT; r++) {
		enum cost_class cls;
		g->est_ns[r] = g->est_first_ns[r] = -1;
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
		if (cls == COST_TO_DEVICE && g->kind == FINDING_UNUSED_TRANSFER) {
			int other = 0;
			g->est_ns[r] = cost_estimate_warm_ns(cost, cls, g->data_bytes, &other);
			if (other > g->priced_other_size)
				g->priced_other_size = other;
		} else {
			g->est_ns[r] = cost_estimate_ns(cost, cls, g->data_bytes);
		}
		if (cls == COST_TO_DEVICE)
			g->est_first_ns[r] = cost_estimate_ns(cost, COST_TO_DEVICE_FIRST, g->data_bytes);
	}
}

/* The sweeps of findings_finish(): per finding, per kind, over all. */
struct finish_pass {
	struct sweep *per;            /* by position */
	int64_t *last_seq;            /* by position: distinct seqs */
	struct sweep kind[FINDING_KIND_COUNT], all;
	int64_t duration;
};

/* f's finish pass, its sweeps and counts zeroed. */
static void finish_reset(struct findings *f)
{
	struct finish_pass *p = f->finishing;

	for (size_t i = 0; i < f->n; i++) {
		f->v[i].first_op_seq = -1;
		f->v[i].nevents = 0;
	}
	memset(p->per, 0, (f->n ? f->n : 1) * sizeof(*p->per));
	memset(p->last_seq, 0, (f->n ? f->n : 1) * sizeof(*p->last_seq));
	memset(p->kind, 0, sizeof(p->kind));
	memset(&p->all, 0, sizeof(p->all));
}

static void finish_free(struct findings *f)
{
	if (f->finishing) {
		free(f->finishing->per);
		free(f->finishing->last_seq);
		free(f->finishing);
		f->finishing = NULL;
	}
}

int findings_finish_op(void *arg, size_t pos, const struct finding_op *op)
{
	struct findings *f = arg;
	struct finish_pass *p = f->finishing;
	struct finding *g = &f->v[pos];

	if (g->first_op_seq < 0)
		g->first_op_seq = op->seq;
	if (!g->nevents || p->last_seq[pos] != op->seq) {
		g->nevents++;
		p->last_seq[pos] = op->seq;
	}
	if (finding_op_saved(g, op)) {
		int64_t est = price_of(g, op);
		sweep_add(&p->per[pos], op, est);
		sweep_add(&p->kind[g->kind], op, est);
		sweep_add(&p->all, op, est);
	}
	return 0;
}

int findings_finish_begin(struct findings *f, const struct findings_context *ctx)
{
	struct finish_pass *p;
	size_t nslots = f->slot_to ? f->nslots : f->n;

	hmap_release(&f->index);
	finish_free(f);
	if (f->n)
		sort_array(f->v, f->n, sizeof(f->v[0]), cmp_finding);
	free(f->pos_of_slot);
	f->pos_of_slot = malloc((nslots ? nslots : 1) * sizeof(*f->pos_of_slot));
	if (!f->pos_of_slot || !(p = f->finishing = calloc(1, sizeof(*p))))
		return -1;
	p->per = malloc((f->n ? f->n : 1) * sizeof(*p->per));
	p->last_seq = malloc((f->n ? f->n : 1) * sizeof(*p->last_seq));
	if (!p->per || !p->last_seq) {
		finish_free(f);
		return -1;
	}
	finish_reset(f);
	p->duration = ctx->duration_ns > 0 ? ctx->duration_ns : 0;
	memset(f->kinds, 0, sizeof(f->kinds));
	for (size_t i = 0; i < f->n; i++) {
		struct finding *g = &f->v[i];
		struct kind_summary *k = &f->kinds[g->kind];

		g->id = (int)i + 1;
		f->pos_of_slot[g->slot] = i;
		price(g, ctx->cost);
		fingerprint(g, ctx);
		k->findings++;
		k->occurrences += g->occurrences;
		k->bytes = sat_add_u64(k->bytes, g->bytes);
	}
	/* A merged slot's operations go where its finding went. */
	for (size_t s = 0; f->slot_to && s < nslots; s++)
		if (f->slot_to[s] != s)
			f->pos_of_slot[s] = f->pos_of_slot[f->slot_to[s]];
	if (disambiguate(f) < 0) {
		finish_free(f);
		return -1;
	}
	return 0;
}

int findings_finish_end(struct findings *f, int fed)
{
	struct finish_pass *p = f->finishing;
	int64_t duration, total;

	if (!p)
		return 0;   /* ended already */
	duration = p->duration;
	if (!fed) {
		/* One pass over every operation in (begin_ns, seq) order. */
		finish_reset(f);
		if (findings_each_op(f, findings_finish_op, f) < 0) {
			finish_free(f);
			return -1;
		}
	}
	for (size_t i = 0; i < f->n; i++) {
		struct finding *g = &f->v[i];
		g->union_ns = sweep_total(&p->per[i]);
		g->savings_ns = g->union_ns > duration ? duration : g->union_ns;
	}
	for (int kind = 0; kind < FINDING_KIND_COUNT; kind++) {
		int64_t s = f->kinds[kind].findings ? sweep_total(&p->kind[kind]) : 0;
		f->kinds[kind].savings_ns = s > duration ? duration : s;
	}
	total = sweep_total(&p->all);
	f->duration_ns = duration;
	f->savings_ns = total > duration ? duration : total;
	if (!duration)
		f->predicted_speedup = 1.0;
	else if (f->savings_ns >= duration)
		f->predicted_speedup = 0;
	else
		f->predicted_speedup = (double)duration / (double)(duration - f->savings_ns);
	finish_free(f);
	return 0;
}

int findings_finish(struct findings *f, const struct findings_context *ctx)
{
	return findings_finish_begin(f, ctx) < 0 ? -1 : findings_finish_end(f, 0);
}
