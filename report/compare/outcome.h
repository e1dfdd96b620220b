/*
 * outcome.h - the results check of 'mapprof diff': did a change keep what
 * the program computed?  Knows nothing of the program: it compares the
 * exit status and, for every variable data came back to the host in, the
 * content hash of its last return (report/findings/results.h).
 *
 * Variables are matched between the runs by name (the map clause's, or the
 * ELF symbol's; several ranges of one name, as chunks that nowait regions
 * return in no fixed order, by equal final content first, then in order of
 * their first transfer), then by name without its array section ('a[0:n]'
 * and 'a'), and a range with no name by the function of its last transfer,
 * its content, then its order there.  A variable one run returned and the other only sent is
 * compared with the content the other last sent (the device gave back what
 * it got: a map(tofrom:) turned map(to:)).  A variable one run returned and
 * the other never moved cannot be compared: it is named ("not compared"),
 * and the check says identical when every variable compared matches (a fix
 * that leaves a pointer-swapped grid on the device never returns it).
 */
#ifndef MAPPROF_REPORT_OUTCOME_H
#define MAPPROF_REPORT_OUTCOME_H

#include <jansson.h>

struct analysis;
struct outcome;

/*
 * One run's results, named through a->attr (NULL: no names, matching by
 * order only).  Copies what it needs.  NULL when out of memory.
 */
struct outcome *outcome_of(const struct analysis *a);
void outcome_free(struct outcome *o);

/*
 * The check, as the "results" object of docs/report-json.md ('mapprof
 * diff'): "status" ("identical", "differ", "not_comparable"), "summary"
 * (one line starting "results:"), "compared", "not_compared", "exit_status" and
 * "differences".  Marks the matches in both.  New reference, NULL when
 * out of memory.
 */
json_t *outcome_compare(struct outcome *before, struct outcome *after);

#endif
