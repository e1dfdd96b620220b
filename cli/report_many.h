/*
 * report_many.h - a report over several databases in steps
 * (cli/report_procs.c), so that mapprof-mpi's ranks (cli/mpi_main.c) can
 * each analyse a share of the databases and rank 0 merge them:
 *
 *     r = report_many_new()           every rank (rank 0 checks the outputs)
 *     report_many_add(r, i)           each database of the rank's share
 *     report_many_pack(r, ...)        each rank's part, as compact JSON text
 *     report_many_unpack(r, text)     rank 0, each part in the order of the databases
 *     report_many_finish(r)           rank 0: the summary, report.json, the page, SARIF
 *
 * 'mapprof report DB DB...' (report_cli_run_many()) is the same steps in one
 * process, with no pack between them.
 */
#ifndef MAPPROF_CLI_REPORT_MANY_H
#define MAPPROF_CLI_REPORT_MANY_H

#include <stddef.h>

#include "cli/report_cli.h"

struct report_many;

/*
 * The report of dbs[0..n) with rc's options (both borrowed until the free);
 * 'check': refuse outputs that are a database or each other (said why).
 * NULL with *status the exit status on error.
 */
struct report_many *report_many_new(const struct report_cli *rc, char **dbs, int n, int check, int *status);
void report_many_free(struct report_many *r);
/*
 * Merge the findings a database already holds ('record --analyse', an
 * earlier report) instead of analysing it again; one without is analysed.
 * Such a process gets no page of its own, nor a SARIF log or --fail-on
 * judgement: the caller refuses those options.
 */
void report_many_use_stored(struct report_many *r);
/* Analyse dbs[i] (its findings stored in it, its own page) and merge it: 0, or an exit status (said). */
int report_many_add(struct report_many *r, int i);
/*
 * What was added, dbs[first..first+count) in order, as compact JSON text
 * (malloc'ed; NULL when out of memory).
 */
char *report_many_pack(struct report_many *r, int first, int count);
/* Merge a part report_many_pack() made: 0, or an exit status (said). */
int report_many_unpack(struct report_many *r, const char *text, size_t len);
/* The outputs and the summary of all that was added; returns the exit status. */
int report_many_finish(struct report_many *r);

#endif
