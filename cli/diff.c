/*
 * diff.c - 'mapprof diff BEFORE.db AFTER.db': what a change did to the
 * findings and to the time spent (report/compare/diff.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "lib/outfile.h"
#include "report/compare/diff.h"
#include "report/output/json.h"

static const char diff_usage[] =
	"usage: mapprof diff [--json PATH|-] [-q] [--no-source] BEFORE.db AFTER.db\n"
	"       mapprof diff [options] BEFORE.db... -- AFTER.db...\n"
	"\n"
	"Compare runs of a program before a change with runs after it: which findings\n"
	"the change removed, which remain, which are new; the measured change in run\n"
	"time, in time spent in transfers and allocations, in bytes moved; and the\n"
	"savings the removed findings predicted against what was measured; and\n"
	"whether the results stayed the same: the exit status, and the final\n"
	"content of every variable at its last return to the host (the first line\n"
	"of that check starts 'results:': identical, DIFFER or not comparable).\n"
	"\n"
	"Findings are matched by kind, variable, function, devices and the text of\n"
	"the directive line, then by the same without the directive text; the file\n"
	"name and the line are no part of the key (app.c matches app_fixed.c, and a\n"
	"fix may shift lines): among several candidates the same file, then the\n"
	"nearest line, wins (docs/usage.md, 'mapprof diff').\n"
	"Several runs a side give medians and a min..max interval.  Each database is\n"
	"analysed as 'mapprof report' would (findings and source lines stored in it).\n"
	"\n"
	"  --json PATH     write the comparison as JSON to PATH ('-': standard output,\n"
	"                  the summary then goes to stderr)\n"
	"  --no-source     quote no source lines (matching then loses the directive text)\n"
	"  -q, --quiet     print no summary\n"
	"  -h, --help      show this help\n"
	"\n"
	"Exit status: 0 done; 2 usage error; 3 a database cannot be read, or the\n"
	"comparison cannot be written (standard output included: a full disk; a\n"
	"reader that stopped reading, as 'head' does, is no error).\n";

int cmd_diff(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "json", required_argument, NULL, 'j' },
		{ "no-source", no_argument, NULL, 'S' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *json = NULL;
	int quiet = 0, no_source = 0, c, sep = -1, nbefore, status = 0;
	struct diff *d;
	char *err = NULL;

	opterr = 0;
	/* '+': options first, so that a '--' between the sides stays in argv. */
	while ((c = getopt_long(argc, argv, "+qh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j': json = optarg; break;
		case 'S': no_source = 1; break;
		case 'q': quiet = 1; break;
		case 'h': return help_out(diff_usage);
		default:
			return usage_error("diff", "unknown option '%s'", argv[optind - 1]);
		}
	}
	for (int i = optind; i < argc; i++)
		if (!strcmp(argv[i], "--")) {
			if (sep >= 0)
				return usage_error("diff", "more than one '--'");
			sep = i;
		}
	if (sep < 0 && argc - optind != 2)
		return usage_error("diff", "give BEFORE.db AFTER.db, or BEFORE.db... -- AFTER.db...");
	nbefore = sep < 0 ? 1 : sep - optind;
	if (nbefore < 1 || (sep >= 0 && argc - sep - 1 < 1))
		return usage_error("diff", "each side needs at least one database");
	if (!(d = diff_new()))
		return error("out of memory");
	for (int i = optind; i < argc; i++) {
		if (i == sep)
			continue;
		if (diff_add(d, i - optind < nbefore ? DIFF_BEFORE : DIFF_AFTER, argv[i], no_source,
			     &err) < 0) {
			status = error("%s", err ? err : "out of memory");
			goto out;
		}
	}
	if (diff_finish(d, &err) < 0) {
		status = error("%s", err ? err : "out of memory");
		goto out;
	}
	if (!quiet) {
		/* Escaped for the terminal; a reader gone away (EPIPE) is no error. */
		int fd = json && outfile_is_stdout(json) ? STDERR_FILENO : STDOUT_FILENO;
		struct outfile o;

		if (outfile_fd(&o, fd, OUTFILE_TEXT) == 0) {
			diff_print(d, o.f);
			if (outfile_commit(&o) < 0 && errno != EPIPE && fd == STDOUT_FILENO)
				status = error("cannot write the comparison to standard output: %s",
					       strerror(errno));
		}
	}
	if (json) {
		json_t *doc = diff_json(d);
		if (!doc || report_json_write(doc, json, 0, &err) < 0)
			status = error("%s", err ? err : "out of memory");
		else if (!outfile_is_stdout(json))
			info("wrote '%s'", json);
		json_decref(doc);
	}
out:
	free(err);
	diff_free(d);
	return status;
}
