/*
 * summary.h - the terminal summary of a report, in the spirit of
 * 'nsys analyze': one line per kind (findings, occurrences, savings), the
 * total and the predicted speedup, then the top findings by savings with
 * what, where, how much and one sentence of advice.
 */
#ifndef MAPPROF_REPORT_SUMMARY_H
#define MAPPROF_REPORT_SUMMARY_H

#include <stdio.h>

#include "report/analysis.h"

/* Print the summary of 'a' to 'out', listing at most 'top' findings. */
void summary_print(FILE *out, const struct analysis *a, int top);



#endif
