/*
 * repeat.c - recordings of the same program combined (report/compare/repeat.h).
 * Arrays and linear scans: recordings are a handful, findings tens.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db.h"
#include "db/ingest/finish.h"
#include "lib/sort.h"
#include "lib/termesc.h"
#include "report/compare/repeat.h"
#include "report/attribute/attribute.h"
#include "report/findings/analysis.h"

/* What one recording contributes: its totals and each finding's savings by fingerprint. */
struct rec {
	int64_t savings_ns, duration_ns;
	double speedup;                /* 0: unbounded */
	size_t nf;
	char (*fp)[24];
	int64_t *fsav;
};

static void rec_release(struct rec *r)
{
	free(r->fp);
	free(r->fsav);
}

static int rec_of(const struct analysis *a, struct rec *r)
{
	const struct findings *f = &a->findings;

	memset(r, 0, sizeof(*r));
	r->savings_ns = f->savings_ns;
	r->duration_ns = a->duration_ns;
	r->speedup = f->predicted_speedup;
	r->nf = f->n;
	r->fp = malloc((f->n ? f->n : 1) * sizeof(*r->fp));
	r->fsav = malloc((f->n ? f->n : 1) * sizeof(*r->fsav));
	if (!r->fp || !r->fsav)
		return -1;
	for (size_t i = 0; i < f->n; i++) {
		memcpy(r->fp[i], f->v[i].fingerprint, sizeof(r->fp[i]));
		r->fsav[i] = f->v[i].savings_ns;
	}
	return 0;
}

/*
 * The findings finished one per directive, as report makes them (the call
 * sites from the run's code, nothing stored): without them a directive the
 * compiler unrolled would be several findings here and one in the report.
 * 0, or -1 with *err set.
 */
static int finish_by_sites(struct db *db, struct analysis *a, char **err)
{
	struct call_sites sites = { 0 };
	char *msg = NULL;
	int rc;

	if (attribute_sites(db, a->keys, &sites, &msg) < 0) {
		termesc_line(stderr, "mapprof: warning: no source attribution for '%s': %s", db_path(db),
			     msg ? msg : "out of memory");
		free(msg);
	}
	rc = analysis_merge_sites(a, (const uint64_t (*)[2])sites.pairs, sites.n, err);
	call_sites_release(&sites);
	return rc < 0 ? -1 : analysis_finish(a, err);
}

static int rec_read(const char *path, struct rec *r, char **err)
{
	enum db_problem problem;
	struct analysis a;
	char *why = NULL;
	struct db *db = db_open(path, DB_OPEN_WRITE, &problem, &why);
	int rc = -1;

	memset(&a, 0, sizeof(a));
	if (!db) {
		if (err && asprintf(err, "cannot read '%s': %s", path, why ? why : "out of memory") < 0)
			*err = NULL;
		free(why);
		return -1;
	}
	if (db_pair_deletes_if_needed(db, err) == 0 && analysis_pass(db, &a, 0, err) == 0 &&
	    finish_by_sites(db, &a, err) == 0) {
		rc = rec_of(&a, r);
		if (rc < 0 && err)
			*err = strdup("out of memory");
	}
	if (rc == 0 && !db_copied(db))
		db_commit(db);   /* the pairing of deletes: best effort, as a report */
	analysis_release(&a);
	db_close(db);
	return rc;
}

static int cmp_double(const void *p, const void *q)
{
	double x = *(const double *)p, y = *(const double *)q;
	return (x > y) - (x < y);
}

/* {median, min, max, spread_pct} of v[0..n) (sorted in place); integers when 'ns'. */
static json_t *stat_json(double *v, size_t n, int ns)
{
	double med, spread = 0;
	json_t *o;

	sort_array(v, n, sizeof(*v), cmp_double);
	med = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	for (size_t i = 0; i < n; i++) {
		double d = v[i] > med ? v[i] - med : med - v[i];
		if (med > 0 && 100 * d / med > spread)
			spread = 100 * d / med;
	}
	o = json_object();
	if (ns) {
		json_object_set_new(o, "median", json_integer((json_int_t)(med + 0.5)));
		json_object_set_new(o, "min", json_integer((json_int_t)v[0]));
		json_object_set_new(o, "max", json_integer((json_int_t)v[n - 1]));
	} else {
		json_object_set_new(o, "median", json_real((double)(int64_t)(med * 1e4 + 0.5) / 1e4));
		json_object_set_new(o, "min", json_real((double)(int64_t)(v[0] * 1e4 + 0.5) / 1e4));
		json_object_set_new(o, "max", json_real((double)(int64_t)(v[n - 1] * 1e4 + 0.5) / 1e4));
	}
	json_object_set_new(o, "spread_pct", json_real((double)(int64_t)(spread * 10 + 0.5) / 10));
	return o;
}

static json_t *combine(const struct rec *r, size_t n, const char *a_path, const char *const *paths)
{
	json_t *o = json_object(), *dbs = json_array(), *fs = json_array();
	double *v = malloc(n * sizeof(*v));
	size_t nspeed = 0;

	if (!o || !dbs || !fs || !v) {
		json_decref(o);
		json_decref(dbs);
		json_decref(fs);
		free(v);
		return NULL;
	}
	json_array_append_new(dbs, json_string(a_path));
	for (size_t i = 1; i < n; i++)
		json_array_append_new(dbs, json_string(paths[i - 1]));
	json_object_set_new(o, "runs", json_integer((json_int_t)n));
	json_object_set_new(o, "databases", dbs);
	for (size_t i = 0; i < n; i++)
		v[i] = (double)r[i].savings_ns;
	json_object_set_new(o, "savings_ns", stat_json(v, n, 1));
	for (size_t i = 0; i < n; i++)
		v[i] = (double)r[i].duration_ns;
	json_object_set_new(o, "duration_ns", stat_json(v, n, 1));
	for (size_t i = 0; i < n; i++)
		if (r[i].speedup > 0)
			v[nspeed++] = r[i].speedup;
	json_object_set_new(o, "predicted_speedup", nspeed ? stat_json(v, nspeed, 0) : json_null());
	for (size_t k = 0; k < r[0].nf; k++) {
		json_t *f = json_object();
		int seen = 0;
		for (size_t i = 0; i < n; i++) {
			v[i] = 0;
			for (size_t j = 0; j < r[i].nf; j++)
				if (!strcmp(r[i].fp[j], r[0].fp[k])) {
					v[i] = (double)r[i].fsav[j];
					seen++;
					break;
				}
		}
		json_object_set_new(f, "id", json_integer((json_int_t)k + 1));
		json_object_set_new(f, "fingerprint", json_string(r[0].fp[k]));
		json_object_set_new(f, "runs", json_integer(seen));
		json_object_set_new(f, "savings_ns", stat_json(v, n, 1));
		json_array_append_new(fs, f);
	}
	json_object_set_new(o, "findings", fs);
	/* Findings of the other recordings the first does not have. */
	{
		size_t other = 0;
		for (size_t i = 1; i < n; i++)
			for (size_t j = 0; j < r[i].nf; j++) {
				size_t k = 0;
				while (k < r[0].nf && strcmp(r[0].fp[k], r[i].fp[j]))
					k++;
				other += k == r[0].nf;
			}
		json_object_set_new(o, "findings_not_in_first", json_integer((json_int_t)other));
	}
	free(v);
	return o;
}

int repeat_add(json_t *doc, const struct analysis *a, const char *a_path,
	       const char *const *paths, int n, char **err)
{
	struct rec *r = calloc((size_t)n + 1, sizeof(*r));
	json_t *o = NULL;
	int got = 0, rc = -1;

	if (!r || rec_of(a, &r[got++]) < 0)
		goto oom;
	for (int i = 0; i < n; i++) {
		if (rec_read(paths[i], &r[got], err) < 0) {
			rec_release(&r[got]);
			goto out;
		}
		got++;
	}
	if (!(o = combine(r, (size_t)got, a_path, paths)))
		goto oom;
	json_object_set_new(doc, "repeat", o);
	rc = 0;
	goto out;
oom:
	if (err)
		*err = strdup("out of memory");
out:
	for (int i = 0; r && i < got; i++)
		rec_release(&r[i]);
	free(r);
	return rc;
}

static void fmt_ns(char *buf, size_t n, double ns)
{
	double a = ns < 0 ? -ns : ns;
	if (a >= 1e9)
		snprintf(buf, n, "%.3f s", ns / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%.2f ms", ns / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%.1f us", ns / 1e3);
	else
		snprintf(buf, n, "%.0f ns", ns);
}

/* "X [min .. max] (+-S%)" of a stat object, into buf. */
static void fmt_stat(char *buf, size_t n, const json_t *s, int ns)
{
	char m[32], lo[32], hi[32];
	double med = json_number_value(json_object_get(s, "median"));
	double mn = json_number_value(json_object_get(s, "min"));
	double mx = json_number_value(json_object_get(s, "max"));

	if (ns) {
		fmt_ns(m, sizeof(m), med);
		fmt_ns(lo, sizeof(lo), mn);
		fmt_ns(hi, sizeof(hi), mx);
	} else {
		snprintf(m, sizeof(m), "%.2fx", med);
		snprintf(lo, sizeof(lo), "%.2fx", mn);
		snprintf(hi, sizeof(hi), "%.2fx", mx);
	}
	snprintf(buf, n, "%s [%s .. %s] (spread +-%.1f%%)", m, lo, hi,
		 json_number_value(json_object_get(s, "spread_pct")));
}

enum { REPEAT_LINES = 10 };

static int cmp_median_desc(const void *p, const void *q)
{
	json_int_t x = json_integer_value(json_object_get(json_object_get(*(json_t *const *)p, "savings_ns"), "median"));
	json_int_t y = json_integer_value(json_object_get(json_object_get(*(json_t *const *)q, "savings_ns"), "median"));
	return (x < y) - (x > y);
}

char *repeat_text(const json_t *doc)
{
	const json_t *o = json_object_get(doc, "repeat"), *f;
	json_t **order;
	char *text = NULL, *t, sav[128], sp[128];
	size_t i, nf, len = 0;
	FILE *m;

	if (!o || !(m = open_memstream(&text, &len)))
		return NULL;
	fmt_stat(sav, sizeof(sav), json_object_get(o, "savings_ns"), 1);
	fprintf(m, "over %lld recordings of the same program (median [min .. max]):\n",
		(long long)json_integer_value(json_object_get(o, "runs")));
	fprintf(m, "  estimated savings  %s\n", sav);
	if (json_object_get(o, "predicted_speedup") && !json_is_null(json_object_get(o, "predicted_speedup"))) {
		fmt_stat(sp, sizeof(sp), json_object_get(o, "predicted_speedup"), 0);
		fprintf(m, "  predicted speedup  %s\n", sp);
	}
	/* The largest medians first, at most REPEAT_LINES of them. */
	nf = json_array_size(json_object_get(o, "findings"));
	order = malloc((nf ? nf : 1) * sizeof(*order));
	for (i = 0; order && i < nf; i++)
		order[i] = json_array_get(json_object_get(o, "findings"), i);
	if (order && nf)
		sort_array(order, nf, sizeof(*order), cmp_median_desc);
	for (i = 0; order && i < nf && i < REPEAT_LINES; i++) {
		f = order[i];
		fmt_stat(sav, sizeof(sav), json_object_get(f, "savings_ns"), 1);
		fprintf(m, "  #%lld %s, in %lld of %lld\n", (long long)json_integer_value(json_object_get(f, "id")),
			sav, (long long)json_integer_value(json_object_get(f, "runs")),
			(long long)json_integer_value(json_object_get(o, "runs")));
	}
	if (nf > REPEAT_LINES)
		fprintf(m, "  ... and %zu more (report.json's 'repeat')\n", nf - REPEAT_LINES);
	free(order);
	if (json_integer_value(json_object_get(o, "findings_not_in_first")))
		fprintf(m, "  %lld finding%s of the other recordings not in the first\n",
			(long long)json_integer_value(json_object_get(o, "findings_not_in_first")),
			json_integer_value(json_object_get(o, "findings_not_in_first")) == 1 ? "" : "s");
	if (fclose(m) != 0) {
		free(text);
		return NULL;
	}
	t = text;
	return t;
}
