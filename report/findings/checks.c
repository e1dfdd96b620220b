/*
 * checks.c - grouping the occurrences 'record --check' found (checks.h).
 *
 * No false positive is known to come from the grouping itself; those of
 * the checks are in docs/checks.md ("Known false positives").
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/read/checks.h"
#include "report/findings/checks.h"

static const char *const names[CHECK_KIND_COUNT] = { "never_written", "lost_host_write", "race" };
static const char *const rules[CHECK_KIND_COUNT] = {
	"mapprof.check.never-written", "mapprof.check.lost-host-write", "mapprof.check.race" };
static const char *const titles[CHECK_KIND_COUNT] = {
	"Copy back of bytes the device never wrote", "Host writes lost to a copy back",
	"Host writes racing a copy in flight" };

const char *check_kind_name(enum check_kind kind)
{
	return kind < CHECK_KIND_COUNT ? names[kind] : "unknown";
}

const char *check_rule_id(enum check_kind kind)
{
	return kind < CHECK_KIND_COUNT ? rules[kind] : "mapprof.check.unknown";
}

const char *check_title(enum check_kind kind)
{
	return kind < CHECK_KIND_COUNT ? titles[kind] : "Unknown check";
}

static int kind_of(const char *name)
{
	for (int k = 0; k < CHECK_KIND_COUNT; k++)
		if (!strcmp(name, names[k]))
			return k;
	return -1;
}

/* OMPT's to-device kinds (2, and 18 async). */
static int op_to_device(int op_kind)
{
	return op_kind == 2 || op_kind == 18;
}

static int same_group(const struct check_finding *g, int kind, const struct check_row *r)
{
	return (int)g->kind == kind && g->codeptr == r->codeptr && g->map_index == r->map_index &&
	       g->device == r->device && g->to_device == op_to_device(r->op_kind) &&
	       (r->map_index >= 0 || g->host_addr == r->host_addr);
}

static int add_skipped(struct check_findings *c, const struct check_row *r)
{
	char **v = realloc(c->skipped, (c->nskipped + 1) * sizeof(*v));

	if (!v)
		return -1;
	c->skipped = v;
	if (asprintf(&v[c->nskipped], "device %d: %s", r->device, r->note ? r->note : "skipped") < 0)
		return -1;
	c->nskipped++;
	return 0;
}

static int add_row(struct check_findings *c, const struct check_row *r, size_t *cap)
{
	int kind = kind_of(r->kind);
	struct check_finding *g;

	if (!strcmp(r->kind, "skipped"))
		return add_skipped(c, r);
	if (kind < 0)
		return 0;  /* a kind this version does not know */
	/* An array and a linear scan: check findings are few (a bug repeats at one place). */
	for (size_t i = 0; i < c->n; i++) {
		if (same_group(&c->v[i], kind, r)) {
			c->v[i].occurrences++;
			c->v[i].total_bytes += r->bytes;
			return 0;
		}
	}
	if (c->n == *cap) {
		size_t ncap = *cap ? 2 * *cap : 8;
		struct check_finding *v = realloc(c->v, ncap * sizeof(*v));
		if (!v)
			return -1;
		c->v = v;
		*cap = ncap;
	}
	g = &c->v[c->n++];
	memset(g, 0, sizeof(*g));
	g->id = (int)c->n;
	g->kind = (enum check_kind)kind;
	g->device = r->device;
	g->to_device = op_to_device(r->op_kind);
	g->codeptr = r->codeptr;
	g->map_index = r->map_index;
	g->target_kind = r->target_kind > 8 ? r->target_kind - 8 : r->target_kind;
	g->seq = r->seq;
	g->host_addr = r->host_addr;
	g->op_bytes = r->op_bytes;
	g->first = r->first;
	g->end = r->end;
	g->bytes = r->bytes;
	g->occurrences = 1;
	g->total_bytes = r->bytes;
	return 0;
}

int checks_load(struct db *db, struct check_findings *c, char **err)
{
	struct check_row *rows;
	size_t n, cap = 0;

	memset(c, 0, sizeof(*c));
	if (checks_read(db, &rows, &n, &c->ran, err) < 0)
		return -1;
	for (size_t i = 0; i < n; i++) {
		if (add_row(c, &rows[i], &cap) < 0) {
			check_rows_free(rows, n);
			if (err)
				*err = strdup("out of memory");
			return -1;
		}
	}
	check_rows_free(rows, n);
	return 0;
}

void checks_release(struct check_findings *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nskipped; i++)
		free(c->skipped[i]);
	free(c->skipped);
	free(c->v);
	memset(c, 0, sizeof(*c));
}

char *check_message(const struct check_finding *c, const char *var)
{
	char *s = NULL;
	const char *v = var ? var : "the data";
	unsigned long long n = (unsigned long long)c->bytes, lo = (unsigned long long)c->first,
			   hi = (unsigned long long)c->end;
	int rc = -1;

	switch (c->kind) {
	case CHECK_NEVER_WRITTEN:
		rc = asprintf(&s, "the copy back from device %d brought %llu byte%s of %s (bytes %llu-%llu of "
			      "its %llu) that nothing wrote on the device since its buffer was allocated: "
			      "uninitialised device memory overwrote the host's data", c->device, n,
			      n == 1 ? "" : "s", v, lo, hi - 1, (unsigned long long)c->op_bytes);
		break;
	case CHECK_LOST_HOST_WRITE:
		rc = asprintf(&s, "the host changed %llu byte%s of %s (bytes %llu-%llu of its %llu) after their "
			      "last transfer to or from device %d, and this copy back overwrote them: the "
			      "device never saw the change", n, n == 1 ? "" : "s", v, lo, hi - 1,
			      (unsigned long long)c->op_bytes, c->device);
		break;
	case CHECK_RACE:
		if (c->to_device)
			rc = asprintf(&s, "the host wrote %llu byte%s of %s (bytes %llu-%llu of its %llu) while "
				      "a nowait copy of it to device %d was in flight, before its task "
				      "completed: the device may have received either value", n,
				      n == 1 ? "" : "s", v, lo, hi - 1, (unsigned long long)c->op_bytes,
				      c->device);
		else
			rc = asprintf(&s, "the host wrote %llu byte%s of %s (bytes %llu-%llu of its %llu), the "
				      "destination of a nowait copy back from device %d, before its task "
				      "completed: the copy and the host's writes race", n,
				      n == 1 ? "" : "s", v, lo, hi - 1, (unsigned long long)c->op_bytes,
				      c->device);
		break;
	case CHECK_KIND_COUNT:
		break;
	}
	return rc < 0 ? NULL : s;
}

const char *check_fix(const struct check_finding *c)
{
	switch (c->kind) {
	case CHECK_NEVER_WRITTEN:
		if (c->target_kind == 4)
			return "copy back only the range the device computes, or write every byte of it "
			       "on the device before this 'target update from'";
		return "map the data 'tofrom' (or send it with 'to' first) so that the device starts "
		       "from the host's values, write every byte in the kernel, or map 'from' only "
		       "the section the device writes";
	case CHECK_LOST_HOST_WRITE:
		return "send the host's change to the device ('#pragma omp target update to(...)') "
		       "right after the host writes it, or make the host write after this copy back";
	case CHECK_RACE:
		return "make the host wait for the copy before it touches the data: '#pragma omp "
		       "taskwait', or write it in a task with a 'depend' clause on the same data";
	case CHECK_KIND_COUNT:
		break;
	}
	return "";
}
