/*
 * recover.c - 'mapprof recover': a database from a spool 'mapprof record'
 * could not expand.
 *
 * When 'mapprof record' is killed while the program runs, the program goes
 * on unrecorded (the collector sees the recorder gone) and the events up to
 * that moment stay in the spool beside the database.  When the database
 * could not take the events (a full disk), record keeps the spool too.
 * Either way the database's run says which spool and this command.  The
 * spool is expanded as record would have (db/ingest/ingest.c, db/ingest/finish.c); what
 * the program did after the spool ends is not known, so the run is marked
 * incomplete with the reason, and its exit status stays unknown.
 *
 * The command's other processes (forked children, MPI ranks) each left a
 * spool, PID.N.spool, in the spool directory PATH.spool.d: given that
 * directory (or one spool in it), each spool becomes its own database,
 * named as record would have named it (cli/record_procs.c).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/record_procs.h"
#include "db/db.h"
#include "db/ingest/finish.h"
#include "db/ingest/ingest.h"

static const char recover_usage[] =
	"usage: mapprof recover [-o PATH] [-f] SPOOL|SPOOL_DIR\n"
	"\n"
	"Expand the events a spool holds into a database, when 'mapprof record' could\n"
	"not: it was killed while the program ran (the program says so and runs on\n"
	"unrecorded), or the database did not fit on the disk.  Both times mapprof\n"
	"names the spool (DB-spool, beside the database) and this command.  A spool\n"
	"cut short mid-write keeps every whole frame.  The run is marked incomplete,\n"
	"with the reason; the spool is removed once its events are in the database.\n"
	"\n"
	"The command's other processes (a forked child, MPI ranks) left their spools\n"
	"in the spool directory PATH.spool.d (PID.N.spool each): given it, or a spool\n"
	"in it, each becomes a database of its own, PATH with .PID before its .db, as\n"
	"'mapprof record' would have named it; the directory is removed once empty.\n"
	"\n"
	"  -o, --output PATH   database to write (default: SPOOL without its '-spool'\n"
	"                      suffix, the database 'mapprof record' left unfinished);\n"
	"                      for a spool directory, record's -o (%p, %r allowed;\n"
	"                      default: the directory without '.spool.d')\n"
	"  -f, --force         replace PATH even when it holds a recorded run (once the\n"
	"                      new database is whole; a symlink stays, its target is\n"
	"                      replaced; never an executable that is not a database)\n"
	"  -h, --help          show this help\n"
	"\n"
	"A spool 'mapprof record' is still writing is refused (it holds a lock on it\n"
	"until it ends).  The spool of a 'record -f' (PATH.new-PID-spool) replaces PATH\n"
	"once recovered, as record would have.\n"
	"\n"
	"Exit status: 0 when the database holds the spool's events, 2 on usage errors,\n"
	"3 when the spool cannot be read, is still being recorded, or the database\n"
	"cannot be written.\n";

/*
 * When path's directory is a spool directory (its real name ends in
 * ".spool.d"), lock it too, for as long as this process lives: 0, or -1
 * when another process holds it.
 */
static int dir_lock_held(const char *path)
{
	char *real = realpath(path, NULL), *dir;
	size_t n, k = strlen(".spool.d");
	int fd, rc = 0;

	if (!real)
		return 0;
	dir = dirname(real);
	n = strlen(dir);
	if (n > k && !strcmp(dir + n - k, ".spool.d") && (fd = open(dir, O_RDONLY | O_CLOEXEC)) >= 0 &&
	    flock(fd, LOCK_EX | LOCK_NB) < 0) {
		rc = errno == EWOULDBLOCK ? -1 : 0;
		close(fd);
	}
	/* Held (fd left open) until recover ends. */
	free(real);
	return rc;
}

/*
 * Take the spool (or spool directory) 'path' for ourselves: 'mapprof record'
 * holds an exclusive flock() on it for as long as it lives (cli/record.c),
 * and expanding a spool it still writes would take its events from it.
 * The descriptor (hold it until done), or -1 when it is taken (said so) or
 * cannot be opened (the caller says why).
 */
static int take_spool(const char *path, int *live)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*live = 0;
	if (fd < 0)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		if (errno == EWOULDBLOCK) {
			*live = 1;
			error("cannot recover '%s': it is being recorded ('mapprof record' is still running,"
			      " or another 'mapprof recover' has it)", path);
			hint("wait for it to end: 'mapprof record' expands the spool itself");
		}
		close(fd);
		return -1;
	}
	/*
	 * A process's spool in a spool directory, however it is named
	 * (relative, through a link): 'mapprof record' locks the directory,
	 * not each spool in it.  Its lock is held until recover ends.
	 */
	if (dir_lock_held(path) < 0) {
		*live = 1;
		error("cannot recover '%s': its spool directory is being recorded ('mapprof record' is"
		      " still running, or another 'mapprof recover' has it)", path);
		hint("wait for it to end: 'mapprof record' expands the spool itself");
		close(fd);
		return -1;
	}
	return fd;
}

/* SPOOL without "-spool", or SPOOL + ".db" (malloc'ed). */
static char *default_output(const char *spool)
{
	size_t n = strlen(spool), k = strlen("-spool");
	char *out;

	if (n > k && !strcmp(spool + n - k, "-spool"))
		return strndup(spool, n - k);
	return asprintf(&out, "%s.db", spool) < 0 ? NULL : out;
}

/* A spool in a spool directory: ".../X.spool.d/PID.N.spool". */
static int in_spool_dir(const char *path)
{
	const char *slash = strrchr(path, '/'), *suffix = ".spool.d";
	size_t k = strlen(suffix);
	long pid;
	int n, used = 0;

	if (!slash || slash - path < (ptrdiff_t)k || strncmp(slash - k, suffix, k))
		return 0;
	return sscanf(slash + 1, "%ld.%d.spool%n", &pid, &n, &used) == 2 && !slash[1 + used];
}

/* The spools of a spool directory (only 'spool' in it when not NULL), each its database. */
static int recover_dir(const char *dir, const char *spool, const char *output, int force)
{
	size_t n = strlen(dir), k = strlen(".spool.d");
	char *tmpl;
	int recovered, lock, live;

	while (n > 1 && dir[n - 1] == '/')
		n--;
	if (output)
		tmpl = strdup(output);
	else if (n > k && !strncmp(dir + n - k, ".spool.d", k))
		tmpl = strndup(dir, n - k);
	else
		return usage_error("recover", "name the databases with -o PATH (the directory's name"
			       " does not end in '.spool.d')");
	if (!tmpl)
		return error("out of memory");
	lock = take_spool(dir, &live);
	if (lock < 0 && live) {
		free(tmpl);
		return EXIT_ERROR;
	}
	recovered = record_procs_recover(dir, tmpl, spool, force);
	if (lock >= 0)
		close(lock);
	free(tmpl);
	if (recovered < 0)
		return EXIT_ERROR;
	if (!recovered) {
		error("the spool directory '%s' holds no %s with events", dir, spool ? spool : "spool");
		return EXIT_ERROR;
	}
	info("recovered %d process%s, one database each", recovered, recovered > 1 ? "es" : "");
	return 0;
}

/* Rename the recovered database 'from' over 'to'.  0, or EXIT_ERROR (said why). */
static int replace(const char *from, const char *to)
{
	const char *refusal = output_refusal(to, NULL);
	char side[4096];

	if (refusal) {
		error("refusing to replace '%s': %s", to, refusal);
		hint("the recovered database is '%s'", from);
		return EXIT_ERROR;
	}
	snprintf(side, sizeof(side), "%s-journal", to);
	unlink(side);
	if (rename(from, to) < 0) {
		error("cannot replace '%s': %s", to, strerror(errno));
		hint("the recovered database is '%s'", from);
		return EXIT_ERROR;
	}
	return 0;
}

/*
 * 'mapprof record' made DB.spool.d for the command's other processes: a
 * killed record leaves it, empty when there were none (removed here), else
 * holding their spools (said).
 */
static void leftover_dir(const char *db)
{
	char *dir;

	if (!db || asprintf(&dir, "%s.spool.d", db) < 0)
		return;
	if (rmdir(dir) < 0 && (errno == ENOTEMPTY || errno == EEXIST)) {
		info("note: '%s' holds the spools of the command's other processes", dir);
		char *q = shell_quoted(dir);
		hint("recover them with: mapprof recover %s", q ? q : dir);
		free(q);
	}
	free(dir);
}

int cmd_recover(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *spool, *output = NULL;
	char *out = NULL, *err = NULL, *why = NULL;
	struct ingest_result ing;
	struct run_end end = { 0 };
	struct record_counts counts;
	struct db *db = NULL;
	struct stat st;
	int c, force = 0, created = 0, found, rc = EXIT_ERROR, lock = -1, live;
	const char *refusal;
	char *replaces = NULL, *rec_db = NULL;

	while ((c = getopt_long(argc, argv, "o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			return help_out(recover_usage);
		default:
			return usage_error("recover", "bad option");
		}
	}
	if (optind != argc - 1)
		return usage_error("recover", optind >= argc ? "no spool to recover" : "one spool at a time");
	spool = argv[optind];
	found = stat(spool, &st) == 0;
	if (found && S_ISDIR(st.st_mode))
		return recover_dir(spool, NULL, output, force);
	if (found && S_ISREG(st.st_mode) && in_spool_dir(spool)) {
		char *copy = strdup(spool), *copy2 = strdup(spool);
		if (!copy || !copy2)
			rc = error("out of memory");
		else
			rc = recover_dir(dirname(copy), basename(copy2), output, force);
		free(copy);
		free(copy2);
		return rc;
	}
	if (!found || !S_ISREG(st.st_mode)) {
		error("cannot read the spool '%s': %s", spool, found ? "not a regular file" : "no such file");
		return EXIT_ERROR;
	}
	lock = take_spool(spool, &live);
	if (lock < 0) {
		if (!live)
			error("cannot read the spool '%s': %s", spool, strerror(errno));
		return EXIT_ERROR;
	}
	out = output ? strdup(output) : default_output(spool);
	if (!out) {
		close(lock);
		return error("out of memory");
	}
	refusal = output_refusal(out, NULL);
	if (refusal) {
		error("refusing to write the database to '%s': %s", out, refusal);
		hint("write another database with -o PATH");
		goto out;
	}
	/* The database record left (its run says 'recording'), or a new one. */
	if (!force && access(out, F_OK) == 0) {
		db = db_open(out, DB_OPEN_WRITE | DB_OPEN_UNFINISHED, NULL, &err);
		if (!db) {
			error("cannot recover into '%s': %s", out, err);
			hint("write another database with -o PATH, or replace '%s' with -f", out);
			goto out;
		}
		if (db_copied(db)) {
			error("cannot recover into '%s': it is %s", out, db_copied(db));
			hint("write another database with -o PATH");
			goto out;
		}
	} else {
		/*
		 * -f over an existing file: the new database is written beside
		 * it and renamed over it once whole, so that a spool that cannot
		 * be read leaves it as it was.
		 */
		if (force && access(out, F_OK) == 0) {
			/* A symlink stays: its target is replaced, beside it. */
			char *next = NULL;
			replaces = replace_target(out);
			if (!replaces || asprintf(&next, "%s.new-%ld", replaces, (long)getpid()) < 0) {
				error("out of memory");
				goto out;
			}
			free(out);
			out = next;
		}
		db = db_create(out, force && !replaces, &err);
		if (!db) {
			error("%s", err);
			goto out;
		}
		created = 1;
	}
	switch (db_ingest_spool(db, spool, &ing, &err)) {
	case 0:
		break;
	case 1:
		error("the spool '%s' holds no events: the program never started recording", spool);
		goto out;
	default:
		/* A damaged spool or a run there says itself; a failed write needs its subject. */
		if (strstr(err, "corrupt spool") || strstr(err, "already holds a recorded run"))
			error("%s", err);
		else
			error("cannot expand the spool '%s' into '%s': %s", spool, out, err);
		if (strstr(err, "already holds a recorded run"))
			hint("write another database with -o PATH, or replace '%s' with -f", out);
		goto out;
	}
	if (asprintf(&why, "recovered from the spool '%s' by 'mapprof recover': the recording ended before the"
		     " program did (the recorder 'mapprof record' was killed); later events were not recorded",
		     spool) < 0) {
		why = NULL;
		error("out of memory");
		goto out;
	}
	end.exit_unknown = 1;
	end.unfinished_why = why;
	if (db_finish_run(db, &end, &err) < 0) {
		error("%s", err);
		goto out;
	}
	/* 'mapprof record -f' was to replace a database with this one: done here. */
	if (!created)
		replaces = db_take_replaces(db);
	/* The write transaction db_open() began (a new database has none). */
	if (!created && db_commit(db) < 0) {
		error("cannot write '%s': %s", out, db_errmsg(db));
		goto out;
	}
	rec_db = replaces && !created ? strdup(replaces) : default_output(spool);   /* record's database, not -o's */
	if (replaces) {
		created = 0;  /* whole now: kept, even when it cannot take the old one's name */
		if (replace(out, replaces) != 0)
			goto out;
		free(out);
		out = replaces;
		replaces = NULL;
	}
	db_record_counts(db, &counts);
	info("recovered %llu data operations, %llu kernels, %llu target constructs from '%s' into '%s'",
	     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels,
	     (unsigned long long)ing.targets, spool, out);
	if (counts.status && strcmp(counts.status, "complete"))
		info("the run is %s: %s", counts.status, counts.status_detail ? counts.status_detail : "no detail");
	record_counts_release(&counts);
	unlink(spool);
	/* record's spool directory, empty when the command had no other process. */
	leftover_dir(rec_db);
	rc = 0;
out:
	db_close(db);
	if (rc && created)
		unlink(out);
	if (lock >= 0)
		close(lock);
	free(replaces);
	free(rec_db);
	free(why);
	free(err);
	free(out);
	return rc;
}
