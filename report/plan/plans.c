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

/* The transfers each plan's patch keeps (its updates) leave its savings. */
static int keep_all(const struct plans *p, struct unions *u)
{
	for (size_t k = 0; k < p->n; k++)
		if (findings_unions_keep(u, k, p->v[k].edit.keeps, p->v[k].edit.nkeeps) < 0)
			return -1;
	return 0;
}

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
			pl->members = p->store + i;
			pl->codeptr = g->nlocations ? g->locations[0] : 0;
		}
		pl = &p->v[p->n - 1];
		pl->members[pl->nmembers++] = keys[i].index;
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

int plans_end(const struct analysis *a, struct plans *p, struct plans_pass *pp, int fed)
{
	int64_t *ns = malloc((p->n ? p->n : 1) * sizeof(*ns)), *left = malloc((p->n ? p->n : 1) * sizeof(*left));
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
	 * operation (a store that failed), or a patch keeps some of the plans'
	 * transfers (its updates): then summed afresh, in a pass of its own for
	 * all plans at once, the kept transfers apart.
	 */
	if (!fed || keeps) {
		findings_unions_free(pp->u);
		if (!(pp->u = findings_unions_begin(&a->findings, pp->set_of, p->n)) || keep_all(p, pp->u) < 0 ||
		    (findings_unions_need_ops(pp->u) && findings_each_op(&a->findings, findings_unions_op, pp->u) < 0))
			goto out;
	}
	findings_unions_left(pp->u, left);
	findings_unions_end(pp->u, ns);
	pp->u = NULL;
	for (size_t k = 0; k < p->n; k++) {
		p->v[k].savings_ns = a->duration_ns > 0 && ns[k] > a->duration_ns ? a->duration_ns : ns[k];
		p->v[k].edit.left_ns = left[k];
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
	for (size_t i = 0; p->v && i < p->n; i++)
		plan_edit_release(&p->v[i].edit);
	free(p->v);
	free(p->store);
	memset(p, 0, sizeof(*p));
}
