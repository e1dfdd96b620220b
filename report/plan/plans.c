/*
 * plans.c - findings grouped by the directive to change.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store/attribution.h"
#include "report/plan/plans.h"
#include "report/findings/analysis.h"
#include "lib/grow.h"
#include "lib/hmap.h"
#include "lib/sort.h"

struct keyed {
	char *key;
	size_t index;
};

/* "file:line" where the report knows it, else the code pointer. */
static char *directive_key(const struct analysis *a, const struct finding *g)
{
	uint64_t addr = g->nlocations ? g->locations[0] : 0;
	json_t *src = a->attr && addr ? attribution_location(a->attr, addr) : NULL;
	const char *file = json_string_value(json_object_get(src, "file"));
	json_int_t line = json_integer_value(json_object_get(src, "line"));
	char *key = NULL;
	int rc;

	if (file && line > 0)
		rc = asprintf(&key, "f%s:%lld", file, (long long)line);
	else if (addr)
		rc = asprintf(&key, "p%016llx", (unsigned long long)addr);
	else
		rc = asprintf(&key, "n%d", g->id);   /* nowhere known: a plan of its own */
	json_decref(src);
	return rc < 0 ? NULL : key;
}

static int cmp_keyed(const void *x, const void *y)
{
	const struct keyed *a = x, *b = y;
	int d = strcmp(a->key, b->key);
	return d ? d : (a->index > b->index) - (a->index < b->index);
}

static int cmp_plan(const void *x, const void *y)
{
	const struct plan *a = x, *b = y;
	if (a->savings_ns != b->savings_ns)
		return a->savings_ns > b->savings_ns ? -1 : 1;
	return (a->members[0] > b->members[0]) - (a->members[0] < b->members[0]);
}

struct plans_pass {
	size_t *set_of;               /* finding -> its plan */
	struct unions *u;             /* the plans' savings, being summed */
	struct plan_sources *sources; /* each source file read once, however many directives it holds */
};

static void pass_free(struct plans_pass *pp)
{
	if (!pp)
		return;
	findings_unions_free(pp->u);
	plan_sources_free(pp->sources);
	free(pp->set_of);
	free(pp);
}

struct plans_pass *plans_begin(const struct analysis *a, struct plans *p)
{
	size_t n = a->findings.n;
	struct keyed *keys = calloc(n ? n : 1, sizeof(*keys));
	struct plans_pass *pp = calloc(1, sizeof(*pp));
	int ok = 0;

	memset(p, 0, sizeof(*p));
	p->v = calloc(n ? n : 1, sizeof(*p->v));
	p->store = malloc((n ? n : 1) * sizeof(*p->store));
	if (!keys || !pp || !p->v || !p->store || !(pp->set_of = malloc((n ? n : 1) * sizeof(*pp->set_of))))
		goto out;
	for (size_t i = 0; i < n; i++) {
		keys[i].index = i;
		if (!(keys[i].key = directive_key(a, &a->findings.v[i])))
			goto out;
	}
	sort_array(keys, n, sizeof(*keys), cmp_keyed);
	for (size_t i = 0; i < n; i++) {
		const struct finding *g = &a->findings.v[keys[i].index];
		struct plan *pl;
		if (!i || strcmp(keys[i].key, keys[i - 1].key)) {
			pl = &p->v[p->n++];
			pl->members = pl->mine = p->store + i;
			pl->codeptr = g->nlocations ? g->locations[0] : 0;
		}
		pl = &p->v[p->n - 1];
		pl->members[pl->nmembers++] = keys[i].index;
		pl->nmine = pl->nmembers;
		pl->occurrences += g->occurrences;
		pl->kinds[g->kind]++;
	}
	/* Each plan's savings: the union of its members' operations, each seq once. */
	for (size_t i = 0; i < n; i++)
		pp->set_of[i] = SIZE_MAX;
	for (size_t k = 0; k < p->n; k++)
		for (size_t m = 0; m < p->v[k].nmembers; m++)
			pp->set_of[p->v[k].members[m]] = k;
	ok = (pp->u = findings_unions_begin(&a->findings, pp->set_of, p->n)) != NULL;
out:
	for (size_t i = 0; keys && i < n; i++)
		free(keys[i].key);
	free(keys);
	if (!ok) {
		pass_free(pp);
		plans_release(p);
		return NULL;
	}
	return pp;
}

int plans_tap(void *pp, size_t pos, const struct finding_op *op)
{
	return findings_unions_op(((struct plans_pass *)pp)->u, pos, op);
}

/*
 * What the patches remove, in one pass over the findings' operations: per
 * finding, its operations of each role; per plan and finding the patch
 * touches, how many of them the patch removes.
 */
struct claims {
	int64_t (*by_seq)[2];         /* {seq, plan}, by seq: every plan's removes */
	size_t n;
	uint64_t (*ops)[ROLE_COUNT];  /* by finding */
	struct hmap hit;              /* {plan, finding} -> removed operations by role */
	int oom;
};

static int cmp_pair(const void *x, const void *y)
{
	const int64_t *a = x, *b = y;
	if (a[0] != b[0])
		return a[0] < b[0] ? -1 : 1;
	return (a[1] > b[1]) - (a[1] < b[1]);
}

static int claims_op(void *arg, size_t pos, const struct finding_op *op)
{
	struct claims *c = arg;
	size_t lo = 0, hi = c->n;

	if (op->role >= ROLE_COUNT)
		return 0;
	c->ops[pos][op->role]++;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->by_seq[mid][0] < op->seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < c->n && c->by_seq[lo][0] == op->seq; lo++) {
		uint64_t key = (uint64_t)c->by_seq[lo][1] << 32 | pos;
		uint64_t *hits = hmap_put(&c->hit, &key, NULL);
		if (!hits) {
			c->oom = 1;
			return -1;
		}
		hits[op->role]++;
	}
	return 0;
}

/* pl's occurrences and findings by kind, from its members. */
static void count_members(const struct analysis *a, struct plan *pl)
{
	pl->occurrences = 0;
	memset(pl->kinds, 0, sizeof(pl->kinds));
	for (size_t j = 0; j < pl->nmembers; j++) {
		const struct finding *g = &a->findings.v[pl->members[j]];
		pl->occurrences += g->occurrences;
		pl->kinds[g->kind]++;
	}
}

static int cmp_size(const void *x, const void *y)
{
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	return (a > b) - (a < b);
}

/*
 * Each plan with a patch takes as members the findings the patch removes,
 * the directive's others as leaves; a patch that removes none goes (the
 * plan says so).  0, or -1 when out of memory.
 */
static int claim(const struct analysis *a, struct plans *p)
{
	struct claims c = { 0 };
	size_t nf = a->findings.n, pos = 0, *cap = NULL;
	const uint64_t *key;
	void *val;
	int rc = -1;

	/* A patch that names no operation it removes removes no finding. */
	for (size_t k = 0; k < p->n; k++) {
		if (p->v[k].edit.patch && !p->v[k].edit.nremoves && plan_edit_no_effect(&p->v[k].edit) < 0)
			return -1;
		c.n += p->v[k].edit.nremoves;
	}
	if (!c.n)
		return 0;
	hmap_init(&c.hit, 1, ROLE_COUNT * sizeof(uint64_t));
	c.by_seq = malloc(c.n * sizeof(*c.by_seq));
	c.ops = calloc(nf ? nf : 1, sizeof(*c.ops));
	cap = calloc(p->n, sizeof(*cap));
	if (!c.by_seq || !c.ops || !cap)
		goto out;
	c.n = 0;
	for (size_t k = 0; k < p->n; k++)
		for (size_t i = 0; i < p->v[k].edit.nremoves; i++) {
			c.by_seq[c.n][0] = p->v[k].edit.removes[i];
			c.by_seq[c.n++][1] = (int64_t)k;
		}
	sort_array(c.by_seq, c.n, sizeof(*c.by_seq), cmp_pair);
	if (findings_each_op(&a->findings, claims_op, &c) < 0)
		goto out;
	/* Every finding the patch takes every operation of one role from. */
	while (hmap_next(&c.hit, &pos, &key, &val)) {
		size_t k = (size_t)(*key >> 32), i = (size_t)(*key & 0xffffffffu);
		const uint64_t *hits = val;
		struct plan *pl = &p->v[k];
		int all = 0;
		for (int r = 0; r < ROLE_COUNT && !all; r++)
			all = c.ops[i][r] && hits[r] == c.ops[i][r];
		if (!all)
			continue;
		if (grow_one((void **)&pl->own, &cap[k], pl->nleaves, sizeof(*pl->own)) < 0)
			goto out;
		pl->own[pl->nleaves++] = i;   /* counted in nleaves until they become the members */
	}
	for (size_t k = 0; k < p->n; k++) {
		struct plan *pl = &p->v[k];
		size_t n = pl->nleaves, m = 0;
		if (!pl->edit.nremoves)
			continue;
		pl->nleaves = 0;
		if (!n) {
			free(pl->own);
			pl->own = NULL;
			if (plan_edit_no_effect(&pl->edit) < 0)
				goto out;
			continue;
		}
		sort_array(pl->own, n, sizeof(*pl->own), cmp_size);
		/* The directive's findings the patch leaves. */
		if (!(pl->leaves = malloc(pl->nmembers * sizeof(*pl->leaves))))
			goto out;
		for (size_t j = 0; j < pl->nmembers; j++) {
			while (m < n && pl->own[m] < pl->members[j])
				m++;
			if (m == n || pl->own[m] != pl->members[j])
				pl->leaves[pl->nleaves++] = pl->members[j];
		}
		pl->members = pl->own;
		pl->nmembers = n;
		count_members(a, pl);
	}
	rc = 0;
out:
	hmap_release(&c.hit);
	free(c.by_seq);
	free(c.ops);
	free(cap);
	return rc;
}

/*
 * Each plan's savings from its members (findings_sets_ns()) into ns[k]:
 * with a patch, only the operations it removes, its kept transfers apart
 * (left[k]); and from the directive's own findings into ns[n + k] (a plan
 * that loses its patch to another's region falls back to them).
 */
static int sums(const struct analysis *a, const struct plans *p, int64_t *ns, int64_t *left)
{
	size_t nf = a->findings.n, total = 0, n = p->n;
	size_t *start = calloc(nf + 1, sizeof(*start)), *sets = NULL, *fill = NULL;
	const int64_t **keep = calloc(2 * n + 1, sizeof(*keep)), **only = calloc(2 * n + 1, sizeof(*only));
	size_t *nkeep = calloc(2 * n + 1, sizeof(*nkeep)), *nonly = calloc(2 * n + 1, sizeof(*nonly));
	int rc = -1;

	if (!start || !keep || !nkeep || !only || !nonly)
		goto out;
	for (size_t k = 0; k < n; k++) {
		const struct plan *pl = &p->v[k];
		keep[k] = pl->edit.keeps;
		nkeep[k] = pl->edit.nkeeps;
		if (pl->edit.nremoves) {
			only[k] = pl->edit.removes;
			nonly[k] = pl->edit.nremoves;
		}
		for (size_t j = 0; j < pl->nmembers; j++)
			start[pl->members[j] + 1]++;
		for (size_t j = 0; j < pl->nmine; j++)
			start[pl->mine[j] + 1]++;
		total += pl->nmembers + pl->nmine;
	}
	for (size_t i = 0; i < nf; i++)
		start[i + 1] += start[i];
	sets = malloc((total ? total : 1) * sizeof(*sets));
	fill = malloc((nf ? nf : 1) * sizeof(*fill));
	if (!sets || !fill)
		goto out;
	memcpy(fill, start, nf * sizeof(*fill));
	for (size_t k = 0; k < n; k++) {
		for (size_t j = 0; j < p->v[k].nmembers; j++)
			sets[fill[p->v[k].members[j]]++] = k;
		for (size_t j = 0; j < p->v[k].nmine; j++)
			sets[fill[p->v[k].mine[j]]++] = n + k;
	}
	rc = findings_sets_ns(&a->findings, start, sets, 2 * n, keep, nkeep, only, nonly, ns, left);
out:
	free(start);
	free(sets);
	free(fill);
	free(keep);
	free(nkeep);
	free(only);
	free(nonly);
	return rc;
}

/* The directive's own findings as pl's members again, and their savings (its patch went). */
static void back_to_mine(const struct analysis *a, struct plan *pl)
{
	free(pl->own);
	free(pl->leaves);
	pl->own = pl->leaves = NULL;
	pl->nleaves = 0;
	pl->members = pl->mine;
	pl->nmembers = pl->nmine;
	count_members(a, pl);
	pl->edit.nremoves = pl->edit.nkeeps = pl->edit.nfaults = 0;
	pl->edit.left_ns = pl->edit.faults_ns = 0;
	pl->savings_ns = a->duration_ns > 0 && pl->mine_ns > a->duration_ns ? a->duration_ns : pl->mine_ns;
}

int plans_end(const struct analysis *a, struct plans *p, struct plans_pass *pp, int fed)
{
	int64_t *ns = malloc((2 * p->n + 1) * sizeof(*ns)), *left = malloc((2 * p->n + 1) * sizeof(*left));
	int rc = -1;

	int keeps = 0;

	if (!ns || !left)
		goto out;
	/*
	 * The edits (after the findings' first operations are known: they name
	 * the variables).  Each source file read once, however many directives
	 * it holds.
	 */
	if (!(pp->sources = plan_sources_new()))
		goto out;
	for (size_t k = 0; k < p->n; k++) {
		if (plan_edit_build(a, &p->v[k], pp->sources) < 0)
			goto out;
		keeps |= p->v[k].edit.nkeeps > 0;
	}
	/*
	 * Fed by the store's pass (made anyway), unless it did not see every
	 * operation (a store that failed).  Where a patch removes findings,
	 * its plan claims those (claim()), and the savings are summed afresh
	 * for all plans in a pass of their own, kept transfers apart; so they
	 * are where a patch keeps some of its plan's transfers (its updates).
	 */
	if (claim(a, p) < 0)
		goto out;
	for (size_t k = 0; k < p->n; k++)
		keeps |= p->v[k].edit.nremoves > 0 || p->v[k].edit.nkeeps > 0;
	if (keeps) {
		findings_unions_free(pp->u);
		pp->u = NULL;
		if (sums(a, p, ns, left) < 0)
			goto out;
	} else {
		if (!fed) {
			findings_unions_free(pp->u);
			if (!(pp->u = findings_unions_begin(&a->findings, pp->set_of, p->n)) ||
			    (findings_unions_need_ops(pp->u) &&
			     findings_each_op(&a->findings, findings_unions_op, pp->u) < 0))
				goto out;
		}
		memset(left, 0, p->n * sizeof(*left));   /* no patch keeps a transfer */
		findings_unions_end(pp->u, ns);
		pp->u = NULL;
	}
	for (size_t k = 0; k < p->n; k++) {
		ns[k] += p->v[k].edit.faults_ns;   /* 0 without a patch */
		p->v[k].savings_ns = a->duration_ns > 0 && ns[k] > a->duration_ns ? a->duration_ns : ns[k];
		p->v[k].edit.left_ns = left[k];
		p->v[k].mine_ns = keeps ? ns[p->n + k] : ns[k];
	}
	sort_array(p->v, p->n, sizeof(*p->v), cmp_plan);
	/*
	 * Directives inside one loop each wrap it (heat.c's two kernels): the
	 * first such plan, most savings, keeps its region; the others are
	 * covered by it, not a second region nested around the same loop.
	 */
	for (size_t j = 1; j < p->n; j++)
		for (size_t i = 0; i < j; i++)
			if (plan_edit_same_loop(&p->v[j].edit, &p->v[i].edit)) {
				if (plan_edit_cover(&p->v[j].edit, (int)i + 1, &p->v[i].edit) < 0)
					goto out;
				back_to_mine(a, &p->v[j]);
				break;
			}
	rc = 0;
out:
	free(ns);
	free(left);
	pass_free(pp);
	if (rc < 0)
		plans_release(p);
	return rc;
}

int plans_build(const struct analysis *a, struct plans *p)
{
	struct plans_pass *pp = plans_begin(a, p);

	return pp ? plans_end(a, p, pp, 0) : -1;
}

const struct plans *plans_get(const struct analysis *a, struct plans *own)
{
	memset(own, 0, sizeof(*own));
	if (a->plans)
		return a->plans;
	return plans_build(a, own) < 0 ? NULL : own;
}

void plans_release(struct plans *p)
{
	if (!p)
		return;
	for (size_t i = 0; p->v && i < p->n; i++) {
		plan_edit_release(&p->v[i].edit);
		free(p->v[i].own);
		free(p->v[i].leaves);
	}
	free(p->v);
	free(p->store);
	memset(p, 0, sizeof(*p));
}
