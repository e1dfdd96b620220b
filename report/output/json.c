/*
 * json.c - build and write report.json.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/store/attribution.h"
#include "db/read/kernel_sites.h"
#include "lib/outfile.h"
#include "report/output/json.h"
#include "report/output/unreported.h"
#include "report/findings/paths.h"
#include "report/plan/plans.h"
#include "lib/sort.h"
#include "lib/utf8.h"

/* s as a JSON string, never lost to bytes that are not UTF-8 (db/store/attribution.h). */
static json_t *text(const char *s)
{
	return attribution_text(s, strlen(s));
}

static json_t *hex(uint64_t v)
{
	char buf[24];
	snprintf(buf, sizeof(buf), "0x%llx", (unsigned long long)v);
	return json_string(buf);
}

/* Beside the full path in 'key', "path": the same relative to the source root. */
static void add_relative(const struct analysis *a, json_t *o, const char *key, const char *path_key)
{
	const char *file = json_string_value(json_object_get(o, key));
	if (file)
		json_object_set_new(o, path_key, text(path_relative(a->source_root, file)));
}

/*
 * {"address", "module", "offset"}: module and offset when a module holds it;
 * plus, where the report symbolized it, "function", "file", "path" (file
 * relative to the source root), "line", "column", "origin", "note" and
 * "snippet" (db/store/attribution.h).
 */
static json_t *place(const struct analysis *a, uint64_t addr)
{
	json_t *o = json_object(), *src;
	uint64_t off;
	const char *mod = addr ? module_locate(a->run.modules, a->run.nmodules, addr, &off) : NULL;

	json_object_set_new(o, "address", hex(addr));
	json_object_set_new(o, "module", mod ? text(mod) : json_null());
	json_object_set_new(o, "offset", mod ? hex(off) : json_null());
	if (a->attr && addr && (src = attribution_location(a->attr, addr))) {
		/* A read-only database may hold snippets from an earlier report. */
		if (a->no_source)
			json_object_del(src, "snippet");
		json_object_update(o, src);
		json_decref(src);
		add_relative(a, o, "file", "path");
	}
	return o;
}

static json_t *places(const struct analysis *a, const uint64_t *v, int n)
{
	json_t *arr = json_array();
	for (int i = 0; i < n; i++)
		json_array_append_new(arr, place(a, v[i]));
	return arr;
}

static json_t *int_or_null(int has, json_int_t v)
{
	return has ? json_integer(v) : json_null();
}

static json_t *str_or_null(const char *s)
{
	return s ? text(s) : json_null();
}

static double rounded(double v)
{
	return round(v * 10000.0) / 10000.0;
}

/* {"data_ops": N, "kernels": N, "run": N}: rows the report left out (db/read/sound.h). */
static json_t *damaged_json(const struct analysis *a)
{
	return json_pack("{sIsIsI}", "data_ops", (json_int_t)a->damaged_ops.rows,
			 "kernels", (json_int_t)a->damaged_kernels.rows, "run", (json_int_t)a->run.damaged_run);
}

static json_t *run_json(const struct analysis *a)
{
	const struct run_info *r = &a->run;
	json_t *o = json_object(), *devices = json_array();
	json_t *command = r->command ? json_loads(r->command, 0, NULL) : NULL;

	if (!command && r->command && !utf8_valid(r->command, strlen(r->command))) {
		/* Bytes that are not UTF-8, raw, as the collector wrote them before it escaped them. */
		char *fixed = utf8_latin1(r->command, strlen(r->command), NULL);
		command = fixed ? json_loads(fixed, 0, NULL) : NULL;
		free(fixed);
	}
	if (!command || !json_is_array(command)) {
		json_decref(command);
		command = json_array();
	}
	json_object_set_new(o, "command", command);
	json_object_set_new(o, "exit_status", int_or_null(r->has_exit_status, r->exit_status));
	json_object_set_new(o, "exit_signal", int_or_null(r->exit_signal != 0, r->exit_signal));
	json_object_set_new(o, "status", str_or_null(r->status));
	json_object_set_new(o, "status_detail", str_or_null(r->status_detail));
	json_object_set_new(o, "duration_ns", json_integer(a->duration_ns));
	json_object_set_new(o, "runtime", str_or_null(r->runtime));
	json_object_set_new(o, "host_device", int_or_null(a->host_device >= 0 || r->has_host_device,
							  a->host_device));
	json_object_set_new(o, "events", json_integer((json_int_t)a->totals.events));
	json_object_set_new(o, "events_lost", json_integer(r->events_lost));
	json_object_set_new(o, "damaged_rows", damaged_json(a));
	/* Devices the runtime reported, and any other that events name, by number. */
	for (size_t i = 0; i < a->totals.ndevices; i++) {
		const struct device_totals *t = &a->totals.devices[i];
		const char *type = NULL;
		json_t *d;
		if (t->device == a->host_device || t->device < 0)
			continue;
		for (size_t j = 0; j < r->ndevices; j++)
			if (r->devices[j].num == t->device)
				type = r->devices[j].type;
		d = json_object();
		json_object_set_new(d, "device", json_integer(t->device));
		json_object_set_new(d, "type", str_or_null(type));
		json_object_set_new(d, "kernels", json_integer((json_int_t)t->kernels));
		json_object_set_new(d, "transfers_in", json_integer((json_int_t)t->transfers_in));
		json_object_set_new(d, "bytes_in", json_integer((json_int_t)t->bytes_in));
		json_object_set_new(d, "transfers_out", json_integer((json_int_t)t->transfers_out));
		json_object_set_new(d, "bytes_out", json_integer((json_int_t)t->bytes_out));
		json_object_set_new(d, "allocs", json_integer((json_int_t)t->allocs));
		json_array_append_new(devices, d);
	}
	json_object_set_new(o, "devices", devices);
	return o;
}

int report_nothing_mapped(const struct analysis *a, char *buf, size_t size)
{
	const struct run_totals *t = &a->totals;

	/* An OpenACC runtime that reported no transfer (host fallback): there was nothing to check. */
	if (a->acc.events && !a->acc.transfers && !a->findings.n) {
		snprintf(buf, size, "No data transfer was reported: the OpenACC runtime sent %" PRId64
			 " event%s (%" PRId64 " construct%s) and no upload or download, so data mapping"
			 " findings do not apply to this run.", a->acc.events, a->acc.events == 1 ? "" : "s",
			 a->acc.constructs, a->acc.constructs == 1 ? "" : "s");
		return 1;
	}
	if (a->findings.n || run_incomplete(&a->run) || !totals_moved_nothing(t))
		return 0;
	snprintf(buf, size, "No data was mapped: %" PRIu64 " kernel%s ran, but the map clauses copied"
		 " and allocated nothing (the device used host memory in place: unified shared memory,"
		 " as '#pragma omp requires unified_shared_memory' asks, an APU or a zero-copy"
		 " runtime), so data mapping findings do not apply to this run.",
		 t->kernels, t->kernels == 1 ? "" : "s");
	return 1;
}

/* What the runtime did not report (unreported.h), or null when it reported all mapprof uses. */
static json_t *not_reported_json(const struct analysis *a)
{
	struct unreported u;
	char text[2048];
	json_t *o, *items;

	if (!unreported_items(a, &u) || !unreported_text(a, text, sizeof(text)))
		return json_null();
	o = json_object();
	items = json_array();
	for (int i = 0; i < u.n; i++) {
		json_t *it = json_object();
		json_object_set_new(it, "what", json_string(u.what[i]));
		json_object_set_new(it, "text", json_string(u.text[i]));
		json_array_append_new(items, it);
	}
	json_object_set_new(o, "interface", json_string("openacc"));
	json_object_set_new(o, "runtime", str_or_null(a->acc.runtime_lib));
	json_object_set_new(o, "items", items);
	json_object_set_new(o, "text", json_string(text));
	return o;
}

/* The numbers of report/findings/overlap.h, of a device or the run. */
static void overlap_sums_json(json_t *o, const struct overlap_sums *s)
{
	json_object_set_new(o, "transfer_ns", json_integer(s->transfer_ns));
	json_object_set_new(o, "kernel_ns", json_integer(s->kernel_ns));
	json_object_set_new(o, "overlap_ns", json_integer(s->overlap_ns));
	json_object_set_new(o, "nowait_transfer_ns", json_integer(s->nowait_ns));
	json_object_set_new(o, "nowait_alone_ns", json_integer(s->nowait_alone_ns));
	json_object_set_new(o, "could_overlap_ns", json_integer(s->could_ns));
}

/* {"overlap_ns": ..., "devices": [{"device": N, ...}]}: transfers beside kernels (docs/report-json.md). */
static json_t *overlap_json(const struct analysis *a)
{
	struct overlap_sums run = overlap_run_sums(&a->overlap);
	json_t *o = json_object(), *devices = json_array();

	overlap_sums_json(o, &run);
	for (size_t i = 0; i < a->overlap.ndevices; i++) {
		struct overlap_sums s = overlap_device_sums(&a->overlap.devices[i]);
		json_t *d = json_object();
		json_object_set_new(d, "device", json_integer(a->overlap.devices[i].device));
		overlap_sums_json(d, &s);
		json_array_append_new(devices, d);
	}
	json_object_set_new(o, "devices", devices);
	return o;
}

static json_t *summary_json(const struct analysis *a)
{
	const struct findings *f = &a->findings;
	json_t *o = json_object(), *kinds = json_object();
	uint64_t nfind = 0, nocc = 0;

	for (int k = 0; k < FINDING_KIND_COUNT; k++) {
		json_t *s = json_object();
		json_object_set_new(s, "findings", json_integer((json_int_t)f->kinds[k].findings));
		json_object_set_new(s, "occurrences", json_integer((json_int_t)f->kinds[k].occurrences));
		json_object_set_new(s, "bytes", json_integer((json_int_t)f->kinds[k].bytes));
		json_object_set_new(s, "savings_ns", json_integer(f->kinds[k].savings_ns));
		json_object_set_new(kinds, finding_kind_name(k), s);
		nfind += f->kinds[k].findings;
		nocc += f->kinds[k].occurrences;
	}
	json_object_set_new(o, "duration_ns", json_integer(a->duration_ns));
	json_object_set_new(o, "transfer_ns", json_integer(busy_ns(&a->totals.transfer)));
	json_object_set_new(o, "alloc_ns", json_integer(busy_ns(&a->totals.alloc)));
	json_object_set_new(o, "kernel_ns", json_integer(busy_ns(&a->totals.kernel)));
	json_object_set_new(o, "savings_ns", json_integer(f->savings_ns));
	json_object_set_new(o, "predicted_speedup", f->predicted_speedup > 0 ?
			    json_real(rounded(f->predicted_speedup)) : json_null());
	json_object_set_new(o, "findings", json_integer((json_int_t)nfind));
	json_object_set_new(o, "occurrences", json_integer((json_int_t)nocc));
	json_object_set_new(o, "kinds", kinds);
	json_object_set_new(o, "overlap", overlap_json(a));
	{
		char note[512];
		if (report_nothing_mapped(a, note, sizeof(note)))
			json_object_set_new(o, "nothing_mapped", json_string(note));
	}
	if (a->acc.events) {
		json_t *nr = not_reported_json(a), *acc = json_object();
		json_object_set_new(acc, "events", json_integer(a->acc.events));
		json_object_set_new(acc, "constructs", json_integer(a->acc.constructs));
		json_object_set_new(acc, "launches", json_integer(a->acc.launches));
		json_object_set_new(acc, "data_events", json_integer(a->acc.data_events));
		json_object_set_new(acc, "transfers", json_integer(a->acc.transfers));
		json_object_set_new(o, "openacc", acc);
		if (json_is_object(nr))
			json_object_set_new(o, "not_reported", nr);
		else
			json_decref(nr);
	}
	return o;
}

/* The smallest seqs of the finding's operations (findings.h keeps them). */
static json_t *events_json(const struct finding *g, int *truncated)
{
	json_t *arr = json_array();
	size_t n = g->nkept < REPORT_JSON_MAX_EVENTS ? g->nkept : REPORT_JSON_MAX_EVENTS;

	*truncated = g->nkept > n;
	for (size_t i = 0; i < n; i++)
		json_array_append_new(arr, json_integer(g->events[i]));
	return arr;
}
/*
 * How a finding's copies into fresh device memory were priced (findings.c
 * price_of()), in words; null when it had none and was priced from copies
 * of its own size.
 */
static json_t *price_note(const struct finding *g)
{
	char *s = NULL;
	json_t *v;
	int rc;

	if (g->kind == FINDING_UNUSED_TRANSFER && g->priced_other_size == 2)
		rc = asprintf(&s, "priced from first copies into fresh device memory, page faults included: the run "
			      "has no copy into memory already written to price it from, and mapping it 'alloc' "
			      "moves the page faults into the kernel that first writes it, so it may save less");
	else if (g->kind == FINDING_UNUSED_TRANSFER && (g->first_copies || g->priced_other_size))
		rc = asprintf(&s, "priced from copies into device memory already written%s: mapping it 'alloc' "
			      "keeps the fresh memory, and the kernel that first writes it takes its page faults",
			      g->priced_other_size ? " (per byte, of a larger size or the other way: the run has none of "
			      "this size)" : "");
	else if (g->first_copies)
		rc = asprintf(&s, "%llu of its copies went into freshly allocated device memory: priced from such "
			      "copies, page faults included, which keeping the data mapped saves with the allocation",
			      (unsigned long long)g->first_copies);
	else
		return json_null();
	if (rc < 0)
		return NULL;
	v = json_string(s);
	free(s);
	return v;
}


static json_t *finding_json(const struct analysis *a, const struct finding *g)
{
	json_t *o = json_object(), *devices = json_array(), *data = place(a, g->data_addr);
	const char *flavour = flavour_name(g->flavour);
	json_t *var;
	int truncated;

	json_object_set_new(o, "id", json_integer(g->id));
	json_object_set_new(o, "kind", json_string(finding_kind_name(g->kind)));
	json_object_set_new(o, "flavour", *flavour ? json_string(flavour) : json_null());
	json_object_set_new(o, "fingerprint", json_string(g->fingerprint));
	json_object_set_new(o, "occurrences", json_integer((json_int_t)g->occurrences));
	json_object_set_new(o, "bytes", json_integer((json_int_t)g->bytes));
	json_object_set_new(o, "savings_ns", json_integer(g->savings_ns));
	json_object_set_new(o, "first_copies", json_integer((json_int_t)g->first_copies));
	json_object_set_new(o, "price_note", price_note(g));
	for (int i = 0; i < g->ndevices; i++)
		json_array_append_new(devices, json_integer(g->devices[i]));
	json_object_set_new(o, "devices", devices);
	json_object_set_new(o, "locations", places(a, g->locations, g->nlocations));
	if (g->kind == FINDING_DUPLICATE_TRANSFER)
		json_object_set_new(o, "origins", places(a, g->origins, g->norigins));
	json_object_set_new(data, "bytes", json_integer((json_int_t)g->data_bytes));
	var = a->attr && g->first_op_seq >= 0 ? attribution_variable(a->attr, g->first_op_seq) : NULL;
	if (var)
		add_relative(a, var, "decl_file", "decl_path");
	json_object_set_new(o, "variable", var ? var : json_null());
	json_object_set_new(o, "data", data);
	json_object_set_new(o, "events", events_json(g, &truncated));
	json_object_set_new(o, "events_truncated", json_boolean(truncated));
	json_object_set_new(o, "events_left_out", json_integer((json_int_t)(
		g->nevents > json_array_size(json_object_get(o, "events"))
			? g->nevents - json_array_size(json_object_get(o, "events")) : 0)));
	json_object_set_new(o, "advice", json_string(finding_advice(g->kind, g->flavour)));
	return o;
}

/* A plan's suggested edit (report/plan/planedit.h). */
static json_t *edit_json(const struct plan_edit *e)
{
	json_t *o = json_object(), *loop = json_null();

	if (e->loop_first > 0) {
		loop = json_object();
		json_object_set_new(loop, "first_line", json_integer(e->loop_first));
		json_object_set_new(loop, "last_line", json_integer(e->loop_last));
	}
	json_object_set_new(o, "kind", json_string(plan_edit_kind_name(e->kind)));
	json_object_set_new(o, "text", text(e->text ? e->text : ""));
	json_object_set_new(o, "clauses", str_or_null(e->clauses));
	json_object_set_new(o, "loop", loop);
	json_object_set_new(o, "patch", str_or_null(e->patch));
	if (e->source_changed)
		json_object_set_new(o, "source_changed", json_true());
	json_object_set_new(o, "unsure", str_or_null(e->unsure));
	json_object_set_new(o, "covered_by", e->covered_by ? json_integer(e->covered_by) : json_null());
	/* What the patch's updates still move: left out of the plan's savings_ns. */
	json_object_set_new(o, "kept_transfers", json_integer((json_int_t)e->nkeeps));
	json_object_set_new(o, "kept_ns", json_integer(e->left_ns));
	/* The page faults of fresh device memory its removed allocations take with them: in savings_ns. */
	json_object_set_new(o, "fresh_allocations", json_integer((json_int_t)e->nfaults));
	json_object_set_new(o, "fresh_faults_ns", json_integer(e->faults_ns));
	return o;
}

/* A plan's leaves: [{"id", "kind", "savings_ns"}] (the finding's own savings). */
static json_t *leaves_json(const struct analysis *a, const struct plan *pl)
{
	json_t *arr = json_array();

	for (size_t j = 0; arr && j < pl->nleaves; j++) {
		const struct finding *g = &a->findings.v[pl->leaves[j]];
		json_t *o = json_object();
		json_object_set_new(o, "id", json_integer(g->id));
		json_object_set_new(o, "kind", json_string(finding_kind_name(g->kind)));
		json_object_set_new(o, "savings_ns", json_integer(g->savings_ns));
		json_array_append_new(arr, o);
	}
	return arr;
}

/*
 * The fix plans (report/plan/plans.h): {"directive": place, "findings": [ids],
 * "kinds": {kind: findings}, "occurrences", "savings_ns", "leaves", "edit"}; no bytes: a sum
 * over findings would count a transfer that is in two of them twice, most
 * savings first.  NULL when out of memory.
 */
static json_t *plans_json(const struct analysis *a)
{
	struct plans own;
	const struct plans *p = plans_get(a, &own);
	json_t *arr = p ? json_array() : NULL;

	for (size_t i = 0; arr && i < p->n; i++) {
		const struct plan *pl = &p->v[i];
		json_t *o = json_object(), *ids = json_array(), *kinds = json_object();
		json_t *dir = place(a, pl->codeptr);

		json_object_del(dir, "snippet");   /* the findings quote it */
		for (size_t j = 0; j < pl->nmembers; j++)
			json_array_append_new(ids, json_integer(a->findings.v[pl->members[j]].id));
		for (int k = 0; k < FINDING_KIND_COUNT; k++)
			if (pl->kinds[k])
				json_object_set_new(kinds, finding_kind_name(k),
						    json_integer((json_int_t)pl->kinds[k]));
		json_object_set_new(o, "directive", dir);
		json_object_set_new(o, "findings", ids);
		json_object_set_new(o, "kinds", kinds);
		json_object_set_new(o, "occurrences", json_integer((json_int_t)pl->occurrences));
		json_object_set_new(o, "savings_ns", json_integer(pl->savings_ns));
		json_object_set_new(o, "leaves", leaves_json(a, pl));
		json_object_set_new(o, "edit", edit_json(&pl->edit));
		json_array_append_new(arr, o);
	}
	plans_release(&own);
	return arr;
}

/*
 * The kernels by launching place (db/read/kernel_sites.h), most time first:
 * {"location": place, "device", "launches", "total_ns", "mean_ns", "min_ns",
 * "max_ns", "bytes_to_device", "bytes_from_device", "transfers",
 * "transfer_ns"}.
 */
static json_t *kernels_json(const struct analysis *a)
{
	json_t *arr = json_array();

	for (size_t i = 0; arr && i < a->kernels->n; i++) {
		const struct kernel_site *k = &a->kernels->v[i];
		json_t *o = json_object(), *where = place(a, k->codeptr);

		json_object_del(where, "snippet");
		json_object_set_new(o, "location", where);
		json_object_set_new(o, "device", json_integer(k->device));
		json_object_set_new(o, "launches", json_integer(k->launches));
		json_object_set_new(o, "total_ns", json_integer(k->total_ns));
		json_object_set_new(o, "mean_ns", json_integer(k->launches ? k->total_ns / k->launches : 0));
		json_object_set_new(o, "min_ns", json_integer(k->min_ns));
		json_object_set_new(o, "max_ns", json_integer(k->max_ns));
		json_object_set_new(o, "bytes_to_device", json_integer(k->bytes_to));
		json_object_set_new(o, "bytes_from_device", json_integer(k->bytes_from));
		json_object_set_new(o, "transfers", json_integer(k->transfers));
		json_object_set_new(o, "transfer_ns", json_integer(k->transfer_ns));
		json_array_append_new(arr, o);
	}
	return arr;
}

/* The variable a check finding's operation moved, as the report names it (borrowed from var). */
static const char *var_name(const json_t *var)
{
	return json_string_value(json_object_get(var, "name"));
}

/*
 * A check finding: {"id", "kind", "rule", "title", "device", "direction",
 * "location", "variable", "seq", "range": {"first", "end"}, "bytes",
 * "operation_bytes", "occurrences", "total_bytes", "message", "fix"}.
 */
static json_t *check_json(const struct analysis *a, const struct check_finding *c)
{
	json_t *o = json_object(), *var = NULL;
	char *msg;

	if (!o)
		return NULL;
	if (a->attr && c->seq >= 0 && (var = attribution_variable(a->attr, c->seq)))
		add_relative(a, var, "decl_file", "decl_path");
	msg = check_message(c, var_name(var));
	json_object_set_new(o, "id", json_integer(c->id));
	json_object_set_new(o, "kind", json_string(check_kind_name(c->kind)));
	json_object_set_new(o, "rule", json_string(check_rule_id(c->kind)));
	json_object_set_new(o, "title", json_string(check_title(c->kind)));
	json_object_set_new(o, "device", json_integer(c->device));
	json_object_set_new(o, "direction", json_string(c->to_device ? "to_device" : "from_device"));
	json_object_set_new(o, "location", place(a, c->codeptr));
	json_object_set_new(o, "variable", var ? var : json_null());
	json_object_set_new(o, "seq", json_integer(c->seq));
	json_object_set_new(o, "host_address", hex(c->host_addr));
	json_object_set_new(o, "range", json_pack("{sIsI}", "first", (json_int_t)c->first, "end",
						  (json_int_t)c->end));
	json_object_set_new(o, "bytes", json_integer((json_int_t)c->bytes));
	json_object_set_new(o, "operation_bytes", json_integer((json_int_t)c->op_bytes));
	json_object_set_new(o, "occurrences", json_integer((json_int_t)c->occurrences));
	json_object_set_new(o, "total_bytes", json_integer((json_int_t)c->total_bytes));
	json_object_set_new(o, "message", msg ? text(msg) : json_null());
	json_object_set_new(o, "fix", json_string(check_fix(c)));
	free(msg);
	return o;
}

/* {"findings": [...], "skipped": ["device N: why", ...]}: only for a run recorded with --check. */
static json_t *checks_json(const struct analysis *a)
{
	json_t *o = json_object(), *v = json_array(), *sk = json_array();

	for (size_t i = 0; i < a->checks.n; i++)
		json_array_append_new(v, check_json(a, &a->checks.v[i]));
	for (size_t i = 0; i < a->checks.nskipped; i++)
		json_array_append_new(sk, text(a->checks.skipped[i]));
	json_object_set_new(o, "findings", v);
	json_object_set_new(o, "skipped", sk);
	return o;
}

json_t *report_json(const struct analysis *a)
{
	json_t *doc = json_object(), *findings = json_array(), *plans = plans_json(a);

	if (!doc || !findings || !plans) {
		json_decref(doc);
		json_decref(findings);
		json_decref(plans);
		return NULL;
	}
	json_object_set_new(doc, "format", json_string(REPORT_JSON_FORMAT));
	json_object_set_new(doc, "version", json_integer(REPORT_JSON_VERSION));
	json_object_set_new(doc, "run", run_json(a));
	json_object_set_new(doc, "summary", summary_json(a));
	if (a->checks.ran || a->checks.n || a->checks.nskipped)
		json_object_set_new(doc, "checks", checks_json(a));
	for (size_t i = 0; i < a->findings.n; i++)
		json_array_append_new(findings, finding_json(a, &a->findings.v[i]));
	json_object_set_new(doc, "findings", findings);
	json_object_set_new(doc, "plans", plans);
	if (a->kernels)
		json_object_set_new(doc, "kernels", kernels_json(a));
	json_object_set_new(doc, "source_root", str_or_null(a->source_root));
	return doc;
}

int report_json_dump(json_t *doc, const char *path, unsigned oflags, size_t flags, const char *what,
		     char **err)
{
	struct outfile o;
	const char *why;

	if (outfile_open(&o, path, oflags) < 0)
		goto fail;
	/* A failed write is in o.err, with its errno: commit says it. */
	if ((json_dumpf(doc, o.f, flags) < 0 || fputc('\n', o.f) == EOF) && !o.err) {
		outfile_discard(&o);
		errno = ENOMEM;
		goto fail;
	}
	if (outfile_commit(&o) < 0)
		goto fail;
	return 0;
fail:
	why = strerror(errno);
	if (err && (outfile_is_stdout(path)
		    ? asprintf(err, "cannot write the %s to standard output: %s", what, why)
		    : asprintf(err, "cannot write '%s': %s", path, why)) < 0)
		*err = NULL;
	return -1;
}

int report_json_write(json_t *doc, const char *path, unsigned oflags, char **err)
{
	return report_json_dump(doc, path, oflags, JSON_SORT_KEYS | JSON_INDENT(2) | JSON_REAL_PRECISION(10),
				"JSON report", err);
}
