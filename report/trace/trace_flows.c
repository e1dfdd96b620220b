/*
 * trace_flows.c - the arrows at each event: findings' occurrences and
 * contents sent to several devices.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/read/events.h"
#include "lib/grow.h"
#include "report/trace/trace_flows.h"

/* The first copies are forgotten past this many contents: an arrow may then be missed, never wrong. */
#define COPY_CACHE_MAX 16384
/* Its table: twice as many slots, so that a probe ends soon. */
#define COPY_SLOTS (2 * COPY_CACHE_MAX)

/* A finding's first occurrence: where its flows start. */
struct anchor {
	int have;
	int pid, tid;
	int64_t begin_ns;
	int64_t next_occurrence;   /* flows go to occurrences from this one on */
	uint64_t flows;
	char *name;                /* the arrows' name: kind, variable, id */
};

/*
 * Where a content (hash, bytes) was first sent to a device: a later copy
 * of it to another device gets an arrow from there.  No finding covers
 * these (a duplicate is one device receiving the same content again), yet
 * the same input sent to every device is what a multi-device run does, and
 * what a reader of the timeline wants to see.
 */
struct first_copy {
	int pid, tid;
	int64_t begin_ns;
	uint64_t devices;          /* bit d: device d (d < 64) received it */
	uint64_t id;               /* its flow id in a .pftrace */
};

/*
 * A slot of the first copies' table (open addressing): in use when its
 * 'gen' is the table's, so that forgetting them all is one increment, not
 * a new map grown again from nothing every 16,384 contents.
 */
struct copy_slot {
	uint64_t hash, bytes;
	uint32_t gen;
	struct first_copy c;
};

static int oom(char **err)
{
	if (err)
		*err = strdup("out of memory");
	return -1;
}

int trace_flows_init(struct trace_flows *fl, struct db *db, enum finding_scan_mode mode,
		     const struct run_info *run, const struct trace_options *opt, struct trace_stats *st,
		     char **err)
{
	int r, max_finding = 0;

	*fl = (struct trace_flows){ .format = opt->format, .st = st,
				    .windowed = opt->from_ns > INT64_MIN || opt->to_ns < INT64_MAX,
				    .has_host_device = run->has_host_device, .host_device = run->host_device,
				    .copies_gen = 1 };
	for (size_t i = 0; i < run->ndevices; i++)
		if (!(run->has_host_device && run->devices[i].num == run->host_device))
			fl->several_devices += 1;
	fl->several_devices = fl->several_devices > 1;
	fl->rows = finding_scan_open(db, mode, &max_finding, err);
	if (!fl->rows && err && *err)
		return -1;
	/* Reported, and nothing found: no arrows to draw, and no hint to give. */
	st->has_findings = max_finding >= 0;
	if (!fl->rows)
		return 0;
	if (!(fl->anchors = calloc((size_t)max_finding, sizeof(*fl->anchors))))
		return oom(err);
	fl->nanchors = max_finding;
	st->has_findings = 1;
	if ((r = finding_scan_next(fl->rows, &fl->row, err)) < 0)
		return r == FINDING_SCAN_RESTART ? r : -1;
	fl->row_ok = r == 1;
	return 0;
}

/* "round_trip of a (#3)": what a finding's arrows are called (malloc'ed, or NULL). */
static char *anchor_name(const char *kind, const char *var, int finding)
{
	char *s = NULL;

	if (asprintf(&s, "%s%s%s (#%d)", *kind ? kind : "finding", var ? " of " : "", var ? var : "",
		     finding) < 0)
		s = NULL;
	return s;
}

/* Room for one more arrow at this event; NULL out of memory. */
static struct flow_ref *add_flow(struct trace_flows *fl)
{
	if (grow_one((void **)&fl->flows, &fl->capflows, fl->nflows, sizeof(*fl->flows)) < 0)
		return NULL;
	fl->flows[fl->nflows] = (struct flow_ref){ 0 };
	return &fl->flows[fl->nflows++];
}

/*
 * Arrows of the finding operations of this event (same begin_ns and seq).
 * A finding's arrows start at its first occurrence (with a window: its
 * first one in the window).
 */
static int finding_flows(struct trace_flows *fl, const struct event *ev, int pid, int tid, const char *var,
			 char **err)
{
	struct flow_ref *f;
	int rc;

	while (fl->row_ok && (fl->row.begin_ns < ev->begin_ns ||
			      (fl->row.begin_ns == ev->begin_ns && fl->row.seq <= ev->seq))) {
		if (fl->row.seq == ev->seq && fl->row.finding >= 1 && fl->row.finding <= fl->nanchors) {
			struct anchor *a = &fl->anchors[fl->row.finding - 1];
			if (!a->have && (fl->row.occurrence == 0 || fl->windowed)) {
				*a = (struct anchor){ 1, pid, tid, ev->begin_ns, fl->row.occurrence + 1, 0,
						      anchor_name(finding_scan_kind(fl->rows, fl->row.finding), var,
								  fl->row.finding) };
				if (!a->name || !(f = add_flow(fl)))
					return oom(err);
				*f = (struct flow_ref){ .id = (uint64_t)fl->row.finding, .cat = "finding" };
			} else if (a->have && fl->row.occurrence >= a->next_occurrence && a->flows < TRACE_MAX_FLOWS) {
				if (!(f = add_flow(fl)))
					return oom(err);
				*f = (struct flow_ref){ (uint64_t)fl->row.finding, 1, "finding", a->name, 0,
							a->pid, a->tid, a->begin_ns };
				a->flows++;
				a->next_occurrence = fl->row.occurrence + 1;
				fl->st->flows++;
			}
		}
		rc = finding_scan_next(fl->rows, &fl->row, err);
		if (rc < 0)
			return rc == FINDING_SCAN_RESTART ? rc : -1;
		fl->row_ok = rc == 1;
	}
	return 0;
}

/*
 * The first copies' slot of (hash, bytes), taken when new (*created): as
 * a map that is emptied when it holds COPY_CACHE_MAX of them.  NULL out of
 * memory.
 */
static struct first_copy *copy_slot(struct trace_flows *fl, uint64_t hash, uint64_t bytes, int *created)
{
	uint64_t h = (hash ^ bytes * 0x9e3779b97f4a7c15ULL) * 0xff51afd7ed558ccdULL;

	if (!fl->copies && !(fl->copies = calloc(COPY_SLOTS, sizeof(*fl->copies))))
		return NULL;
	if (fl->ncopies >= COPY_CACHE_MAX) {
		fl->copies_gen++;
		fl->ncopies = 0;
	}
	h ^= h >> 32;
	/* No slot is ever freed within a generation: a probe ends at the key or at a free slot. */
	for (size_t i = h & (COPY_SLOTS - 1);; i = (i + 1) & (COPY_SLOTS - 1)) {
		struct copy_slot *s = &fl->copies[i];
		if (s->gen != fl->copies_gen) {
			*s = (struct copy_slot){ hash, bytes, fl->copies_gen, { 0 } };
			fl->ncopies++;
			*created = 1;
			return &s->c;
		}
		if (s->hash == hash && s->bytes == bytes) {
			*created = 0;
			return &s->c;
		}
	}
}

/*
 * The arrow from where this transfer's content first went to a device, when
 * that was another device and this one has not received it yet.  -1 out of
 * memory.
 */
static int copy_flow(struct trace_flows *fl, const struct event *ev, int device, int pid, int tid,
		     const char *var)
{
	uint64_t bit;
	struct first_copy *c;
	struct flow_ref *f;
	int created;

	if (!fl->several_devices || ev->kind != EV_TO_DEVICE || !ev->has_hash || !ev->bytes || device < 0 ||
	    device >= 64 || (fl->has_host_device && device == fl->host_device))
		return 0;
	c = copy_slot(fl, ev->hash, ev->bytes, &created);
	if (!c)
		return -1;
	bit = (uint64_t)1 << device;
	if (created) {
		*c = (struct first_copy){ pid, tid, ev->begin_ns, bit, (uint64_t)fl->nanchors + ++fl->content_ids };
		if (fl->format == TRACE_PFTRACE) {
			if (!(f = add_flow(fl)))
				return -1;
			*f = (struct flow_ref){ .id = c->id, .cat = "same_content" };
		}
		return 0;
	}
	if (c->devices & bit)
		return 0;
	c->devices |= bit;
	if (!(f = add_flow(fl)))
		return -1;
	*f = (struct flow_ref){ c->id, 1, "same_content", NULL, 0, c->pid, c->tid, c->begin_ns };
	if (fl->format == TRACE_JSON) {
		char *name = NULL;
		if (asprintf(&name, "same content%s%s, to device %d", var ? " of " : "", var ? var : "",
			     device) < 0)
			return -1;
		f->name = name;
		f->owned = 1;
	}
	fl->st->content_flows++;
	return 0;
}

int trace_flows_event(struct trace_flows *fl, const struct event *ev, int device, int pid, int tid,
		      const char *var, char **err)
{
	int rc;

	fl->nflows = 0;
	if (copy_flow(fl, ev, device, pid, tid, var) < 0)
		return oom(err);
	if (fl->rows && (rc = finding_flows(fl, ev, pid, tid, var, err)) < 0)
		return rc;
	return 0;
}

void trace_flows_clear(struct trace_flows *fl)
{
	for (size_t i = 0; i < fl->nflows; i++)
		if (fl->flows[i].owned)
			free((char *)fl->flows[i].name);
	fl->nflows = 0;
}

int trace_flows_finish(struct trace_flows *fl, char **err)
{
	return fl->rows ? finding_scan_finish(fl->rows, err) : 0;
}

void trace_flows_release(struct trace_flows *fl)
{
	trace_flows_clear(fl);
	free(fl->copies);
	for (int i = 0; i < fl->nanchors; i++)
		free(fl->anchors[i].name);
	free(fl->anchors);
	finding_scan_close(fl->rows);
	free(fl->flows);
}
