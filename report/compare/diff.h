/*
 * diff.h - before and after: the findings of runs of a program before a
 * change matched with those of runs after it, and the measured change in
 * time and bytes set against the savings the removed findings predicted
 * ('mapprof diff', 'mapprof report --baseline'; docs/usage.md).
 *
 * Matching.  A finding's stored fingerprint (report/findings/findings.c) hashes code
 * addresses (module + offset): any edit of the program moves them, so it
 * cannot match across a fix.  diff keys a finding by what survives an edit
 * that shifts lines: its kind and flavour, its variable, the function of
 * its key locations (both legs of a round trip, the allocation of an
 * allocation finding, the transfer else), the devices (the host as "host"),
 * and the source text of the directive line at each key location, blanks
 * squeezed.  Two passes:
 *   1. "exact": equal keys;
 *   2. "loose": what is left, on the key without the directive text (the
 *      directive was edited but the pattern stayed).
 * Among several candidates: the same file (by base name) first, then the
 * nearest line.  The file is no part of the key, so that a renamed copy of
 * the program (app_fixed.c) still matches.
 * Limits: two findings of one kind on one variable at directives with the
 * same text in the same function are told apart by line distance only; a
 * renamed variable or function, or a moved file, makes a removed and a new
 * finding; without debug information or sources the key holds module-level
 * places only and a changed binary matches nothing.
 *
 * Several runs per side: a side's findings are those of its first run;
 * each one's savings, and the totals, are medians over the side's runs
 * (matched within a side by fingerprint: the same binary).  Predicted
 * savings of the removed findings: their operations priced (findings.h, "Savings")
 * in each before-run (an operation in two findings counts once), median
 * over runs.  Measured: median(before) - median(after), of wall time and of
 * transfer + allocation busy time, with the interval [min(before) -
 * max(after), max(before) - min(after)].
 */
#ifndef MAPPROF_REPORT_DIFF_H
#define MAPPROF_REPORT_DIFF_H

#include <jansson.h>
#include <stdio.h>

struct analysis;
struct diff;

enum diff_side { DIFF_BEFORE, DIFF_AFTER };

struct diff *diff_new(void);
void diff_free(struct diff *d);

/*
 * Analyse the database at 'path' as 'mapprof report' would (its findings
 * and source attribution stored in it) and add it to a side.  0, or -1
 * with *err (malloc'ed); *problem says why a database was refused.
 */
int diff_add(struct diff *d, enum diff_side side, const char *path, int no_source, char **err);

/*
 * Add a run analysed already (a->attr open: 'mapprof report --baseline').
 * Copies what it needs.  0, or -1 (out of memory, *err set).
 */
int diff_add_analysis(struct diff *d, enum diff_side side, const char *path,
		      const struct analysis *a, char **err);

/* Match and compute.  Call once, after the last add.  0, or -1 (*err). */
int diff_finish(struct diff *d, char **err);

/* The terminal summary. */
void diff_print(const struct diff *d, FILE *out);

/* The document (docs/report-json.md, "mapprof diff").  New reference, NULL when out of memory. */
json_t *diff_json(const struct diff *d);

/*
 * 'mapprof report --baseline BEFORE.db': the diff of BEFORE against the run
 * 'a' (analysed already, attribution open) as doc's "baseline" object.
 * 0, or -1 with *err (doc unchanged).
 */
int diff_baseline(json_t *doc, const char *before_path, const char *after_path,
		  const struct analysis *a, int no_source, char **err);

#endif
