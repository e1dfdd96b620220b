/*
 * plans.h - fix plans: the findings grouped by the directive to change.
 *
 * A person fixes constructs, not findings: one plan per directive (the
 * source file:line of a finding's first location, the construct whose
 * mapping defines it; the code pointer when no line is known), with the
 * findings under it and what changing it would save.  A plan whose edit
 * gives a patch claims exactly the findings the patch removes: those it
 * takes every recorded operation of one role from (every transfer of a
 * duplicate, every return or every send of a round trip, every allocation
 * of an allocation finding), the directive's own or another's; the
 * directive's findings it leaves are listed apart.  A plan's savings are
 * the union of the time intervals of its findings' operations, each
 * operation once (a transfer can be a duplicate and a round-trip leg at the
 * same time; operations of threads or nowait constructs overlap), so no
 * time is counted twice; never more than the run's wall time.  Plans come most savings first, ties in the order of
 * their first finding.
 */
#ifndef MAPPROF_REPORT_PLANS_H
#define MAPPROF_REPORT_PLANS_H

#include <stddef.h>
#include <stdint.h>

#include "report/detect/occurrence.h"
#include "report/plan/planedit.h"

struct analysis;

struct plan {
	uint64_t codeptr;             /* the directive: its first finding's first location */
	/*
	 * Indices into the analysis' findings, ascending: those of the
	 * directive, or, with a patch, those the patch removes (which may
	 * include another directive's: plans.c).
	 */
	size_t *members;
	size_t nmembers;
	size_t *leaves;               /* with a patch: the directive's findings it does not
					 remove, ascending (malloc'ed); NULL: none */
	size_t nleaves;
	size_t *own;                  /* members when not in struct plans' store (malloc'ed) */
	size_t *mine;                 /* the directive's own findings (in the store), ascending */
	size_t nmine;
	int64_t mine_ns;              /* their savings, each operation once */
	int64_t savings_ns;           /* union of the members' operations */
	uint64_t occurrences;         /* sum over the members */
	uint64_t kinds[FINDING_KIND_COUNT];  /* members of each kind */
	struct plan_edit edit;        /* the suggested change (report/plan/planedit.h) */
};

struct plans {
	struct plan *v;
	size_t n;
	size_t *store;                /* every plan's members, one allocation */
};

/* Group a's findings into *p (released with plans_release()).  0, or -1 when out of memory. */
int plans_build(const struct analysis *a, struct plans *p);

/*
 * plans_build() in two steps around a pass over the findings' operations
 * made anyway (report/findings/findings_store.h's tap): plans_begin()
 * groups the findings (NULL when out of memory, *p released);
 * plans_tap() takes each operation; plans_end() sums the plans' savings
 * (with a pass of its own when fed is 0: the tap did not see them all),
 * writes their edits and frees pp.  0, or -1 (*p released).
 */
struct plans_pass;
struct finding_op;
struct plans_pass *plans_begin(const struct analysis *a, struct plans *p);
int plans_tap(void *pp, size_t pos, const struct finding_op *op);
int plans_end(const struct analysis *a, struct plans *p, struct plans_pass *pp, int fed);
void plans_release(struct plans *p);

/*
 * a->plans when the driver built them (report_run(): once for every
 * output), else a's plans built into *own.  The caller releases *own with
 * plans_release() either way.  NULL when out of memory.
 */
const struct plans *plans_get(const struct analysis *a, struct plans *own);

#endif
