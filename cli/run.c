/*
 * run.c - 'mapprof run': record, then report, in one command.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli/cli.h"
#include "cli/record.h"
#include "cli/report_cli.h"

static const char run_usage[] =
	"usage: mapprof run [-o BASE] [-f] [report options] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM with the mapprof collector (as 'mapprof record'), then analyse the\n"
	"run (as 'mapprof report'): a summary on stdout, the database, report.json and\n"
	"report.html.  A command of several processes (mpirun and its ranks, a fork, an\n"
	"exec) is reported over every database it recorded, as 'mapprof report DB...'.\n"
	"127 with 'the program could not start' when the loader could not start it\n"
	"(a missing library: which one, and the -Wl,-rpath or LD_LIBRARY_PATH fix).\n"
	"\n"
	"  -o, --output BASE   the database: BASE if it ends in '.db', else BASE.mapprof.db\n"
	"                      (default: PROGRAM's name + .mapprof.db in the current\n"
	"                      directory); the reports go to the same directory, made\n"
	"                      when it does not exist\n"
	"  -f, --force         overwrite the database if it exists (a regular file only)\n"
	"  --repeat N          record the program N times (BASE.mapprof.db, then\n"
	"                      BASE.mapprof.2.db ... BASE.mapprof.N.db) and report them\n"
	"                      as 'mapprof report --same-program' does: the first's\n"
	"                      report, with each saving as the median over the N\n"
	"                      recordings and its interval\n"
	"  --check             also look for mapping bugs while the program runs, as\n"
	"                      'mapprof record --check' (MAPPROF_CHECK=1): their findings\n"
	"                      come first in every output; --fail-on check fails on them\n"
	"  --json PATH|-, --html PATH|-, --no-json, --no-html, --no-source, --top N, -q,\n"
	"  --sarif PATH|-, --source-root DIR, --fail-on KIND[:THRESHOLD]\n"
	"                      as for 'mapprof report' (outputs that are the database\n"
	"                      or the same file are refused before the program runs)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: the program's own when not 0 (128+N if killed by signal N;\n"
	"'mapprof: the program exited with status N' on stderr); 127/126 if it could\n"
	"not be started; else the report's: 0, 1 if the findings are over a --fail-on\n"
	"threshold, 3 if it failed or an output could not be written ('mapprof:\n"
	"error:' on stderr; 'mapprof: wrote PATH' for each written), 4 if the\n"
	"recording is incomplete.  The database's run.exit_status is the program's\n"
	"status.\n";

/* The i-th recording's database (i >= 2): "x.db" -> "x.i.db". */
static char *db_numbered(const char *first, int i)
{
	size_t n = strlen(first);
	char *out = NULL;

	if (n >= 3 && !strcmp(first + n - 3, ".db")) {
		if (asprintf(&out, "%.*s.%d.db", (int)(n - 3), first, i) < 0)
			return NULL;
	} else if (asprintf(&out, "%s.%d", first, i) < 0) {
		return NULL;
	}
	return out;
}

static char *db_for_base(const char *base)
{
	size_t n = strlen(base);
	char *out = NULL;

	if (n >= 3 && !strcmp(base + n - 3, ".db"))
		return strdup(base);
	if (asprintf(&out, "%s.mapprof.db", base) < 0)
		return NULL;
	return out;
}

int cmd_run(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "repeat", required_argument, NULL, 'n' },
		REPORT_CLI_LONGOPTS,
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_options ropt = { 0 };
	struct report_cli rc = { 0 };
	char *db = NULL, *recorded = NULL;
	int c, status, rstatus, repeat = 1;

	/* '+': stop at the first non-option, the program's name. */
	while ((c = getopt_long(argc, argv, "+o:fqh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			free(db);
			db = db_for_base(optarg);
			break;
		case 'f':
			ropt.force = 1;
			break;
		case 'n': {
			char *end;
			long v = strtol(optarg, &end, 10);
			if (*end || end == optarg || v < 1 || v > 1000) {
				free(db);
				return usage_error("run", "--repeat takes a number of recordings, 1 to 1000: '%s'",
						   optarg);
			}
			repeat = (int)v;
			break;
		}
		case 'h':
			free(db);
			return help_out(run_usage);
		case 'C':
			/* Not report's --check (the database's quick_check): run checks the program. */
			if (setenv("MAPPROF_CHECK", "1", 1) < 0) {
				free(db);
				return error("out of memory");
			}
			break;
		default:
			if ((c = report_parse_option(c, optarg, &rc)) < 0) {
				free(db);
				return c == REPORT_CLI_REPORTED ? EXIT_USAGE : usage_error("run", "bad option");
			}
		}
	}
	if (optind >= argc) {
		free(db);
		return usage_error("run", "no program to run");
	}
	ropt.output = db;
	ropt.argv = argv + optind;
	/* Refuse reports that would overwrite the database before the program runs. */
	recorded = db ? strdup(db) : record_default_output(ropt.argv[0]);
	if (!recorded) {
		free(db);
		return error("out of memory");
	}
	/* 'run -o results/app': the directory is made, as for the reports beside the database. */
	rstatus = db ? make_parent_dirs(db) : 0;
	if (!rstatus)
		rstatus = report_cli_check(&rc, recorded);
	/* And every numbered database of --repeat: refused before the first run, not after it. */
	for (int i = 2; !rstatus && !ropt.force && i <= repeat; i++) {
		char *next = db_numbered(recorded, i);
		struct stat st;
		if (!next)
			rstatus = error("out of memory");
		else if (lstat(next, &st) == 0)
			rstatus = error("'%s' already exists (use --force to overwrite it)", next);
		free(next);
	}
	free(recorded);
	recorded = NULL;
	if (rstatus) {
		free(db);
		return rstatus;
	}
	char **others = NULL, **all = NULL;
	size_t nothers = 0, n = 0;
	if (record_program(&ropt, &status, &recorded, &others, &nothers) < 0) {
		/* (A program the loader could not start still has its database, named here.) */
		for (size_t i = 0; i < nothers; i++)
			free(others[i]);
		free(others);
		free(recorded);
		free(db);
		return status;
	}
	if (repeat > 1 && (nothers || !recorded)) {
		info("note: --repeat combines recordings of one process; this command recorded %zu: the"
		     " first recording is reported over its processes", nothers + (recorded ? 1 : 0));
		repeat = 1;
	}
	if (repeat > 1) {
		char **more = calloc((size_t)repeat - 1, sizeof(*more));
		if (!more) {
			rstatus = error("out of memory");
			goto done;
		}
		/* The other recordings, each to its own database; the first status not 0 is the program's. */
		for (int i = 2; i <= repeat; i++) {
			struct record_options o = ropt;
			char *got = NULL;
			int st;

			if (!(more[i - 2] = db_numbered(recorded, i))) {
				rstatus = error("out of memory");
				goto repeat_out;
			}
			o.output = more[i - 2];
			if (record_program(&o, &st, &got, NULL, NULL) < 0) {
				rstatus = st;
				goto repeat_out;
			}
			free(got);
			if (!status)
				status = st;
		}
		rc.same = (const char *const *)more;
		rc.program_status = status;
		rc.nsame = repeat - 1;
		rstatus = report_cli_run(&rc, recorded);
repeat_out:
		for (int i = 0; i < repeat - 1; i++)
			free(more[i]);
		free(more);
		goto done;
	}
	rc.program_status = status;
	/* Every process the command recorded: the program's own database first, then the others'. */
	all = calloc(nothers + 1, sizeof(*all));
	if (!all) {
		rstatus = error("out of memory");
	} else {
		if (recorded)
			all[n++] = recorded;
		for (size_t i = 0; i < nothers; i++)
			all[n++] = others[i];
		if (n == 0) {
			info("no process of the command offloaded: there is nothing to report");
			rstatus = EXIT_INCOMPLETE;
		} else if (n == 1) {
			rstatus = report_cli_run(&rc, all[0]);
		} else {
			if (rc.baseline)
				info("note: --baseline compares one database: the %zu processes are reported"
				     " without it", n);
			rc.baseline = NULL;
			rstatus = report_cli_run_many(&rc, all, (int)n);
		}
	}
	free(all);
done:
	for (size_t i = 0; i < nothers; i++)
		free(others[i]);
	free(others);
	free(db);
	free(recorded);
	return status ? status : rstatus;
}
