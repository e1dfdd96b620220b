/*
 * trace_otf2.c - 'mapprof trace -o run.otf2': one or more recorded
 * processes as an OTF2 archive (report/trace/otf2.h writes it), laid out
 * as Score-P lays out a job that offloads:
 *
 *   - a location group per process ("MPI rank N", else "process PID"),
 *     under a system tree node per host; in it a CPU thread location per
 *     host thread that offloads, holding the target constructs it ran
 *     (target, target enter/exit data, target update: regions named
 *     "!$omp target @file.c:30") and, nested in them, the allocations
 *     and deletes it made on a device (regions of role ALLOCATE and
 *     DEALLOCATE);
 *   - an accelerator location group per device, created by the process's
 *     group, with stream locations: kernels (role FUNCTION) and transfers
 *     (role DATA_TRANSFER) as regions, one stream per queue of work that
 *     runs at once, so that 'nowait' copies and kernels that overlap lie
 *     on streams of their own and every location's times rise; a transfer
 *     is also a one-sided operation, as Score-P records a device's copies:
 *     to the device an RmaGet, from it an RmaPut (the remote: the host
 *     thread that asked for it), completed (RmaOpCompleteBlocking) at the
 *     copy's end, with its exact bytes;
 *   - a metric location per device: the device memory in use, from each
 *     allocation's begin until its delete's begin;
 *   - each event a stored finding names carries the attributes "finding"
 *     (its id) and "finding kind" (up to OTF2W_MAX_FINDINGS findings).
 *
 * Events are read in begin order (db/read/events.h, sorted) beside the
 * target constructs (db/read/targets.h) and the finding rows
 * (db/read/trace_scan.h) in the same order, and written as they come: a
 * region's Leave waits on its location's stack of open regions until a
 * later begin passes it.  Memory grows with the locations and the code
 * locations, never with the events.
 *
 * Several databases (the processes of one job) are written one after
 * another into one archive, each on its own locations; their times are
 * put on one line by where each run's clock started: CLOCK_MONOTONIC when
 * every process ran on one host (exact), else the wall-clock second the
 * run started.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>
#include <otf2/OTF2_Definitions.h>
#include <otf2/OTF2_GeneralDefinitions.h>

#include "db/db.h"
#include "db/ingest/process.h"
#include "db/read/events.h"
#include "db/read/targets.h"
#include "db/read/threads.h"
#include "db/read/trace_scan.h"
#include "db/store/attribution.h"
#include "lib/grow.h"
#include "lib/hmap.h"
#include "lib/overlap.h"
#include "report/trace/otf2.h"
#include "report/trace/trace.h"

/* What a region is, with its code pointer the key of its definition. */
enum what {
	W_KERNEL, W_TO, W_FROM, W_ALLOC, W_DELETE, W_ASSOC, W_DISASSOC,
	W_TARGET = 16,             /* + ompt_target_t */
};

enum owner { ON_HOST, ON_DEVICE };

struct open_region {
	int64_t end_ns;
	uint32_t region;
	int rma;                   /* a transfer: complete its operation first */
	uint64_t id;
};

/* A location and its stack of open regions. */
struct lane {
	enum owner owner;
	int key;                   /* the thread or the device */
	int index;                 /* 0, 1, ...: the lanes of one thread or device */
	uint32_t loc;
	struct open_region *open;
	size_t nopen, capopen;
};

struct device {
	int num;
	uint32_t group;
	uint32_t metric_loc;       /* OTF2W_NONE until the first sample */
	uint64_t in_use;
};

/* One database being written. */
struct proc {
	struct db *db;
	struct run_info run;
	struct thread_rows threads;
	struct attribution *at;
	struct process_row row;
	uint32_t group, node;
	int64_t shift_ns;          /* added to its times */
	struct lane *lanes;
	size_t nlanes, caplanes;
	struct device *devices;
	size_t ndevices, capdevices;
	struct hmap regions;       /* (what, codeptr) -> region + 1 */
	struct finding_scan *rows;
	struct finding_scan_row row_next;
	int row_ok;
	struct overlap ov;         /* transfers beside kernels (lib/overlap.h), per device */
	struct writer *wr;         /* the archive it goes into (ov's on_span) */
};

struct writer {
	struct otf2w *w;
	struct hmap region_names;  /* (name string, role) -> region + 1: one region per name */
	const struct trace_options *opt;
	struct trace_stats *st;
	uint64_t rma_ids;
	int64_t last_ns;           /* the archive's last time */
	int sorted;                /* read sorted by SQLite (else in stored order: RESTART when wrong) */
	char **err;
};

/*
 * The events, target constructs or finding rows were read in their
 * stored order and it turned out wrong: write the archive again, sorted.
 * (EVENTS_RESTART, TARGETS_RESTART and FINDING_SCAN_RESTART are this.)
 */
#define RESTART (-2)

static int oom(char **err)
{
	if (err && !*err)
		*err = strdup("out of memory");
	return -1;
}

static uint64_t at_time(const struct proc *p, int64_t ns)
{
	return (uint64_t)(ns + p->shift_ns);
}

/* "file:line" of a code pointer (malloc'ed), or NULL. */
static char *place_of(struct proc *p, uint64_t codeptr, char **file, uint32_t *line)
{
	json_t *o;
	const char *f;
	json_int_t l;
	char *s = NULL;

	*file = NULL;
	*line = 0;
	if (!p->at || !codeptr)
		return NULL;
	o = attribution_location(p->at, codeptr);
	f = json_string_value(json_object_get(o, "file"));
	l = json_integer_value(json_object_get(o, "line"));
	if (f) {
		*file = strdup(f);
		*line = l > 0 && l < UINT32_MAX ? (uint32_t)l : 0;
		if (l > 0 ? asprintf(&s, "%s:%lld", f, (long long)l) < 0 : !(s = strdup(f)))
			s = NULL;
	}
	json_decref(o);
	return s;
}

static const char *what_name(int what, int *role)
{
	static const struct {
		const char *name;
		int role;
	} names[] = {
		[W_KERNEL] = { "kernel", OTF2_REGION_ROLE_FUNCTION },
		[W_TO] = { "to_device", OTF2_REGION_ROLE_DATA_TRANSFER },
		[W_FROM] = { "from_device", OTF2_REGION_ROLE_DATA_TRANSFER },
		[W_ALLOC] = { "alloc", OTF2_REGION_ROLE_ALLOCATE },
		[W_DELETE] = { "delete", OTF2_REGION_ROLE_DEALLOCATE },
		[W_ASSOC] = { "associate", OTF2_REGION_ROLE_FUNCTION },
		[W_DISASSOC] = { "disassociate", OTF2_REGION_ROLE_FUNCTION },
	};

	if (what >= W_TARGET) {
		*role = OTF2_REGION_ROLE_WRAPPER;
		return NULL;
	}
	*role = names[what].role;
	return names[what].name;
}

/* The region of (what, codeptr), defined the first time.  OTF2W_NONE on error. */
static uint32_t region_of(struct writer *wr, struct proc *p, int what, uint64_t codeptr)
{
	uint64_t key[2] = { (uint64_t)what, codeptr }, nkey[2];
	uint32_t *slot, *named, line, region;
	char *place, *file, *name = NULL, base[64];
	const char *s;
	int created, role;

	slot = hmap_put(&p->regions, key, &created);
	if (!slot)
		return OTF2W_NONE;
	if (!created)
		return *slot - 1;
	place = place_of(p, codeptr, &file, &line);
	if (!(s = what_name(what, &role))) {
		snprintf(base, sizeof(base), "!$omp %s%s", target_kind_words(what - W_TARGET),
			 (what - W_TARGET) & 8 ? " nowait" : "");
		s = base;
	}
	if (place ? asprintf(&name, "%s @%s", s, place) < 0 : !(name = strdup(s)))
		name = NULL;
	region = OTF2W_NONE;
	if (name) {
		/* The same construct in several processes: one region. */
		nkey[0] = otf2w_string(wr->w, name);
		nkey[1] = (uint64_t)role;
		named = nkey[0] != OTF2W_NONE ? hmap_put(&wr->region_names, nkey, &created) : NULL;
		if (named && created)
			*named = otf2w_region(wr->w, name, file, line, role, OTF2_PARADIGM_OPENMP) + 1;
		if (named && *named)
			region = *named - 1;
	}
	free(name);
	free(place);
	free(file);
	if (region == OTF2W_NONE)
		hmap_del(&p->regions, key);
	else
		*slot = region + 1;
	return region;
}

static struct device *device_of(struct writer *wr, struct proc *p, int num)
{
	struct device *d;
	const char *type = NULL;
	char name[96];

	for (size_t i = 0; i < p->ndevices; i++)
		if (p->devices[i].num == num)
			return &p->devices[i];
	for (size_t j = 0; j < p->run.ndevices; j++)
		if (p->run.devices[j].num == num)
			type = p->run.devices[j].type;
	if (p->run.has_host_device && num == p->run.host_device)
		snprintf(name, sizeof(name), "host device %d", num);
	else if (num < 0)
		snprintf(name, sizeof(name), "unknown device");
	else
		snprintf(name, sizeof(name), "device %d%s%s%s", num, type ? " (" : "", type ? type : "",
			 type ? ")" : "");
	if (grow_one((void **)&p->devices, &p->capdevices, p->ndevices, sizeof(*p->devices)) < 0)
		return NULL;
	d = &p->devices[p->ndevices];
	*d = (struct device){ num, otf2w_group(wr->w, name, OTF2W_ACCELERATOR, p->node, p->group), OTF2W_NONE, 0 };
	if (d->group == OTF2W_NONE)
		return NULL;
	p->ndevices++;
	return d;
}

/* A new lane's location.  NULL on error. */
static struct lane *new_lane(struct writer *wr, struct proc *p, enum owner owner, int key, int index)
{
	struct lane *l;
	uint32_t group = p->group;
	char name[160], base[128];

	if (owner == ON_HOST) {
		const struct thread_row *r = thread_rows_find(&p->threads, key);
		if (r && r->tid > 0 && r->initial)
			snprintf(base, sizeof(base), "initial thread (tid %lld)", (long long)r->tid);
		else if (r && r->tid > 0)
			snprintf(base, sizeof(base), "%s %d (tid %lld)", thread_role(r), key, (long long)r->tid);
		else
			snprintf(base, sizeof(base), "thread %d", key);
	} else {
		struct device *d = device_of(wr, p, key);
		if (!d)
			return NULL;
		group = d->group;
		snprintf(base, sizeof(base), "%s%d stream", key < 0 ? "unknown device" : "device ", key);
		if (key < 0)
			snprintf(base, sizeof(base), "unknown device stream");
	}
	if (owner == ON_HOST && index)
		snprintf(name, sizeof(name), "%s, overlapping %d", base, index);
	else if (owner == ON_HOST)
		snprintf(name, sizeof(name), "%s", base);
	else
		snprintf(name, sizeof(name), "%s %d", base, index);
	if (grow_one((void **)&p->lanes, &p->caplanes, p->nlanes, sizeof(*p->lanes)) < 0)
		return NULL;
	l = &p->lanes[p->nlanes];
	*l = (struct lane){ owner, key, index, otf2w_location(wr->w, name, owner == ON_HOST ? OTF2W_CPU_THREAD : OTF2W_STREAM,
							      group), NULL, 0, 0 };
	if (l->loc == OTF2W_NONE)
		return NULL;
	p->nlanes++;
	return l;
}

/* Close the lane's regions that end at or before 'ns' (all of them: INT64_MAX).  0 or -1. */
static int pop_until(struct writer *wr, struct proc *p, struct lane *l, int64_t ns)
{
	while (l->nopen && l->open[l->nopen - 1].end_ns <= ns) {
		const struct open_region *o = &l->open[--l->nopen];
		if (o->rma && otf2w_rma_done(wr->w, l->loc, at_time(p, o->end_ns), o->id) < 0)
			return -1;
		if (otf2w_leave(wr->w, l->loc, at_time(p, o->end_ns), o->region) < 0)
			return -1;
	}
	return 0;
}

/*
 * The lane of (owner, key) where [begin, end] goes: the first whose open
 * regions have all ended by 'begin', or ('nest') whose innermost one holds
 * it whole; a new one when none does.  NULL on error.
 */
static struct lane *lane_for(struct writer *wr, struct proc *p, enum owner owner, int key, int nest, int64_t begin,
			     int64_t end)
{
	int next = 0;

	for (size_t i = 0; i < p->nlanes; i++) {
		struct lane *l = &p->lanes[i];
		if (l->owner != owner || l->key != key)
			continue;
		if (pop_until(wr, p, l, begin) < 0)
			return NULL;
		if (!l->nopen || (nest && l->open[l->nopen - 1].end_ns >= end))
			return l;
		next = l->index + 1;
	}
	return new_lane(wr, p, owner, key, next);
}

/* Lane 0 of a host thread (made when new): the remote end of its transfers. */
static struct lane *host_lane(struct writer *wr, struct proc *p, int thread)
{
	for (size_t i = 0; i < p->nlanes; i++)
		if (p->lanes[i].owner == ON_HOST && p->lanes[i].key == thread && p->lanes[i].index == 0)
			return &p->lanes[i];
	return new_lane(wr, p, ON_HOST, thread, 0);
}

/* Enter a region on a lane, to be left at 'end'.  0 or -1. */
static int enter(struct writer *wr, struct proc *p, struct lane *l, uint32_t region, int64_t begin, int64_t end,
		 const struct otf2w_findings *f, struct open_region **out)
{
	if (grow_one((void **)&l->open, &l->capopen, l->nopen, sizeof(*l->open)) < 0)
		return oom(wr->err);
	if (otf2w_enter(wr->w, l->loc, at_time(p, begin), region, f) < 0)
		return -1;
	l->open[l->nopen] = (struct open_region){ end, region, 0, 0 };
	*out = &l->open[l->nopen++];
	wr->st->events++;
	if (end + p->shift_ns > wr->last_ns)
		wr->last_ns = end + p->shift_ns;
	return 0;
}

/* The stored findings that name this event (same begin and seq).  0 or -1. */
static int findings_of(struct writer *wr, struct proc *p, const struct event *ev, struct otf2w_findings *f)
{
	int rc;

	f->n = 0;
	while (p->row_ok && (p->row_next.begin_ns < ev->begin_ns ||
			     (p->row_next.begin_ns == ev->begin_ns && p->row_next.seq <= ev->seq))) {
		const struct finding_scan_row *r = &p->row_next;
		int seen = 0;
		for (int i = 0; i < f->n; i++)
			seen |= f->id[i] == (uint32_t)r->finding;
		if (r->seq == ev->seq && !seen && f->n < OTF2W_MAX_FINDINGS && r->finding > 0) {
			const char *kind = finding_scan_kind(p->rows, r->finding);
			f->id[f->n] = (uint32_t)r->finding;
			f->kind[f->n] = otf2w_string(wr->w, *kind ? kind : "finding");
			if (f->kind[f->n] == OTF2W_NONE)
				return oom(wr->err);
			f->n++;
		}
		rc = finding_scan_next(p->rows, &p->row_next, wr->err);
		if (rc < 0)
			return rc == FINDING_SCAN_RESTART ? RESTART : -1;
		p->row_ok = rc == 1;
	}
	if (f->n)
		wr->st->marked++;
	return 0;
}

/* The device's metric location, made at its first sample ("device N memory", as Score-P names none).  0 or -1. */
static int metric_loc(struct writer *wr, struct device *d)
{
	char name[64];

	if (d->metric_loc != OTF2W_NONE)
		return 0;
	snprintf(name, sizeof(name), "device %d memory", d->num);
	return (d->metric_loc = otf2w_location(wr->w, name, OTF2W_METRIC_LOCATION, d->group)) == OTF2W_NONE ? -1 : 0;
}

/* The device memory in use after an allocation or delete, sampled at its begin when 'write'.  0 or -1. */
static int memory(struct writer *wr, struct proc *p, const struct event *ev, int device, int write)
{
	struct device *d = device_of(wr, p, device);

	if (!d)
		return oom(wr->err);
	if (ev->kind == EV_ALLOC)
		d->in_use += ev->bytes;
	else
		d->in_use -= ev->bytes < d->in_use ? ev->bytes : d->in_use;
	if (!write)
		return 0;
	if (metric_loc(wr, d) < 0)
		return -1;
	return otf2w_metric(wr->w, d->metric_loc, at_time(p, ev->begin_ns), d->in_use);
}

/* lib/overlap.h's on_span: the device's OTF2W_METRIC_OVERLAP 1 while a transfer and a kernel run, else 0. */
static int overlap_metric(void *arg, int device, int begin, int64_t t_ns)
{
	struct proc *p = arg;
	struct device *d = device_of(p->wr, p, device);

	if (!d)
		return oom(p->wr->err);
	if (metric_loc(p->wr, d) < 0)
		return -1;
	return otf2w_overlap(p->wr->w, d->metric_loc, at_time(p, t_ns), (uint64_t)begin);
}

static int in_window(const struct writer *wr, int64_t begin, int64_t end)
{
	return begin <= wr->opt->to_ns && end >= wr->opt->from_ns;
}

static int write_target(struct writer *wr, struct proc *p, const struct target_row *t)
{
	struct open_region *o;
	struct lane *l;
	uint32_t region;

	if (!in_window(wr, t->begin_ns, t->end_ns))
		return 0;
	region = region_of(wr, p, W_TARGET + (t->kind & 15), t->codeptr);
	if (region == OTF2W_NONE || !(l = lane_for(wr, p, ON_HOST, t->thread, 1, t->begin_ns, t->end_ns)))
		return oom(wr->err);
	return enter(wr, p, l, region, t->begin_ns, t->end_ns, NULL, &o);
}

/* The device an event happened on, as the other formats place it. */
static int event_device(const struct proc *p, const struct event *ev)
{
	switch (ev->kind) {
	case EV_TO_DEVICE:
	case EV_FROM_DEVICE:
		return ev->dest_device == p->run.host_device && p->run.has_host_device ? ev->src_device
										       : ev->dest_device;
	case EV_DELETE:
		return ev->src_device;
	default:
		return ev->dest_device;
	}
}

static int write_event(struct writer *wr, struct proc *p, const struct event *ev)
{
	static const int whats[EV_KIND_COUNT] = {
		[EV_ALLOC] = W_ALLOC, [EV_TO_DEVICE] = W_TO, [EV_FROM_DEVICE] = W_FROM, [EV_DELETE] = W_DELETE,
		[EV_ASSOCIATE] = W_ASSOC, [EV_DISASSOCIATE] = W_DISASSOC, [EV_KERNEL] = W_KERNEL,
	};
	int device = event_device(p, ev), on_device = ev->kind == EV_KERNEL || ev->kind == EV_TO_DEVICE ||
						     ev->kind == EV_FROM_DEVICE;
	int window = in_window(wr, ev->begin_ns, ev->end_ns);
	struct otf2w_findings f;
	struct open_region *o;
	struct lane *l, *host;
	uint32_t region;
	int rc;

	if ((rc = findings_of(wr, p, ev, &f)) < 0)
		return rc;
	/* The overlap's ends before this event first: its metric location's times rise. */
	if (overlap_flush(&p->ov, ev->begin_ns) < 0)
		return -1;
	if ((ev->kind == EV_ALLOC || ev->kind == EV_DELETE) && memory(wr, p, ev, device, window) < 0)
		return -1;
	if (!window)
		return 0;
	/* This event into the overlap (a span it starts begins now). */
	if (on_device && overlap_feed(&p->ov, device, ev->kind == EV_KERNEL, 0, ev->begin_ns, ev->end_ns) < 0)
		return -1;
	region = region_of(wr, p, whats[ev->kind], ev->codeptr);
	if (region == OTF2W_NONE)
		return oom(wr->err);
	l = on_device ? lane_for(wr, p, ON_DEVICE, device, 0, ev->begin_ns, ev->end_ns)
		      : lane_for(wr, p, ON_HOST, ev->thread, 1, ev->begin_ns, ev->end_ns);
	if (!l || enter(wr, p, l, region, ev->begin_ns, ev->end_ns, &f, &o) < 0)
		return oom(wr->err);
	if (ev->kind != EV_TO_DEVICE && ev->kind != EV_FROM_DEVICE)
		return 0;
	/* lane_for() and host_lane() may move the lanes: find the region again. */
	o = NULL;
	if (!(host = host_lane(wr, p, ev->thread)))
		return oom(wr->err);
	for (size_t i = 0; i < p->nlanes && !o; i++)
		if (p->lanes[i].owner == ON_DEVICE && p->lanes[i].key == device && p->lanes[i].nopen &&
		    p->lanes[i].open[p->lanes[i].nopen - 1].end_ns == ev->end_ns &&
		    p->lanes[i].open[p->lanes[i].nopen - 1].region == region && !p->lanes[i].open[p->lanes[i].nopen - 1].rma)
			o = &p->lanes[i].open[p->lanes[i].nopen - 1], l = &p->lanes[i];
	if (!o)
		return oom(wr->err);
	o->rma = 1;
	o->id = ++wr->rma_ids;
	wr->st->rma_ops++;
	return otf2w_rma(wr->w, l->loc, at_time(p, ev->begin_ns), ev->kind == EV_TO_DEVICE, host->loc, ev->bytes,
			 o->id, &f);
}

/* One of the streams' results: RESTART for an order that cannot be kept. */
static int stream_rc(int rc)
{
	return rc == EVENTS_RESTART || rc == TARGETS_RESTART ? RESTART : rc;
}

/* The events and target constructs of one database, merged in begin order.  0, -1 or RESTART. */
static int write_streams(struct writer *wr, struct proc *p)
{
	struct event_stream *es = event_stream_open(p->db, wr->sorted ? EVENTS_SORTED : EVENTS_BY_SEQ, NULL,
						    wr->err);
	struct target_stream *ts = es ? target_stream_open(p->db, wr->sorted ? TARGETS_SORTED : TARGETS_BY_ID,
							   wr->err) : NULL;
	struct event ev;
	struct target_row t;
	int has_ev, has_t, rc = -1;

	if (!ts)
		goto out;
	has_ev = stream_rc(event_stream_next(es, &ev, wr->err));
	has_t = stream_rc(target_stream_next(ts, &t, wr->err));
	while (has_ev == 1 || has_t == 1) {
		if (has_ev < 0 || has_t < 0)
			break;
		/*
		 * Past the window's end nothing more is written; sorted, nothing
		 * more comes.  Read in stored order, only the end proves the
		 * order: read on.
		 */
		if (wr->sorted && (has_ev != 1 || ev.begin_ns > wr->opt->to_ns) &&
		    (has_t != 1 || t.begin_ns > wr->opt->to_ns))
			break;
		/* A construct before the events that begin with it: it holds them. */
		if (has_t == 1 && (has_ev != 1 || t.begin_ns <= ev.begin_ns)) {
			if ((rc = write_target(wr, p, &t)) < 0)
				goto out;
			has_t = stream_rc(target_stream_next(ts, &t, wr->err));
		} else {
			if ((rc = write_event(wr, p, &ev)) < 0)
				goto out;
			has_ev = stream_rc(event_stream_next(es, &ev, wr->err));
		}
	}
	rc = has_ev < 0 ? has_ev : has_t < 0 ? has_t : 0;
	if (!rc && overlap_finish(&p->ov) < 0)
		rc = -1;
	if (!rc && p->rows && !wr->sorted && finding_scan_finish(p->rows, wr->err) < 0)
		rc = *wr->err ? -1 : RESTART;
	for (size_t i = 0; i < p->nlanes && !rc; i++)
		rc = pop_until(wr, p, &p->lanes[i], INT64_MAX);
out:
	target_stream_close(ts);
	event_stream_close(es);
	return rc;
}

static void proc_release(struct proc *p)
{
	for (size_t i = 0; i < p->nlanes; i++)
		free(p->lanes[i].open);
	free(p->lanes);
	free(p->devices);
	overlap_release(&p->ov);
	hmap_release(&p->regions);
	finding_scan_close(p->rows);
	attribution_close(p->at);
	thread_rows_release(&p->threads);
	run_info_release(&p->run);
	process_row_release(&p->row);
	db_close(p->db);
}

/* A system tree node per host, under one root: the node of 'host'. */
static uint32_t host_node(struct writer *wr, const char *host, uint32_t root, char ***hosts, uint32_t **nodes,
			  size_t *n)
{
	char **h;
	uint32_t *v;

	for (size_t i = 0; i < *n; i++)
		if (!strcmp((*hosts)[i], host))
			return (*nodes)[i];
	if (!(h = realloc(*hosts, (*n + 1) * sizeof(*h))))
		return OTF2W_NONE;
	*hosts = h;
	if (!(v = realloc(*nodes, (*n + 1) * sizeof(*v))))
		return OTF2W_NONE;
	*nodes = v;
	if (!(h[*n] = strdup(host)))
		return OTF2W_NONE;
	v[*n] = otf2w_node(wr->w, *host ? host : "unknown host", "node", root);
	return v[(*n)++];
}

/* One database into the archive.  0, -1 with *err set, or RESTART. */
static int write_db(struct writer *wr, const char *path, int64_t shift_ns, uint32_t node)
{
	struct proc p = { .shift_ns = shift_ns, .node = node, .wr = wr };
	enum db_problem problem;
	char name[64], *why = NULL;
	int max_finding = -1, rc = -1, r;

	hmap_init(&p.regions, 2, sizeof(uint32_t));
	p.ov.on_span = overlap_metric;
	p.ov.arg = &p;
	if (!(p.db = db_open(path, 0, &problem, &why))) {
		if (asprintf(wr->err, "cannot read '%s': %s", path, why ? why : "out of memory") < 0)
			*wr->err = NULL;
		free(why);
		goto out;
	}
	if (db_read_run(p.db, &p.run, wr->err) < 0 || thread_rows_read(p.db, &p.threads, wr->err) < 0 ||
	    db_process_read(p.db, &p.row, wr->err) < 0)
		goto out;
	p.at = attribution_open(p.db);
	wr->st->has_sources |= p.at != NULL;
	p.rows = finding_scan_open(p.db, wr->sorted ? FINDING_SCAN_SORTED : FINDING_SCAN_STORED, &max_finding,
				   wr->err);
	if (!p.rows && *wr->err)
		goto out;
	wr->st->has_findings |= max_finding >= 0;
	if (p.rows) {
		if ((r = finding_scan_next(p.rows, &p.row_next, wr->err)) < 0) {
			rc = r == FINDING_SCAN_RESTART ? RESTART : -1;
			goto out;
		}
		p.row_ok = r == 1;
	}
	if (p.row.rank >= 0)
		snprintf(name, sizeof(name), "MPI rank %lld", (long long)p.row.rank);
	else
		snprintf(name, sizeof(name), "process %lld", (long long)p.row.pid);
	if ((p.group = otf2w_group(wr->w, name, OTF2W_PROCESS, node, OTF2W_NONE)) == OTF2W_NONE) {
		oom(wr->err);
		goto out;
	}
	wr->st->processes++;
	rc = write_streams(wr, &p);
out:
	proc_release(&p);
	return rc;
}

/*
 * Where each database's times go on the archive's line (shift[i] added to
 * its times): by CLOCK_MONOTONIC when all ran on one host, else by the
 * wall clock's second; *realtime_ns the wall clock at the archive's 0.
 * 0, or -1 with *err.
 */
static int align(char **dbs, int n, int64_t *shift, uint32_t *host_of, struct writer *wr, uint64_t *realtime_ns)
{
	struct run_clock *c = calloc((size_t)n, sizeof(*c));
	char **hosts = NULL;
	uint32_t *nodes = NULL, root;
	size_t nhosts = 0;
	int one_host = 1, rc = -1;
	int64_t min_mono = INT64_MAX, min_epoch = INT64_MAX;

	if (!c)
		return oom(wr->err);
	for (int i = 0; i < n; i++) {
		enum db_problem problem;
		char *why = NULL;
		struct db *db = db_open(dbs[i], 0, &problem, &why);
		if (!db) {
			if (asprintf(wr->err, "cannot read '%s': %s", dbs[i], why ? why : "out of memory") < 0)
				*wr->err = NULL;
			free(why);
			goto out;
		}
		if (run_clock_read(db, &c[i], wr->err) < 0) {
			db_close(db);
			goto out;
		}
		db_close(db);
		one_host &= !strcmp(c[i].host, c[0].host) && c[i].start_ns >= 0;
		if (c[i].epoch_s >= 0 && c[i].epoch_s < min_epoch)
			min_epoch = c[i].epoch_s;
	}
	for (int i = 0; i < n; i++)
		if (one_host && c[i].start_ns < min_mono)
			min_mono = c[i].start_ns;
	*realtime_ns = UINT64_MAX;
	for (int i = 0; i < n; i++) {
		shift[i] = one_host ? c[i].start_ns - min_mono
				    : c[i].epoch_s >= 0 ? (c[i].epoch_s - min_epoch) * 1000000000LL : 0;
		if (!shift[i] && c[i].epoch_s >= 0 && *realtime_ns == UINT64_MAX)
			*realtime_ns = (uint64_t)c[i].epoch_s * 1000000000ULL;
	}
	if ((root = otf2w_node(wr->w, "machine", "machine", OTF2W_NONE)) == OTF2W_NONE)
		goto nomem;
	for (int i = 0; i < n; i++)
		if ((host_of[i] = host_node(wr, c[i].host, root, &hosts, &nodes, &nhosts)) == OTF2W_NONE)
			goto nomem;
	rc = 0;
	goto out;
nomem:
	oom(wr->err);
out:
	for (size_t i = 0; i < nhosts; i++)
		free(hosts[i]);
	free(hosts);
	free(nodes);
	free(c);
	return rc;
}

/* The names an archive of ours holds: anything else in a directory means it is not one. */
static int ours(const char *name, int top)
{
	size_t n = strlen(name);

	if (!strcmp(name, ".") || !strcmp(name, ".."))
		return 1;
	if (top)
		return !strcmp(name, "traces.otf2") || !strcmp(name, "traces.def") || !strcmp(name, "traces");
	return n > 4 && (!strcmp(name + n - 4, ".evt") || !strcmp(name + n - 4, ".def"));
}

/*
 * Remove an archive mapprof wrote in 'dir' (its files, then the directory).
 * With 'check', remove nothing and return -1 when 'dir' holds anything else.
 */
static int remove_archive(const char *dir, int check)
{
	char sub[PATH_MAX], f[PATH_MAX];
	struct dirent *e;
	DIR *d;
	int rc = 0;

	for (int top = 0; top < 2; top++) {
		const char *at = top ? dir : sub;
		snprintf(sub, sizeof(sub), "%s/traces", dir);
		if (!(d = opendir(at))) {
			if (!top && errno == ENOENT)
				continue;
			return -1;
		}
		while ((e = readdir(d))) {
			if (!ours(e->d_name, top)) {
				rc = -1;
				continue;
			}
			if (check || !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") ||
			    (top && !strcmp(e->d_name, "traces")))
				continue;
			if (snprintf(f, sizeof(f), "%s/%s", at, e->d_name) < (int)sizeof(f))
				unlink(f);
		}
		closedir(d);
		if (check && rc)
			return -1;
		if (!check)
			rmdir(at);
	}
	return rc;
}

/*
 * The archive at 'path' may be written: nothing there, a symbolic link
 * (replaced, as the other formats do), an empty directory or an archive
 * of ours.  0, or -1 with *err.
 */
static int may_replace(const char *path, char **err)
{
	struct stat st;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		if (asprintf(err, "cannot write '%s': %s", path, strerror(errno)) < 0)
			*err = NULL;
		return -1;
	}
	if (S_ISLNK(st.st_mode))
		return 0;
	if (S_ISDIR(st.st_mode) && remove_archive(path, 1) == 0)
		return 0;
	if (asprintf(err, "cannot write '%s': it exists and is not an OTF2 archive that mapprof wrote"
		     " (remove it, or give another path)", path) < 0)
		*err = NULL;
	return -1;
}

/* Put the finished archive 'tmp' at 'path'.  0, or -1 with *err. */
static int commit(const char *tmp, const char *path, char **err)
{
	char old[PATH_MAX];
	struct stat st;

	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode) && unlink(path) < 0)
		goto fail;
	if (lstat(path, &st) == 0 && S_ISDIR(st.st_mode)) {
		/* The old archive out of the way, the new one in, the old one removed. */
		snprintf(old, sizeof(old), "%s.old-%ld", tmp, (long)getpid());
		if (rename(path, old) < 0)
			goto fail;
		if (rename(tmp, path) < 0) {
			int saved = errno;
			rename(old, path);
			errno = saved;
			goto fail;
		}
		remove_archive(old, 0);
		return 0;
	}
	if (rename(tmp, path) == 0)
		return 0;
fail:
	if (asprintf(err, "cannot write '%s': %s", path, strerror(errno)) < 0)
		*err = NULL;
	return -1;
}

/* A new directory beside 'path' for the archive (malloc'ed), or NULL with *err. */
static char *make_tmp(const char *path, char **err)
{
	char *copy = strdup(path), *tmp = NULL;
	mode_t mask;

	if (!copy || asprintf(&tmp, "%s/.%s.tmp-XXXXXX", dirname(copy), basename((char *)path)) < 0) {
		free(copy);
		oom(err);
		return NULL;
	}
	free(copy);
	if (!mkdtemp(tmp)) {
		if (asprintf(err, "cannot write '%s': %s", path, strerror(errno)) < 0)
			*err = NULL;
		free(tmp);
		return NULL;
	}
	/* mkdtemp() makes it 0700: the archive gets a new directory's mode. */
	mask = umask(0);
	umask(mask);
	chmod(tmp, 0777 & ~mask);
	return tmp;
}

/* The archive of dbs[0..n) into the directory 'tmp'.  0, -1 with *err set, or RESTART. */
static int write_archive(char **dbs, int n, const char *tmp, const char *path, int sorted,
			 const struct trace_options *opt, struct trace_stats *st, char **err)
{
	struct writer wr = { .opt = opt, .st = st, .err = err, .sorted = sorted };
	int64_t *shift = calloc((size_t)n, sizeof(*shift));
	uint32_t *nodes = calloc((size_t)n, sizeof(*nodes));
	uint64_t realtime_ns = UINT64_MAX;
	int rc = -1;

	memset(st, 0, sizeof(*st));
	hmap_init(&wr.region_names, 2, sizeof(uint32_t));
	if (!shift || !nodes) {
		oom(err);
		goto out;
	}
	if (!(wr.w = otf2w_open(tmp, err)) || align(dbs, n, shift, nodes, &wr, &realtime_ns) < 0)
		goto out;
	rc = 0;
	for (int i = 0; i < n && !rc; i++)
		rc = write_db(&wr, dbs[i], shift[i], nodes[i]);
out:
	if (wr.w) {
		char *why = NULL;
		/* A failed write of libotf2's has no message yet: closing gives it. */
		if ((rc == 0 || (rc == -1 && !*err)) &&
		    otf2w_close(wr.w, 0, (uint64_t)wr.last_ns, realtime_ns, &why) < 0) {
			if (asprintf(err, "cannot write '%s': %s", path, why ? why : "out of memory") < 0)
				*err = NULL;
			rc = -1;
		} else if (rc) {
			otf2w_abort(wr.w);
		}
		free(why);
	}
	hmap_release(&wr.region_names);
	free(shift);
	free(nodes);
	return rc;
}

int trace_write_otf2(char **dbs, int n, const char *path, const struct trace_options *opt,
		     struct trace_stats *st, char **err)
{
	char *tmp = NULL;
	int rc = -1;

	*err = NULL;
	memset(st, 0, sizeof(*st));
	if (may_replace(path, err) < 0)
		return -1;
	/*
	 * In stored order first (no sort: memory stays small); where that
	 * order is wrong, once more sorted.  Written beside 'path' and renamed
	 * into place when whole.
	 */
	for (int sorted = 0; sorted < 2; sorted++) {
		if (!(tmp = make_tmp(path, err)))
			return -1;
		rc = write_archive(dbs, n, tmp, path, sorted, opt, st, err);
		if (rc != RESTART)
			break;
		remove_archive(tmp, 0);
		free(tmp);
		tmp = NULL;
	}
	if (rc == 0)
		rc = commit(tmp, path, err);
	if (rc && tmp)
		remove_archive(tmp, 0);
	free(tmp);
	return rc < 0 ? -1 : 0;
}
