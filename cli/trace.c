/*
 * trace.c - 'mapprof trace': a recorded run as a Trace Event file.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "db/db.h"
#include "lib/outfile.h"
#include "report/output/trace.h"

static const char trace_usage[] =
	"usage: mapprof trace [-o PATH|-] DB\n"
	"\n"
	"Write the run recorded in DB as a Trace Event file (JSON) for Perfetto\n"
	"(ui.perfetto.dev) or chrome://tracing: kernels, transfers, allocations and\n"
	"deletes on one track per device (the host is 'host'), host thread and lane\n"
	"(threads named by their OS thread id and role: the initial thread or an\n"
	"OpenMP thread), with bytes, variable and source line; arrows from each\n"
	"finding's first occurrence to its later ones (at most 1000 per finding),\n"
	"named by its kind and variable, and from the first copy of a content to a\n"
	"device to its first copy to each other device.  Variables, source lines and\n"
	"finding arrows come from what 'mapprof report' stored in DB: report first.\n"
	"\n"
	"  -o, --output PATH   where ('-': standard output; default: trace.json in\n"
	"                      DB's directory, never written through a symlink: one\n"
	"                      there is replaced)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Memory does not grow with the number of events.\n"
	"\n"
	"Exit status: 0 done; 2 usage error; 3 DB cannot be read or the trace cannot\n"
	"be written ('mapprof: error:' on stderr with the write's own error, such as\n"
	"'No space left on device'; no file left behind).\n";

int cmd_trace(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_stats st;
	enum db_problem problem;
	const char *db_path;
	char *out = NULL, *err = NULL;
	struct db *db;
	int c, status = 0, given;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			free(out);
			out = strdup(optarg);
			break;
		case 'h':
			free(out);
			return help_out(trace_usage);
		default:
			free(out);
			return usage_error("trace", "bad option");
		}
	}
	if (optind >= argc || optind + 1 < argc) {
		free(out);
		return usage_error("trace", optind >= argc ? "no database given" : "one database at a time");
	}
	db_path = argv[optind];
	given = out != NULL;
	if (!out && !(out = report_beside(db_path, "trace.json")))
		return error("out of memory");
	if (outfile_same(out, db_path)) {
		error("--output '%s' is the database '%s'", out, db_path);
		free(out);
		return EXIT_USAGE;
	}
	db = db_open(db_path, 0, &problem, &err);
	if (!db) {
		status = error("cannot read '%s': %s", db_path, err ? err : "out of memory");
	} else if (trace_write(db, out, report_cli_oflags(given ? out : NULL, out), &st, &err) < 0) {
		status = error("%s", err ? err : "cannot write the trace");
	} else {
		if (!st.has_sources || !st.has_findings) {
			char *quoted = shell_quoted(db_path);
			hint("'%s' holds no findings: run 'mapprof report %s' first for variables,"
			     " source lines and finding arrows", db_path, quoted ? quoted : db_path);
			free(quoted);
		}
		if (!outfile_is_stdout(out) && st.content_flows)
			info("wrote '%s': %llu events, %llu finding arrows, %llu same-content arrow%s"
			     " between devices", out, (unsigned long long)st.events,
			     (unsigned long long)st.flows, (unsigned long long)st.content_flows,
			     st.content_flows == 1 ? "" : "s");
		else if (!outfile_is_stdout(out))
			info("wrote '%s': %llu events, %llu finding arrows", out,
			     (unsigned long long)st.events, (unsigned long long)st.flows);
	}
	db_close(db);
	free(err);
	free(out);
	return status;
}
