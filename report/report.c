/*
 * report.c - 'mapprof report' from database to outputs.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/store/attribution.h"
#include "db/db.h"
#include "db/ingest/finish.h"
#include "db/read/timeline.h"
#include "lib/batchq.h"
#include "lib/outfile.h"
#include "lib/termesc.h"
#include "report/attribute/attribute.h"
#include "report/detect/detect.h"
#include "report/compare/diff.h"
#include "report/compare/repeat.h"
#include "report/findings/findings_store.h"
#include "report/output/gate.h"
#include "report/output/html.h"
#include "report/output/json.h"
#include "report/findings/paths.h"
#include "report/plan/plans.h"
#include "report/report.h"
#include "report/output/sarif.h"
#include "report/output/summary.h"
#include "report/attribute/symbolize.h"

static void explain_failure(struct db *db, struct report_result *res, char **err)
{
	char *why = NULL;

	if (db_diagnose(db, &why) == DB_OK)
		return;
	res->problem = DB_DAMAGED;
	if (err) {
		free(*err);
		if (asprintf(err, "cannot report on '%s': %s", db_path(db), why ? why : "damaged") < 0)
			*err = NULL;
	}
	free(why);
}

/* res->tripped: each --fail-on the findings are over.  0, or -1 out of memory. */
static int check_gates(const struct report_options *opt, const struct analysis *a,
		       struct report_result *res)
{
	for (int i = 0; i < opt->ngates; i++) {
		char *why = NULL, *lines = NULL;
		int rc = opt->gates[i].kind == GATE_CHECK ? gate_check_checks(&opt->gates[i], &a->checks, &why)
							  : gate_check(&opt->gates[i], &a->findings, &why);
		if (rc <= 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		rc = asprintf(&lines, "%s%s--fail-on %s: %s", res->tripped ? res->tripped : "",
			      res->tripped ? "\n" : "", opt->gates[i].spec, why);
		free(why);
		if (rc < 0)
			return -1;
		free(res->tripped);
		res->tripped = lines;
	}
	return 0;
}

/*
 * The summary on descriptor fd (1, or 2 when a report goes to standard
 * output), its database strings escaped for the terminal; then 'more',
 * when there is some: the results check of --baseline, the combination of
 * --same-program.  A reader that
 * went away (EPIPE: 'mapprof report DB | head') ends the summary and is no
 * error; any other failure on standard output is one (res->out_err).
 */
static void print_summary(int fd, const struct analysis *a, int top, const char *more,
			  struct report_result *res)
{
	struct outfile o;

	if (outfile_fd(&o, fd, OUTFILE_TEXT) < 0) {
		if (fd == STDOUT_FILENO && asprintf(&res->out_err[REPORT_OUT_SUMMARY],
				"cannot print the summary: %s", strerror(errno)) < 0)
			res->out_err[REPORT_OUT_SUMMARY] = NULL;
		return;
	}
	summary_print(o.f, a, top);
	if (more)
		fprintf(o.f, "\n%s%s", more, more[strlen(more) - 1] == '\n' ? "" : "\n");
	if (outfile_commit(&o) == 0) {
		res->wrote[REPORT_OUT_SUMMARY] = 1;
	} else if (errno == EPIPE) {
		res->stdout_closed = fd == STDOUT_FILENO;
	} else if (fd == STDOUT_FILENO) {
		if (asprintf(&res->out_err[REPORT_OUT_SUMMARY],
			     "cannot write the summary to standard output: %s", strerror(errno)) < 0)
			res->out_err[REPORT_OUT_SUMMARY] = NULL;
	}
}

void report_result_release(struct report_result *res)
{
	free(res->tripped);
	res->tripped = NULL;
	for (int i = 0; i < REPORT_OUT_COUNT; i++) {
		free(res->out_err[i]);
		res->out_err[i] = NULL;
	}
}

/*
 * The page's timeline binned on a thread of its own while the findings are
 * finished and stored and the document is made (db/read/timeline.h), with every event the
 * findings kept as candidate marks (the page marks those its findings
 * list).  NULL: the page builds it when written.
 */
static struct timeline_job *start_timeline(struct db *db, const struct analysis *a)
{
	struct timeline_job *j;
	size_t n = 0, k = 0;
	int64_t *seqs;

	if (!a->span.rec || !batchq_wanted())
		return NULL;
	for (size_t i = 0; i < a->findings.n; i++)
		n += a->findings.v[i].nkept;
	if (!(seqs = malloc((n ? n : 1) * sizeof(*seqs))))
		return NULL;
	for (size_t i = 0; i < a->findings.n; i++)
		for (size_t e = 0; e < a->findings.v[i].nkept; e++)
			seqs[k++] = a->findings.v[i].events[e];
	j = timeline_job_start(db, seqs, k, &a->span, NULL);
	free(seqs);
	return j;
}

/*
 * The analysis' pass.  For a page (its timeline binned on a thread of its
 * own), the pass records the timeline's intervals and the binning starts
 * after it: the findings' events (its marks) are known then, and it needs
 * nothing the finish makes.
 */
static int analyse(struct db *db, const struct report_options *opt, struct analysis *a,
		   struct timeline_job **timeline, char **err)
{
	int page = opt->html_path && !batchq_serial();

	if (analysis_pass(db, a, page, err) < 0)
		return -1;
	if (page)
		*timeline = start_timeline(db, a);
	return 0;
}

int report_run(const struct report_options *opt, struct report_result *res, char **err)
{
	struct analysis a;
	struct plans plans;
	struct db *db;
	json_t *doc = NULL;
	char *why = NULL;
	struct timeline_job *timeline = NULL;
	struct plans_pass *pending;
	int rc = -1, want_plans, fed = 0;

	memset(res, 0, sizeof(*res));
	memset(&a, 0, sizeof(a));
	memset(&plans, 0, sizeof(plans));
	db = db_open(opt->db_path, DB_OPEN_WRITE | (opt->check ? DB_OPEN_CHECK : 0), &res->problem, &why);
	if (!db) {
		if (err && asprintf(err, "cannot report on '%s': %s", opt->db_path, why ? why : "out of memory") < 0)
			*err = NULL;
		free(why);
		return -1;
	}
	if (db_copied(db))
		termesc_line(stderr, "mapprof: note: '%s' is %s: findings were not stored in it",
			     opt->db_path, db_copied(db));
	if (db_pair_deletes_if_needed(db, err) < 0 || analyse(db, opt, &a, &timeline, err) < 0) {
		explain_failure(db, res, err);
		goto release;
	}
	res->incomplete = run_incomplete(&a.run);

	/*
	 * Source lines, variables and snippets, stored for the outputs to read;
	 * the call sites of one directive made one finding; then the findings
	 * finished but their sums (analysis_finish_begin(): the store's pass
	 * over their operations feeds them, analysis_finish_end() ends it).
	 */
	{
		char *msg = NULL;
		struct symbolizer *sym = symbolizer_new(db, &msg);
		struct call_sites sites = { 0 };
		if (!sym || attribute_run(db, sym, !opt->no_source, a.keys, NULL, &sites, &msg) < 0) {
			symbolizer_free(sym);
			explain_failure(db, res, &msg);
			if (res->problem != DB_OK) {
				if (err)
					*err = msg;
				else
					free(msg);
				goto release;
			}
			termesc_line(stderr, "mapprof: warning: no source attribution: %s",
				     msg ? msg : "out of memory");
			free(msg);
		} else {
			symbolizer_free(sym);
		}
		if (analysis_merge_sites(&a, (const uint64_t (*)[2])sites.pairs, sites.n, err) < 0 ||
		    analysis_finish_begin(&a, err) < 0) {
			call_sites_release(&sites);
			goto release;
		}
		call_sites_release(&sites);
	}
	a.attr = attribution_open(db);
	a.no_source = opt->no_source;
	if (a.attr) {
		/* Said once per file: every location and plan in it says so too. */
		json_t *changed = attribution_changed_sources(a.attr), *c;
		size_t i;
		json_array_foreach(changed, i, c)
			fprintf(stderr, "mapprof: warning: '%s': %s: its lines are not quoted and the plans "
				"give no patch for it\n", json_string_value(json_object_get(c, "path")),
				json_string_value(json_object_get(c, "note")));
		json_decref(changed);
	}
	a.source_root = opt->source_root ? source_root_clean(opt->source_root) : source_root_find(&a);

	/*
	 * The plans, once for the summary and the document (they read the
	 * source files): grouped first, so that their savings are summed as
	 * the store writes the findings' operations, in its pass over them.
	 */
	want_plans = !opt->quiet || opt->json_path || opt->html_path || opt->sarif_path || opt->sarif_out;
	pending = want_plans ? plans_begin(&a, &plans) : NULL;
	{
		char *msg = NULL;
		if (findings_store(db, &a.findings, pending ? plans_tap : NULL, pending, &msg) < 0) {
			res->not_stored = 1;
			if (db_moved(db))
				termesc_line(stderr, "mapprof: warning: '%s' was replaced while the report ran: its"
					     " findings were not stored (the new file is left as it is)", opt->db_path);
			else
				termesc_line(stderr, "mapprof: warning: findings not stored: %s",
					     msg ? msg : "out of memory");
			free(msg);
		} else {
			a.stored = !db_copied(db);
			fed = 1;
		}
	}
	/* The findings' sums, in a pass of their own when the store did not feed them. */
	if (analysis_finish_end(&a, err) < 0)
		goto release;
	if (check_gates(opt, &a, res) < 0) {
		if (err)
			*err = strdup("out of memory");
		goto release;
	}
	/* The kernels table of the summary and the document (gathered by the analysis' pass). */
	if (!opt->quiet || opt->json_path || opt->html_path || opt->baseline_path || opt->nsame)
		a.kernels = &a.kernel_sites;
	if (want_plans && (pending ? plans_end(&a, &plans, pending, fed) : plans_build(&a, &plans)) == 0)
		a.plans = &plans;
	if (opt->json_path || opt->html_path || opt->sarif_path || opt->sarif_out || opt->baseline_path ||
	    opt->nsame) {
		doc = report_json(&a);
		if (!doc) {
			if (err)
				*err = strdup("out of memory");
			goto release;
		}
		if (opt->baseline_path &&
		    diff_baseline(doc, opt->baseline_path, opt->db_path, &a, opt->no_source, err) < 0)
			goto release;
		if (opt->nsame &&
		    repeat_add(doc, &a, opt->db_path, opt->same_paths, opt->nsame, err) < 0)
			goto release;
	}
	if (!opt->quiet) {
		/* A report on standard output keeps it to itself. */
		int fd = outfile_is_stdout(opt->json_path) || outfile_is_stdout(opt->html_path) ||
				 outfile_is_stdout(opt->sarif_path)
			 ? STDERR_FILENO : STDOUT_FILENO;
		const char *check = json_string_value(
			json_object_get(json_object_get(json_object_get(doc, "baseline"), "results"), "summary"));
		char *rep = repeat_text(doc), *more = NULL;

		if (asprintf(&more, "%s%s%s", check ? check : "", check && rep ? "\n\n" : "",
			     rep ? rep : "") < 0)
			more = NULL;
		print_summary(fd, &a, opt->top > 0 ? opt->top : 5, more && *more ? more : NULL, res);
		free(rep);
		free(more);
	}
	/* Each output whatever became of the one before: the messages say which were written. */
	if (opt->json_path)
		res->wrote[REPORT_OUT_JSON] = report_json_write(doc, opt->json_path, opt->json_oflags,
								&res->out_err[REPORT_OUT_JSON]) == 0;
	/* HTML: report/output/html.h, from the same document. */
	if (opt->html_path) {
		res->wrote[REPORT_OUT_HTML] = html_write_job(opt->html_path, opt->html_oflags, doc, db, &a.span,
							    timeline, &res->out_err[REPORT_OUT_HTML]) == 0;
		timeline = NULL;
	}
	if (opt->sarif_out)
		*opt->sarif_out = report_sarif(doc, db, opt->source_root, &res->out_err[REPORT_OUT_SARIF]);
	if (opt->sarif_path) {
		json_t *log = report_sarif(doc, db, opt->source_root, &res->out_err[REPORT_OUT_SARIF]);
		res->wrote[REPORT_OUT_SARIF] =
			log && report_sarif_write(log, opt->sarif_path, &res->out_err[REPORT_OUT_SARIF]) == 0;
		json_decref(log);
	}
	/*
	 * The write transaction db_open() began (a copy's is thrown away): the
	 * findings are stored whether or not every output could be written.
	 * Not when their store failed (said above): what is left of the
	 * transaction goes too, nothing of it is written to a file that
	 * replaced the database.
	 */
	if (res->not_stored) {
		db_rollback(db);
	} else if (!db_copied(db) && db_commit(db) < 0) {
		res->not_stored = 1;
		termesc_line(stderr, "mapprof: warning: findings were not stored in '%s': %s",
			     opt->db_path, db_errmsg(db));
	}
	rc = 0;
release:
	timeline_job_free(timeline);  /* before the analysis' recorded intervals go */
	json_decref(doc);
	plans_release(&plans);
	analysis_release(&a);
	db_close(db);
	return rc;
}
