/*
 * findings_store.c - a struct findings as rows of the findings tables.
 */
#include <stdlib.h>
#include <string.h>

#include "db/store/findings.h"
#include "report/findings/findings.h"
#include "report/findings/findings_store.h"

static int store_finding(struct findings_writer *w, const struct finding *g, char **err)
{
	struct finding_row r = {
		.id = g->id,
		.kind = finding_kind_name(g->kind),
		.flavour = flavour_name(g->flavour),
		.fingerprint = g->fingerprint,
		.occurrences = g->occurrences,
		.bytes = g->bytes,
		.savings_ns = g->savings_ns,
		.devices = g->devices,
		.ndevices = g->ndevices,
		.locations = g->locations,
		.nlocations = g->nlocations < FINDING_MAX_LOCATIONS ? g->nlocations : FINDING_MAX_LOCATIONS,
		.has_origins = g->kind == FINDING_DUPLICATE_TRANSFER,
		.origins = g->origins,
		.norigins = g->norigins < FINDING_MAX_LOCATIONS ? g->norigins : FINDING_MAX_LOCATIONS,
		.data_addr = g->data_addr,
		.data_bytes = g->data_bytes,
		.first_seq = g->first_seq,
	};

	return findings_writer_finding(w, &r, err);
}

struct store_pass {
	struct findings_writer *w;
	struct findings *f;
	findings_tap_fn tap;
	void *tap_arg;
	int finish;                   /* f's finish is fed (findings_finish_op()) */
	int runs;                     /* store_ops() calls: the tap and the finish see the first only */
	char **err;
};

/* Each operation of each finding (in time order, not finding by finding). */
static int store_op(void *arg, size_t pos, const struct finding_op *op)
{
	struct store_pass *p = arg;

	if (findings_writer_event(p->w, p->f->v[pos].id, op->occurrence, op_role_name(op->role), op->seq,
				  p->err) < 0)
		return 1;
	if (p->finish && findings_finish_op(p->f, pos, op))
		return 1;
	return p->tap ? p->tap(p->tap_arg, pos, op) : 0;
}

static int store_summary(struct findings_writer *w, const char *kind, const struct kind_summary *k,
			 const struct findings *f, char **err)
{
	struct finding_summary_row r = {
		.kind = kind,
		.findings = k->findings,
		.occurrences = k->occurrences,
		.bytes = k->bytes,
		.savings_ns = k->savings_ns,
		.has_run = f != NULL,
		.duration_ns = f ? f->duration_ns : 0,
		.predicted_speedup = f ? f->predicted_speedup : 0,
	};
	return findings_writer_summary(w, &r, err);
}

/* Every operation of every finding to the writer.  0, or non-zero with *p->err set. */
static int store_ops(void *arg)
{
	struct store_pass *p = arg;
	int r;

	if (p->runs++) {
		/* each operation once (findings_writer_pages() runs it once or not at all) */
		p->tap = NULL;
		p->finish = 0;
	}
	r = findings_each_op(p->f, store_op, p);

	if (r < 0 && p->err && !*p->err)
		*p->err = strdup("cannot read the findings' operations back");
	return r;
}

int findings_store(struct db *db, struct findings *f, findings_tap_fn tap, void *tap_arg, char **err)
{
	struct findings_writer *w = findings_writer_open(db, err);
	struct kind_summary all = { 0 };
	struct store_pass p = { w, f, tap, tap_arg, f->finishing != NULL, 0, err };
	uint64_t nrows = 0;
	int paged, rc = -1;

	if (!w)
		return -1;
	/* A long run's events as pages first (db/store/findings.h), else with the rest. */
	for (size_t i = 0; i < f->n; i++)
		nrows += f->v[i].nops;
	paged = findings_writer_pages(w, nrows, store_ops, &p, err);
	if (paged < 0 || (paged && store_ops(&p)))
		goto out;
	/* Their savings summed from the operations just written, before the rows that hold them. */
	if (f->finishing && findings_finish_end(f, 1) < 0) {
		if (err)
			*err = strdup("out of memory");
		goto out;
	}
	for (size_t i = 0; i < f->n; i++)
		if (store_finding(w, &f->v[i], err) < 0)
			goto out;
	for (int k = 0; k < FINDING_KIND_COUNT; k++) {
		all.findings += f->kinds[k].findings;
		all.occurrences += f->kinds[k].occurrences;
		all.bytes += f->kinds[k].bytes;
		if (store_summary(w, finding_kind_name(k), &f->kinds[k], NULL, err) < 0)
			goto out;
	}
	all.savings_ns = f->savings_ns;
	if (store_summary(w, "all", &all, f, err) < 0)
		goto out;
	rc = findings_writer_commit(w, err);
out:
	findings_writer_free(w);
	return rc;
}
