/*
 * html.h - the self-contained report.html.
 *
 * One file that a developer opens from disk, with no network: the template
 * (templates/report.html), the stylesheet and the script (static/) are
 * embedded into the binary at build time and inlined into the page, and the
 * report's data goes into a <script type="application/json"> block that the
 * script reads with JSON.parse and renders with textContent only.
 *
 * Safety: every string in the data comes from the profiled program (paths,
 * arguments, variable names), so the JSON is written with '<', '>', '&',
 * U+2028 and U+2029 escaped as \uXXXX: no such string can close the block or
 * form markup.  A Content-Security-Policy meta tag forbids every network load
 * and allows only the inlined script and style, by their SHA-256 hashes.
 */
#ifndef MAPPROF_REPORT_HTML_H
#define MAPPROF_REPORT_HTML_H

#include <jansson.h>

struct db;

/*
 * Write the page for 'report' (the report.json document; borrowed, not
 * modified) to 'path' ("-" = stdout).  When 'db' is not NULL the page also
 * gets the timeline of that database (db/read/timeline.h), with the events listed
 * in the findings' "events" arrays marked for highlighting.  Written as
 * lib/outfile.h says: a regular file through a temporary file renamed over
 * it, so a failure leaves no half page; a device or FIFO in place (oflags:
 * OUTFILE_NOFOLLOW for a default path).  The message names the path and the
 * first write error.
 * Returns 0, or -1 with *err set to a malloc'ed message (when err).
 */
int html_write(const char *path, unsigned oflags, json_t *report, struct db *db, char **err);

struct timeline_span;

/*
 * html_write() with the timeline's span known (db/read/timeline.h; NULL: the
 * timeline reads it) and the timeline begun already (timeline_job_start();
 * NULL: built here): the job is finished with the findings' events as its
 * marks, and freed, whatever becomes of the page.
 */
struct timeline_job;
int html_write_job(const char *path, unsigned oflags, json_t *report, struct db *db,
		   const struct timeline_span *span, struct timeline_job *job, char **err);

#endif
