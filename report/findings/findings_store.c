/*
 * findings_store.c - a struct findings as rows of the findings tables.
 */
#include "db/findings.h"
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

	if (findings_writer_finding(w, &r, err) < 0)
		return -1;
	for (size_t j = 0; j < g->nops; j++) {
		const struct finding_op *op = &g->ops[j];
		if (findings_writer_event(w, g->id, op->occurrence, op_role_name(op->role), op->seq,
					  err) < 0)
			return -1;
	}
	return 0;
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

int findings_store(struct db *db, const struct findings *f, char **err)
{
	struct findings_writer *w = findings_writer_open(db, err);
	struct kind_summary all = { 0 };
	int rc = -1;

	if (!w)
		return -1;
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
