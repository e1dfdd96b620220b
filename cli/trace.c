/*
 * trace.c - 'mapprof trace': a recorded run as a Trace Event file or a
 * Perfetto protobuf trace.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "db/db.h"
#include "lib/outfile.h"
#include "report/trace/trace.h"

static const char trace_usage[] =
	"usage: mapprof trace [-o PATH|-] [--format json|pftrace] [--from TIME] [--to TIME] DB\n"
	"\n"
	"Write the run recorded in DB as a Trace Event file (JSON) for Perfetto\n"
	"(ui.perfetto.dev) or chrome://tracing, or as Perfetto's own protobuf trace\n"
	"(.pftrace: smaller, and loads in ui.perfetto.dev where a JSON file of\n"
	"hundreds of MB does not): kernels, transfers, allocations and\n"
	"deletes on one track per device (the host is 'host'), host thread and lane\n"
	"(threads named by their OS thread id and role: the initial thread or an\n"
	"OpenMP thread), with bytes, variable and source line; arrows from each\n"
	"finding's first occurrence to its later ones (at most 1000 per finding),\n"
	"named by its kind and variable, and from the first copy of a content to a\n"
	"device to its first copy to each other device.  Variables, source lines and\n"
	"finding arrows come from what 'mapprof report' stored in DB: report first.\n"
	"\n"
	"  -o, --output PATH   where ('-': standard output; default: trace.json, or\n"
	"                      trace.pftrace with --format pftrace, in DB's\n"
	"                      directory, never written through a symlink: one\n"
	"                      there is replaced)\n"
	"      --format FMT    json or pftrace (default: pftrace when PATH ends in\n"
	"                      .pftrace, else json)\n"
	"      --from TIME     only the events that end at or after TIME since the\n"
	"                      run's start (a number and a unit: ns, us, ms or s,\n"
	"                      e.g. 1.5s); each kept whole\n"
	"      --to TIME       only the events that begin at or before TIME\n"
	"  -h, --help          show this help\n"
	"\n"
	"Memory does not grow with the number of events.  With a window, a\n"
	"finding's arrows start at its first occurrence in the window.\n"
	"\n"
	"Exit status: 0 done; 2 usage error; 3 DB cannot be read or the trace cannot\n"
	"be written ('mapprof: error:' on stderr with the write's own error, such as\n"
	"'No space left on device'; no file left behind).\n";

/*
 * A time since the run's start: a number and a unit, ns, us, ms or s (as
 * --fail-on's times), or 0.  0, or -1 with *why.
 */
static int parse_time(const char *s, int64_t *ns, const char **why)
{
	static const struct {
		const char *name;
		double ns;
	} units[] = { { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v;

	errno = 0;
	if (*s < '0' || *s > '9') {
		*why = "a time is a number and a unit (1.5s, 200ms, 10us, 500ns)";
		return -1;
	}
	v = strtod(s, &end);
	if (errno || !isfinite(v) || v < 0) {
		*why = "the time is out of range";
		return -1;
	}
	if (!*end && v == 0) {
		*ns = 0;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].name))
			continue;
		if (v * units[i].ns >= 9.2e18) {
			*why = "the time is out of range";
			return -1;
		}
		*ns = (int64_t)llround(v * units[i].ns);
		return 0;
	}
	*why = *end ? "unknown unit (use ns, us, ms or s)" : "the time has no unit (use ns, us, ms or s)";
	return -1;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

int cmd_trace(int argc, char **argv)
{
	enum { OPT_FORMAT = 256, OPT_FROM, OPT_TO };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct trace_options opt = { TRACE_JSON, INT64_MIN, INT64_MAX };
	struct trace_stats st;
	enum db_problem problem;
	const char *db_path, *format = NULL, *why;
	char *out = NULL, *err = NULL;
	struct db *db;
	int c, status = 0, given;

	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			free(out);
			out = strdup(optarg);
			break;
		case OPT_FORMAT:
			if (strcmp(optarg, "json") && strcmp(optarg, "pftrace")) {
				free(out);
				return usage_error("trace", "unknown --format '%s' (json or pftrace)", optarg);
			}
			format = optarg;
			break;
		case OPT_FROM:
		case OPT_TO:
			if (parse_time(optarg, c == OPT_FROM ? &opt.from_ns : &opt.to_ns, &why) < 0) {
				free(out);
				return usage_error("trace", "bad --%s '%s': %s", c == OPT_FROM ? "from" : "to",
						   optarg, why);
			}
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
	if (opt.from_ns > opt.to_ns) {
		free(out);
		return usage_error("trace", "--from is after --to: the window is empty");
	}
	db_path = argv[optind];
	given = out != NULL;
	if (format)
		opt.format = strcmp(format, "pftrace") ? TRACE_JSON : TRACE_PFTRACE;
	else if (out && ends_with(out, ".pftrace"))
		opt.format = TRACE_PFTRACE;
	if (!out && !(out = report_beside(db_path, opt.format == TRACE_PFTRACE ? "trace.pftrace" : "trace.json")))
		return error("out of memory");
	if (outfile_same(out, db_path)) {
		error("--output '%s' is the database '%s'", out, db_path);
		free(out);
		return EXIT_USAGE;
	}
	db = db_open(db_path, 0, &problem, &err);
	if (!db) {
		status = error("cannot read '%s': %s", db_path, err ? err : "out of memory");
	} else if (trace_write(db, out, report_cli_oflags(given ? out : NULL, out), &opt, &st, &err) < 0) {
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
