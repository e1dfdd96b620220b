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
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "lib/outfile.h"
#include "report/output/html.h"
#include "report/output/json.h"
#include "report/output/sarif.h"
#include "report/compare/merge.h"
#include "report/report.h"

/*
 * Each process gets its own page up to this many processes: about 180 KiB
 * and a timeline's work each; a larger job's merged page gives the command
 * that makes one.
 */
#define MAX_PAGES 64

/* NAME.report.html beside the database NAME.db (or NAME): each process's own page. */
static char *proc_page(const char *db)
{
	size_t n = strlen(db);
	char *out;

	if (n > 3 && !strcmp(db + n - 3, ".db"))
		n -= 3;
	return asprintf(&out, "%.*s.report.html", (int)n, db) < 0 ? NULL : out;
}

/* The real path of the folder that holds 'path' (malloc'ed), or NULL. */
static char *real_dir(const char *path)
{
	char *copy = strdup(path), *real = copy ? realpath(dirname(copy), NULL) : NULL;

	free(copy);
	return real;
}

/*
 * 'target' as a relative URL from the page 'page' ("../ranks/run.0.report.html"),
 * each byte outside [A-Za-z0-9._~-] percent-encoded, so that it works from
 * file:// and can never read as a scheme.  NULL when a folder is not there.
 */
static char *page_link(const char *page, const char *target)
{
	char *from = real_dir(page), *to = real_dir(target), *copy = strdup(target), *out = NULL;
	const char *base = copy ? basename(copy) : NULL, *to_rest = NULL;
	size_t common = 0, cap;
	FILE *f;

	if (!from || !to || !base || !(f = open_memstream(&out, &cap)))
		goto done;
	/* The longest common run of whole folders. */
	for (size_t i = 0;; i++) {
		int end_a = !from[i] || from[i] == '/', end_b = !to[i] || to[i] == '/';
		if (end_a && end_b)
			common = i;
		if (!from[i] || !to[i] || from[i] != to[i])
			break;
	}
	for (const char *c = from + common; *c; c++)
		if (*c == '/')
			fputs("../", f);
	/* Then the folders below the common one, and the file name. */
	for (const char *t = to + common; *t == '/';)
		to_rest = ++t;
	if (!to_rest)
		to_rest = to + common;
	for (int pass = 0; pass < 2; pass++) {
		for (const char *t = pass ? base : to_rest; *t; t++) {
			unsigned char ch = (unsigned char)*t;
			if ((ch >= 'A' && ch <= 'Z') || (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') ||
			    (ch && strchr("._~-", ch)) || (ch == '/' && !pass))
				fputc(ch, f);
			else
				fprintf(f, "%%%02X", ch);
		}
		if (!pass && *to_rest)
			fputc('/', f);
	}
	if (fclose(f) != 0) {
		free(out);
		out = NULL;
	}
done:
	free(from);
	free(to);
	free(copy);
	return out;
}

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
	json_t *doc = NULL, **logs = NULL;
	char **labels = NULL, *tripped = NULL, *first_page = NULL;
	int pages = 0;

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
	if ((rc->sarif && (!(logs = calloc((size_t)n, sizeof(*logs))) ||
			   !(labels = calloc((size_t)n, sizeof(*labels)))))) {
		status = error("out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		struct report_options opt = { 0 };
		struct report_result res;
		char label[64], *page = NULL, *link = NULL;
		/* Each process's own page beside its database, linked from the merged one
		   (a job of more processes: the merged page gives the command instead). */
		if (html && !outfile_is_stdout(html) && n <= MAX_PAGES && !(page = proc_page(dbs[i]))) {
			status = error("out of memory");
			goto out;
		}
		for (int j = 0; page && j < n; j++)
			if (outfile_same(page, dbs[j]) || outfile_same(page, html) || (json && outfile_same(page, json)) ||
			    (rc->sarif && outfile_same(page, rc->sarif))) {
				info("note: '%s' is another input or output: process '%s' gets no page of its own",
				     page, dbs[i]);
				free(page);
				page = NULL;
			}
		opt.html_path = page;
		opt.html_oflags = OUTFILE_NOFOLLOW;
		opt.db_path = dbs[i];
		opt.quiet = 1;
		opt.no_source = rc->no_source;
		opt.check = rc->check;
		opt.source_root = rc->source_root;
		/* --fail-on judges each process alone: a CI job fails when one rank is over. */
		opt.gates = rc->gates;
		opt.ngates = rc->ngates;
		opt.sarif_out = logs ? &logs[i] : NULL;
		if (report_run(&opt, &res, &err) < 0 || merge_add(m, dbs[i], &err) < 0) {
			status = error("'%s': %s", dbs[i], err ? err : "report failed");
			report_result_release(&res);
			free(page);
			goto out;
		}
		if (page && res.wrote[REPORT_OUT_HTML]) {
			/* A link that cannot be made (a folder gone): the page lists the process unlinked. */
			link = page_link(html, page);
			if (merge_set_report(m, link) < 0) {
				free(link);
				free(page);
				report_result_release(&res);
				status = error("out of memory");
				goto out;
			}
			if (!pages++)
				first_page = page, page = NULL;
		} else if (page && res.out_err[REPORT_OUT_HTML]) {
			info("warning: %s (the merged page lists this process without a link)",
			     res.out_err[REPORT_OUT_HTML]);
		}
		free(link);
		free(page);
		merge_last_label(m, label, sizeof(label));
		if (labels && !(labels[i] = strdup(label))) {
			report_result_release(&res);
			status = error("out of memory");
			goto out;
		}
		if (logs && !logs[i] && res.out_err[REPORT_OUT_SARIF]) {
			/* (--source-root that does not exist: the same for every database) */
			all.out_err[REPORT_OUT_SARIF] = res.out_err[REPORT_OUT_SARIF];
			res.out_err[REPORT_OUT_SARIF] = NULL;
		}
		if (res.tripped) {
			/* Each line names its process: "--fail-on any: ... (rank 2, 'run.2.db')". */
			for (char *line = res.tripped, *nl; line; line = nl) {
				char *joined = NULL;
				nl = strchr(line, '\n');
				if (nl)
					*nl++ = 0;
				if (asprintf(&joined, "%s%s%s (%s, '%s')", tripped ? tripped : "", tripped ? "\n" : "",
					     line, label, dbs[i]) < 0) {
					report_result_release(&res);
					status = error("out of memory");
					goto out;
				}
				free(tripped);
				tripped = joined;
			}
		}
		incomplete += res.incomplete;
		report_result_release(&res);
	}
	if (!rc->quiet)
		print_summary(m, (json && outfile_is_stdout(json)) || (html && outfile_is_stdout(html)) ||
				 (rc->sarif && outfile_is_stdout(rc->sarif)) ?
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
	if (rc->sarif && !all.out_err[REPORT_OUT_SARIF]) {
		json_t *log = report_sarif_merge(logs, (const char *const *)labels, n);
		if (!log)
			all.out_err[REPORT_OUT_SARIF] = strdup("cannot make the SARIF log: out of memory");
		else
			all.wrote[REPORT_OUT_SARIF] =
				report_sarif_write(log, rc->sarif, &all.out_err[REPORT_OUT_SARIF]) == 0;
		json_decref(log);
	}
	bad = report_cli_said_outputs(&all, json, html, rc->sarif) < 0;
	if (pages)
		info("wrote each process's own page beside its database ('%s'%s)", first_page,
		     pages > 1 ? ", ..." : "");
	else if (html && !outfile_is_stdout(html) && n > MAX_PAGES)
		info("note: %d processes: no page of its own for each (at most %d);"
		     " 'mapprof report --html PAGE DB' makes one", n, MAX_PAGES);
	if (incomplete) {
		info("warning: %d of the recordings are incomplete: the report covers what was recorded"
		     " (exit status %d)", incomplete, report_cli_exit_shown(rc, EXIT_INCOMPLETE));
		status = EXIT_INCOMPLETE;
	}
	if (tripped) {
		/* One line per threshold and process; 1 wins over 4: the findings are real. */
		report_cli_say_lines(tripped);
		status = EXIT_FAIL_ON;
	}
	if (bad)
		status = EXIT_ERROR;
out:
	for (int i = 0; logs && i < n; i++)
		json_decref(logs[i]);
	for (int i = 0; labels && i < n; i++)
		free(labels[i]);
	free(logs);
	free(labels);
	free(tripped);
	free(first_page);
	report_result_release(&all);
	json_decref(doc);
	free(err);
	free(json);
	free(html);
	merge_free(m);
	return status;
}
