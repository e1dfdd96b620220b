/*
 * analysis.h - one recorded run, analysed: its run row, totals and
 * findings, what every output (summary, JSON, HTML, SARIF, diff) is built
 * from.  analysis_run() reads the event stream (db/read/events.h) through the
 * detectors (report/detect/detect.h) and the totals (report/findings/totals.h) and groups
 * the occurrences into findings (report/findings/findings.h).
 */
#ifndef MAPPROF_REPORT_ANALYSIS_H
#define MAPPROF_REPORT_ANALYSIS_H

#include <stdint.h>

#include "db/read/acc.h"
#include "db/read/events.h"
#include "db/read/kernel_sites.h"
#include "db/read/nowait_sites.h"
#include "db/read/timeline.h"
#include "report/findings/checks.h"
#include "report/findings/cost.h"
#include "report/findings/findings.h"
#include "lib/overlap.h"
#include "report/findings/results.h"
#include "report/findings/totals.h"

struct db;
struct attribution;
struct plans;
struct kernel_sites;
struct op_keys;

/* Everything the outputs show about one run. */
struct analysis {
	struct run_info run;
	struct acc_summary acc;          /* an OpenACC run's counts (db/read/acc.h); zeros for OMPT */
	struct damaged damaged_ops;      /* data_op_raw rows left out (db/read/sound.h) */
	struct damaged damaged_kernels;  /* kernel_raw rows left out */
	struct run_totals totals;
	struct findings findings;
	struct check_findings checks;  /* what 'record --check' found (checks.h) */
	struct cost_model cost;  /* what an operation costs in this run (cost.h) */
	struct results results;  /* the last content of every host range (results.h) */
	int host_device;         /* -1 when unknown */
	int64_t duration_ns;     /* wall time: the collector's, else the events' span */
	int stored;              /* findings written to the database */
	int sorted;              /* the stream needed SQLite's sort */
	int no_source;           /* leave snippets out of the outputs */
	char *source_root;       /* paths are shown relative to it (report/findings/paths.h); NULL: none */
	struct attribution *attr;  /* source lines and variables; NULL: none stored */
	struct op_keys *keys;    /* the attribution keys the pass gathered, for attribute_run() */
	/*
	 * The fix plans (report/plan/plans.h), built once for every output by
	 * whoever drives them (report_run()), after attr and source_root: plans
	 * read both, and the source files.  Borrowed; NULL: each output builds
	 * its own (plans_get()).
	 */
	const struct plans *plans;
	/*
	 * The kernels by launching place (db/read/kernel_sites.h), read by
	 * report_run() for the summary and the document.  Borrowed; NULL: not
	 * read (the outputs leave the kernels out).
	 */
	const struct kernel_sites *kernels;
	/* The sites the pass gathered (report/findings/kernels.h), for 'kernels' to point at. */
	struct kernel_sites kernel_sites;
	uint64_t (*site_pairs)[2];  /* the call sites of one directive (analysis_merge_sites()) */
	size_t nsite_pairs;
	struct timeline_span span;  /* the page timeline's span, from the same pass */
	struct nowait_sites nowait; /* the call sites of nowait offload calls */
	struct overlap overlap;     /* transfers beside kernels per device (overlap.h), from the same pass */
	int with_timeline;          /* the span records the timeline's intervals too (analysis_run_page()) */
};

/*
 * Read the run in 'db' and analyse it into *a (which the caller releases
 * with analysis_release() whatever the result).  0, or -1 with *err set.
 */
int analysis_run(struct db *db, struct analysis *a, char **err);
/*
 * The same, for an HTML page: the pass also records the timeline's
 * intervals in a.span (db/read/timeline.h), so that the page reads no table
 * again.
 */
int analysis_run_page(struct db *db, struct analysis *a, char **err);
/*
 * analysis_run() (with_timeline: analysis_run_page()) in its steps: the pass, after
 * which the findings hold their events (events, nkept) and a.span is
 * recorded, but nothing else of theirs is final; then analysis_finish(),
 * which prices, sorts, numbers them and sums their savings
 * (report/findings/findings.h, findings_finish()), itself in two steps:
 * _begin(), all but the sums, and _end(), the sums in a pass over the
 * findings' operations when nothing fed them (findings_store() does).
 * Between the pass and the finish, findings_merge_sites() may make the
 * call sites of one directive one finding (analysis_merge_sites()).
 * 0, or -1 with *err set.
 */
int analysis_pass(struct db *db, struct analysis *a, int with_timeline, char **err);
int analysis_finish(struct analysis *a, char **err);
/*
 * findings_merge_sites() on a's findings (and the kernels table), the pairs
 * kept in a->site_pairs for the plans: 0, or -1 with *err set.
 */
int analysis_merge_sites(struct analysis *a, const uint64_t (*pairs)[2], size_t n, char **err);
int analysis_finish_begin(struct analysis *a, char **err);
int analysis_finish_end(struct analysis *a, char **err);
void analysis_release(struct analysis *a);

/* True when the run's status is not 'complete' (the outputs say so). */
int run_incomplete(const struct run_info *run);

#endif
