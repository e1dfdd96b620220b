/*
 * recover.c - 'mapprof recover': a database from a spool 'mapprof record'
 * could not expand.
 *
 * When 'mapprof record' is killed while the program runs, the program goes
 * on unrecorded (the collector sees the recorder gone) and the events up to
 * that moment stay in the spool beside the database.  When the database
 * could not take the events (a full disk), record keeps the spool too.
 * Either way the database's run says which spool and this command.  The
 * spool is expanded as record would have (db/ingest.c, db/finish.c); what
 * the program did after the spool ends is not known, so the run is marked
 * incomplete with the reason, and its exit status stays unknown.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli/cli.h"
#include "db/db.h"
#include "db/finish.h"
#include "db/ingest.h"

static const char recover_usage[] =
	"usage: mapprof recover [-o PATH] [-f] SPOOL\n"
	"\n"
	"Expand the events a spool holds into a database, when 'mapprof record' could\n"
	"not: it was killed while the program ran (the program says so and runs on\n"
	"unrecorded), or the database did not fit on the disk.  Both times mapprof\n"
	"names the spool (DB-spool, beside the database) and this command.  A spool\n"
	"cut short mid-write keeps every whole frame.  The run is marked incomplete,\n"
	"with the reason; the spool is removed once its events are in the database.\n"
	"\n"
	"  -o, --output PATH   database to write (default: SPOOL without its '-spool'\n"
	"                      suffix, the database 'mapprof record' left unfinished)\n"
	"  -f, --force         replace PATH even when it holds a recorded run\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 when the database holds the spool's events, 2 on usage errors,\n"
	"3 when the spool cannot be read or the database cannot be written.\n";

/* SPOOL without "-spool", or SPOOL + ".db" (malloc'ed). */
static char *default_output(const char *spool)
{
	size_t n = strlen(spool), k = strlen("-spool");
	char *out;

	if (n > k && !strcmp(spool + n - k, "-spool"))
		return strndup(spool, n - k);
	return asprintf(&out, "%s.db", spool) < 0 ? NULL : out;
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
	int c, force = 0, created = 0, rc = EXIT_ERROR;

	while ((c = getopt_long(argc, argv, "o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			output = optarg;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			fputs(recover_usage, stdout);
			return 0;
		default:
			return usage_error("recover", "bad option");
		}
	}
	if (optind != argc - 1)
		return usage_error("recover", optind >= argc ? "no spool to recover" : "one spool at a time");
	spool = argv[optind];
	if (stat(spool, &st) < 0 || !S_ISREG(st.st_mode)) {
		error("cannot read the spool '%s': %s", spool, S_ISDIR(st.st_mode) ? "a directory" : "no such file");
		return EXIT_ERROR;
	}
	out = output ? strdup(output) : default_output(spool);
	if (!out)
		return error("out of memory");
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
		db = db_create(out, force, &err);
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
		error("%s", err);
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
	/* The write transaction db_open() began (a new database has none). */
	if (!created && db_commit(db) < 0) {
		error("cannot write '%s': %s", out, db_errmsg(db));
		goto out;
	}
	db_record_counts(db, &counts);
	info("recovered %llu data operations, %llu kernels, %llu target constructs from '%s' into '%s'",
	     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels,
	     (unsigned long long)ing.targets, spool, out);
	if (counts.status && strcmp(counts.status, "complete"))
		info("the run is %s: %s", counts.status, counts.status_detail ? counts.status_detail : "no detail");
	record_counts_release(&counts);
	unlink(spool);
	rc = 0;
out:
	db_close(db);
	if (rc && created)
		unlink(out);
	free(why);
	free(err);
	free(out);
	return rc;
}
