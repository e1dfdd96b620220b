/*
 * sarif.h - the findings as a SARIF 2.1.0 log for code review (GitHub code
 * scanning and other SARIF viewers): docs/sarif.md.
 *
 * Built from the report.json document (report/output/json.h): one rule per pattern
 * (ruleId = the finding's kind), one result per finding at its first
 * location's file and line, the finding's other directives as
 * relatedLocations, its fingerprint as partialFingerprints, its level from
 * its savings' share of the run (SARIF_ERROR_PERCENT, SARIF_WARNING_PERCENT).
 *
 * Paths: with a source root, files under it are URIs relative to it (uriBaseId
 * "SRCROOT", given in run.originalUriBaseIds); without one, or for files
 * outside it, absolute file:// URIs.  A file the compiler recorded relative,
 * with no compilation directory, stays relative as recorded.
 */
#ifndef MAPPROF_REPORT_SARIF_H
#define MAPPROF_REPORT_SARIF_H

#include <jansson.h>

struct db;

#define SARIF_ERROR_PERCENT 5.0    /* savings >= 5% of the run: "error" */
#define SARIF_WARNING_PERCENT 1.0  /* >= 1%: "warning"; less: "note" */
#define SARIF_BASE_ID "SRCROOT"

/*
 * The SARIF log of 'doc' (a report_json() document).  'db' gives each
 * location's source file (db/store/source_path.h); 'source_root' is a directory
 * or NULL.  A new reference the caller owns, or NULL with *err set
 * (malloc'ed): out of memory, or a source root that does not exist.
 */
json_t *report_sarif(json_t *doc, struct db *db, const char *source_root, char **err);

/*
 * One log from the logs of several processes' databases (logs[i] from the
 * database of the process labels[i], "rank 3"): the first log's tool and
 * run, and one result per fingerprint, in the order first met, with
 * properties.processes naming every process it was found in and its message
 * saying how many.  A new reference, or NULL (out of memory).
 */
json_t *report_sarif_merge(json_t *const *logs, const char *const *labels, int n);

/* Write 'log' to 'path' ("-": stdout) as report_json_write() does.  0, or -1 with *err. */
int report_sarif_write(json_t *log, const char *path, char **err);

#endif
