/*
 * summary.h - the terminal summary of a report, in the spirit of
 * 'nsys analyze': one line per kind (findings, occurrences, savings), the
 * total and the predicted speedup, then the top findings by savings with
 * what, where, how much and one sentence of advice.
 */
#ifndef MAPPROF_REPORT_SUMMARY_H
#define MAPPROF_REPORT_SUMMARY_H

#include <stdio.h>

#include "report/findings/analysis.h"

/*
 * Print the summary of 'a' to 'out', listing at most 'top' findings.  Names
 * and paths from the database are escaped whole (lib/termesc.h); give it a
 * stream that escapes the rest too (lib/outfile.h, OUTFILE_TEXT): plans
 * quote source text.
 */
void summary_print(FILE *out, const struct analysis *a, int top);



#endif
