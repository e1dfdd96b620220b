/*
 * merge.c - the findings of several processes, merged by fingerprint
 * (merge.h).
 *
 * A finding's fingerprint (report/findings/findings.c) hashes what it is and where:
 * its kind, its code locations and data as module-relative places, its
 * devices; never addresses, times or pids.  The same inefficiency in every
 * rank of an MPI job therefore has one fingerprint, and merging is an
 * equality of strings.  Arrays and linear scans: a job's distinct findings
 * are tens, its processes at most thousands.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/process.h"
#include "report/compare/merge.h"
#include "report/detect/occurrence.h"
#include "lib/sort.h"
#include "lib/termesc.h"
#include "lib/units.h"

struct mproc {
	char *path;
	char *report;     /* its own report.html, as a link from the merged page; NULL: none */
	struct process_row row;
	struct process_totals totals;
};

/* One process's part of a merged finding. */
struct mshare {
	uint64_t occurrences, bytes;
	int64_t savings_ns;
};

struct mfinding {
	char *fingerprint, *kind, *flavour, *variable, *file;
	int line;
	uint64_t occurrences, occ_min, occ_max, bytes;
	int64_t savings_ns;
	long *who;        /* the rank of each process it was found in (its pid when it has none) */
	struct mshare *share; /* what each of those processes had of it, index for index */
	size_t nwho;
	int by_pid;       /* some process had no rank: 'who' holds pids */
};

struct merge {
	struct mproc *procs;
	size_t nprocs, procs_cap;
	struct mfinding *f;
	size_t nf, f_cap;
	int adding;       /* index of the process being added */
};

struct merge *merge_new(void)
{
	return calloc(1, sizeof(struct merge));
}

void merge_free(struct merge *m)
{
	if (!m)
		return;
	for (size_t i = 0; i < m->nprocs; i++) {
		free(m->procs[i].path);
		free(m->procs[i].report);
		process_row_release(&m->procs[i].row);
		free(m->procs[i].totals.status);
	}
	for (size_t i = 0; i < m->nf; i++) {
		struct mfinding *f = &m->f[i];
		free(f->fingerprint);
		free(f->kind);
		free(f->flavour);
		free(f->variable);
		free(f->file);
		free(f->who);
		free(f->share);
	}
	free(m->procs);
	free(m->f);
	free(m);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

static int add_finding(const struct finding_digest *d, void *arg)
{
	struct merge *m = arg;
	const struct mproc *p = &m->procs[m->adding];
	struct mfinding *f = NULL;
	long *who;
	struct mshare *share;

	for (size_t i = 0; i < m->nf && !f; i++)
		if (!strcmp(m->f[i].fingerprint, d->fingerprint))
			f = &m->f[i];
	if (!f) {
		if (m->nf == m->f_cap) {
			size_t cap = m->f_cap ? 2 * m->f_cap : 16;
			struct mfinding *nf = realloc(m->f, cap * sizeof(*nf));
			if (!nf)
				return -1;
			m->f = nf;
			m->f_cap = cap;
		}
		f = &m->f[m->nf++];
		memset(f, 0, sizeof(*f));
		f->fingerprint = strdup(d->fingerprint);
		f->kind = strdup(d->kind);
		f->flavour = dup_or_null(d->flavour);
		f->variable = dup_or_null(d->variable);
		f->file = dup_or_null(d->file);
		f->line = d->line;
		f->occ_min = UINT64_MAX;
		if (!f->fingerprint || !f->kind)
			return -1;
	}
	f->occurrences += d->occurrences;
	f->bytes += d->bytes;
	f->savings_ns += d->savings_ns;
	if (d->occurrences < f->occ_min)
		f->occ_min = d->occurrences;
	if (d->occurrences > f->occ_max)
		f->occ_max = d->occurrences;
	who = realloc(f->who, (f->nwho + 1) * sizeof(*who));
	if (!who)
		return -1;
	f->who = who;
	share = realloc(f->share, (f->nwho + 1) * sizeof(*share));
	if (!share)
		return -1;
	f->share = share;
	share[f->nwho] = (struct mshare){ d->occurrences, d->bytes, d->savings_ns };
	if (p->row.rank < 0)
		f->by_pid = 1;
	f->who[f->nwho++] = p->row.rank >= 0 ? (long)p->row.rank : (long)p->row.pid;
	return 0;
}

const char *merge_last_label(const struct merge *m, char *buf, size_t n)
{
	const struct mproc *p = m->nprocs ? &m->procs[m->nprocs - 1] : NULL;

	if (!p)
		snprintf(buf, n, "?");
	else if (p->row.rank >= 0)
		snprintf(buf, n, "rank %lld", (long long)p->row.rank);
	else
		snprintf(buf, n, "pid %lld", (long long)p->row.pid);
	return buf;
}

int merge_add(struct merge *m, const char *path, char **err)
{
	enum db_problem problem;
	struct db *db;
	struct mproc *p;
	int rc;

	if (m->nprocs == m->procs_cap) {
		size_t cap = m->procs_cap ? 2 * m->procs_cap : 16;
		struct mproc *np = realloc(m->procs, cap * sizeof(*np));
		if (!np)
			goto oom;
		m->procs = np;
		m->procs_cap = cap;
	}
	db = db_open(path, 0, &problem, err);
	if (!db)
		return -1;
	p = &m->procs[m->nprocs];
	memset(p, 0, sizeof(*p));
	if (!(p->path = strdup(path))) {
		db_close(db);
		goto oom;
	}
	m->adding = (int)m->nprocs;
	rc = db_process_read(db, &p->row, err) < 0 ? -1 :
	     db_finding_digests(db, &p->totals, add_finding, m, err);
	db_close(db);
	if (rc) {
		if (rc > 0 || (err && !*err))
			*err = strdup("out of memory");
		free(p->path);
		process_row_release(&p->row);
		free(p->totals.status);
		return -1;
	}
	m->nprocs++;
	return 0;
oom:
	*err = strdup("out of memory");
	return -1;
}

int merge_set_report(struct merge *m, const char *link)
{
	struct mproc *p = m->nprocs ? &m->procs[m->nprocs - 1] : NULL;

	if (!p)
		return -1;
	free(p->report);
	p->report = link ? strdup(link) : NULL;
	return link && !p->report ? -1 : 0;
}

/* Processes by rank, those without one after them, each group by pid: as a job's ranks read. */
static int cmp_proc(const void *a, const void *b)
{
	const struct mproc *x = *(struct mproc *const *)a, *y = *(struct mproc *const *)b;
	int xr = x->row.rank >= 0, yr = y->row.rank >= 0;

	if (xr != yr)
		return yr - xr;
	if (xr && x->row.rank != y->row.rank)
		return x->row.rank < y->row.rank ? -1 : 1;
	if (x->row.pid != y->row.pid)
		return x->row.pid < y->row.pid ? -1 : 1;
	return strcmp(x->path, y->path);
}

/* The processes in rank order (an array of pointers the caller frees). */
static const struct mproc **by_rank(const struct merge *m)
{
	const struct mproc **v = malloc((m->nprocs + 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < m->nprocs; i++)
		v[i] = &m->procs[i];
	sort_array(v, m->nprocs, sizeof(*v), cmp_proc);
	return v;
}

/* The finding's advice, as report.json gives a single run's ("" for an unknown kind). */
static const char *advice_of(const char *kind, const char *flavour)
{
	int k = 0, fl = 0;

	while (k < FINDING_KIND_COUNT && strcmp(finding_kind_name(k), kind))
		k++;
	while (flavour && fl < FLAVOUR_COUNT && strcmp(flavour_name(fl), flavour))
		fl++;
	return finding_advice(k, fl < FLAVOUR_COUNT ? fl : FLAVOUR_NONE);
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

/* "0-3,5" from the sorted values (each once). */
static void ranges(FILE *out, long *v, size_t n)
{
	sort_array(v, n, sizeof(*v), cmp_long);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] <= v[j] + 1)
			j++;
		fprintf(out, "%s%ld", i ? "," : "", v[i]);
		if (v[j] != v[i])
			fprintf(out, "-%ld", v[j]);
		i = j + 1;
	}
}

static int cmp_savings(const void *a, const void *b)
{
	const struct mfinding *x = *(struct mfinding *const *)a, *y = *(struct mfinding *const *)b;
	if (x->savings_ns != y->savings_ns)
		return x->savings_ns > y->savings_ns ? -1 : 1;
	return strcmp(x->fingerprint, y->fingerprint);
}

/* The merged findings, most savings first (an array of pointers the caller frees). */
static struct mfinding **by_savings(const struct merge *m)
{
	struct mfinding **v = malloc((m->nf + 1) * sizeof(*v));
	if (!v)
		return NULL;
	for (size_t i = 0; i < m->nf; i++)
		v[i] = &m->f[i];
	sort_array(v, m->nf, sizeof(*v), cmp_savings);
	return v;
}

static void kind_words(FILE *out, const char *kind)
{
	char *words = termesc_dup(kind, 0);

	for (const char *k = words ? words : ""; *k; k++)
		fputc(*k == '_' ? ' ' : *k, out);
	free(words);
}

void merge_summary(const struct merge *m, FILE *out, int top)
{
	struct mfinding **v = by_savings(m);
	uint64_t ops = 0, kernels = 0;
	size_t incomplete = 0;

	for (size_t i = 0; i < m->nprocs; i++) {
		ops += m->procs[i].totals.data_ops;
		kernels += m->procs[i].totals.kernels;
		if (!m->procs[i].totals.status || strcmp(m->procs[i].totals.status, "complete"))
			incomplete++;
	}
	fprintf(out, "%zu processes: %llu data operations, %llu kernels", m->nprocs,
		(unsigned long long)ops, (unsigned long long)kernels);
	if (incomplete)
		fprintf(out, " (%zu recordings incomplete)", incomplete);
	fputc('\n', out);
	if (m->nprocs <= 16) {
		const struct mproc **order = by_rank(m);
		for (size_t i = 0; order && i < m->nprocs; i++) {
			const struct mproc *p = order[i];
			fprintf(out, "  pid %lld", (long long)p->row.pid);
			if (p->row.rank >= 0)
				fprintf(out, " rank %lld", (long long)p->row.rank);
			fputs(" (", out);
			termesc_fputs(p->row.started ? p->row.started : "?", out, 0);
			fprintf(out, "): %llu data operations, %llu kernels, %llu findings  ",
				(unsigned long long)p->totals.data_ops,
				(unsigned long long)p->totals.kernels,
				(unsigned long long)p->totals.findings);
			termesc_fputs(p->path, out, 0);
			fputc('\n', out);
		}
		free(order);
	}
	fprintf(out, "%zu distinct findings across the processes\n", m->nf);
	for (size_t i = 0; v && i < m->nf && (int)i < (top > 0 ? top : 5); i++) {
		struct mfinding *f = v[i];
		long *who = malloc(f->nwho * sizeof(*who));
		size_t n = 0;
		char t[32];
		fprintf(out, "  %zu. ", i + 1);
		kind_words(out, f->kind);
		if (f->variable) {
			fputs(" of `", out);
			termesc_fputs(f->variable, out, 0);
			fputc('`', out);
		}
		if (f->file) {
			fputs(" at ", out);
			termesc_fputs(f->file, out, 0);
			fprintf(out, ":%d", f->line);
		}
		fprintf(out, ", on %s ", f->by_pid ? "pids" : "ranks");
		if (who) {
			/* A rank recorded twice (two images) counts once. */
			memcpy(who, f->who, f->nwho * sizeof(*who));
			sort_array(who, f->nwho, sizeof(*who), cmp_long);
			for (size_t j = 0; j < f->nwho; j++)
				if (!n || who[n - 1] != who[j])
					who[n++] = who[j];
			ranges(out, who, n);
			free(who);
		}
		fprintf(out, " (%zu process%s), ", f->nwho, f->nwho == 1 ? "" : "es");
		if (f->occ_min == f->occ_max)
			fprintf(out, "%zu x %llu occurrences", f->nwho, (unsigned long long)f->occ_min);
		else
			fprintf(out, "%llu occurrences (%llu to %llu per process)",
				(unsigned long long)f->occurrences, (unsigned long long)f->occ_min,
				(unsigned long long)f->occ_max);
		/* The units the one-process summary uses (lib/units.h): "225.00 us", "1.20 s". */
		fprintf(out, ", %s to save\n", format_ns(t, sizeof(t), f->savings_ns));
	}
	free(v);
}

json_t *merge_json(const struct merge *m)
{
	json_t *doc = json_object(), *procs = json_array(), *fs = json_array();
	struct mfinding **v = by_savings(m);
	const struct mproc **order = by_rank(m);

	for (size_t i = 0; order && i < m->nprocs; i++) {
		const struct mproc *p = order[i];
		json_t *o = json_object();
		json_object_set_new(o, "database", json_string(p->path));
		json_object_set_new(o, "report", p->report ? json_string(p->report) : json_null());
		json_object_set_new(o, "pid", json_integer(p->row.pid));
		json_object_set_new(o, "ppid", p->row.ppid ? json_integer(p->row.ppid) : json_null());
		json_object_set_new(o, "rank", p->row.rank >= 0 ? json_integer(p->row.rank) : json_null());
		json_object_set_new(o, "started", p->row.started ? json_string(p->row.started) : json_null());
		json_object_set_new(o, "ended", p->row.ended ? json_string(p->row.ended) : json_null());
		json_object_set_new(o, "exit_status",
				    p->row.has_status ? json_integer(p->row.exit_status) : json_null());
		json_object_set_new(o, "argv", p->row.argv_json ? json_loads(p->row.argv_json, 0, NULL)
								: json_null());
		json_object_set_new(o, "status", p->totals.status ? json_string(p->totals.status) : json_null());
		json_object_set_new(o, "data_ops", json_integer((json_int_t)p->totals.data_ops));
		json_object_set_new(o, "kernels", json_integer((json_int_t)p->totals.kernels));
		json_object_set_new(o, "findings", json_integer((json_int_t)p->totals.findings));
		json_object_set_new(o, "savings_ns", json_integer(p->totals.savings_ns));
		json_object_set_new(o, "duration_ns", json_integer(p->totals.duration_ns));
		json_array_append_new(procs, o);
	}
	for (size_t i = 0; v && i < m->nf; i++) {
		const struct mfinding *f = v[i];
		json_t *o = json_object(), *who = json_array();
		/* Each process's share, index for index with ranks (pids): arrays of numbers, a few bytes each. */
		json_t *occ = json_array(), *bytes = json_array(), *sav = json_array(), *each = json_object();
		for (size_t j = 0; j < f->nwho; j++) {
			json_array_append_new(who, json_integer(f->who[j]));
			json_array_append_new(occ, json_integer((json_int_t)f->share[j].occurrences));
			json_array_append_new(bytes, json_integer((json_int_t)f->share[j].bytes));
			json_array_append_new(sav, json_integer(f->share[j].savings_ns));
		}
		json_object_set_new(each, "occurrences", occ);
		json_object_set_new(each, "bytes", bytes);
		json_object_set_new(each, "savings_ns", sav);
		json_object_set_new(o, "fingerprint", json_string(f->fingerprint));
		json_object_set_new(o, "kind", json_string(f->kind));
		json_object_set_new(o, "flavour", f->flavour ? json_string(f->flavour) : json_null());
		json_object_set_new(o, "variable", f->variable ? json_string(f->variable) : json_null());
		json_object_set_new(o, "file", f->file ? json_string(f->file) : json_null());
		json_object_set_new(o, "line", f->file ? json_integer(f->line) : json_null());
		json_object_set_new(o, "processes", json_integer((json_int_t)f->nwho));
		json_object_set_new(o, f->by_pid ? "pids" : "ranks", who);
		json_object_set_new(o, "occurrences", json_integer((json_int_t)f->occurrences));
		json_object_set_new(o, "occurrences_min", json_integer((json_int_t)f->occ_min));
		json_object_set_new(o, "occurrences_max", json_integer((json_int_t)f->occ_max));
		json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
		json_object_set_new(o, "savings_ns", json_integer(f->savings_ns));
		json_object_set_new(o, "advice", json_string(advice_of(f->kind, f->flavour)));
		json_object_set_new(o, "each", each);
		json_array_append_new(fs, o);
	}
	free(v);
	/*
	 * The format and version of every report.json (report/output/json.h's
	 * REPORT_JSON_FORMAT and _VERSION, which compare/ may not include):
	 * docs/report-json.schema.json covers both shapes, and
	 * tests/e2e/report_json_schema.sh validates both.
	 */
	json_object_set_new(doc, "format", json_string("mapprof-report"));
	json_object_set_new(doc, "version", json_integer(1));
	free(order);
	json_object_set_new(doc, "processes", procs);
	json_object_set_new(doc, "merged_findings", fs);
	return doc;
}
