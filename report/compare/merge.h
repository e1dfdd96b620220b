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
 * Give the process added last its own report.html: 'link', a relative URL
 * from the merged page's folder (NULL: none).  0, or -1 out of memory.
 */
int merge_set_report(struct merge *m, const char *link);
/* "rank N" (or "pid N" when it has no rank) of the process added last, into buf. */
const char *merge_last_label(const struct merge *m, char *buf, size_t n);
/* The terminal summary: the processes by rank (or how many), then the top merged findings. */
void merge_summary(const struct merge *m, FILE *out, int top);
/*
 * The document of a report over several databases: {"processes": [...],
 * "merged_findings": [...]} (docs/report-json.md), the processes by rank
 * (then pid).  New reference.
 */
json_t *merge_json(const struct merge *m);

#endif
