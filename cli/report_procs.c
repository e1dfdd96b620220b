/*
 * report_procs.c - 'mapprof report DB...': several databases, one per
 * process of a recorded command (docs/usage.md, "Several processes").
 *
 * Each database is reported alone first, as 'mapprof report DB' would
 * (findings stored in it, no files, no summary), one at a time; then
 * report/merge.c reads back each one's process and finding rows and merges
 * the findings by fingerprint.  Memory: one database's analysis at a time,
 * plus a few hundred bytes per process and per distinct finding.  report.json
 * and report.html (static/js/procs.js) both hold that merged document only.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "lib/outfile.h"
#include "report/html.h"
#include "report/json.h"
#include "report/merge.h"
#include "report/report.h"

int report_cli_run_many(const struct report_cli *rc, char **dbs, int n)
{
	struct merge *m = merge_new();
	struct report_cli out = *rc;
	char *json = NULL, *html = NULL, *err = NULL;
	int status = 0, incomplete = 0;
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
			goto out;
		}
		incomplete += res.incomplete;
	}
	if (!rc->quiet)
		merge_summary(m, (json && outfile_is_stdout(json)) || (html && outfile_is_stdout(html)) ?
				 stderr : stdout, rc->top);
	if ((json || html) && !(doc = merge_json(m))) {
		status = error("out of memory");
		goto out;
	}
	if (json) {
		if (report_json_write(doc, json, &err) < 0)
			status = error("%s", err ? err : "out of memory");
		else if (!outfile_is_stdout(json))
			info("wrote '%s'", json);
	}
	if (html && !status) {
		if (html_write(html, doc, NULL, &err) < 0)
			status = error("%s", err ? err : "out of memory");
		else if (!outfile_is_stdout(html))
			info("wrote '%s'", html);
	}
	if (!status && incomplete) {
		info("warning: %d of the recordings are incomplete: the report covers what was recorded"
		     " (exit status %d)", incomplete, EXIT_INCOMPLETE);
		status = EXIT_INCOMPLETE;
	}
out:
	json_decref(doc);
	free(err);
	free(json);
	free(html);
	merge_free(m);
	return status;
}
