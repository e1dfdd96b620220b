/*
 * main.c - the mapprof command: a table of subcommands.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "db/db.h"

static const struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *summary;
} cmds[] = {
	{ "record", cmd_record, "run a program and record its offload events into a database" },
	{ "report", cmd_report, "find inefficient data mappings in a recorded run" },
	{ "run", cmd_run, "record, then report, in one command" },
	{ "recover", cmd_recover, "expand the spool a killed or failed 'record' left into a database" },
	{ "trace", cmd_trace, "export a recorded run for Perfetto / chrome://tracing" },
	{ "diff", cmd_diff, "compare runs before and after a change: findings fixed, time saved" },
};

static void usage(FILE *f)
{
	fprintf(f, "usage: mapprof [--version] [--help] <command> [<args>]\n\n"
		   "mapprof finds where an OpenMP offload program's data mapping wastes time.\n\n"
		   "commands:\n");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		fprintf(f, "  %-8s %s\n", cmds[i].name, cmds[i].summary);
	fprintf(f, "\nexamples:\n"
		   "  mapprof run -- ./app args          record + report (app.mapprof.db, report.html, report.json)\n"
		   "  mapprof record -o run.db -- ./app  record only\n"
		   "  mapprof report run.db              analyse a recorded run\n"
		   "  mapprof recover run.db-spool       the database from the spool a killed 'record' left\n"
		   "  mapprof report --sarif r.sarif --source-root . --fail-on savings:5%% run.db\n"
		   "                                     SARIF for code review; exit 1 over 5%% savings\n"
		   "  mapprof trace run.db -o trace.json timeline for ui.perfetto.dev\n"
		   "  mapprof diff before.db after.db    findings a fix removed, predicted vs measured\n"
		   "\n'mapprof <command> --help' (or 'mapprof help <command>') describes a command.\n");
}

static void on_sigpipe(int sig)
{
	(void)sig;
}

/*
 * A closed standard output ('mapprof report DB | head -3') must never cost a
 * file: SIGPIPE would end mapprof in the middle of the summary, before
 * report.json and report.html and with the database's write transaction
 * open.  Caught by a handler that does nothing, the write fails with EPIPE
 * instead, which the summary takes as "stop printing".  A handler rather
 * than SIG_IGN: exec resets a caught signal to its default, so the profiled
 * program gets SIGPIPE as it would without mapprof; an ignored one it would
 * inherit.  Where mapprof's own parent ignores SIGPIPE it stays ignored, for
 * the program too, as without mapprof.
 */
static void catch_sigpipe(void)
{
	struct sigaction old, sa = { .sa_handler = on_sigpipe, .sa_flags = SA_RESTART };

	if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
		return;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
}

/*
 * What is still buffered for standard output (--help, --version), flushed
 * and checked: 'mapprof --help > /dev/full' fails.  A reader that went away
 * (EPIPE) is no error.
 */
static int close_stdout(int status)
{
	errno = 0;
	if (fflush(stdout) == 0 && !ferror(stdout))
		return status;
	if (errno == EPIPE)
		return status;
	error("cannot write to standard output: %s", errno ? strerror(errno) : "write error");
	return status ? status : EXIT_ERROR;
}

static int run_main(int argc, char **argv)
{
	catch_sigpipe();
	db_library_init();
	if (argc < 2) {
		usage(stderr);
		return EXIT_USAGE;
	}
	if (!strcmp(argv[1], "help") && argc > 2) {
		/* 'mapprof help report' is 'mapprof report --help' */
		for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
			if (!strcmp(argv[2], cmds[i].name)) {
				char *args[] = { argv[2], "--help", NULL };
				return cmds[i].fn(2, args);
			}
		return usage_error("", "unknown command '%s'", argv[2]);
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("mapprof %s\n", MAPPROF_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	return usage_error("", "unknown command '%s'", argv[1]);
}

int main(int argc, char **argv)
{
	return close_stdout(run_main(argc, argv));
}
