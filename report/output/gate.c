/*
 * gate.c - '--fail-on' thresholds parsed and checked against the findings.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/output/gate.h"
#include "lib/units.h"

static const struct {
	const char *name;
	int64_t ns;
} units[] = {
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000 },
};

static int parse_threshold(const char *t, struct gate *g, const char **why)
{
	char *end;
	double v;

	errno = 0;
	if (*t < '0' || *t > '9') {
		*why = "the threshold must be a number, a percentage (5%) or a time (10ms)";
		return -1;
	}
	v = strtod(t, &end);
	if (errno || !isfinite(v) || v < 0) {
		*why = "the threshold is out of range";
		return -1;
	}
	if (!*end) {
		unsigned long long n;
		if (strchr(t, '.') || strchr(t, 'e') || strchr(t, 'E')) {
			*why = "an occurrence count must be a whole number";
			return -1;
		}
		errno = 0;
		n = strtoull(t, &end, 10);
		if (errno || *end) {
			*why = "the threshold is out of range";
			return -1;
		}
		g->threshold = GATE_OCCURRENCES;
		g->count = n;
		return 0;
	}
	if (!strcmp(end, "%")) {
		if (v > 100) {
			*why = "a percentage of the run is at most 100%";
			return -1;
		}
		g->threshold = GATE_PERCENT;
		g->percent = v;
		return 0;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcmp(end, units[i].name))
			continue;
		if (v * (double)units[i].ns >= 9.2e18) {
			*why = "the threshold is out of range";
			return -1;
		}
		g->threshold = GATE_TIME;
		g->ns = (int64_t)llround(v * (double)units[i].ns);
		return 0;
	}
	*why = "unknown unit (use %, ns, us, ms or s)";
	return -1;
}

int gate_parse(const char *spec, struct gate *g, const char **why)
{
	const char *colon = strchr(spec, ':');
	size_t n = colon ? (size_t)(colon - spec) : strlen(spec);
	int savings = 0;

	memset(g, 0, sizeof(*g));
	g->spec = spec;
	g->kind = -2;
	if (n == 3 && !strncmp(spec, "any", 3)) {
		g->kind = -1;
	} else if (n == 5 && !strncmp(spec, "check", 5)) {
		g->kind = GATE_CHECK;
	} else if (n == 7 && !strncmp(spec, "savings", 7)) {
		g->kind = -1;
		savings = 1;
	} else {
		for (int k = 0; k < FINDING_KIND_COUNT; k++) {
			const char *name = finding_kind_name(k);
			if (strlen(name) == n && !strncmp(spec, name, n))
				g->kind = k;
		}
	}
	if (g->kind == -2) {
		*why = "unknown kind (use any, savings, duplicate_transfer, round_trip, "
		       "repeated_alloc, unused_alloc, unused_transfer or check)";
		return -1;
	}
	if (!colon) {
		/* Any occurrence; for 'savings', any saving at all. */
		g->threshold = savings ? GATE_TIME : GATE_OCCURRENCES;
		g->ns = savings ? 1 : 0;
		return 0;
	}
	if (parse_threshold(colon + 1, g, why) < 0)
		return -1;
	if (g->kind == GATE_CHECK && g->threshold != GATE_OCCURRENCES) {
		*why = "'check' takes a number of occurrences (check:0), not a saving";
		return -1;
	}
	if (savings && g->threshold == GATE_OCCURRENCES) {
		*why = "'savings' takes a percentage (savings:5%) or a time (savings:10ms)";
		return -1;
	}
	return 0;
}

int gate_check(const struct gate *g, const struct findings *f, char **msg)
{
	const char *what = g->kind < 0 ? "" : finding_kind_name(g->kind);
	const char *sep = g->kind < 0 ? "" : " ";
	uint64_t occ = 0;
	int64_t savings;
	char t[32];
	int rc;

	if (g->kind < 0) {
		for (int k = 0; k < FINDING_KIND_COUNT; k++)
			occ += f->kinds[k].occurrences;
		savings = f->savings_ns;
	} else {
		occ = f->kinds[g->kind].occurrences;
		savings = f->kinds[g->kind].savings_ns;
	}
	*msg = NULL;
	if (g->kind == GATE_CHECK)
		return 0;  /* gate_check_checks()'s */
	switch (g->threshold) {
	case GATE_OCCURRENCES:
		if (occ <= g->count)
			return 0;
		rc = asprintf(msg, "%llu %s%soccurrence%s", (unsigned long long)occ, what, sep,
			      occ == 1 ? "" : "s");
		break;
	case GATE_PERCENT: {
		double pct = f->duration_ns > 0 ? 100.0 * (double)savings / (double)f->duration_ns : 0;
		if (savings <= 0 || pct < g->percent)
			return 0;
		rc = asprintf(msg, "predicted %s%ssavings %.3g%% of the run", what, sep, pct);
		break;
	}
	default:
		if (savings <= 0 || savings < g->ns)
			return 0;
		format_ns(t, sizeof(t), savings);
		rc = asprintf(msg, "predicted %s%ssavings %s", what, sep, t);
		break;
	}
	if (rc < 0) {
		*msg = NULL;
		return -1;
	}
	return 1;
}

int gate_check_checks(const struct gate *g, const struct check_findings *c, char **msg)
{
	uint64_t occ = 0;

	*msg = NULL;
	for (size_t i = 0; i < c->n; i++)
		occ += c->v[i].occurrences;
	if (occ <= g->count)
		return 0;
	if (asprintf(msg, "%llu check occurrence%s (mapping bugs)", (unsigned long long)occ,
		     occ == 1 ? "" : "s") < 0) {
		*msg = NULL;
		return -1;
	}
	return 1;
}
