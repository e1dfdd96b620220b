/*
 * report_cli.c - the report options 'mapprof report' and 'mapprof run' share
 * (cli/report_cli.h): parsing them, where the outputs go, and the outputs
 * refused before any work.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "lib/outfile.h"
#include "report/output/gate.h"
#include "report/report.h"

int report_cli_exit_shown(const struct report_cli *rc, int status)
{
	return rc->program_status ? rc->program_status : status;
}

char *report_beside(const char *db_path, const char *name)
{
	char *copy = strdup(db_path), *out = NULL;
	if (copy && asprintf(&out, "%s/%s", dirname(copy), name) < 0)
		out = NULL;
	free(copy);
	return out;
}

int report_parse_option(int c, const char *arg, struct report_cli *rc)
{
	switch (c) {
	case 'j':
		rc->json = arg;
		rc->no_json = 0;
		return 0;
	case 'H':
		rc->html = arg;
		rc->no_html = 0;
		return 0;
	case 'J':
		rc->no_json = 1;
		return 0;
	case 'N':
		rc->no_html = 1;
		return 0;
	case 't': {
		char *end;
		long top = strtol(arg, &end, 10);
		if (end == arg || *end || top <= 0 || top > 1000000) {
			error("--top '%s': not a count of lines (a whole number, 1 or more)", arg);
			return REPORT_CLI_REPORTED;
		}
		rc->top = (int)top;
		return 0;
	}
	case 'q':
		rc->quiet = 1;
		return 0;
	case 'S':
		rc->no_source = 1;
		return 0;
	case 'C':
		rc->check = 1;
		return 0;
	case 's':
		rc->sarif = arg;
		return 0;
	case 'R':
		rc->source_root = arg;
		if (!*arg) {
			error("--source-root '': no directory given");
			return REPORT_CLI_REPORTED;
		}
		return 0;
	case 'F': {
		const char *why = NULL;
		if (rc->ngates == REPORT_CLI_MAX_GATES) {
			error("--fail-on '%s': at most %d --fail-on", arg, REPORT_CLI_MAX_GATES);
			return REPORT_CLI_REPORTED;
		}
		if (gate_parse(arg, &rc->gates[rc->ngates], &why) < 0) {
			error("--fail-on '%s': %s", arg, why);
			hint("for example --fail-on any, --fail-on round_trip:3, --fail-on savings:5%%"
			     " or --fail-on savings:10ms");
			return REPORT_CLI_REPORTED;
		}
		rc->ngates++;
		return 0;
	}
	default:
		return -1;
	}
}

/* The JSON and HTML paths 'rc' asks for (malloc'ed; NULL for none).  -1 when out of memory. */
int report_cli_outputs(const struct report_cli *rc, const char *db_path, char **json, char **html)
{
	*json = *html = NULL;
	if (!rc->no_json && !(*json = rc->json ? strdup(rc->json) : report_beside(db_path, "report.json")))
		return -1;
	if (!rc->no_html && !(*html = rc->html ? strdup(rc->html) : report_beside(db_path, "report.html"))) {
		free(*json);
		*json = NULL;
		return -1;
	}
	return 0;
}

unsigned report_cli_oflags(const char *given, const char *path)
{
	struct stat st;

	if (given || !path)
		return 0;
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		info("note: '%s' is a symbolic link: a default output never follows one; the output"
		     " replaces the link, its target is left alone", path);
	return OUTFILE_NOFOLLOW;
}

void report_cli_say_lines(char *lines)
{
	for (char *line = lines, *nl; line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = 0;
		info("%s", line);
	}
}

int report_cli_said_outputs(const struct report_result *res, const char *json, const char *html,
			    const char *sarif)
{
	const char *paths[REPORT_OUT_COUNT] = { NULL, json, html, sarif };
	int bad = 0;

	for (int i = 0; i < REPORT_OUT_COUNT; i++) {
		if (res->out_err[i] || (paths[i] && !res->wrote[i])) {
			/* (no message: it could not be made, out of memory) */
			if (res->out_err[i])
				error("%s", res->out_err[i]);
			else
				error("cannot write '%s': out of memory", paths[i]);
			bad = 1;
		} else if (paths[i] && !outfile_is_stdout(paths[i])) {
			info("wrote '%s'", paths[i]);
		}
	}
	return bad ? -1 : 0;
}

/* The files of a database an output must not be: SQLite's beside it, record's spool. */
static const char *const db_files[] = { "", "-journal", "-wal", "-shm", "-spool" };

/* 1 when 'out' is the database 'db' or one of its files (said on stderr). */
static int output_is_db(const char *opt, const char *out, const char *db)
{
	char *real = realpath(db, NULL), *file = NULL;
	const char *bases[2] = { db, real };
	int hit = 0;

	for (size_t b = 0; b < 2 && !hit && bases[b]; b++) {
		for (size_t i = 0; i < sizeof(db_files) / sizeof(db_files[0]) && !hit; i++) {
			if (asprintf(&file, "%s%s", bases[b], db_files[i]) < 0)
				break;
			if (outfile_same(out, file)) {
				hit = 1;
				if (!*db_files[i])
					error("%s '%s' is the database '%s'", opt, out, db);
				else
					error("%s '%s' is '%s', a file of the database '%s'", opt, out, file, db);
				hint("write the report to another file, or none with --no-%s", opt + 2);
			}
			free(file);
			file = NULL;
		}
	}
	free(real);
	return hit;
}

static int is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/*
 * 1 when the output 'out' cannot be a file at all (said on stderr): it is a
 * directory, or its directory does not exist.  Refused before any work, so
 * that no other output is written first ('--html DIR').
 */
static int output_impossible(const char *opt, const char *out)
{
	char *copy;
	int bad = 0;

	if (outfile_is_stdout(out))
		return 0;
	if (is_dir(out)) {
		error("%s '%s' is a directory", opt, out);
		hint("give a file name, such as %s '%s/report.%s'", opt, out,
		     !strcmp(opt, "--sarif") ? "sarif" : opt + 2);
		return 1;
	}
	copy = strdup(out);
	if (copy && !is_dir(dirname(copy))) {
		error("%s '%s': no directory '%s'", opt, out, copy);
		bad = 1;
	}
	free(copy);
	return bad;
}

int report_cli_check(const struct report_cli *rc, const char *db_path)
{
	char *json, *html;
	int status = 0;

	if (report_cli_outputs(rc, db_path, &json, &html) < 0)
		return error("out of memory");
	if ((json && output_is_db("--json", json, db_path)) ||
	    (html && output_is_db("--html", html, db_path)) ||
	    (rc->sarif && output_is_db("--sarif", rc->sarif, db_path))) {
		status = EXIT_USAGE;
	} else if (json && html && outfile_same(json, html)) {
		error("--json '%s' and --html '%s' are the same file", json, html);
		hint("write them to two files, or leave one out with --no-json or --no-html");
		status = EXIT_USAGE;
	} else if (rc->sarif && ((json && outfile_same(json, rc->sarif)) ||
				 (html && outfile_same(html, rc->sarif)))) {
		error("--sarif '%s' is the same file as the %s report", rc->sarif,
		      json && outfile_same(json, rc->sarif) ? "JSON" : "HTML");
		hint("write the SARIF log to another file");
		status = EXIT_USAGE;
	} else if ((json && output_impossible("--json", json)) ||
		   (html && output_impossible("--html", html)) ||
		   (rc->sarif && output_impossible("--sarif", rc->sarif))) {
		status = EXIT_USAGE;
	} else if (rc->source_root && !is_dir(rc->source_root)) {
		error("--source-root '%s' is not a directory", rc->source_root);
		status = EXIT_USAGE;
	}
	free(json);
	free(html);
	return status;
}

