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
#include "db/ingest/process.h"
#include "report/compare/merge.h"
#include "report/detect/occurrence.h"
#include "lib/grow.h"
#include "lib/ranks.h"
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

/* One process's share of finding d: 'who' its rank, or its pid ('by_pid'). */
static int add_share(struct merge *m, const struct finding_digest *d, long who_of, int by_pid)
{
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
	if (by_pid)
		f->by_pid = 1;
	f->who[f->nwho++] = who_of;
	return 0;
}

static int add_finding(const struct finding_digest *d, void *arg)
{
	struct merge *m = arg;
	const struct mproc *p = &m->procs[m->adding];

	return add_share(m, d, p->row.rank >= 0 ? (long)p->row.rank : (long)p->row.pid, p->row.rank < 0);
}

int merge_last_complete(const struct merge *m)
{
	const struct mproc *p = m->nprocs ? &m->procs[m->nprocs - 1] : NULL;

	return p && p->totals.status && !strcmp(p->totals.status, "complete");
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

static int add_db(struct merge *m, const char *path, int stored_only, char **err)
{
	enum db_problem problem;
	struct db *db;
	struct mproc *p;
	int rc;

	if (grow_one((void **)&m->procs, &m->procs_cap, m->nprocs, sizeof(*m->procs)) < 0)
		goto oom;
	db = db_open(path, 0, &problem, err);
	if (!db)
		return -1;
	/* One read transaction for all its statements (db_close() ends it): one lock, not one each. */
	if (db_exec(db, "BEGIN", err) < 0) {
		db_close(db);
		return -1;
	}
	if (stored_only && !db_findings_stored(db)) {
		db_close(db);
		return 1;
	}
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

int merge_add(struct merge *m, const char *path, char **err)
{
	return add_db(m, path, 0, err);
}

int merge_add_stored(struct merge *m, const char *path, char **err)
{
	return add_db(m, path, 1, err);
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

/*
 * 'record --ranks': the ranks the job recorded, as given (NULL: every rank),
 * and into *world its number of ranks (0: not known).
 */
static const char *ranks_spec(const struct merge *m, int64_t *world)
{
	const char *spec = NULL;

	*world = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		if (!spec && m->procs[i].row.ranks && ranks_valid(m->procs[i].row.ranks))
			spec = m->procs[i].row.ranks;
		if (m->procs[i].row.world_size > *world)
			*world = m->procs[i].row.world_size;
	}
	return spec;
}

/* The ranks below 'world' that spec leaves out, as "1,3-5" on out; returns how many. */
static int64_t not_recorded(FILE *out, const char *spec, int64_t world)
{
	int64_t n = 0, first = -1;

	for (int64_t r = 0; r <= world; r++) {
		int out_r = r < world && !ranks_has(spec, (long)r);
		if (out_r && first < 0)
			first = r;
		if (!out_r && first >= 0) {
			fprintf(out, "%s%lld", n ? "," : "", (long long)first);
			if (r - 1 > first)
				fprintf(out, "-%lld", (long long)(r - 1));
			n += r - first;
			first = -1;
		}
	}
	return n;
}

/* Min, mean and max of one share (0 occurrences, 1 bytes, 2 savings) over the processes that have f. */
static void share_spread(const struct mfinding *f, int field, double *min, double *mean, double *max)
{
	double sum = 0;

	for (size_t j = 0; j < f->nwho; j++) {
		const struct mshare *s = &f->share[j];
		double v = field == 0 ? (double)s->occurrences : field == 1 ? (double)s->bytes : (double)s->savings_ns;
		if (!j || v < *min)
			*min = v;
		if (!j || v > *max)
			*max = v;
		sum += v;
	}
	*mean = f->nwho ? sum / (double)f->nwho : 0;
}

void merge_summary(const struct merge *m, FILE *out, int top)
{
	struct mfinding **v = by_savings(m);
	uint64_t ops = 0, kernels = 0;
	size_t incomplete = 0;
	const char *spec;
	int64_t world;

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
	if ((spec = ranks_spec(m, &world))) {
		fputs("  recorded ranks ", out);
		termesc_fputs(spec, out, 0);
		if (world) {
			fprintf(out, " of %lld; not recorded: ", (long long)world);
			if (!not_recorded(out, spec, world))
				fputs("none", out);
		}
		fputc('\n', out);
	}
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
		fprintf(out, ", %s to save", format_ns(t, sizeof(t), f->savings_ns));
		if (f->nwho > 1) {
			double lo, mean, hi;
			char t2[32], t3[32];
			share_spread(f, 2, &lo, &mean, &hi);
			fprintf(out, " (per process min / mean / max %s / %s / %s)", format_ns(t, sizeof(t), (int64_t)lo),
				format_ns(t2, sizeof(t2), (int64_t)mean), format_ns(t3, sizeof(t3), (int64_t)hi));
		}
		fputc('\n', out);
	}
	free(v);
}

json_t *merge_json(const struct merge *m)
{
	json_t *doc = json_object(), *procs = json_array(), *fs = json_array();
	struct mfinding **v = by_savings(m);
	const struct mproc **order = by_rank(m);
	const char *spec;
	int64_t world;

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
		/* min / mean / max over the processes that have it: a job's spread at a glance. */
		static const char *const fields[] = { "occurrences", "bytes", "savings_ns" };
		json_t *per = json_object();
		for (int k = 0; k < 3; k++) {
			double lo, mean, hi;
			share_spread(f, k, &lo, &mean, &hi);
			json_object_set_new(per, fields[k], json_pack("{s:I,s:f,s:I}", "min", (json_int_t)lo, "mean",
								     mean, "max", (json_int_t)hi));
		}
		json_object_set_new(o, "per_process", per);
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
	if ((spec = ranks_spec(m, &world))) {
		/* 'record --ranks': which ranks the job left unrecorded ("1,3-5"), when it said how many it had. */
		char *text = NULL;
		size_t len = 0;
		int64_t n = 0;
		FILE *f = world ? open_memstream(&text, &len) : NULL;
		if (f) {
			n = not_recorded(f, spec, world);
			if (fclose(f) != 0) {
				free(text);
				text = NULL;
			}
		}
		json_object_set_new(doc, "ranks",
				    json_pack("{s:s,s:o,s:o,s:o}", "recorded", spec, "of",
					      world ? json_integer(world) : json_null(), "not_recorded",
					      text ? json_string(text) : json_null(), "not_recorded_count",
					      text ? json_integer(n) : json_null()));
		free(text);
	}
	return doc;
}

/* --- merge_pack(), merge_unpack(): a merge sent from one process to another --- */

/* Positions in a packed process (an array: a few bytes a field, no keys). */
enum { P_PATH, P_REPORT, P_PID, P_PPID, P_RANK, P_STARTED, P_ENDED, P_ARGV, P_RECORDING, P_HAS_STATUS,
       P_EXIT_STATUS, P_EXIT_SIGNAL, P_HAS_END, P_RANKS, P_WORLD, P_OPS, P_KERNELS, P_FINDINGS,
       P_SAVINGS, P_DURATION, P_STATUS, P_COUNT };
/* And in a packed finding; its shares are four arrays, index for index. */
enum { F_FINGERPRINT, F_KIND, F_FLAVOUR, F_VARIABLE, F_FILE, F_LINE, F_BY_PID, F_WHO, F_OCC, F_BYTES,
       F_SAVINGS, F_COUNT };

static json_t *str_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}

json_t *merge_pack(const struct merge *m)
{
	json_t *pack = json_object(), *procs = json_array(), *fs = json_array();
	int bad = !pack || !procs || !fs;

	for (size_t i = 0; i < m->nprocs && !bad; i++) {
		const struct mproc *p = &m->procs[i];
		json_t *a = json_array();
		json_t *v[P_COUNT] = {
			[P_PATH] = json_string(p->path), [P_REPORT] = str_or_null(p->report),
			[P_PID] = json_integer(p->row.pid), [P_PPID] = json_integer(p->row.ppid),
			[P_RANK] = json_integer(p->row.rank), [P_STARTED] = str_or_null(p->row.started),
			[P_ENDED] = str_or_null(p->row.ended), [P_ARGV] = str_or_null(p->row.argv_json),
			[P_RECORDING] = str_or_null(p->row.recording),
			[P_HAS_STATUS] = json_integer(p->row.has_status),
			[P_EXIT_STATUS] = json_integer(p->row.exit_status),
			[P_EXIT_SIGNAL] = json_integer(p->row.exit_signal),
			[P_HAS_END] = json_integer(p->row.has_end), [P_RANKS] = str_or_null(p->row.ranks),
			[P_WORLD] = json_integer(p->row.world_size),
			[P_OPS] = json_integer((json_int_t)p->totals.data_ops),
			[P_KERNELS] = json_integer((json_int_t)p->totals.kernels),
			[P_FINDINGS] = json_integer((json_int_t)p->totals.findings),
			[P_SAVINGS] = json_integer(p->totals.savings_ns),
			[P_DURATION] = json_integer(p->totals.duration_ns),
			[P_STATUS] = str_or_null(p->totals.status),
		};
		for (int k = 0; k < P_COUNT; k++)
			if (!a || !v[k] || json_array_append_new(a, v[k]) < 0)
				bad = 1;
		if (json_array_append_new(procs, a) < 0)
			bad = 1;
	}
	for (size_t i = 0; i < m->nf && !bad; i++) {
		const struct mfinding *f = &m->f[i];
		json_t *a = json_array(), *who = json_array(), *occ = json_array(), *bytes = json_array(),
		       *sav = json_array();
		for (size_t j = 0; j < f->nwho && who && occ && bytes && sav; j++)
			if (json_array_append_new(who, json_integer(f->who[j])) < 0 ||
			    json_array_append_new(occ, json_integer((json_int_t)f->share[j].occurrences)) < 0 ||
			    json_array_append_new(bytes, json_integer((json_int_t)f->share[j].bytes)) < 0 ||
			    json_array_append_new(sav, json_integer(f->share[j].savings_ns)) < 0)
				bad = 1;
		json_t *v[F_COUNT] = {
			[F_FINGERPRINT] = json_string(f->fingerprint), [F_KIND] = json_string(f->kind),
			[F_FLAVOUR] = str_or_null(f->flavour), [F_VARIABLE] = str_or_null(f->variable),
			[F_FILE] = str_or_null(f->file), [F_LINE] = json_integer(f->line),
			[F_BY_PID] = json_integer(f->by_pid), [F_WHO] = who, [F_OCC] = occ, [F_BYTES] = bytes,
			[F_SAVINGS] = sav,
		};
		for (int k = 0; k < F_COUNT; k++)
			if (!a || !v[k] || json_array_append_new(a, v[k]) < 0)
				bad = 1;
		if (json_array_append_new(fs, a) < 0)
			bad = 1;
	}
	if (!bad && (json_object_set(pack, "procs", procs) < 0 || json_object_set(pack, "findings", fs) < 0))
		bad = 1;
	json_decref(procs);
	json_decref(fs);
	if (bad) {
		json_decref(pack);
		return NULL;
	}
	return pack;
}

/* Field k of a packed row: a string (NULL for null or not one), an integer (0 when not one). */
static const char *str_at(const json_t *a, size_t k)
{
	return json_string_value(json_array_get(a, k));
}

static json_int_t int_at(const json_t *a, size_t k)
{
	return json_integer_value(json_array_get(a, k));
}

static int dup_at(char **out, const json_t *a, size_t k)
{
	const char *s = str_at(a, k);

	*out = s ? strdup(s) : NULL;
	return s && !*out ? -1 : 0;
}

static int unpack_proc(struct merge *m, const json_t *a)
{
	struct mproc *p;

	if (!json_is_array(a) || json_array_size(a) != P_COUNT || !str_at(a, P_PATH))
		return 1;
	if (grow_one((void **)&m->procs, &m->procs_cap, m->nprocs, sizeof(*m->procs)) < 0)
		return -1;
	p = &m->procs[m->nprocs++];
	memset(p, 0, sizeof(*p));
	p->row.pid = int_at(a, P_PID);
	p->row.ppid = int_at(a, P_PPID);
	p->row.rank = int_at(a, P_RANK);
	p->row.has_status = (int)int_at(a, P_HAS_STATUS);
	p->row.exit_status = (int)int_at(a, P_EXIT_STATUS);
	p->row.exit_signal = (int)int_at(a, P_EXIT_SIGNAL);
	p->row.has_end = (int)int_at(a, P_HAS_END);
	p->row.world_size = int_at(a, P_WORLD);
	p->totals.data_ops = (uint64_t)int_at(a, P_OPS);
	p->totals.kernels = (uint64_t)int_at(a, P_KERNELS);
	p->totals.findings = (uint64_t)int_at(a, P_FINDINGS);
	p->totals.savings_ns = int_at(a, P_SAVINGS);
	p->totals.duration_ns = int_at(a, P_DURATION);
	/* (a process half made is freed with the merge) */
	return dup_at(&p->path, a, P_PATH) || dup_at(&p->report, a, P_REPORT) ||
	       dup_at(&p->row.started, a, P_STARTED) || dup_at(&p->row.ended, a, P_ENDED) ||
	       dup_at(&p->row.argv_json, a, P_ARGV) || dup_at(&p->row.recording, a, P_RECORDING) ||
	       dup_at(&p->row.ranks, a, P_RANKS) || dup_at(&p->totals.status, a, P_STATUS) ? -1 : 0;
}

static int unpack_finding(struct merge *m, const json_t *a)
{
	const json_t *who = json_array_get(a, F_WHO), *occ = json_array_get(a, F_OCC),
		     *bytes = json_array_get(a, F_BYTES), *sav = json_array_get(a, F_SAVINGS);
	struct finding_digest d = { 0 };
	size_t n = json_array_size(who);

	if (!json_is_array(a) || json_array_size(a) != F_COUNT || !str_at(a, F_FINGERPRINT) ||
	    !str_at(a, F_KIND) || !n || json_array_size(occ) != n || json_array_size(bytes) != n ||
	    json_array_size(sav) != n)
		return 1;
	d.fingerprint = str_at(a, F_FINGERPRINT);
	d.kind = str_at(a, F_KIND);
	d.flavour = str_at(a, F_FLAVOUR);
	d.variable = str_at(a, F_VARIABLE);
	d.file = str_at(a, F_FILE);
	d.line = (int)int_at(a, F_LINE);
	for (size_t j = 0; j < n; j++) {
		d.occurrences = (uint64_t)int_at(occ, j);
		d.bytes = (uint64_t)int_at(bytes, j);
		d.savings_ns = int_at(sav, j);
		if (add_share(m, &d, (long)int_at(who, j), (int)int_at(a, F_BY_PID)) < 0)
			return -1;
	}
	return 0;
}

int merge_unpack(struct merge *m, const json_t *pack, char **err)
{
	const json_t *procs = json_object_get(pack, "procs"), *fs = json_object_get(pack, "findings");
	int rc = json_is_array(procs) && json_is_array(fs) ? 0 : 1;

	for (size_t i = 0; !rc && i < json_array_size(procs); i++)
		rc = unpack_proc(m, json_array_get(procs, i));
	for (size_t i = 0; !rc && i < json_array_size(fs); i++)
		rc = unpack_finding(m, json_array_get(fs, i));
	if (rc)
		*err = strdup(rc > 0 ? "a merged part is damaged" : "out of memory");
	return rc ? -1 : 0;
}
