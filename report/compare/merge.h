/*
 * merge.h - one report over the databases of several processes (the ranks
 * of an MPI job, a program and the children it forked): each process with
 * its own counts, and the findings merged by fingerprint across processes.
 *
 * Each database is reported on its own first (report_run(), which stores
 * its findings); merging then reads back only each one's process row,
 * totals and finding rows, so memory grows with the number of processes and
 * of distinct findings, never with the events.
 */
#ifndef MAPPROF_REPORT_MERGE_H
#define MAPPROF_REPORT_MERGE_H

#include <jansson.h>
#include <stdio.h>

struct merge;

struct merge *merge_new(void);
void merge_free(struct merge *m);
/* Add a database 'mapprof report' has reported.  0, or -1 (*err malloc'ed). */
int merge_add(struct merge *m, const char *path, char **err);
/*
 * The same with the findings an earlier report stored in it ('record
 * --analyse'): 0, 1 when it holds none (nothing added), or -1 (*err).
 */
int merge_add_stored(struct merge *m, const char *path, char **err);
/*
 * Give the process added last its own report.html: 'link', a relative URL
 * from the merged page's folder (NULL: none).  0, or -1 out of memory.
 */
int merge_set_report(struct merge *m, const char *link);
/* 1 when the recording of the process added last is complete (run status 'complete'), else 0. */
int merge_last_complete(const struct merge *m);
/* "rank N" (or "pid N" when it has no rank) of the process added last, into buf. */
const char *merge_last_label(const struct merge *m, char *buf, size_t n);
/* The terminal summary: the processes by rank (or how many), then the top merged findings. */
void merge_summary(const struct merge *m, FILE *out, int top);
/*
 * The document of a report over several databases: {"processes": [...],
 * "merged_findings": [...]} (docs/report-json.md), the processes by rank
 * (then pid); with "ranks" when the job recorded only some of its ranks
 * ('record --ranks').  Each merged finding gives min / mean / max over the
 * processes that have it.  New reference.
 */
json_t *merge_json(const struct merge *m);

/*
 * A compact copy of what m holds (its processes and their shares of each
 * finding), for another process to merge: mapprof-mpi's ranks each merge
 * their share of the databases and send this to rank 0 (cli/mpi_main.c).
 * New reference, or NULL when out of memory.
 */
json_t *merge_pack(const struct merge *m);
/*
 * Add what merge_pack() made of another merge, as if its databases had been
 * added here one by one, in their order: packs added in the order of their
 * databases give the merge of those databases, to the byte.  0, or -1 (*err
 * malloc'ed: out of memory or a pack that is not one).
 */
int merge_unpack(struct merge *m, const json_t *pack, char **err);

#endif
