/*
 * report.c - 'mapprof report': analyse a recorded run.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "lib/outfile.h"
#include "report/report.h"

static const char report_usage[] =
	"usage: mapprof report [--json PATH|-] [--html PATH|-] [--no-json] [--no-html]\n"
	"                      [--no-source] [--top N] [--check] [-q] [--sarif PATH|-]\n"
	"                      [--source-root DIR] [--fail-on KIND[:THRESHOLD]]...\n"
	"                      [--baseline BEFORE.db] [--same-program] DB [DB...]\n"
	"\n"
	"Find the inefficient data mapping patterns in the run recorded in DB\n"
	"(duplicate transfers, round trips, repeated and unused allocations, unused\n"
	"transfers), estimate what fixing each would save, store the findings in DB\n"
	"(tables 'findings', 'finding_events', 'finding_summary'), print a summary and\n"
	"write the reports.\n"
	"\n"
	"Several DBs (one per process of a command: MPI ranks, forked children):\n"
	"each is reported alone (findings stored in it), then the summary, the JSON\n"
	"and the HTML list every process and the findings merged across them by\n"
	"fingerprint (the outputs default to the first DB's directory; for one\n"
	"process's own page, report its database alone).  A directory stands for the\n"
	"*.db files in it, in version order (run.2.db before run.10.db): for a job of\n"
	"more databases than a command line holds.\n"
	"\n"
	"  --json PATH     write report.json to PATH ('-': standard output; default:\n"
	"                  report.json in DB's directory)\n"
	"  --html PATH     write report.html to PATH ('-': standard output; default:\n"
	"                  report.html in DB's directory)\n"
	"  --no-json       write no JSON\n"
	"  --no-html       write no HTML\n"
	"  --no-source     quote no source lines in the database and the reports (by\n"
	"                  default the lines around each location are copied from the\n"
	"                  program's source files named by its debug information)\n"
	"  --source-root DIR\n"
	"                  show source paths relative to DIR (default: the common\n"
	"                  directory of the files the findings name); report.json\n"
	"                  keeps the full path in 'file' and adds 'path'; the SARIF\n"
	"                  log's file URIs are relative to DIR too (your checkout;\n"
	"                  without it they are absolute file:// URIs)\n"
	"  --top N         list N directives and N findings in the summary (default 5)\n"
	"  --check         run SQLite's PRAGMA quick_check on DB first\n"
	"  -q, --quiet     print no summary\n"
	"  --sarif PATH    write the findings as a SARIF 2.1.0 log for code review\n"
	"                  (GitHub code scanning; docs/sarif.md); '-': standard output\n"

	"  --fail-on KIND[:THRESHOLD]  exit 1 when the findings are over it; KIND: any,\n"
	"                  savings or a pattern (round_trip, ...); THRESHOLD: N (more\n"
	"                  than N occurrences), P% or a time like 10ms (predicted\n"
	"                  savings at least that); may be given several times\n"
	"  --baseline BEFORE.db  compare with a run before a change: report.json's\n"
	"                  'baseline' and report.html's 'Compared with' section say\n"
	"                  which findings were removed, remain, are new, and the\n"
	"                  predicted against the measured savings ('mapprof diff'),\n"
	"                  and whether the results stayed the same ('results:')\n"
	"  --same-program  the DBs are recordings of the same program (not processes\n"
	"                  of one command): report the first, and give each\n"
	"                  finding's savings, the total and the predicted speedup as\n"
	"                  the median over all with the interval min..max and the\n"
	"                  spread (report.json's 'repeat'; 'mapprof run --repeat N')\n"
	"  -h, --help      show this help\n"
	"\n"
	"A regular file (or a symlink's regular target) is replaced only once its\n"
	"report is complete; a device, a FIFO or standard output is written in place.\n"
	"A default output (report.json, report.html beside DB) never follows a\n"
	"symlink: the link is replaced, its target left alone.  With a report on\n"
	"standard output the summary goes to stderr.  Refused: an output that is DB\n"
	"(or its journal), two outputs that are the same file, a directory.\n"
	"\n"
	"Running it again replaces the stored findings.  A read-only or locked DB is\n"
	"analysed in a temporary copy (nothing is stored in it).\n"
	"\n"
	"Exit status: 0 done; 1 findings over a --fail-on threshold ('mapprof: --fail-on\n"
	"SPEC: ...' on stderr; wins over 4); 2 usage error (refused outputs included);\n"
	"3 DB cannot be reported on (damaged, empty, unfinished, not mapprof's, newer,\n"
	"locked, altered; 'mapprof: error:' on stderr, nothing written), or an output\n"
	"cannot be written (the summary on standard output included): each output\n"
	"written is said ('mapprof: wrote PATH'), each one not by a 'mapprof: error:'\n"
	"line, the findings are stored all the same (wins over 1, 4 and 5); 4 the\n"
	"recording is incomplete (run.status is not 'complete'): the reports cover what\n"
	"was recorded and say so; 5 the findings could not be stored in DB (a full\n"
	"disk, DB replaced while the report ran; a 'mapprof: warning:' says why): the\n"
	"outputs are written all the same (wins over 1 and 4).  A reader that stops reading the summary (| head) is no\n"
	"error: the reports are still written.\n";

/*
 * An unfinished database: 'record' is still writing it, or was killed, and
 * then the spool it left beside the database holds the events 'recover'
 * expands (no need to record the program again).
 */
static void problem_hint_unfinished(const char *db_path)
{
	char *spool = NULL, *quoted = NULL;
	struct stat st;

	if (asprintf(&spool, "%s-spool", db_path) >= 0 && stat(spool, &st) == 0 &&
	    (quoted = shell_quoted(spool)))
		hint("wait for 'mapprof record' to end; if it was killed, 'mapprof recover %s' makes"
		     " the database from the events it kept", quoted);
	else
		hint("wait for 'mapprof record' to end; if it was killed it left no spool beside the"
		     " database for 'mapprof recover': record the program again");
	free(quoted);
	free(spool);
}

/* What a user can do about each refused database. */
static void problem_hint(enum db_problem problem, const char *db_path)
{
	switch (problem) {
	case DB_EMPTY:
	case DB_UNFINISHED:
		problem_hint_unfinished(db_path);
		break;
	case DB_NOT_MAPPROF:
		hint("was it written by 'mapprof record'?");
		break;
	case DB_DAMAGED: {
		char *quoted = shell_quoted(db_path);
		hint("record the program again; 'sqlite3 %s .recover' may save some of its rows",
		     quoted ? quoted : db_path);
		free(quoted);
		break;
	}
	case DB_NEWER:
		hint("report it with the mapprof that recorded it, or a newer one");
		break;
	case DB_OLDER:
		hint("record the program again, or report it with the mapprof that recorded it");
		break;
	case DB_LOCKED:
		hint("try again once the other process (a 'mapprof record' or 'report'?) is done with it");
		break;
	case DB_ALTERED:
		hint("report on the database as 'mapprof record' wrote it, or drop what was added "
		     "(sqlite3's '.schema' lists it)");
		break;
	default:
		break;
	}
}

int report_cli_run(const struct report_cli *rc, const char *db_path)
{
	struct report_options opt = { 0 };
	struct report_result res;
	char *json = NULL, *html = NULL, *err = NULL;
	int status;

	status = report_cli_check(rc, db_path);
	if (status)
		return status;
	if (report_cli_outputs(rc, db_path, &json, &html) < 0)
		return error("out of memory");
	opt.db_path = db_path;
	opt.quiet = rc->quiet;
	opt.top = rc->top;
	opt.no_source = rc->no_source;
	opt.check = rc->check;
	opt.json_path = json;
	opt.html_path = html;
	opt.sarif_path = rc->sarif;
	opt.source_root = rc->source_root;
	opt.gates = rc->gates;
	opt.ngates = rc->ngates;
	opt.baseline_path = rc->baseline;
	opt.same_paths = rc->same;
	opt.nsame = rc->nsame;
	opt.json_oflags = report_cli_oflags(rc->json, json);
	opt.html_oflags = report_cli_oflags(rc->html, html);
	if (report_run(&opt, &res, &err) < 0) {
		status = error("%s", err ? err : "report failed");
		problem_hint(res.problem, db_path);
	} else {
		int bad = report_cli_said_outputs(&res, json, html, rc->sarif) < 0;
		if (res.incomplete) {
			/* The summary says why; this line is for scripts and -q. */
			info("warning: the recording is incomplete: the report covers what was recorded"
			     " (exit status %d)", report_cli_exit_shown(rc, EXIT_INCOMPLETE));
			status = EXIT_INCOMPLETE;
		}
		if (res.tripped) {
			/* One line per threshold; 1 wins over 4: the findings are real. */
			report_cli_say_lines(res.tripped);
			status = EXIT_FAIL_ON;
		}
		/*
		 * Findings not stored win over 1 and 4: the database is an output
		 * too, and a script's next query of it finds none.
		 */
		if (res.not_stored)
			status = EXIT_NOT_STORED;
		/* An output not written wins over 1, 4 and 5: the files a script reads next are not there. */
		if (bad)
			status = EXIT_ERROR;
	}
	report_result_release(&res);
	free(err);
	free(json);
	free(html);
	return status;
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		REPORT_CLI_LONGOPTS,
		{ "baseline", required_argument, NULL, 'B' },
		{ "same-program", no_argument, NULL, 'P' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct report_cli rc = { 0 };
	char **dbs = NULL;
	int c, same = 0, n = 0, status;

	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		if (c == 'h') {
			return help_out(report_usage);
		}
		if (c == 'B') {
			rc.baseline = optarg;
			continue;
		}
		if (c == 'P') {
			same = 1;
			continue;
		}
		if ((c = report_parse_option(c, optarg, &rc)) < 0)
			return c == REPORT_CLI_REPORTED ? EXIT_USAGE : usage_error("report", "bad option");
	}
	if (optind >= argc)
		return usage_error("report", "no database given");
	if ((status = db_args_expand(argv + optind, argc - optind, &dbs, &n, 0)))
		return status;
	if (n > 1 && rc.baseline)
		status = usage_error("report", "--baseline takes one database to compare with");
	else if (same && n < 2)
		status = usage_error("report", "--same-program needs two databases or more");
	else if (same) {
		rc.same = (const char *const *)dbs + 1;
		rc.nsame = n - 1;
		status = report_cli_run(&rc, dbs[0]);
	} else if (n > 1) {
		status = report_cli_run_many(&rc, dbs, n);
	} else {
		status = report_cli_run(&rc, dbs[0]);
	}
	db_args_free(dbs, n);
	return status;
}
