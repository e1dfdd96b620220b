/*
 * repeat.h - several recordings of the same program, one prediction with
 * its spread ('mapprof report --same-program A.db B.db...', 'mapprof run
 * --repeat N'; docs/usage.md).
 *
 * The report is that of the first database; each of its findings is looked
 * up in the others by fingerprint (the same binary: module-relative code
 * addresses, report/findings/findings.h), and its savings, the total
 * savings and the predicted speedup are given as the median over the
 * recordings with the interval min..max and the spread, the largest
 * distance from the median in percent of it.  A finding a recording does
 * not have counts 0 there and says in how many it was seen.
 */
#ifndef MAPPROF_REPORT_REPEAT_H
#define MAPPROF_REPORT_REPEAT_H

#include <jansson.h>

struct analysis;

/*
 * Analyse the databases 'paths[0..n)' (recordings of the program 'a' was
 * recorded from, a's own at 'a_path') and add the combination to doc as
 * "repeat" (docs/report-json.md).  0, or -1 with *err (doc unchanged).
 */
int repeat_add(json_t *doc, const struct analysis *a, const char *a_path,
	       const char *const *paths, int n, char **err);

/* The terminal lines of doc's "repeat" (malloc'ed); NULL when it has none. */
char *repeat_text(const json_t *doc);

#endif
