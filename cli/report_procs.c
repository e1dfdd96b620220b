/*
 * report_procs.c - 'mapprof report DB...': several databases, one per
 * process of a recorded command (docs/usage.md, "Several processes").
 *
 * Each database is reported alone first, as 'mapprof report DB' would
 * (findings stored in it, no files, no summary), one at a time; then
 * report/compare/merge.c reads back each one's process and finding rows and merges
 * the findings by fingerprint.  Memory: one database's analysis at a time,
 * plus a few hundred bytes per process and per distinct finding.  report.json
 * and report.html (static/js/procs.js) both hold that merged document only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "lib/outfile.h"
#include "report/output/html.h"
#include "report/output/json.h"
#include "report/compare/merge.h"
#include "report/report.h"

/* The merged summary on fd, escaped for the terminal; as report/report.c's. */
static void print_summary(const struct merge *m, int fd, int top, struct report_result *res)
{
	struct outfile o;

	if (outfile_fd(&o, fd, OUTFILE_TEXT) < 0)
		return;
	merge_summary(m, o.f, top);
	if (outfile_commit(&o) == 0 || errno == EPIPE || fd != STDOUT_FILENO)
		return;
	if (asprintf(&res->out_err[REPORT_OUT_SUMMARY], "cannot write the summary to standard output: %s",
		     strerror(errno)) < 0)
		res->out_err[REPORT_OUT_SUMMARY] = NULL;
}

int report_cli_run_many(const struct report_cli *rc, char **dbs, int n)
{
	struct merge *m = merge_new();
	struct report_cli out = *rc;
	char *json = NULL, *html = NULL, *err = NULL;
	int status = 0, incomplete = 0, bad;
	struct report_result all = { 0 };
	json_t *doc = NULL;

	if (!m)
		return error("out of memory");
	/* Default outputs beside the first database, as for one. */
	if ((!rc->no_json && !(json = rc->json ? strdup(rc->json) : report_beside(dbs[0], "report.json"))) ||
	    (!rc->no_html && !(html = rc->html ? strdup(rc->html) : report_beside(dbs[0], "report.html")))) {
		status = error("out of memory");
		goto out;
	}
	/* No output may be one of the databases, nor two outputs one file. */
	out.json = json;
	out.html = html;
	for (int i = 0; i < n && !status; i++)
		status = report_cli_check(&out, dbs[i]);
	if (status)
		goto out;
	for (int i = 0; i < n; i++) {
		struct report_options opt = { 0 };
		struct report_result res;
		opt.db_path = dbs[i];
		opt.quiet = 1;
		opt.no_source = rc->no_source;
		opt.check = rc->check;
		if (report_run(&opt, &res, &err) < 0 || merge_add(m, dbs[i], &err) < 0) {
			status = error("'%s': %s", dbs[i], err ? err : "report failed");
			report_result_release(&res);
			goto out;
		}
		incomplete += res.incomplete;
		report_result_release(&res);
	}
	if (!rc->quiet)
		print_summary(m, (json && outfile_is_stdout(json)) || (html && outfile_is_stdout(html)) ?
			      STDERR_FILENO : STDOUT_FILENO, rc->top, &all);
	if ((json || html) && !(doc = merge_json(m))) {
		status = error("out of memory");
		goto out;
	}
	/* Each output whatever became of the other: the messages say which were written. */
	if (json)
		all.wrote[REPORT_OUT_JSON] = report_json_write(doc, json, report_cli_oflags(rc->json, json),
							       &all.out_err[REPORT_OUT_JSON]) == 0;
	if (html)
		all.wrote[REPORT_OUT_HTML] = html_write(html, report_cli_oflags(rc->html, html), doc, NULL,
							&all.out_err[REPORT_OUT_HTML]) == 0;
	bad = report_cli_said_outputs(&all, json, html, NULL) < 0;
	if (incomplete) {
		info("warning: %d of the recordings are incomplete: the report covers what was recorded"
		     " (exit status %d)", incomplete, EXIT_INCOMPLETE);
		status = EXIT_INCOMPLETE;
	}
	if (bad)
		status = EXIT_ERROR;
out:
	report_result_release(&all);
	json_decref(doc);
	free(err);
	free(json);
	free(html);
	merge_free(m);
	return status;
}
