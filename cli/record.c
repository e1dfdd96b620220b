/*
 * record.c - 'mapprof record': run a program with the collector loaded.
 *
 * The database is created here, before the program starts, so a path that
 * cannot be written fails fast.  The program then runs with the collector in
 * OMP_TOOL_LIBRARIES (and LD_PRELOAD, to capture clang's source records),
 * with its stdin/stdout/stderr untouched.  The collector writes a spool
 * ("DB-spool"); once the program has ended, this process expands it into the
 * database and completes it: how the program ended, deletes paired with
 * allocations.  None of that work is charged to the program.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/record.h"
#include "db/db.h"
#include "db/finish.h"
#include "db/ingest.h"

#define COLLECTOR_NAME "libmapprof-collector.so"

static const char record_usage[] =
	"usage: mapprof record [-o PATH] [-f] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM with the mapprof collector and record every target construct,\n"
	"kernel and data transfer of the run into one SQLite database.\n"
	"\n"
	"  -o, --output PATH   database to write (default: PROGRAM's name + .mapprof.db,\n"
	"                      in the current directory)\n"
	"  -f, --force         overwrite PATH if it exists\n"
	"  -h, --help          show this help\n"
	"\n"
	"The program's standard streams are left alone; mapprof speaks on stderr only.\n"
	"Exit status: the program's own (128+N if killed by signal N), 127 if it was\n"
	"not found, 126 if it could not be executed, 2 on usage errors, 3 if the\n"
	"database could not be created.\n"
	"\n"
	"Environment: the collector is loaded through OMP_TOOL_LIBRARIES (appended to\n"
	"any value already set) and LD_PRELOAD.  MAPPROF_COLLECTOR overrides the\n"
	"collector library's path.\n";

char *record_default_output(const char *program)
{
	char *copy = strdup(program), *out = NULL;
	if (copy && asprintf(&out, "%s.mapprof.db", basename(copy)) < 0)
		out = NULL;
	free(copy);
	return out;
}

static char *find_collector(void)
{
	const char *env = getenv("MAPPROF_COLLECTOR");
	char *dir, *path = NULL;

	if (env && *env)
		return realpath(env, NULL);
	dir = exe_dir();
	if (!dir)
		return NULL;
	/* Beside the binary (build tree), or PREFIX/lib/mapprof (installed). */
	const char *tries[] = { "/", "/../lib/mapprof/" };
	for (size_t i = 0; i < 2 && !path; i++) {
		char *p;
		if (asprintf(&p, "%s%s" COLLECTOR_NAME, dir, tries[i]) < 0)
			break;
		path = realpath(p, NULL);
		free(p);
	}
	free(dir);
	return path;
}

/* NAME=old<sep>add, or NAME=add. */
static int append_env(const char *name, const char *add, const char *sep)
{
	const char *old = getenv(name);
	char *v;
	int rc;
	if (old && *old) {
		if (asprintf(&v, "%s%s%s", old, sep, add) < 0)
			return -1;
		rc = setenv(name, v, 1);
		free(v);
		return rc;
	}
	return setenv(name, add, 1);
}

static pid_t child_pid;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void forward_signal(int sig)
{
	if (child_pid > 0)
		kill(child_pid, sig);
}

int record_program(const struct record_options *opt, int *status, char **db_path_out)
{
	char *output = opt->output ? strdup(opt->output) : record_default_output(opt->argv[0]);
	char *abs_output = NULL, *collector = NULL, *err = NULL, *spool = NULL;
	struct db *db = NULL;
	struct ingest_result ing = { 0 };
	int64_t t0;
	int rc_finish;
	int pfd[2], exec_errno = 0, wstatus = 0;
	struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = forward_signal };
	struct sigaction old_int, old_quit, old_term, old_hup;
	struct run_end end = { 0, 0, 0, 0, NULL };
	struct rusage ru;
	struct record_counts counts;
	ssize_t n;

	*status = EXIT_ERROR;
	if (!output) {
		error("out of memory");
		return -1;
	}
	collector = find_collector();
	if (!collector) {
		error("cannot find the collector library '%s'", COLLECTOR_NAME);
		hint("it is built beside the mapprof binary by 'make'; or set MAPPROF_COLLECTOR");
		goto fail;
	}
	db = db_create(output, opt->force, &err);
	if (!db) {
		error("%s", err);
		goto fail;
	}
	abs_output = realpath(output, NULL);
	if (asprintf(&spool, "%s-spool", abs_output ? abs_output : output) < 0) {
		spool = NULL;
		error("out of memory");
		goto fail;
	}
	/* A spool left by an earlier run that was cut short belongs to the old file. */
	unlink(spool);

	if (pipe2(pfd, O_CLOEXEC) < 0) {
		error("cannot create a pipe: %s", strerror(errno));
		goto fail;
	}
	fflush(NULL);
	t0 = mono_ns();
	child_pid = fork();
	if (child_pid < 0) {
		error("cannot fork: %s", strerror(errno));
		close(pfd[0]);
		close(pfd[1]);
		goto fail;
	}
	if (child_pid == 0) {
		close(pfd[0]);
		setenv("MAPPROF_OUTPUT", abs_output ? abs_output : output, 1);
		setenv("MAPPROF_SPOOL", spool, 1);
		append_env("OMP_TOOL_LIBRARIES", collector, ":");
		append_env("LD_PRELOAD", collector, ":");
		execvp(opt->argv[0], opt->argv);
		exec_errno = errno;
		if (write(pfd[1], &exec_errno, sizeof(exec_errno)) < 0)
			_exit(127);
		_exit(exec_errno == ENOENT ? 127 : 126);
	}
	close(pfd[1]);
	/* Like system(): the terminal's ^C goes to the program; we wait for it to end. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);
	do
		n = read(pfd[0], &exec_errno, sizeof(exec_errno));
	while (n < 0 && errno == EINTR);
	close(pfd[0]);
	memset(&ru, 0, sizeof(ru));
	while (wait4(child_pid, &wstatus, 0, &ru) < 0 && errno == EINTR)
		;
	end.wall_ns = mono_ns() - t0;
	end.peak_rss_kb = ru.ru_maxrss;
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);

	if (n == sizeof(exec_errno)) {
		error("cannot run '%s': %s", opt->argv[0], strerror(exec_errno));
		if (exec_errno == ENOENT && !strchr(opt->argv[0], '/'))
			hint("not found in PATH; give a path like './%s'", opt->argv[0]);
		db_close(db);
		unlink(output);
		unlink(spool);
		*status = exec_errno == ENOENT ? 127 : 126;
		free(output);
		free(abs_output);
		free(collector);
		free(spool);
		return -1;
	}
	if (WIFEXITED(wstatus)) {
		end.exit_status = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		end.signal = WTERMSIG(wstatus);
		end.exit_status = 128 + end.signal;
	}
	*status = end.exit_status;

	switch (db_ingest_spool(db, spool, &ing, &err)) {
	case 0:
		unlink(spool);
		if (ing.truncated)
			info("warning: the spool ended mid-write (the program was killed?): "
			     "events after that point are lost");
		break;
	case 1:
		break;  /* the collector never started: finishing says so */
	default:
		memset(&ing, 0, sizeof(ing));
		error("%s", err);
		hint("the events are kept in '%s'", spool);
		end.lost_why = err;  /* freed below */
		err = NULL;
		break;
	}
	rc_finish = db_finish_run(db, &end, &err);
	free((char *)end.lost_why);
	if (rc_finish < 0) {
		error("%s", err);
		hint("the program may have removed or overwritten '%s'", output);
		db_close(db);
		free(err);
		err = NULL;
	} else {
		db_record_counts(db, &counts);
		if (counts.status && !strcmp(counts.status, "complete")) {
			info("recorded %llu data operations, %llu kernels, %llu target constructs to '%s'",
			     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels,
			     (unsigned long long)ing.targets, output);
			if (counts.status_detail)
				info("note: %s", counts.status_detail);
		} else {
			info("warning: recording of '%s' is %s: %s", opt->argv[0],
			     counts.status ? counts.status : "missing",
			     counts.status_detail ? counts.status_detail : "no detail");
			info("recorded %llu data operations, %llu kernels to '%s'",
			     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels, output);
		}
		if (counts.lost)
			info("warning: %lld events were lost (recorded after the collector finished)",
			     counts.lost);
		if (end.signal)
			info("the program was killed by signal %d (%s)", end.signal, strsignal(end.signal));
		record_counts_release(&counts);
		db_close(db);
	}
	if (db_path_out)
		*db_path_out = output;
	else
		free(output);
	free(abs_output);
	free(collector);
	free(spool);
	return 0;
fail:
	if (db) {
		db_close(db);
		unlink(output);
	}
	free(spool);
	free(err);
	free(output);
	free(abs_output);
	free(collector);
	*status = EXIT_ERROR;
	return -1;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_options opt = { 0 };
	int c, status;

	/* '+': stop at the first non-option, the program's name. */
	while ((c = getopt_long(argc, argv, "+o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			opt.output = optarg;
			break;
		case 'f':
			opt.force = 1;
			break;
		case 'h':
			fputs(record_usage, stdout);
			return 0;
		default:
			return usage_error("record", "bad option");
		}
	}
	if (optind >= argc)
		return usage_error("record", "no program to run");
	opt.argv = argv + optind;
	record_program(&opt, &status, NULL);
	return status;
}
