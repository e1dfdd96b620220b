/*
 * summary.c - the terminal summary.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "db/store/attribution.h"
#include "db/read/kernel_sites.h"
#include "report/output/json.h"
#include "report/findings/paths.h"
#include "report/plan/plans.h"
#include "report/output/summary.h"
#include "report/output/unreported.h"
#include "lib/termesc.h"
#include "lib/units.h"
#include "lib/sort.h"

static void print_place(FILE *out, const struct analysis *a, uint64_t addr)
{
	uint64_t off;
	const char *mod = addr ? module_locate(a->run.modules, a->run.nmodules, addr, &off) : NULL;
	json_t *src = a->attr && addr ? attribution_location(a->attr, addr) : NULL;
	const char *file = json_string_value(json_object_get(src, "file"));
	json_int_t line = json_integer_value(json_object_get(src, "line"));

	file = path_relative(a->source_root, file);
	if (file) {
		termesc_fputs(file, out, 0);
		if (line > 0)
			fprintf(out, ":%lld", (long long)line);
	} else if (mod) {
		termesc_fputs(mod, out, 0);
		fprintf(out, "+0x%" PRIx64, off);
	} else if (addr)
		fprintf(out, "0x%" PRIx64, addr);
	else
		fprintf(out, "unknown location");
	if (!file && mod)
		fprintf(out, " (build with -g for source lines)");
	json_decref(src);
}

static void print_variable(FILE *out, const struct analysis *a, const struct finding *g)
{
	json_t *v = a->attr && g->first_op_seq >= 0 ? attribution_variable(a->attr, g->first_op_seq) : NULL;
	const char *name = json_string_value(json_object_get(v, "name"));
	if (name) {
		fputs(" '", out);
		termesc_fputs(name, out, 0);
		fputc('\'', out);
	}
	json_decref(v);
}

static void print_devices(FILE *out, const struct analysis *a, const struct finding *g)
{
	static const char *const sep[] = { "", " -> " };
	for (int i = 0; i < g->ndevices; i++) {
		if (g->devices[i] == a->host_device)
			fprintf(out, "%shost", sep[i > 0]);
		else
			fprintf(out, "%sdevice %d", sep[i > 0], g->devices[i]);
	}
}

/*
 * The findings of 'record --check', before the waste: each with its
 * place, its variable, what happened and the fix.  Nothing when the run
 * was recorded without --check.
 */
static void print_checks(FILE *out, const struct analysis *a)
{
	const struct check_findings *c = &a->checks;
	uint64_t occ = 0;

	if (!c->ran && !c->n && !c->nskipped)
		return;
	for (size_t i = 0; i < c->n; i++)
		occ += c->v[i].occurrences;
	if (!c->n)
		fprintf(out, "mapprof: --check found no mapping bugs\n");
	else
		fprintf(out, "mapprof: --check found %zu mapping bug%s (%" PRIu64 " occurrence%s):\n", c->n,
			c->n == 1 ? "" : "s", occ, occ == 1 ? "" : "s");
	for (size_t i = 0; i < c->n; i++) {
		const struct check_finding *g = &c->v[i];
		json_t *v = a->attr && g->seq >= 0 ? attribution_variable(a->attr, g->seq) : NULL;
		char *msg = check_message(g, json_string_value(json_object_get(v, "name")));

		fprintf(out, "  B%d %s at ", g->id, check_kind_name(g->kind));
		print_place(out, a, g->codeptr);
		fprintf(out, ": %" PRIu64 " time%s\n     ", g->occurrences, g->occurrences == 1 ? "" : "s");
		termesc_fputs(msg ? msg : "out of memory", out, 0);
		fprintf(out, "\n     fix: %s\n", check_fix(g));
		free(msg);
		json_decref(v);
	}
	for (size_t i = 0; i < c->nskipped; i++) {
		fputs("  not checked on ", out);
		termesc_fputs(c->skipped[i], out, 0);
		fputc('\n', out);
	}
	fputc('\n', out);
}

/* What tells a finding from its look-alikes on the same line, in words. */
static const char *flavour_words(enum flavour flavour)
{
	switch (flavour) {
	case FLAVOUR_SAME_DATA: return "same data again";
	case FLAVOUR_SAME_CONTENT: return "same content, other data";
	case FLAVOUR_HOST_DEVICE_HOST: return "host->dev->host, came back unchanged";
	case FLAVOUR_DEVICE_HOST_DEVICE: return "dev->host->dev, sent back unchanged";
	case FLAVOUR_DEVICE_DEVICE: return "dev->dev, between devices";
	case FLAVOUR_OVERWRITTEN: return "overwritten before use";
	case FLAVOUR_AFTER_LAST_KERNEL: return "after the last kernel";
	default: return "";
	}
}

static const char *const kind_words[FINDING_KIND_COUNT][2] = {
	{ "duplicate transfer", "duplicate transfers" },
	{ "round trip", "round trips" },
	{ "repeated allocation", "repeated allocations" },
	{ "unused allocation", "unused allocations" },
	{ "unused transfer", "unused transfers" },
};

/*
 * A plan's suggested edit: its first sentence; for the top plan also its
 * patch, indented (report.json has the whole text).
 */
static void print_edit(FILE *out, const struct plan_edit *e, int with_patch)
{
	const char *text = e->text ? e->text : "", *end;
	const char *prefix = "Suggested: ";

	if (!strncmp(text, prefix, strlen(prefix)))
		text += strlen(prefix);
	if (!*text)
		return;
	end = strstr(text, ". ");
	fprintf(out, "     suggested: %.*s%s\n", (int)(end ? end - text : (int)strlen(text)), text,
		end ? "." : "");
	if (e->nkeeps && !e->covered_by) {
		char t[32];
		if (e->left_ns > 0)
			fprintf(out, "     leaves: %zu transfer%s its updates still make (%s), not in its savings\n",
				e->nkeeps, e->nkeeps == 1 ? "" : "s", format_ns(t, sizeof(t), e->left_ns));
		else   /* in no finding: not priced */
			fprintf(out, "     leaves: %zu transfer%s its updates still make, not in its savings\n",
				e->nkeeps, e->nkeeps == 1 ? "" : "s");
	}
	if (e->nfaults && !e->covered_by) {
		char t[32];
		fprintf(out, "     and: the page faults of %zu fresh device allocation%s (%s), in its savings\n",
			e->nfaults, e->nfaults == 1 ? "" : "s", format_ns(t, sizeof(t), e->faults_ns));
	}
	if (!with_patch || !e->patch)
		return;
	fprintf(out, "     patch (report.json: plans[0].edit.patch; patch -p1 in the source root):\n");
	for (const char *p = e->patch; *p;) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		fprintf(out, "       %.*s\n", n, p);
		p += n + (nl != NULL);
	}
}

/* The directives to change first: one line per plan, its findings by kind, its edit. */
static void print_plans(FILE *out, const struct analysis *a, int top)
{
	struct plans own;
	const struct plans *p = plans_get(a, &own);
	char t[32];

	if (!p)
		return;
	fprintf(out, "\ndirectives to change (%zu), by savings:\n", p->n);
	for (size_t i = 0; i < p->n && (int)i < top; i++) {
		const struct plan *pl = &p->v[i];
		const char *sep = "";

		fprintf(out, "  %zu. ", i + 1);
		print_place(out, a, pl->codeptr);
		fprintf(out, ": %s to save; ", format_ns(t, sizeof(t), pl->savings_ns));
		for (int k = 0; k < FINDING_KIND_COUNT; k++) {
			if (!pl->kinds[k])
				continue;
			fprintf(out, "%s%" PRIu64 " %s", sep, pl->kinds[k], kind_words[k][pl->kinds[k] != 1]);
			sep = ", ";
		}
		fprintf(out, " (#");
		for (size_t j = 0; j < pl->nmembers && j < 8; j++)
			fprintf(out, "%s%d", j ? ", #" : "", a->findings.v[pl->members[j]].id);
		fprintf(out, "%s)\n", pl->nmembers > 8 ? ", ..." : "");
		if (pl->nleaves) {
			int64_t sum = 0;
			fprintf(out, "     its patch leaves #");
			for (size_t j = 0; j < pl->nleaves; j++) {
				const struct finding *g = &a->findings.v[pl->leaves[j]];
				sum += g->savings_ns;
				if (j < 8)
					fprintf(out, "%s%d", j ? ", #" : "", g->id);
			}
			fprintf(out, "%s of this directive, not in its savings (theirs add up to %s)\n",
				pl->nleaves > 8 ? ", ..." : "", format_ns(t, sizeof(t), sum));
		}
		print_edit(out, &pl->edit, i == 0);
	}
	if (p->n > (size_t)top)
		fprintf(out, "  ... and %zu more directives\n", p->n - (size_t)top);
	plans_release(&own);
}

static int cmp_savings(const void *x, const void *y)
{
	const struct finding *const *a = x, *const *b = y;
	if ((*a)->savings_ns != (*b)->savings_ns)
		return (*a)->savings_ns > (*b)->savings_ns ? -1 : 1;
	return ((*a)->id > (*b)->id) - ((*a)->id < (*b)->id);
}

static void print_top(FILE *out, const struct analysis *a, int top)
{
	const struct findings *f = &a->findings;
	const struct finding **by = malloc((f->n ? f->n : 1) * sizeof(*by));
	char t[32], b[32];

	if (!by)
		return;
	for (size_t i = 0; i < f->n; i++)
		by[i] = &f->v[i];
	sort_array(by, f->n, sizeof(*by), cmp_savings);
	fprintf(out, "\ntop findings by savings:\n");
	for (size_t i = 0; i < f->n && (int)i < top; i++) {
		const struct finding *g = by[i];
		const char *flavour = flavour_name(g->flavour);

		fprintf(out, "  #%d %s%s%s%s of", g->id, finding_kind_name(g->kind),
			*flavour ? " (" : "", flavour_words(g->flavour), *flavour ? ")" : "");
		print_variable(out, a, g);
		fprintf(out, ", ");
		print_devices(out, a, g);
		fprintf(out, "\n     at ");
		print_place(out, a, g->key[0]);
		if (g->nkey > 1 && g->key[1] != g->key[0]) {
			fprintf(out, " and ");
			print_place(out, a, g->key[1]);
		}
		fprintf(out, ": %" PRIu64 " occurrence%s, %s, %s to save\n", g->occurrences,
			g->occurrences == 1 ? "" : "s", format_bytes(b, sizeof(b), g->bytes),
			format_ns(t, sizeof(t), g->savings_ns));
		fprintf(out, "     %s\n", finding_advice(g->kind, g->flavour));
	}
	if (f->n > (size_t)top)
		fprintf(out, "  ... and %zu more (see report.json or the findings table)\n", f->n - (size_t)top);
	free(by);
}

/* One warning line per table with damaged rows, and why they were damaged. */
static void print_damaged(FILE *out, const char *table, const struct damaged *d)
{
	static const char *const why[] = { "a NULL value", "an unknown op code",
		"a device number out of range", "a negative or impossible size",
		"a time out of range or an end before the begin" };
	const int64_t n[] = { d->null, d->kind, d->device, d->bytes, d->time };
	const char *sep = ": ";

	if (!d->rows)
		return;
	fprintf(out, "mapprof: warning: %" PRId64 " damaged row%s in %s ignored", d->rows,
		d->rows == 1 ? "" : "s", table);
	for (size_t i = 0; i < sizeof(n) / sizeof(n[0]); i++) {
		if (!n[i])
			continue;
		fprintf(out, "%s%" PRId64 " with %s", sep, n[i], why[i]);
		sep = ", ";
	}
	fprintf(out, "\n");
}

/* "incomplete recording: DETAIL" or "incomplete recording (run status 'S'): DETAIL". */
static void print_incomplete(FILE *out, const struct run_info *r)
{
	const char *detail = r->status_detail ? r->status_detail : "no reason was recorded";

	if (r->status && !strcmp(r->status, "incomplete")) {
		fputs("incomplete recording: ", out);
	} else {
		fputs("incomplete recording (run status '", out);
		termesc_fputs(r->status ? r->status : "unknown", out, 0);
		fputs("'): ", out);
	}
	termesc_fputs(detail, out, 0);
}

/*
 * The kinds' rows add up to more than the total: one operation can be in
 * several occurrences (a transfer both a duplicate and a round trip's leg;
 * a round trip's bytes are both legs'), and the total counts each
 * operation once.  Said, so that the sums do not look like a mistake.
 */
static void print_overlap_note(FILE *out, const struct analysis *a)
{
	const struct findings *f = &a->findings;
	int64_t savings = 0;
	uint64_t bytes = 0;
	char t[32], b[32];

	for (int k = 0; k < FINDING_KIND_COUNT; k++) {
		savings += f->kinds[k].savings_ns;
		if (k != FINDING_REPEATED_ALLOC && k != FINDING_UNUSED_ALLOC)
			bytes += f->kinds[k].bytes;
	}
	if (savings <= f->savings_ns && bytes <= a->totals.transfer_bytes)
		return;
	fprintf(out, "  (the rows overlap: one operation can be in several findings, a transfer both a"
		" duplicate and a leg of a round trip, whose bytes count both legs; so the savings add"
		" up to %s and the transfer bytes to %s, against %s moved in all: the total counts"
		" each operation once)\n", format_ns(t, sizeof(t), savings),
		format_bytes(b, sizeof(b), bytes), format_bytes((char[32]){ 0 }, 32, a->totals.transfer_bytes));
}

/*
 * The kernels by launching place, most time first: the first 'top' of
 * them, each with what its constructs' map clauses moved (db/read/kernel_sites.h).
 */
static void print_kernels(FILE *out, const struct analysis *a, int top)
{
	const struct kernel_sites *ks = a->kernels;
	int64_t launches = 0;
	char t[32], m[32], bi[32], bo[32];

	if (!ks || !ks->n)
		return;
	for (size_t i = 0; i < ks->n; i++)
		launches += ks->v[i].launches;
	fprintf(out, "\nkernels: %" PRId64 " launch%s at %zu place%s, most time first:\n",
		launches, launches == 1 ? "" : "es", ks->n, ks->n == 1 ? "" : "s");
	fprintf(out, "  %8s %12s %12s %12s %12s  %s\n", "launches", "total", "mean", "to device",
		"from device", "where");
	for (size_t i = 0; i < ks->n && (int)i < top; i++) {
		const struct kernel_site *k = &ks->v[i];
		fprintf(out, "  %8" PRId64 " %12s %12s %12s %12s  ", k->launches,
			format_ns(t, sizeof(t), k->total_ns),
			format_ns(m, sizeof(m), k->launches ? k->total_ns / k->launches : 0),
			format_bytes(bi, sizeof(bi), (uint64_t)k->bytes_to),
			format_bytes(bo, sizeof(bo), (uint64_t)k->bytes_from));
		print_place(out, a, k->codeptr);
		if (k->device == a->host_device)
			fputs(", host\n", out);
		else
			fprintf(out, ", device %d\n", k->device);
	}
	if (ks->n > (size_t)top)
		fprintf(out, "  ... and %zu more (see report.json or the page's kernels table)\n",
			ks->n - (size_t)top);
	fputs("  (to/from device: what the launching target constructs' map clauses moved)\n", out);
}

/*
 * Transfers beside kernels (report/findings/overlap.h), when a device had
 * both: how much overlapped, and how much of the nowait transfers' time
 * could have.
 */
static void print_overlap(FILE *out, const struct analysis *a)
{
	struct overlap_sums s = overlap_run_sums(&a->overlap);
	char o[32], t[32], n[32], c[32];

	if (!s.transfer_ns || !s.kernel_ns)
		return;
	fprintf(out, "  overlap: %s of %s transfer time beside kernels (%.1f%%); ",
		format_ns(o, sizeof(o), s.overlap_ns), format_ns(t, sizeof(t), s.transfer_ns),
		100.0 * (double)s.overlap_ns / (double)s.transfer_ns);
	if (s.nowait_ns)
		fprintf(out, "nowait transfers alone %s, up to %s could overlap\n",
			format_ns(n, sizeof(n), s.nowait_alone_ns), format_ns(c, sizeof(c), s.could_ns));
	else
		fputs("no nowait transfers\n", out);
}

void summary_print(FILE *out, const struct analysis *a, int top)
{
	const struct findings *f = &a->findings;
	int incomplete = run_incomplete(&a->run);
	char t[32], b[32], d[32], note[2048];

	print_damaged(out, "data_op_raw", &a->damaged_ops);
	print_damaged(out, "kernel_raw", &a->damaged_kernels);
	if (a->run.damaged_run)
		fprintf(out, "mapprof: warning: 1 damaged row in run_raw ignored: %" PRId64
			" with a duration or host device out of range\n", a->run.damaged_run);
	if (incomplete) {
		fprintf(out, "mapprof: ");
		print_incomplete(out, &a->run);
		fprintf(out, "\nmapprof: this report covers only what was recorded\n");
	}
	print_checks(out, a);
	fprintf(out, "mapprof: %" PRIu64 " events in %s; transfers busy %s, allocations busy %s\n",
		a->totals.events, format_ns(d, sizeof(d), a->duration_ns),
		format_ns(t, sizeof(t), busy_ns(&a->totals.transfer)),
		format_ns(b, sizeof(b), busy_ns(&a->totals.alloc)));
	if (a->acc.events)
		fprintf(out, "mapprof: OpenACC: %" PRId64 " events: %" PRId64 " constructs, %" PRId64
			" launches, %" PRId64 " data events (%" PRId64 " transfers)\n", a->acc.events,
			a->acc.constructs, a->acc.launches, a->acc.data_events, a->acc.transfers);
	print_overlap(out, a);
	fprintf(out, "  %-20s %8s %12s %12s %12s\n", "pattern", "findings", "occurrences", "bytes",
		"savings");
	for (int k = 0; k < FINDING_KIND_COUNT; k++) {
		const struct kind_summary *s = &f->kinds[k];
		fprintf(out, "  %-20s %8" PRIu64 " %12" PRIu64 " %12s %12s\n", finding_kind_name(k),
			s->findings, s->occurrences, format_bytes(b, sizeof(b), s->bytes),
			format_ns(t, sizeof(t), s->savings_ns));
	}
	if (a->duration_ns > 0) {
		fprintf(out, "  total savings %s of %s (%.1f%%): ", format_ns(t, sizeof(t), f->savings_ns),
			d, 100.0 * (double)f->savings_ns / (double)a->duration_ns);
		if (f->predicted_speedup > 0)
			fprintf(out, "predicted speedup %.2fx\n", f->predicted_speedup);
		else
			fprintf(out, "all of the run is data mapping that could go\n");
	}
	print_overlap_note(out, a);
	print_kernels(out, a, top);
	if (unreported_text(a, note, sizeof(note))) {
		fputs("\n", out);
		termesc_fputs(note, out, 0);
		fputs("\n", out);
	}
	/* Kernels ran and nothing was mapped, or the runtime reported no transfer:
	 * "no inefficient mapping" would suggest the mapping was checked and found
	 * good, when there was none (said before an incomplete run's line, which
	 * says the same of what was recorded). */
	if (report_nothing_mapped(a, note, sizeof(note))) {
		note[0] = 'n';
		fprintf(out, "\n%s\n", note);
		return;
	}
	if (!f->n && incomplete) {
		fputs("\nno inefficient data mapping found in what was recorded (the recording is"
		      " incomplete: ", out);
		termesc_fputs(a->run.status_detail ? a->run.status_detail
			      : a->run.status ? a->run.status : "no reason was recorded", out, 0);
		fputs(").\n", out);
		return;
	}
	if (!f->n) {
		fprintf(out, "\nno inefficient data mapping found.\n");
		return;
	}
	print_plans(out, a, top);
	print_top(out, a, top);
}
