/*
 * unreported.h - what the runtime of a run did not report, said in one
 * place: the terminal summary's "not reported by the runtime" line,
 * report.json's summary.not_reported and the page's notice read the same
 * items.  Only the OpenACC Profiling Interface has gaps to say today
 * (docs/openacc.md): libgomp gives no source position or variable name,
 * and on host fallback no data event at all.
 */
#ifndef MAPPROF_REPORT_UNREPORTED_H
#define MAPPROF_REPORT_UNREPORTED_H

#include <stddef.h>

#include "report/findings/analysis.h"

#define UNREPORTED_MAX 6
#define UNREPORTED_TEXT 256

struct unreported {
	const char *what[UNREPORTED_MAX];        /* a stable key: "transfers", "source_positions", ... */
	char text[UNREPORTED_MAX][UNREPORTED_TEXT];
	int n;
};

/* The items of run 'a' into *u; the number of them (0: the runtime reported all we use). */
int unreported_items(const struct analysis *a, struct unreported *u);

/* "Not reported by the OpenACC runtime (LIB): ITEM; ITEM." into buf; 1, or 0 when nothing is missing. */
int unreported_text(const struct analysis *a, char *buf, size_t size);

#endif
