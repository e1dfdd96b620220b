/*
 * trace.c - 'mapprof trace': a recorded run as a Trace Event file, a
 * Perfetto protobuf trace or an OTF2 archive (several processes in one).
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
	"usage: mapprof trace [-o PATH|-] [--format json|pftrace|otf2] [--from TIME] [--to TIME] DB...\n"
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
	"Or as an OTF2 archive for Vampir and Score-P's tools (PATH ending in .otf2,\n"
	"a directory holding traces.otf2): a location group per process, a CPU\n"
	"thread per host thread that offloads (its target constructs, allocations\n"
	"and deletes as regions named by source file and line), a location group\n"
	"per device with a stream per queue of overlapping work (kernels and\n"
	"transfers; each transfer also a one-sided operation: to the device a Get,\n"
	"from it a Put), the device memory in use as a metric, and the attributes\n"
	"'finding' and 'finding kind' on every event a finding names.  Several DBs\n"
	"(the processes of one job: 'mapprof trace run.*.db -o job.otf2') go into\n"
	"one archive, their clocks aligned (docs/usage.md).\n"
	"\n"
	"  -o, --output PATH   where ('-': standard output, not for otf2; default:\n"
	"                      trace.json, trace.pftrace or trace.otf2 after\n"
	"                      --format, in DB's directory, never written through\n"
	"                      a symlink: one there is replaced; an OTF2 archive\n"
	"                      replaces only an empty directory or an archive\n"
	"                      mapprof wrote)\n"
	"      --format FMT    json, pftrace or otf2 (default: pftrace when PATH ends\n"
	"                      in .pftrace, otf2 when it ends in .otf2, else json)\n"
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

	while (n > 1 && s[n - 1] == '/')
		n--;
	return n >= k && !strncmp(s + n - k, suffix, k);
}

/* 'mapprof trace DB... -o X.otf2': the OTF2 archive of one or more databases. */
static int trace_otf2(char **dbs, int n, char *out, const struct trace_options *opt)
{
	struct trace_stats st;
	char *err = NULL;
	int status = 0;

	if (outfile_is_stdout(out)) {
		free(out);
		return usage_error("trace", "an OTF2 archive is a directory: give -o PATH.otf2, not standard output");
	}
	for (int i = 0; i < n; i++)
		if (outfile_same(out, dbs[i])) {
			error("--output '%s' is the database '%s'", out, dbs[i]);
			free(out);
			return EXIT_USAGE;
		}
	if (trace_write_otf2(dbs, n, out, opt, &st, &err) < 0) {
		status = error("%s", err ? err : "cannot write the trace");
	} else {
		if (!st.has_sources || !st.has_findings) {
			char *quoted = shell_quoted(dbs[0]);
			hint("'%s' holds no findings: run 'mapprof report %s' first for source lines"
			     " and the findings' attributes", dbs[0], quoted ? quoted : dbs[0]);
			free(quoted);
		}
		info("wrote '%s': %llu process%s, %llu regions, %llu one-sided transfers, %llu events"
		     " named by findings", out, (unsigned long long)st.processes, st.processes == 1 ? "" : "es",
		     (unsigned long long)st.events, (unsigned long long)st.rma_ops,
		     (unsigned long long)st.marked);
	}
	free(err);
	free(out);
	return status;
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
			if (strcmp(optarg, "json") && strcmp(optarg, "pftrace") && strcmp(optarg, "otf2")) {
				free(out);
				return usage_error("trace", "unknown --format '%s' (json, pftrace or otf2)", optarg);
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
	if (format)
		opt.format = !strcmp(format, "pftrace") ? TRACE_PFTRACE : !strcmp(format, "otf2") ? TRACE_OTF2 : TRACE_JSON;
	else if (out && ends_with(out, ".pftrace"))
		opt.format = TRACE_PFTRACE;
	else if (out && ends_with(out, ".otf2"))
		opt.format = TRACE_OTF2;
	if (optind >= argc || (optind + 1 < argc && opt.format != TRACE_OTF2)) {
		free(out);
		return usage_error("trace", optind >= argc ? "no database given"
				   : "one database at a time (several go into one OTF2 archive: -o PATH.otf2)");
	}
	if (opt.from_ns > opt.to_ns) {
		free(out);
		return usage_error("trace", "--from is after --to: the window is empty");
	}
	db_path = argv[optind];
	given = out != NULL;
	if (!out && !(out = report_beside(db_path, opt.format == TRACE_PFTRACE ? "trace.pftrace"
					  : opt.format == TRACE_OTF2 ? "trace.otf2" : "trace.json")))
		return error("out of memory");
	if (opt.format == TRACE_OTF2)
		return trace_otf2(argv + optind, argc - optind, out, &opt);
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
