/*
 * mpi_main.c - mapprof-mpi: 'mapprof report DB DB...' over MPI.
 *
 *     mpirun -n N mapprof-mpi report [report's options] run.*.db
 *
 * The databases are cut into N runs of consecutive ones (rank r takes
 * dbs[r*n/N .. (r+1)*n/N)); each rank analyses its own as 'mapprof report'
 * does (findings stored in each database, each process's own page) and
 * merges them by fingerprint (report/compare/merge.c); rank 0 gathers the
 * parts, compact JSON text of a few hundred bytes a process and a finding,
 * merges them in the order of the databases and writes the merged
 * report.json, report.html and SARIF log, byte for byte those of the serial
 * report.  Every rank exits with the report's status.
 *
 * Only this file includes <mpi.h>: the rest is mapprof's own objects
 * (cli/report_many.h), so mapprof itself never needs MPI.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/report_cli.h"
#include "cli/report_many.h"
#include "db/db.h"

static const char usage_text[] =
	"usage: mpirun -n N mapprof-mpi report [--stored] [report's options] DB [DB...]\n"
	"\n"
	"'mapprof report DB DB...' over the N ranks of an MPI job: each rank\n"
	"analyses a share of the databases (stored findings and each process's own\n"
	"page, as 'mapprof report' writes them), rank 0 merges the findings by\n"
	"fingerprint and writes the same report.json, report.html and SARIF log as\n"
	"'mapprof report' (see 'mapprof report --help' for the options; --baseline\n"
	"and --same-program are not taken).  Every rank exits with the report's\n"
	"exit status.  A directory stands for the *.db files in it, in version order:\n"
	"mpirun passes the command line on in one string of at most 128 KiB, which\n"
	"10,000 paths outgrow.\n"
	"\n"
	"  --stored   merge the findings each database already holds ('mapprof record\n"
	"             --analyse', an earlier report): no event is read again; a\n"
	"             database without them is analysed.  No page of its own for\n"
	"             each process; --sarif and --fail-on are refused with it\n";

/* Parse 'report [options] DB...' into *rc; *first: the first database.  0 or an exit status. */
static int parse(int argc, char **argv, int quiet_errors, struct report_cli *rc, int *first, int *stored)
{
	static const struct option longopts[] = {
		REPORT_CLI_LONGOPTS,
		{ "stored", no_argument, NULL, 'T' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		if (!quiet_errors)
			fputs(usage_text, argc < 2 ? stderr : stdout);
		return argc < 2 ? EXIT_USAGE : -1;
	}
	if (strcmp(argv[1], "report")) {
		if (!quiet_errors) {
			fprintf(stderr, "mapprof-mpi: error: '%s' is no command of mapprof-mpi: only 'report'\n",
				argv[1]);
			fputs(usage_text, stderr);
		}
		return EXIT_USAGE;
	}
	opterr = !quiet_errors;
	optind = 2;
	while ((c = getopt_long(argc, argv, "qh", longopts, NULL)) != -1) {
		if (c == 'h') {
			if (!quiet_errors)
				fputs(usage_text, stdout);
			return -1;
		}
		if (c == 'T') {
			*stored = 1;
			continue;
		}
		if ((c = report_parse_option(c, optarg, rc)) < 0) {
			if (!quiet_errors && c != REPORT_CLI_REPORTED)
				fprintf(stderr, "mapprof-mpi: error: bad option\n%s", usage_text);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		if (!quiet_errors)
			fprintf(stderr, "mapprof-mpi: error: no database given\n%s", usage_text);
		return EXIT_USAGE;
	}
	if (*stored && (rc->sarif || rc->ngates)) {
		if (!quiet_errors)
			fprintf(stderr, "mapprof-mpi: error: --stored takes no --sarif nor --fail-on"
				" (they need each database analysed)\n");
		return EXIT_USAGE;
	}
	*first = optind;
	return 0;
}

/*
 * Rank 0: every other rank's part, gathered in rank order (the order of the
 * databases), merged into r.  A part of 0 bytes is a rank that failed.
 */
static int gather(struct report_many *r, const char *part, int len, int rank, int size)
{
	int *lens = NULL, *displs = NULL, status = 0;
	char *all = NULL;
	long long total = 0;

	if (!rank && (!(lens = calloc((size_t)size, sizeof(*lens))) ||
		      !(displs = calloc((size_t)size, sizeof(*displs)))))
		status = error("out of memory");
	/* Every rank takes part in both collectives, whatever failed. */
	MPI_Gather(&len, 1, MPI_INT, lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
	for (int i = 0; lens && i < size; i++) {
		displs[i] = (int)total;
		total += lens[i];
	}
	if (!rank && !status && total > INT_MAX)
		status = error("the ranks' parts of the report are over 2 GiB together: use fewer ranks");
	if (!rank && !status && !(all = malloc(total ? (size_t)total : 1)))
		status = error("out of memory");
	if (!rank && status) {
		/* Rank 0 takes nothing, and says the report failed. */
		for (int i = 0; lens && i < size; i++)
			lens[i] = displs[i] = 0;
	}
	MPI_Gatherv(part, len, MPI_CHAR, all, lens, displs, MPI_CHAR, 0, MPI_COMM_WORLD);
	for (int i = 1; !rank && !status && i < size; i++) {
		if (!lens[i])
			status = EXIT_ERROR; /* (the rank said why) */
		else
			status = report_many_unpack(r, all + displs[i], (size_t)lens[i]);
	}
	free(all);
	free(lens);
	free(displs);
	return status;
}

int main(int argc, char **argv)
{
	struct report_cli rc = { 0 };
	struct report_many *r = NULL;
	int rank = 0, size = 1, first = 0, stored = 0, status, n = 0, lo, hi, len = 0;
	char *part = NULL, **dbs = NULL;

	db_library_init();
	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &size);
	/* Each rank parses the same command line; rank 0 alone says what is wrong with it. */
	status = parse(argc, argv, rank != 0, &rc, &first, &stored);
	if (status) {
		MPI_Finalize();
		return status < 0 ? 0 : status;
	}
	/* A directory: its *.db files (every rank reads the same list, in the same order; rank 0 says what is wrong). */
	status = db_args_expand(argv + first, argc - first, &dbs, &n, rank != 0);
	MPI_Allreduce(MPI_IN_PLACE, &status, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
	if (status) {
		db_args_free(dbs, n);
		MPI_Finalize();
		return status;
	}
	/* Rank 0 checks the outputs against every database, once; the others only make theirs. */
	r = report_many_new(&rc, dbs, n, rank == 0, &status);
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	if (status) {
		report_many_free(r);
		db_args_free(dbs, n);
		MPI_Finalize();
		return status;
	}
	if (!r)
		status = EXIT_ERROR;
	else if (stored)
		report_many_use_stored(r);
	/* Runs of consecutive databases: rank 0 merges the parts in rank order, the databases' order. */
	lo = (int)((long long)rank * n / size);
	hi = (int)((long long)(rank + 1) * n / size);
	for (int i = lo; r && i < hi && !status; i++)
		status = report_many_add(r, i);
	if (rank && r && !status && (part = report_many_pack(r, lo, hi - lo))) {
		size_t plen = strlen(part);
		if (plen > INT_MAX)
			status = error("rank %d's part of the report is over 2 GiB", rank);
		else
			len = (int)plen;
	} else if (rank && !status) {
		status = error("out of memory");
	}
	if (status)
		len = 0;
	{
		int st = gather(r, part, len, rank, size);
		if (!rank && !status)
			status = st;
	}
	free(part);
	if (!rank)
		status = status ? status : report_many_finish(r);
	report_many_free(r);
	db_args_free(dbs, n);
	/* Every rank ends as the report did: mpirun's own exit status is then the report's. */
	MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
	MPI_Finalize();
	return status;
}
