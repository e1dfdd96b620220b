/*
 * planedit.h - the concrete edit a fix plan suggests (report/plan/plans.h).
 *
 * From the plan's findings (their kinds and variables), the construct's
 * recorded map entries (source_raw.map_names: the sections as written, after
 * macro expansion; and the operations recorded for each) and, where the
 * report may read it (a file the program's DWARF names, not --no-source),
 * the source around the directive, one edit is chosen, in this order:
 *
 *   wrap_loop   the construct is repeated by a loop found around it
 *               (report/plan/loopscan.h) and the plan has duplicate transfers,
 *               repeated allocations or device->host->device round trips:
 *               wrap the loop in '#pragma omp target data map(...)'.  A
 *               variable's map type is 'to' when only copies to the device
 *               were recorded, 'from' when only copies back, 'tofrom' when
 *               both, 'alloc' when neither.  The construct's own clauses may
 *               stay: the data is then present, so they move nothing.
 *   map_type    a host->device->host round trip: 'tofrom' -> 'to'.
 *   remove_map  an unused allocation: take the variable out of the clause.
 *   alloc_only  an unused transfer: 'to' -> 'alloc' (or drop it).
 *   hoist       repeated mapping but no loop found (a caller's loop, or no
 *               source): the same 'target data' clause, around the code
 *               that repeats the construct.
 *   advice      none of the above applies (no variable names recorded).
 *
 * Plans keep results by construction, from the recording: a wrap_loop
 * region gets 'target update to' before a construct whose send differs from
 * what the device held, 'target update from' after one whose return differs
 * from what the host had (its map types: 'to' where the loop sends first,
 * else 'alloc'), the construct's device/if (and nowait with depend as
 * inout) on what it adds, and no region across devices, none where a
 * kernel may write data it maps 'to' only or the loop may set a section's
 * pointer or size before the construct's first pass; map_type only when
 * every return came back unchanged and no host code may write the data
 * between its copy in and that return; alloc_only only when no later 'from'
 * brings the older copy back.  Where the recording or the source cannot
 * tell, edit.unsure says why and there is no patch.
 *
 * A unified diff (paths relative to the source root, for 'patch -p1' there)
 * comes with wrap_loop when the loop's first and last lines hold nothing
 * else and no pragma of its own precedes it, and with map_type/alloc_only
 * when the clause to change is on the directive's line with that variable
 * alone in it.  Suggestions, not proofs: the texts say why.
 */
#ifndef MAPPROF_REPORT_PLANEDIT_H
#define MAPPROF_REPORT_PLANEDIT_H

struct analysis;
struct plan;

enum plan_edit_kind {
	EDIT_ADVICE,
	EDIT_WRAP_LOOP,
	EDIT_MAP_TYPE,
	EDIT_REMOVE_MAP,
	EDIT_ALLOC_ONLY,
	EDIT_HOIST,
};

struct plan_edit {
	enum plan_edit_kind kind;
	char *text;            /* the suggestion and its reason */
	char *clauses;         /* "map(tofrom: a) map(to: b[0:n])"; NULL: none */
	int loop_first, loop_last;  /* the loop around the directive; 0: none found */
	int line;              /* the directive's line; 0: unknown */
	int serves_first, serves_last;  /* a region around a caller's loop: the lines of the
				  constructs it serves (the directive's loop, or its
				  function); 0: none */
	char *patch;           /* unified diff; NULL: none */
	char *unsure;          /* why the plan gives no patch it can stand by (sentences);
				  NULL: its patch keeps the program's results, as far as the
				  recording shows */
	int source_changed;    /* the source file changed since the recording: not
				  read, no loop, no patch (the text says so) */
	char *file;            /* the directive's source file as recorded; NULL: unknown */
	int covered_by;        /* 0, or the number (1-based) of the plan whose region
				  wraps the same loop: this one then gives no patch */
	int64_t *keeps;        /* wrap_loop: the seqs of the transfers its updates keep
				  (ascending): not counted in the plan's savings */
	size_t nkeeps, keeps_cap;
	int64_t left_ns;       /* what those kept transfers cost (plans.c) */
	int64_t *removes;      /* with a patch: the seqs of the recorded allocations and
				  transfers it removes (ascending, distinct): the findings
				  it removes are those it takes every operation of one
				  role from (plans.c) */
	size_t nremoves, removes_cap;
	int64_t faults_ns;     /* wrap_loop: the page faults of fresh device memory its
				  removed allocations no longer cause where the memory
				  was touched first by a kernel or by a copy its updates
				  keep (a removed first copy's are in its own price):
				  per allocation, the run's first-copy premium of that
				  size (cost.h); in the plan's savings */
	size_t nfaults;        /* those allocations */
};

/* "wrap_loop", ... (static). */
const char *plan_edit_kind_name(enum plan_edit_kind kind);

/*
 * The source files read for a set of plans, each read once however many of
 * the plans' directives it holds (plans_build(): one per report).
 * plan_sources_new(): NULL when out of memory; plan_sources_free() accepts NULL.
 */
struct plan_sources;
struct plan_sources *plan_sources_new(void);
void plan_sources_free(struct plan_sources *c);

/*
 * Fill pl's edit, reading its directive's source through 'sources' (kept
 * there for the next plan; NULL: read for this plan alone).  0, or -1 when
 * out of memory.
 */
int plan_edit_build(const struct analysis *a, struct plan *pl, struct plan_sources *sources);
void plan_edit_release(struct plan_edit *e);

/*
 * Whether e (a wrap_loop plan) wraps the same loop of the same file as
 * 'by' (another one, ahead of it): 1 when so.
 */
int plan_edit_same_loop(const struct plan_edit *e, const struct plan_edit *by);

/*
 * e's patch removes none of the recorded findings (plans.c): it goes, and
 * the text and e->unsure say so.  0, or -1 when out of memory (e then as
 * it was).
 */
int plan_edit_no_effect(struct plan_edit *e);

/*
 * Mark e covered by plan number n (1-based), whose edit 'by' wraps the same
 * loop: its text says so and what to do, its patch goes.  0, or -1 when out
 * of memory (e then as it was).
 */
int plan_edit_cover(struct plan_edit *e, int n, const struct plan_edit *by);

#endif
