/*
 * json.h - report.json: the findings of one run as a JSON document
 * (docs/report-json.md, schema docs/report-json.schema.json).
 *
 * Deterministic: the same database gives the same bytes (keys sorted when
 * written, fixed precision, no wall-clock times, hosts or absolute paths:
 * modules are named by their file name).  Code and data addresses are hex
 * strings (64-bit values do not survive JSON numbers in most readers); the
 * "address" fields are the only ones that change with ASLR.
 */
#ifndef MAPPROF_REPORT_JSON_H
#define MAPPROF_REPORT_JSON_H

#include <jansson.h>

#include "report/findings/analysis.h"

#define REPORT_JSON_FORMAT "mapprof-report"
#define REPORT_JSON_VERSION 1
/* At most this many event seqs per finding in "events" (all are in the database). */
#define REPORT_JSON_MAX_EVENTS FINDING_MAX_EVENTS

/* The document; NULL when out of memory.  The caller owns (decrefs) it. */
json_t *report_json(const struct analysis *a);

/*
 * A complete run whose kernels ran while its map clauses copied and
 * allocated nothing (unified shared memory...): writes into 'buf' the
 * sentence that says so and why mapping findings do not apply ("No data
 * was mapped: 3 kernels ran, ..."), the same in the terminal, report.json
 * (summary.nothing_mapped) and the page, and returns 1; 0 (buf untouched)
 * when there are findings or something was mapped.
 */
int report_nothing_mapped(const struct analysis *a, char *buf, size_t size);
/* Write 'doc' to 'path' ("-" = stdout) as lib/outfile.h says (a regular file
 * through a temporary file and a rename, a device or FIFO in place);
 * oflags: OUTFILE_NOFOLLOW for a default path.  0, or -1 with *err, which
 * names the path and the first write error (strerror). */
int report_json_write(json_t *doc, const char *path, unsigned oflags, char **err);

/* The same for any JSON document (the SARIF log...) with Jansson's dump
 * 'flags'; 'what' names it in the message for standard output. */
int report_json_dump(json_t *doc, const char *path, unsigned oflags, size_t flags, const char *what,
		     char **err);


#endif
