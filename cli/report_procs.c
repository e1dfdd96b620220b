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
#include "cli/report_many.h"
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

struct report_many {
	const struct report_cli *rc;
	struct report_cli out;
	char **dbs;
	int n;
	struct merge *m;
	char *json, *html;
	json_t **logs;       /* each database's SARIF log (--sarif), index for index with dbs */
	char **labels;       /* and its "rank N" */
	char *tripped;       /* the --fail-on lines, each naming its process, in the order of dbs */
	char *first_page;
	int pages, incomplete, failed;
	int not_stored;      /* the databases whose findings could not be stored */
	int stored;          /* merge the findings stored in a database when it has them */
	struct report_result all;
};

void report_many_use_stored(struct report_many *r)
{
	r->stored = 1;
}

void report_many_free(struct report_many *r)
{
	if (!r)
		return;
	for (int i = 0; r->logs && i < r->n; i++)
		json_decref(r->logs[i]);
	for (int i = 0; r->labels && i < r->n; i++)
		free(r->labels[i]);
	free(r->logs);
	free(r->labels);
	free(r->tripped);
	free(r->first_page);
	report_result_release(&r->all);
	free(r->json);
	free(r->html);
	merge_free(r->m);
	free(r);
}

struct report_many *report_many_new(const struct report_cli *rc, char **dbs, int n, int check, int *status)
{
	struct report_many *r = calloc(1, sizeof(*r));

	*status = 0;
	if (!r || !(r->m = merge_new())) {
		free(r);
		*status = error("out of memory");
		return NULL;
	}
	r->rc = rc;
	r->out = *rc;
	r->dbs = dbs;
	r->n = n;
	/* Default outputs beside the first database, as for one. */
	if ((!rc->no_json && !(r->json = rc->json ? strdup(rc->json) : report_beside(dbs[0], "report.json"))) ||
	    (!rc->no_html && !(r->html = rc->html ? strdup(rc->html) : report_beside(dbs[0], "report.html")))) {
		*status = error("out of memory");
		goto fail;
	}
	/* No output may be one of the databases, nor two outputs one file. */
	r->out.json = r->json;
	r->out.html = r->html;
	for (int i = 0; i < n && check && !*status; i++)
		*status = report_cli_check(&r->out, dbs[i]);
	if (*status)
		goto fail;
	if ((rc->sarif && (!(r->logs = calloc((size_t)n, sizeof(*r->logs))) ||
			   !(r->labels = calloc((size_t)n, sizeof(*r->labels)))))) {
		*status = error("out of memory");
		goto fail;
	}
	return r;
fail:
	report_many_free(r);
	return NULL;
}

int report_many_add(struct report_many *r, int i)
{
	const struct report_cli *rc = r->rc;
	char **dbs = r->dbs, *json = r->json, *html = r->html, *err = NULL;
	int n = r->n, status = 0;
	struct report_options opt = { 0 };
	struct report_result res;
	char label[64], *page = NULL, *link = NULL;

	if (r->stored) {
		/* 'record --analyse' stored them: no event is read again. */
		int got = merge_add_stored(r->m, dbs[i], &err);
		if (got < 0) {
			r->failed = 1;
			status = error("'%s': %s", dbs[i], err ? err : "cannot read its findings");
			free(err);
			return status;
		}
		if (got == 0) {
			r->incomplete += !merge_last_complete(r->m);
			return 0;
		}
	}
	/* Each process's own page beside its database, linked from the merged one
	   (a job of more processes: the merged page gives the command instead). */
	if (html && !outfile_is_stdout(html) && n <= MAX_PAGES && !(page = proc_page(dbs[i]))) {
		r->failed = 1;
		return error("out of memory");
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
	opt.sarif_out = r->logs ? &r->logs[i] : NULL;
	if (report_run(&opt, &res, &err) < 0 || merge_add(r->m, dbs[i], &err) < 0) {
		status = error("'%s': %s", dbs[i], err ? err : "report failed");
		goto out;
	}
	if (page && res.wrote[REPORT_OUT_HTML]) {
		/* A link that cannot be made (a folder gone): the page lists the process unlinked. */
		link = page_link(html, page);
		if (merge_set_report(r->m, link) < 0) {
			status = error("out of memory");
			goto out;
		}
		if (!r->pages++)
			r->first_page = page, page = NULL;
	} else if (page && res.out_err[REPORT_OUT_HTML]) {
		info("warning: %s (the merged page lists this process without a link)",
		     res.out_err[REPORT_OUT_HTML]);
	}
	merge_last_label(r->m, label, sizeof(label));
	if (r->labels && !(r->labels[i] = strdup(label))) {
		status = error("out of memory");
		goto out;
	}
	if (r->logs && !r->logs[i] && res.out_err[REPORT_OUT_SARIF] && !r->all.out_err[REPORT_OUT_SARIF]) {
		/* (--source-root that does not exist: the same for every database) */
		r->all.out_err[REPORT_OUT_SARIF] = res.out_err[REPORT_OUT_SARIF];
		res.out_err[REPORT_OUT_SARIF] = NULL;
	}
	if (res.tripped) {
		/* Each line names its process: "--fail-on any: ... (rank 2, 'run.2.db')". */
		for (char *line = res.tripped, *nl; line; line = nl) {
			char *joined = NULL;
			nl = strchr(line, '\n');
			if (nl)
				*nl++ = 0;
			if (asprintf(&joined, "%s%s%s (%s, '%s')", r->tripped ? r->tripped : "",
				     r->tripped ? "\n" : "", line, label, dbs[i]) < 0) {
				status = error("out of memory");
				goto out;
			}
			free(r->tripped);
			r->tripped = joined;
		}
	}
	r->incomplete += res.incomplete;
	r->not_stored += res.not_stored;
out:
	if (status)
		r->failed = 1;
	report_result_release(&res);
	free(link);
	free(page);
	free(err);
	return status;
}

/* Append the lines 'more' to the --fail-on lines so far.  0, or -1 out of memory. */
static int add_tripped(struct report_many *r, const char *more)
{
	char *joined;

	if (!more || !*more)
		return 0;
	if (asprintf(&joined, "%s%s%s", r->tripped ? r->tripped : "", r->tripped ? "\n" : "", more) < 0)
		return -1;
	free(r->tripped);
	r->tripped = joined;
	return 0;
}

char *report_many_pack(struct report_many *r, int first, int count)
{
	json_t *pack = json_object(), *logs = json_array(), *labels = json_array(), *m = merge_pack(r->m);
	char *text = NULL;
	int bad = !pack || !logs || !labels || !m;

	for (int i = first; i < first + count && r->logs && !bad; i++)
		if (json_array_append(logs, r->logs[i] ? r->logs[i] : json_null()) < 0 ||
		    json_array_append_new(labels, r->labels[i] ? json_string(r->labels[i]) : json_null()) < 0)
			bad = 1;
	if (!bad &&
	    json_object_set_new(pack, "set", json_pack("{s:i,s:i,s:i,s:i,s:i,s:s*,s:s*,s:s*}", "failed", r->failed,
						     "incomplete", r->incomplete, "not_stored", r->not_stored, "pages", r->pages, "first",
						     first, "first_page", r->first_page, "tripped", r->tripped,
						     "sarif_err", r->all.out_err[REPORT_OUT_SARIF])) == 0 &&
	    json_object_set(pack, "merge", m) == 0 && json_object_set(pack, "sarif", logs) == 0 &&
	    json_object_set(pack, "labels", labels) == 0)
		text = json_dumps(pack, JSON_COMPACT);
	json_decref(m);
	json_decref(logs);
	json_decref(labels);
	json_decref(pack);
	return text;
}

int report_many_unpack(struct report_many *r, const char *text, size_t len)
{
	json_t *pack = json_loadb(text, len, 0, NULL), *logs = json_object_get(pack, "sarif"),
	       *labels = json_object_get(pack, "labels");
	json_int_t failed = 0, incomplete = 0, not_stored = 0, pages = 0, first = 0;
	const char *first_page = NULL, *tripped = NULL, *sarif_err = NULL;
	char *err = NULL;
	int status = 0;

	if (!pack || json_unpack(json_object_get(pack, "set"), "{s:I,s:I,s:I,s:I,s:I,s?s,s?s,s?s}", "failed", &failed,
				 "incomplete", &incomplete, "not_stored", &not_stored, "pages", &pages, "first", &first, "first_page",
				 &first_page, "tripped", &tripped, "sarif_err", &sarif_err) < 0 ||
	    first < 0 || first + (json_int_t)json_array_size(logs) > r->n) {
		status = error("a rank's part of the report is damaged");
		goto out;
	}
	r->failed |= failed != 0;
	r->incomplete += (int)incomplete;
	r->not_stored += (int)not_stored;
	if (pages && !r->pages++ && first_page && !(r->first_page = strdup(first_page))) {
		status = error("out of memory");
		goto out;
	}
	r->pages += (int)pages - (pages ? 1 : 0);
	if (sarif_err && !r->all.out_err[REPORT_OUT_SARIF] && !(r->all.out_err[REPORT_OUT_SARIF] = strdup(sarif_err))) {
		status = error("out of memory");
		goto out;
	}
	for (size_t j = 0; r->logs && j < json_array_size(logs); j++) {
		json_t *log = json_array_get(logs, j);
		const char *label = json_string_value(json_array_get(labels, j));
		size_t i = (size_t)first + j;
		if (json_is_object(log))
			r->logs[i] = json_incref(log);
		if (label && !(r->labels[i] = strdup(label))) {
			status = error("out of memory");
			goto out;
		}
	}
	if (add_tripped(r, tripped) < 0) {
		status = error("out of memory");
		goto out;
	}
	if (merge_unpack(r->m, json_object_get(pack, "merge"), &err) < 0)
		status = error("%s", err);
out:
	if (status)
		r->failed = 1;
	free(err);
	json_decref(pack);
	return status;
}

int report_many_finish(struct report_many *r)
{
	const struct report_cli *rc = r->rc;
	char *json = r->json, *html = r->html;
	int n = r->n, status = 0, bad;
	json_t *doc = NULL;

	if (r->failed)
		return EXIT_ERROR;
	if (!rc->quiet)
		print_summary(r->m, (json && outfile_is_stdout(json)) || (html && outfile_is_stdout(html)) ||
				    (rc->sarif && outfile_is_stdout(rc->sarif)) ?
			      STDERR_FILENO : STDOUT_FILENO, rc->top, &r->all);
	if ((json || html) && !(doc = merge_json(r->m)))
		return error("out of memory");
	/* Each output whatever became of the other: the messages say which were written. */
	if (json)
		r->all.wrote[REPORT_OUT_JSON] = report_json_write(doc, json, report_cli_oflags(rc->json, json),
								  &r->all.out_err[REPORT_OUT_JSON]) == 0;
	if (html)
		r->all.wrote[REPORT_OUT_HTML] = html_write(html, report_cli_oflags(rc->html, html), doc, NULL,
							   &r->all.out_err[REPORT_OUT_HTML]) == 0;
	if (rc->sarif && !r->all.out_err[REPORT_OUT_SARIF]) {
		json_t *log = report_sarif_merge(r->logs, (const char *const *)r->labels, n);
		if (!log)
			r->all.out_err[REPORT_OUT_SARIF] = strdup("cannot make the SARIF log: out of memory");
		else
			r->all.wrote[REPORT_OUT_SARIF] =
				report_sarif_write(log, rc->sarif, &r->all.out_err[REPORT_OUT_SARIF]) == 0;
		json_decref(log);
	}
	json_decref(doc);
	bad = report_cli_said_outputs(&r->all, json, html, rc->sarif) < 0;
	if (r->pages)
		info("wrote each process's own page beside its database ('%s'%s)", r->first_page,
		     r->pages > 1 ? ", ..." : "");
	else if (html && !outfile_is_stdout(html) && n > MAX_PAGES)
		info("note: %d processes: no page of its own for each (at most %d);"
		     " 'mapprof report --html PAGE DB' makes one", n, MAX_PAGES);
	if (r->incomplete) {
		info("warning: %d of the recordings are incomplete: the report covers what was recorded"
		     " (exit status %d)", r->incomplete, report_cli_exit_shown(rc, EXIT_INCOMPLETE));
		status = EXIT_INCOMPLETE;
	}
	if (r->tripped) {
		/* One line per threshold and process; 1 wins over 4: the findings are real. */
		report_cli_say_lines(r->tripped);
		status = EXIT_FAIL_ON;
	}
	/* As for one database: not stored wins over 1 and 4, an output not written over all. */
	if (r->not_stored) {
		info("warning: the findings of %d of the databases could not be stored in them (exit status %d)",
		     r->not_stored, report_cli_exit_shown(rc, EXIT_NOT_STORED));
		status = EXIT_NOT_STORED;
	}
	if (bad)
		status = EXIT_ERROR;
	return status;
}

int report_cli_run_many(const struct report_cli *rc, char **dbs, int n)
{
	int status;
	struct report_many *r = report_many_new(rc, dbs, n, 1, &status);

	for (int i = 0; r && i < n && !status; i++)
		status = report_many_add(r, i);
	if (r && !status)
		status = report_many_finish(r);
	report_many_free(r);
	return status;
}
