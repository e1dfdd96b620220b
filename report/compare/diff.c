/*
 * diff.c - before and after (diff.h): matching, medians, predicted against
 * measured.  Arrays and linear scans: a run's findings are tens.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store/attribution.h"
#include "db/db.h"
#include "db/ingest/finish.h"
#include "lib/sat.h"
#include "lib/termesc.h"
#include "report/attribute/attribute.h"
#include "report/compare/diff.h"
#include "report/compare/outcome.h"
#include "report/findings/analysis.h"
#include "report/attribute/symbolize.h"
#include "lib/sort.h"

enum match { MATCH_NONE, MATCH_EXACT, MATCH_LOOSE };

struct dfinding {
	char *kind, *flavour, *fingerprint, *variable, *file, *function, *directive;
	char *key, *loose;       /* the matching keys (diff.h) */
	int line;                /* of the first key location; 0: unknown */
	uint64_t occurrences, bytes;
	int64_t savings_ns;      /* this run's */
	struct priced_op *ops;   /* sorted by (begin_ns, seq) */
	size_t nops;
	/* Set on the first run of a side by diff_finish(). */
	int64_t med_savings_ns;
	int other;               /* index in the other side's first run, -1: none */
	enum match match;
};

struct drun {
	char *path;
	int64_t wall_ns, transfer_ns, alloc_ns, kernel_ns;
	int64_t own_ns;           /* the collector's own time on the program's threads; -1 unknown */
	uint64_t bytes, transfers, allocs;
	struct dfinding *f;
	size_t nf;
	struct outcome *outcome;  /* what it computed (outcome.h) */
};

struct dside {
	struct drun *runs;
	size_t n;
};

/* Median, min and max of one measure over a side's runs. */
struct stat3 {
	int64_t med, min, max;
};

struct diff {
	struct dside side[2];
	int finished;
	struct stat3 predicted;  /* savings of the removed findings, over the before-runs */
	size_t nremoved, nremaining, nnew;
	json_t *results;         /* the results check of the first runs (outcome.h) */
};

struct diff *diff_new(void)
{
	return calloc(1, sizeof(struct diff));
}

static void dfinding_release(struct dfinding *f)
{
	free(f->kind);
	free(f->flavour);
	free(f->fingerprint);
	free(f->variable);
	free(f->file);
	free(f->function);
	free(f->directive);
	free(f->key);
	free(f->loose);
	free(f->ops);
}

void diff_free(struct diff *d)
{
	if (!d)
		return;
	for (int s = 0; s < 2; s++) {
		for (size_t i = 0; i < d->side[s].n; i++) {
			struct drun *r = &d->side[s].runs[i];
			for (size_t j = 0; j < r->nf; j++)
				dfinding_release(&r->f[j]);
			free(r->f);
			free(r->path);
			outcome_free(r->outcome);
		}
		free(d->side[s].runs);
	}
	json_decref(d->results);
	free(d);
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}

/* Blanks squeezed to one space, none at the ends (malloc'ed). */
static char *squeeze(const char *s)
{
	char *out = malloc(strlen(s) + 1), *o = out;
	int blank = 0;

	if (!out)
		return NULL;
	for (; *s; s++) {
		if (isspace((unsigned char)*s)) {
			blank = o != out;
			continue;
		}
		if (blank)
			*o++ = ' ';
		blank = 0;
		*o++ = *s;
	}
	*o = 0;
	return out;
}

/* The source text of the location's own line, squeezed; NULL: not quoted. */
static char *directive_text(json_t *loc)
{
	json_t *snip = json_object_get(loc, "snippet");
	json_int_t first = json_integer_value(json_object_get(snip, "first_line"));
	json_int_t line = json_integer_value(json_object_get(loc, "line"));
	const char *text = json_string_value(json_array_get(json_object_get(snip, "lines"),
							    (size_t)(line - first)));
	return text && line >= first ? squeeze(text) : NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

/* Appends "|s" to *buf (malloc'ed, grown).  -1 when out of memory. */
static int append(char **buf, const char *s)
{
	char *n;
	if (asprintf(&n, "%s|%s", *buf ? *buf : "", s ? s : "?") < 0)
		return -1;
	free(*buf);
	*buf = n;
	return 0;
}

static int describe(const struct analysis *a, const struct finding *g, struct dfinding *f)
{
	char *dirs = NULL, dev[16];
	json_t *var = a->attr && g->first_op_seq >= 0 ? attribution_variable(a->attr, g->first_op_seq) : NULL;
	int bad = 0;

	f->kind = strdup(finding_kind_name(g->kind));
	f->flavour = strdup(flavour_name(g->flavour));
	f->fingerprint = strdup(g->fingerprint);
	f->variable = dup_or_null(json_string_value(json_object_get(var, "name")));
	json_decref(var);
	f->occurrences = g->occurrences;
	f->bytes = g->bytes;
	f->savings_ns = g->savings_ns;
	for (int i = 0; i < g->nkey; i++) {
		json_t *loc = a->attr && g->key[i] ? attribution_location(a->attr, g->key[i]) : NULL;
		const char *file = json_string_value(json_object_get(loc, "file"));
		const char *fn = json_string_value(json_object_get(loc, "function"));
		char *text = loc ? directive_text(loc) : NULL;
		if (i == 0) {
			uint64_t off;
			const char *mod = module_locate(a->run.modules, a->run.nmodules, g->key[0], &off);
			f->file = dup_or_null(file ? base_name(file) : mod);
			f->function = dup_or_null(fn);
			f->line = (int)json_integer_value(json_object_get(loc, "line"));
			f->directive = dup_or_null(text);
		}
		bad |= append(&dirs, text);
		if (i > 0)
			bad |= append(&dirs, fn);   /* the other leg's function */
		free(text);
		json_decref(loc);
	}
	/* The file is no part of the keys (a renamed copy still matches): it breaks ties. */
	bad |= append(&f->loose, f->kind) | append(&f->loose, f->flavour) |
	       append(&f->loose, f->variable) | append(&f->loose, f->function);
	for (int i = 0; i < g->ndevices; i++) {
		if (g->devices[i] == a->host_device)
			snprintf(dev, sizeof(dev), "host");
		else
			snprintf(dev, sizeof(dev), "%d", g->devices[i]);
		bad |= append(&f->loose, dev);
	}
	if (!bad && asprintf(&f->key, "%s%s", f->loose, dirs ? dirs : "") < 0)
		f->key = NULL;
	free(dirs);
	/* The operations its fix removes: diff_add_analysis() fills them. */
	if (g->nops)
		f->ops = malloc(g->nops * sizeof(*f->ops));
	return bad || !f->kind || !f->flavour || !f->fingerprint || !f->key || !f->loose ||
	       (g->nops && !f->ops) ? -1 : 0;
}

int diff_add_analysis(struct diff *d, enum diff_side side, const char *path,
		      const struct analysis *a, char **err)
{
	struct dside *s = &d->side[side];
	struct drun *r, *runs = realloc(s->runs, (s->n + 1) * sizeof(*runs));

	if (!runs)
		goto oom;
	s->runs = runs;
	r = &s->runs[s->n++];
	memset(r, 0, sizeof(*r));
	r->path = strdup(path);
	r->wall_ns = a->duration_ns;
	r->own_ns = a->run.collector_own_ns;
	r->transfer_ns = busy_ns(&a->totals.transfer);
	r->alloc_ns = busy_ns(&a->totals.alloc);
	r->kernel_ns = busy_ns(&a->totals.kernel);
	r->bytes = a->totals.transfer_bytes;
	r->transfers = a->totals.transfers;
	r->allocs = a->totals.allocs;
	if (!r->path || !(r->f = calloc(a->findings.n ? a->findings.n : 1, sizeof(*r->f))) ||
	    !(r->outcome = outcome_of(a)))
		goto oom;
	for (size_t i = 0; i < a->findings.n; i++) {
		r->nf++;
		if (describe(a, &a->findings.v[i], &r->f[i]) < 0)
			goto oom;
	}
	/* The operations each fix removes (findings.h: finding_op_saved), in one pass. */
	if (a->findings.n) {
		struct priced_op **out = malloc(a->findings.n * sizeof(*out));
		size_t *n = malloc(a->findings.n * sizeof(*n));
		int bad = !out || !n;
		for (size_t i = 0; !bad && i < a->findings.n; i++)
			out[i] = r->f[i].ops;
		if (!bad)
			bad = findings_saved_ops(&a->findings, out, n) < 0;
		for (size_t i = 0; !bad && i < a->findings.n; i++)
			r->f[i].nops = n[i];
		free(out);
		free(n);
		if (bad)
			goto oom;
	}
	return 0;
oom:
	if (err)
		*err = strdup("out of memory");
	return -1;
}

int diff_add(struct diff *d, enum diff_side side, const char *path, int no_source, char **err)
{
	enum db_problem problem;
	struct analysis a;
	char *why = NULL, *msg = NULL;
	struct symbolizer *sym;
	struct call_sites sites = { 0 };
	struct db *db = db_open(path, DB_OPEN_WRITE, &problem, &why);
	int rc = -1;

	memset(&a, 0, sizeof(a));
	if (!db) {
		if (err && asprintf(err, "cannot read '%s': %s", path, why ? why : "out of memory") < 0)
			*err = NULL;
		free(why);
		return -1;
	}
	if (db_pair_deletes_if_needed(db, err) < 0 || analysis_pass(db, &a, 0, err) < 0)
		goto out;
	/*
	 * Source lines and variables, as 'mapprof report' stores them: the keys
	 * need them.  Then the findings, one per directive, as report makes them.
	 */
	sym = symbolizer_new(db, &msg);
	if (!sym || attribute_run(db, sym, !no_source, a.keys, NULL, &sites, &msg) < 0)
		termesc_line(stderr, "mapprof: warning: no source attribution for '%s': %s", path,
			     msg ? msg : "out of memory");
	symbolizer_free(sym);
	free(msg);
	rc = analysis_merge_sites(&a, (const uint64_t (*)[2])sites.pairs, sites.n, err);
	call_sites_release(&sites);
	if (rc < 0 || (rc = analysis_finish(&a, err)) < 0)
		goto out;
	a.attr = attribution_open(db);
	rc = diff_add_analysis(d, side, path, &a, err);
	if (rc == 0 && !db_copied(db) && db_commit(db) < 0)
		termesc_line(stderr, "mapprof: warning: source attribution was not stored in '%s': %s",
			     path, db_errmsg(db));
out:
	analysis_release(&a);
	db_close(db);
	return rc;
}

static int cmp_i64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return (*x > *y) - (*x < *y);
}

/* v is sorted in place.  The median of an even count is the mean of the middle two. */
static struct stat3 stat3_of(int64_t *v, size_t n)
{
	struct stat3 s = { 0, 0, 0 };
	if (!n)
		return s;
	sort_array(v, n, sizeof(*v), cmp_i64);
	s.min = v[0];
	s.max = v[n - 1];
	s.med = n % 2 ? v[n / 2] : v[n / 2 - 1] / 2 + v[n / 2] / 2 + (v[n / 2 - 1] % 2 + v[n / 2] % 2) / 2;
	return s;
}

/*
 * M_OWN: the collector's own time on the program's threads (its callbacks'
 * hashing, write tracking, buffering), 0 where a recording did not measure
 * it; M_PROGRAM: the run time less that, what the program itself took as far
 * as the recordings can tell.
 */
enum measure { M_WALL, M_TRANSFER, M_ALLOC, M_BUSY, M_KERNEL, M_BYTES, M_OWN, M_PROGRAM, M_COUNT };
static const char *const measure_key[M_COUNT] = {
	"duration_ns", "transfer_ns", "alloc_ns", "busy_ns", "kernel_ns", "bytes", "collector_ns", "program_ns",
};

static int64_t measure_of(const struct drun *r, enum measure m)
{
	switch (m) {
	case M_WALL: return r->wall_ns;
	case M_TRANSFER: return r->transfer_ns;
	case M_ALLOC: return r->alloc_ns;
	case M_BUSY: return sat_add_i64(r->transfer_ns, r->alloc_ns);
	case M_KERNEL: return r->kernel_ns;
	case M_BYTES: return r->bytes > INT64_MAX ? INT64_MAX : (int64_t)r->bytes;
	case M_OWN: return r->own_ns > 0 ? r->own_ns : 0;
	case M_PROGRAM: {
		/* (Summed over threads that offload at once, the collector's time can pass the run's.) */
		int64_t v = sat_sub_i64(r->wall_ns, r->own_ns > 0 ? r->own_ns : 0);
		return v > 0 ? v : 0;
	}
	default: return 0;
	}
}

static struct stat3 side_stat(const struct dside *s, enum measure m)
{
	int64_t *v = malloc((s->n ? s->n : 1) * sizeof(*v));
	struct stat3 r = { 0, 0, 0 };
	if (!v)
		return r;
	for (size_t i = 0; i < s->n; i++)
		v[i] = measure_of(&s->runs[i], m);
	r = stat3_of(v, s->n);
	free(v);
	return r;
}

/*
 * 1 when every recording on both sides measured the collector's own time,
 * and it is less than the run's: summed over the program's threads, it can
 * pass the run time where several threads offload at once, and is then no
 * share of it to take off.
 */
static int own_known(const struct diff *d)
{
	for (int s = 0; s < 2; s++)
		for (size_t i = 0; i < d->side[s].n; i++)
			if (d->side[s].runs[i].own_ns < 0 || d->side[s].runs[i].own_ns >= d->side[s].runs[i].wall_ns)
				return 0;
	return 1;
}

/*
 * When the recordings' own cost hides the change: the collector's own time
 * changed by more than the run time did, and the run time less it moved the
 * other way (or the run time "grew" by less than the collector's time did).
 * A sentence (malloc'ed), or NULL when the run time can be taken as it is.
 */
static char *collector_note(const struct diff *d);

/* before - after: the measured savings, its median and its widest interval. */
static struct stat3 change_stat(const struct diff *d, enum measure m)
{
	struct stat3 b = side_stat(&d->side[DIFF_BEFORE], m), a = side_stat(&d->side[DIFF_AFTER], m);
	return (struct stat3){ sat_sub_i64(b.med, a.med), sat_sub_i64(b.min, a.max),
			       sat_sub_i64(b.max, a.min) };
}

static const struct dfinding *by_fingerprint(const struct drun *r, const char *fp)
{
	for (size_t i = 0; i < r->nf; i++)
		if (!strcmp(r->f[i].fingerprint, fp))
			return &r->f[i];
	return NULL;
}

/* Same file first, then the nearest line. */
static long distance(const struct dfinding *x, const struct dfinding *y)
{
	long dl = (long)x->line - y->line;
	int other_file = !x->file || !y->file || strcmp(x->file, y->file);
	return (dl < 0 ? -dl : dl) + (other_file ? 1L << 32 : 0);
}

static void match_pass(struct drun *b, struct drun *a, enum match how)
{
	for (size_t i = 0; i < b->nf; i++) {
		struct dfinding *x = &b->f[i];
		int best = -1;
		if (x->match)
			continue;
		for (size_t j = 0; j < a->nf; j++) {
			struct dfinding *y = &a->f[j];
			if (y->match || strcmp(how == MATCH_EXACT ? x->key : x->loose,
					       how == MATCH_EXACT ? y->key : y->loose))
				continue;
			if (best < 0 || distance(x, y) < distance(x, &a->f[best]))
				best = (int)j;
		}
		if (best >= 0) {
			x->match = a->f[best].match = how;
			x->other = best;
			a->f[best].other = (int)i;
		}
	}
}

static int cmp_op(const void *p, const void *q)
{
	const struct finding_op *x = &((const struct priced_op *)p)->op, *y = &((const struct priced_op *)q)->op;
	if (x->begin_ns != y->begin_ns)
		return x->begin_ns < y->begin_ns ? -1 : 1;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The union of the operations of the removed findings in before-run r. */
static int64_t removed_union(const struct drun *first, const struct drun *r, int *oom)
{
	struct priced_op *ops = NULL;
	size_t n = 0;
	int64_t u;

	for (size_t i = 0; i < first->nf; i++) {
		const struct dfinding *f;
		struct priced_op *v;
		if (first->f[i].match || !(f = by_fingerprint(r, first->f[i].fingerprint)) || !f->nops)
			continue;
		if (!(v = realloc(ops, (n + f->nops) * sizeof(*v)))) {
			*oom = 1;
			break;
		}
		ops = v;
		memcpy(ops + n, f->ops, f->nops * sizeof(*ops));
		n += f->nops;
	}
	if (n)
		sort_array(ops, n, sizeof(*ops), cmp_op);
	u = priced_ops_ns(ops, n);
	free(ops);
	return u;
}

/* Each first-run finding's savings: the median over its side's runs (0 where absent). */
static int median_savings(struct dside *s)
{
	int64_t *v = malloc(s->n * sizeof(*v));
	if (!v)
		return -1;
	for (size_t i = 0; i < s->runs[0].nf; i++) {
		struct dfinding *f = &s->runs[0].f[i];
		for (size_t r = 0; r < s->n; r++) {
			const struct dfinding *g = by_fingerprint(&s->runs[r], f->fingerprint);
			v[r] = g ? g->savings_ns : 0;
		}
		f->med_savings_ns = stat3_of(v, s->n).med;
	}
	free(v);
	return 0;
}

int diff_finish(struct diff *d, char **err)
{
	struct drun *b, *a;
	int oom = 0;

	if (!d->side[DIFF_BEFORE].n || !d->side[DIFF_AFTER].n) {
		if (err)
			*err = strdup("a diff needs at least one run on each side");
		return -1;
	}
	b = &d->side[DIFF_BEFORE].runs[0];
	a = &d->side[DIFF_AFTER].runs[0];
	for (size_t i = 0; i < b->nf; i++)
		b->f[i].other = -1;
	for (size_t i = 0; i < a->nf; i++)
		a->f[i].other = -1;
	match_pass(b, a, MATCH_EXACT);
	match_pass(b, a, MATCH_LOOSE);
	if (median_savings(&d->side[DIFF_BEFORE]) < 0 || median_savings(&d->side[DIFF_AFTER]) < 0)
		oom = 1;
	{
		size_t n = d->side[DIFF_BEFORE].n;
		int64_t *v = malloc(n * sizeof(*v));
		for (size_t r = 0; v && r < n; r++)
			v[r] = removed_union(b, &d->side[DIFF_BEFORE].runs[r], &oom);
		if (v)
			d->predicted = stat3_of(v, n);
		else
			oom = 1;
		free(v);
	}
	if (!(d->results = outcome_compare(b->outcome, a->outcome)))
		oom = 1;
	for (size_t i = 0; i < b->nf; i++)
		b->f[i].match ? d->nremaining++ : d->nremoved++;
	for (size_t i = 0; i < a->nf; i++)
		d->nnew += !a->f[i].match;
	d->finished = 1;
	if (oom && err)
		*err = strdup("out of memory");
	return oom ? -1 : 0;
}

/* --- output ---------------------------------------------------------------- */

static void fmt_ns(char *buf, size_t n, int64_t ns)
{
	double v = (double)ns, a = v < 0 ? -v : v;
	if (a >= 1e9)
		snprintf(buf, n, "%.3f s", v / 1e9);
	else if (a >= 1e6)
		snprintf(buf, n, "%.2f ms", v / 1e6);
	else if (a >= 1e3)
		snprintf(buf, n, "%.1f us", v / 1e3);
	else
		snprintf(buf, n, "%lld ns", (long long)ns);
}

static char *collector_note(const struct diff *d)
{
	struct stat3 wall, own, prog;
	char b[32], a[32], w[32], p[32], *note = NULL;

	if (!own_known(d))
		return NULL;
	wall = change_stat(d, M_WALL);
	own = change_stat(d, M_OWN);
	prog = change_stat(d, M_PROGRAM);
	if ((own.med < 0 ? -own.med : own.med) <= (wall.med < 0 ? -wall.med : wall.med))
		return NULL;
	fmt_ns(b, sizeof(b), side_stat(&d->side[DIFF_BEFORE], M_OWN).med);
	fmt_ns(a, sizeof(a), side_stat(&d->side[DIFF_AFTER], M_OWN).med);
	fmt_ns(w, sizeof(w), wall.med < 0 ? -wall.med : wall.med);
	fmt_ns(p, sizeof(p), prog.med < 0 ? -prog.med : prog.med);
	if (asprintf(&note, "the recordings' own cost differs by more than the change: the collector took %s of the "
		     "program's threads before and %s after (hashing, write tracking), so the recorded run time "
		     "(%s %s) is not the program's; less the collector's time, the program ran %s %s. Time the "
		     "program without mapprof (several runs of 'time ./app') to confirm.",
		     b, a, w, wall.med >= 0 ? "shorter" : "longer", p, prog.med >= 0 ? "faster" : "slower") < 0)
		note = NULL;
	return note;
}

static void fmt_bytes(char *buf, size_t n, int64_t b)
{
	double v = (double)b, a = v < 0 ? -v : v;
	if (a >= 1 << 30)
		snprintf(buf, n, "%.2f GiB", v / (1 << 30));
	else if (a >= 1 << 20)
		snprintf(buf, n, "%.2f MiB", v / (1 << 20));
	else if (a >= 1 << 10)
		snprintf(buf, n, "%.1f KiB", v / (1 << 10));
	else
		snprintf(buf, n, "%lld B", (long long)b);
}

static void fmt(char *buf, size_t n, enum measure m, int64_t v)
{
	if (m == M_BYTES)
		fmt_bytes(buf, n, v);
	else
		fmt_ns(buf, n, v);
}

static void print_measure(const struct diff *d, FILE *out, const char *label, enum measure m)
{
	struct stat3 b = side_stat(&d->side[DIFF_BEFORE], m), a = side_stat(&d->side[DIFF_AFTER], m);
	struct stat3 c = change_stat(d, m);
	char sb[32], sa[32], sc[32], lo[32], hi[32];

	fmt(sb, sizeof(sb), m, b.med);
	fmt(sa, sizeof(sa), m, a.med);
	fmt(sc, sizeof(sc), m, c.med);
	fprintf(out, "  %-22s %12s %12s %12s", label, sb, sa, sc);
	if (b.med)
		fprintf(out, " (%+.1f%%)", 100.0 * (double)c.med / (double)b.med);
	if (d->side[DIFF_BEFORE].n > 1 || d->side[DIFF_AFTER].n > 1) {
		fmt(lo, sizeof(lo), m, c.min);
		fmt(hi, sizeof(hi), m, c.max);
		fprintf(out, "  [%s .. %s]", lo, hi);
	}
	fputc('\n', out);
}

static void print_finding(FILE *out, char mark, const struct dfinding *f, const struct dfinding *now)
{
	char s[32];

	fmt_ns(s, sizeof(s), f->med_savings_ns);
	fprintf(out, "  %c ", mark);
	termesc_fputs(f->kind, out, 0);
	if (*f->flavour) {
		fputc(' ', out);
		termesc_fputs(f->flavour, out, 0);
	}
	if (f->variable) {
		fputs(" of '", out);
		termesc_fputs(f->variable, out, 0);
		fputc('\'', out);
	}
	fputs(" at ", out);
	termesc_fputs(f->file ? f->file : "?", out, 0);
	if (f->line)
		fprintf(out, ":%d", f->line);
	if (now && now->line != f->line)
		fprintf(out, " (now :%d)", now->line);
	if (f->function) {
		fputs(" in ", out);
		termesc_fputs(f->function, out, 0);
		fputs("()", out);
	}
	fprintf(out, ", %llu occurrence%s, %s predicted\n", (unsigned long long)f->occurrences,
		f->occurrences == 1 ? "" : "s", s);
}

static double rel_error(int64_t predicted, int64_t measured)
{
	return measured ? (double)(predicted - measured) / (double)(measured < 0 ? -measured : measured) : 0;
}

void diff_print(const struct diff *d, FILE *out)
{
	const struct drun *b = &d->side[DIFF_BEFORE].runs[0], *a = &d->side[DIFF_AFTER].runs[0];
	int own = own_known(d);
	struct stat3 wall = change_stat(d, own ? M_PROGRAM : M_WALL), busy = change_stat(d, M_BUSY);
	char p[32], mw[32], mb[32], *note = collector_note(d);

	fprintf(out, "mapprof diff: %zu run%s before (", d->side[DIFF_BEFORE].n,
		d->side[DIFF_BEFORE].n == 1 ? "" : "s");
	termesc_fputs(b->path, out, 0);
	fprintf(out, "%s), %zu after (", d->side[DIFF_BEFORE].n > 1 ? ", ..." : "", d->side[DIFF_AFTER].n);
	termesc_fputs(a->path, out, 0);
	fprintf(out, "%s)\n\n", d->side[DIFF_AFTER].n > 1 ? ", ..." : "");
	/* The first line of the section starts "results:" (scripts grep it). */
	termesc_fputs(json_string_value(json_object_get(d->results, "summary")), out, 0);
	fputs("\n\n", out);
	fprintf(out, "  %-22s %12s %12s %12s%s\n", "median", "before", "after", "saved",
		d->side[DIFF_BEFORE].n > 1 || d->side[DIFF_AFTER].n > 1 ? "           interval" : "");
	print_measure(d, out, "run time", M_WALL);
	if (own_known(d)) {
		print_measure(d, out, "collector's own time", M_OWN);
		print_measure(d, out, "run time less that", M_PROGRAM);
	}
	print_measure(d, out, "transfers (busy)", M_TRANSFER);
	print_measure(d, out, "allocations (busy)", M_ALLOC);
	print_measure(d, out, "transfers+allocations", M_BUSY);
	print_measure(d, out, "bytes moved", M_BYTES);
	fprintf(out, "\nremoved %zu, remaining %zu, new %zu\n", d->nremoved, d->nremaining, d->nnew);
	for (size_t i = 0; i < b->nf; i++)
		if (!b->f[i].match)
			print_finding(out, '-', &b->f[i], NULL);
	for (size_t i = 0; i < b->nf; i++)
		if (b->f[i].match)
			print_finding(out, '=', &b->f[i], &a->f[b->f[i].other]);
	for (size_t i = 0; i < a->nf; i++)
		if (!a->f[i].match)
			print_finding(out, '+', &a->f[i], NULL);
	fmt_ns(p, sizeof(p), d->predicted.med);
	fmt_ns(mb, sizeof(mb), busy.med);
	fmt_ns(mw, sizeof(mw), wall.med);
	fprintf(out, "\npredicted savings of the removed findings: %s\n", p);
	fprintf(out, "measured: %s in transfers+allocations (%+.1f%%), %s in run time%s (%+.1f%%)\n",
		mb, 100 * rel_error(d->predicted.med, busy.med), mw, own ? " less the collector's" : "",
		100 * rel_error(d->predicted.med, wall.med));
	if (note) {
		fputs("note: ", out);
		termesc_fputs(note, out, 0);
		fputc('\n', out);
		free(note);
	}
}

static json_t *stat_json(struct stat3 s)
{
	return json_pack("{sIsIsI}", "median", (json_int_t)s.med, "min", (json_int_t)s.min,
			 "max", (json_int_t)s.max);
}

static json_t *side_json(const struct dside *s, int own)
{
	json_t *o = json_object(), *dbs = json_array();
	for (size_t i = 0; i < s->n; i++)
		json_array_append_new(dbs, json_string(s->runs[i].path));
	json_object_set_new(o, "databases", dbs);
	json_object_set_new(o, "runs", json_integer((json_int_t)s->n));
	for (int m = 0; m < M_COUNT; m++)
		json_object_set_new(o, measure_key[m], (m == M_OWN || m == M_PROGRAM) && !own ? json_null()
												: stat_json(side_stat(s, m)));
	json_object_set_new(o, "findings", json_integer((json_int_t)s->runs[0].nf));
	return o;
}

static json_t *str_or_null(const char *s)
{
	return s && *s ? json_string(s) : json_null();
}

static json_t *finding_json(const struct dfinding *f)
{
	json_t *o = json_object();
	json_object_set_new(o, "kind", json_string(f->kind));
	json_object_set_new(o, "flavour", str_or_null(f->flavour));
	json_object_set_new(o, "fingerprint", json_string(f->fingerprint));
	json_object_set_new(o, "variable", str_or_null(f->variable));
	json_object_set_new(o, "file", str_or_null(f->file));
	json_object_set_new(o, "function", str_or_null(f->function));
	json_object_set_new(o, "line", f->line ? json_integer(f->line) : json_null());
	json_object_set_new(o, "directive", str_or_null(f->directive));
	json_object_set_new(o, "occurrences", json_integer((json_int_t)f->occurrences));
	json_object_set_new(o, "bytes", json_integer((json_int_t)f->bytes));
	json_object_set_new(o, "savings_ns", json_integer(f->med_savings_ns));
	return o;
}

static double rounded(double v)
{
	return (double)(int64_t)(v * 10000.0 + (v < 0 ? -0.5 : 0.5)) / 10000.0;
}

json_t *diff_json(const struct diff *d)
{
	const struct drun *b = &d->side[DIFF_BEFORE].runs[0], *a = &d->side[DIFF_AFTER].runs[0];
	json_t *doc = json_object(), *removed = json_array(), *remaining = json_array();
	json_t *added = json_array(), *measured = json_object(), *pred = json_object();
	int own = own_known(d);
	struct stat3 wall = change_stat(d, own ? M_PROGRAM : M_WALL), busy = change_stat(d, M_BUSY);
	char *note;

	if (!doc || !removed || !remaining || !added || !measured || !pred) {
		json_decref(doc);
		json_decref(removed);
		json_decref(remaining);
		json_decref(added);
		json_decref(measured);
		json_decref(pred);
		return NULL;
	}
	json_object_set_new(doc, "format", json_string("mapprof-diff"));
	json_object_set_new(doc, "version", json_integer(1));
	json_object_set_new(doc, "before", side_json(&d->side[DIFF_BEFORE], own));
	json_object_set_new(doc, "after", side_json(&d->side[DIFF_AFTER], own));
	for (size_t i = 0; i < b->nf; i++) {
		const struct dfinding *f = &b->f[i];
		if (!f->match) {
			json_array_append_new(removed, finding_json(f));
		} else {
			json_t *o = json_object();
			json_object_set_new(o, "before", finding_json(f));
			json_object_set_new(o, "after", finding_json(&a->f[f->other]));
			json_object_set_new(o, "match", json_string(f->match == MATCH_EXACT ? "exact" : "loose"));
			json_array_append_new(remaining, o);
		}
	}
	for (size_t i = 0; i < a->nf; i++)
		if (!a->f[i].match)
			json_array_append_new(added, finding_json(&a->f[i]));
	json_object_set_new(doc, "removed", removed);
	json_object_set_new(doc, "remaining", remaining);
	json_object_set_new(doc, "new", added);
	for (int m = 0; m < M_COUNT; m++)
		json_object_set_new(measured, measure_key[m], (m == M_OWN || m == M_PROGRAM) && !own ? json_null()
												   : stat_json(change_stat(d, m)));
	json_object_set_new(doc, "measured_savings", measured);
	json_object_set_new(pred, "savings_ns", stat_json(d->predicted));
	json_object_set_new(pred, "findings", json_integer((json_int_t)d->nremoved));
	json_object_set_new(pred, "relative_error_busy",
			    busy.med ? json_real(rounded(rel_error(d->predicted.med, busy.med))) : json_null());
	json_object_set_new(pred, "relative_error_wall",
			    wall.med ? json_real(rounded(rel_error(d->predicted.med, wall.med))) : json_null());
	/* Which run time that error is of: the program's (less the collector's own time) where measured. */
	json_object_set_new(pred, "relative_error_wall_of", json_string(own ? "program_ns" : "duration_ns"));
	note = collector_note(d);
	json_object_set_new(doc, "collector_note", note ? json_string(note) : json_null());
	free(note);
	json_object_set_new(doc, "predicted", pred);
	json_object_set_new(doc, "results", json_deep_copy(d->results));
	return doc;
}

int diff_baseline(json_t *doc, const char *before_path, const char *after_path,
		  const struct analysis *a, int no_source, char **err)
{
	struct diff *d = diff_new();
	json_t *o = NULL;
	int rc = -1;

	if (!d) {
		if (err)
			*err = strdup("out of memory");
		return -1;
	}
	if (diff_add(d, DIFF_BEFORE, before_path, no_source, err) < 0 ||
	    diff_add_analysis(d, DIFF_AFTER, after_path, a, err) < 0 || diff_finish(d, err) < 0)
		goto out;
	if (!(o = diff_json(d))) {
		if (err)
			*err = strdup("out of memory");
		goto out;
	}
	json_object_set_new(doc, "baseline", o);
	rc = 0;
out:
	diff_free(d);
	return rc;
}
