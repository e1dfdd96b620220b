/*
 * gate.h - '--fail-on KIND[:THRESHOLD]': when a run's findings should fail
 * a CI step (docs/usage.md, "Failing a CI step").
 *
 * A gate names what it counts and, optionally, a threshold:
 *
 *   any | savings | duplicate_transfer | round_trip | repeated_alloc |
 *   unused_alloc | unused_transfer | check
 *
 *   (none)   trips on any occurrence (savings: any predicted saving)
 *   N        trips on more than N occurrences (N of them are tolerated)
 *   P%       trips when the predicted savings are at least P% of the run
 *   T<unit>  trips when the predicted savings are at least T (ns, us, ms, s)
 *
 * 'any' and 'savings' count every kind (each operation saved once, as the
 * summary does); a kind counts only its own findings.  'check' counts the
 * occurrences of the findings of 'record --check' (report/findings/checks.h),
 * which 'any' does not: it takes a count only.  Pure: parsing and
 * checking read nothing but their arguments.
 */
#ifndef MAPPROF_REPORT_GATE_H
#define MAPPROF_REPORT_GATE_H

#include <stdint.h>

#include "report/findings/checks.h"
#include "report/findings/findings.h"

enum gate_threshold {
	GATE_OCCURRENCES,   /* more than 'count' occurrences */
	GATE_PERCENT,       /* savings >= 'percent' % of the run's duration */
	GATE_TIME,          /* savings >= 'ns' */
};

#define GATE_CHECK (-3)

struct gate {
	const char *spec;   /* as given (borrowed: an argv string) */
	int kind;           /* enum finding_kind, -1 for all kinds, GATE_CHECK for 'check' */
	enum gate_threshold threshold;
	uint64_t count;
	double percent;
	int64_t ns;
};

/* Parse 'spec' into *g.  0, or -1 with *why pointing at a static reason. */
int gate_parse(const char *spec, struct gate *g, const char **why);

/*
 * Whether 'f' (finished: findings_finish() done) trips 'g'.  Returns 1 and
 * a malloc'ed sentence saying what was over the threshold in *msg ("predicted
 * savings 12.3% of the run"), 0 when it does not trip, -1 out of memory.
 */
int gate_check(const struct gate *g, const struct findings *f, char **msg);
/* The same for a 'check' gate, over the check findings 'c'. */
int gate_check_checks(const struct gate *g, const struct check_findings *c, char **msg);

#endif
