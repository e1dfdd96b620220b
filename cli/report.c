/*
 * report.c - 'mapprof report': analyse a recorded run.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "report/report.h"

static const char report_usage[] =
	"usage: mapprof report [--json PATH|-] [--html PATH] [--no-json] [--no-html]\n"
	"                      [--no-source] [-q] DB\n"
	"\n"
	"Find the inefficient data mapping patterns in the run recorded in DB\n"
	"(duplicate transfers, round trips, repeated and unused allocations, unused\n"
	"transfers), estimate what fixing each would save, store the findings in DB\n"
	"(tables 'findings', 'finding_events', 'finding_summary'), print a summary and\n"
	"write the reports.\n"
	"\n"
	"  --json PATH     write report.json to PATH ('-': standard output; default:\n"
	"                  report.json in DB's directory)\n"
	"  --html PATH     write report.html to PATH (default: report.html in DB's directory)\n"
	"  --no-json       write no JSON\n"
	"  --no-html       write no HTML\n"
	"  --no-source     quote no source lines in the database and the reports (by\n"
	"                  default the lines around each location are copied from the\n"
	"                  program's source files named by its debug information)\n"
	"  --top N         list N findings in the summary (default 5)\n"
	"  -q, --quiet     print no summary\n"
	"  -h, --help      show this help\n"
	"\n"
	"Running it again replaces the stored findings.  Exit status: 0, 2 on usage\n"
	"errors, 3 when DB cannot be read or a report cannot be written.\n";

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
	case 't':
		rc->top = atoi(arg);
		return rc->top > 0 ? 0 : -1;
	case 'q':
		rc->quiet = 1;
		return 0;
	case 'S':
		rc->no_source = 1;
		return 0;
	default:
		return -1;
	}
}

int report_cli_run(const struct report_cli *rc, const char *db_path)
{
	struct report_options opt = { 0 };
	char *json = NULL, *html = NULL, *err = NULL;
	int status = 0;

	opt.db_path = db_path;
	opt.quiet = rc->quiet;
	opt.top = rc->top;
	opt.no_source = rc->no_source;
	if (!rc->no_json)
		opt.json_path = rc->json ? rc->json : (json = report_beside(db_path, "report.json"));
	if (!rc->no_html)
		opt.html_path = rc->html ? rc->html : (html = report_beside(db_path, "report.html"));
	if (report_run(&opt, &err) < 0) {
		status = error("%s", err ? err : "report failed");
		if (err && strstr(err, "not a mapprof database"))
			hint("was it written by 'mapprof record'?");
	} else {
		if (opt.json_path && strcmp(opt.json_path, "-"))
			info("wrote '%s'", opt.json_path);
		if (opt.html_path && strcmp(opt.html_path, "-"))
			info("wrote '%s'", opt.html_path);
	}
	free(err);
	free(json);
	free(html);
	return status;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		REPORT_CLI_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_cli rc = { 0 };
	int c;

	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		if (c == 'h') {
			fputs(report_usage, stdout);
			return 0;
		}
		if (report_parse_option(c, optarg, &rc) < 0)
			return usage_error("report", "bad option");
	}
	if (optind >= argc)
		return usage_error("report", "no database given");
	if (optind + 1 < argc)
		return usage_error("report", "one database at a time (got '%s' and '%s')",
				   argv[optind], argv[optind + 1]);
	return report_cli_run(&rc, argv[optind]);
}
