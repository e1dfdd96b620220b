/*
 * outcome.c - the results check (report/compare/outcome.h).  Arrays and
 * linear scans: a run returns tens of variables.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store/attribution.h"
#include "lib/hmap.h"
#include "report/compare/outcome.h"
#include "report/findings/analysis.h"

struct ovar {
	char *name;          /* as the attribution names it; NULL: unnamed */
	char *base;          /* name without its array section */
	char *function, *file;
	int line;            /* of its last return, else of its last transfer */
	int returned, has_hash;
	int holds_pointer;   /* a struct with an attached pointer member (results.h) */
	uint64_t hash;       /* of the last transfer either way */
	int ret_has_hash;
	uint64_t ret_hash;   /* of the last return (when 'returned') */
	int order;           /* among ranges of the same key in this run */
	uint64_t host_addr;
	int arank, ngroup;   /* its rank by host address among the ranges of its name, and how many */
	int other;           /* matched range of the other run, -1: none */
};

struct outcome {
	int has_exit;
	int exit_status, exit_signal;
	int64_t hash_function, hash_chunk_bytes;  /* the hashes' definition (run_info) */
	struct ovar *v;
	size_t n;
};

static void ovar_release(struct ovar *v)
{
	free(v->name);
	free(v->base);
	free(v->function);
	free(v->file);
}

void outcome_free(struct outcome *o)
{
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++)
		ovar_release(&o->v[i]);
	free(o->v);
	free(o);
}

static char *dup_str(json_t *s)
{
	const char *v = json_string_value(s);
	return v ? strdup(v) : NULL;
}

static const char *base_name(const char *path)
{
	const char *slash = path ? strrchr(path, '/') : NULL;
	return slash ? slash + 1 : path;
}

static int same(const char *x, const char *y)
{
	return x && y ? !strcmp(x, y) : x == y;
}

/* FNV-1a of a string, NULL apart from "". */
static uint64_t str_hash(const char *s, uint64_t h)
{
	if (!s)
		return h ^ 0x9e3779b97f4a7c15ULL;
	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

/*
 * The passes, in order: several ranges of one name (chunks that nowait
 * regions return in no fixed order) pair by equal content first, then by
 * order, then any; then names without their sections; unnamed data by
 * function, content, then order.
 */
enum pass { BY_ADDRESS, BY_CONTENT, BY_NAME, BY_NAME_ANY, BY_BASE, BY_PLACE_CONTENT, BY_PLACE };

/* The word a pass matches on: a hash of its key, with the order where the pass compares it. */
static uint64_t pass_key(const struct ovar *v, enum pass p)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	switch (p) {
	case BY_ADDRESS: return str_hash(v->name, h) ^ (uint64_t)v->arank * 0x9e3779b97f4a7c15ULL;
	case BY_CONTENT: return str_hash(v->name, h) ^ (v->has_hash ? v->hash : 0);
	case BY_NAME: return str_hash(v->name, h) ^ (uint64_t)v->order * 0x9e3779b97f4a7c15ULL;
	case BY_NAME_ANY: return str_hash(v->name, h);
	case BY_BASE: return str_hash(v->base, h);
	case BY_PLACE_CONTENT:
		return str_hash(v->function, str_hash(v->name, h)) ^ (v->has_hash ? v->hash : 0);
	default:
		return str_hash(v->function, str_hash(v->name, h)) ^
		       (uint64_t)v->order * 0x9e3779b97f4a7c15ULL;
	}
}

/* qsort's comparator of range indices: by name, then host address, then position. */
static const struct outcome *sorting;
static int by_name_address(const void *pa, const void *pb)
{
	size_t a = *(const size_t *)pa, b = *(const size_t *)pb;
	const struct ovar *x = &sorting->v[a], *y = &sorting->v[b];
	int c = strcmp(x->name, y->name);

	if (c)
		return c;
	if (x->host_addr != y->host_addr)
		return x->host_addr < y->host_addr ? -1 : 1;
	return a < b ? -1 : a > b;
}

/* Each range's order among the ranges of its run with the same name (or, unnamed, function). */
static int number(struct outcome *o)
{
	struct hmap seen;

	hmap_init(&seen, 1, sizeof(int));
	for (size_t i = 0; i < o->n; i++) {
		uint64_t key = str_hash(o->v[i].name ? o->v[i].name : o->v[i].function,
					o->v[i].name ? 1 : 2);
		int *count = hmap_put(&seen, &key, NULL);
		if (!count) {
			hmap_release(&seen);
			return -1;
		}
		o->v[i].order = (*count)++;
	}
	hmap_release(&seen);
	/*
	 * Ranks by host address among the ranges of one name: chunks of one
	 * array (nowait, any order of completion) keep their offsets' order,
	 * separate buffers their allocation order, from run to run, where the
	 * content may not (two results that swapped places).
	 */
	size_t *idx = malloc((o->n ? o->n : 1) * sizeof(*idx)), m = 0;
	if (!idx)
		return -1;
	for (size_t i = 0; i < o->n; i++)
		if (o->v[i].name)
			idx[m++] = i;
	sorting = o;
	qsort(idx, m, sizeof(*idx), by_name_address);
	for (size_t i = 0; i < m;) {
		size_t j = i;
		while (j < m && !strcmp(o->v[idx[j]].name, o->v[idx[i]].name))
			j++;
		for (size_t k = i; k < j; k++) {
			o->v[idx[k]].arank = (int)(k - i);
			o->v[idx[k]].ngroup = (int)(j - i);
		}
		i = j;
	}
	free(idx);
	return 0;
}

struct outcome *outcome_of(const struct analysis *a)
{
	struct outcome *o = calloc(1, sizeof(*o));
	const struct results *r = &a->results;

	if (!o || !(o->v = calloc(r->n ? r->n : 1, sizeof(*o->v)))) {
		free(o);
		return NULL;
	}
	o->has_exit = a->run.has_exit_status;
	o->exit_status = a->run.exit_status;
	o->exit_signal = a->run.exit_signal;
	o->hash_function = a->run.hash_function;
	o->hash_chunk_bytes = a->run.hash_chunk_bytes;
	for (size_t i = 0; i < r->n; i++) {
		const struct result_range *x = &r->v[i];
		struct ovar *v = &o->v[o->n++];
		int64_t seq = x->returned ? x->ret_seq : x->last_seq;
		uint64_t cp = x->returned ? x->ret_codeptr : x->last_codeptr;
		json_t *var = a->attr ? attribution_variable(a->attr, seq) : NULL;
		json_t *loc = a->attr && cp ? attribution_location(a->attr, cp) : NULL;
		const char *origin = json_string_value(json_object_get(var, "origin"));

		v->other = -1;
		v->host_addr = x->host_addr;
		v->returned = x->returned;
		v->holds_pointer = x->holds_pointer;
		/*
		 * What the host held at the end, as far as the recording shows: the
		 * content of the range's last transfer either way (a send after the
		 * last return shows what the host held then), and of its last
		 * return.  Two runs agree when either is the same (outcome_compare):
		 * a plan that turns an 'exit data map(from:)' after such a send into
		 * 'delete' changes the last return, one that deletes an unneeded
		 * 'target update to' changes the last transfer.
		 */
		v->has_hash = x->last_has_hash;
		v->hash = x->last_hash;
		v->ret_has_hash = x->returned && x->ret_has_hash;
		v->ret_hash = x->ret_hash;
		/* An address is no name: it moves between runs. */
		if (origin && strcmp(origin, "address"))
			v->name = dup_str(json_object_get(var, "name"));
		v->function = dup_str(json_object_get(loc, "function"));
		v->file = json_string_value(json_object_get(loc, "file")) ?
			  strdup(base_name(json_string_value(json_object_get(loc, "file")))) : NULL;
		v->line = (int)json_integer_value(json_object_get(loc, "line"));
		json_decref(var);
		json_decref(loc);
		if (v->name) {
			size_t len = strcspn(v->name, "[");
			v->base = strndup(v->name, len);
		}
	}
	if (number(o) < 0) {
		outcome_free(o);
		return NULL;
	}
	return o;
}

static int key_equal(const struct ovar *x, const struct ovar *y, enum pass p)
{
	int same_hash = x->has_hash && y->has_hash && x->hash == y->hash;

	switch (p) {
	case BY_ADDRESS:
		/* The same name, as many ranges of it in both runs, the same place among them by address. */
		return x->name && y->name && !strcmp(x->name, y->name) && x->ngroup == y->ngroup &&
		       x->arank == y->arank;
	case BY_CONTENT:
		return x->name && y->name && !strcmp(x->name, y->name) && same_hash;
	case BY_NAME:
		return x->name && y->name && !strcmp(x->name, y->name) && x->order == y->order;
	case BY_NAME_ANY:
		return x->name && y->name && !strcmp(x->name, y->name);
	case BY_BASE:
		return x->base && y->base && !strcmp(x->base, y->base);
	case BY_PLACE_CONTENT:
		return !x->name && !y->name && same(x->function, y->function) && same_hash;
	default:
		return !x->name && !y->name && same(x->function, y->function) && x->order == y->order;
	}
}

/*
 * Pair what is left unmatched in b with what is left in a on pass p's key:
 * a's candidates chained by key (hmap: key -> first; next[]), in order.
 * -1 when out of memory.
 */
static int match(struct outcome *b, struct outcome *a, enum pass p)
{
	struct hmap first;
	size_t *next = malloc((a->n ? a->n : 1) * sizeof(*next));
	int rc = 0;

	hmap_init(&first, 1, sizeof(size_t));
	if (!next)
		return -1;
	for (size_t j = a->n; j-- > 0;) {
		uint64_t key = pass_key(&a->v[j], p);
		int created;
		size_t *head;
		if (a->v[j].other >= 0)
			continue;
		if (!(head = hmap_put(&first, &key, &created))) {
			rc = -1;
			goto out;
		}
		next[j] = created ? SIZE_MAX : *head;
		*head = j;
	}
	for (size_t i = 0; i < b->n; i++) {
		uint64_t key = pass_key(&b->v[i], p);
		size_t *head = b->v[i].other < 0 ? hmap_get(&first, &key) : NULL;
		/* Matched candidates leave the chain's head: each is passed once. */
		while (head && *head != SIZE_MAX && a->v[*head].other >= 0)
			*head = next[*head];
		for (size_t j = head ? *head : SIZE_MAX; j != SIZE_MAX; j = next[j])
			if (a->v[j].other < 0 && key_equal(&b->v[i], &a->v[j], p)) {
				b->v[i].other = (int)j;
				a->v[j].other = (int)i;
				break;
			}
	}
out:
	hmap_release(&first);
	free(next);
	return rc;
}

static char *describe(const struct ovar *v)
{
	char *s;
	if (asprintf(&s, "%s%s%s (%s:%d%s%s%s)", v->name ? "'" : "", v->name ? v->name : "unnamed data",
		     v->name ? "'" : "", v->file ? v->file : "?", v->line,
		     v->function ? " in " : "", v->function ? v->function : "", v->function ? "()" : "") < 0)
		return NULL;
	return s;
}

static json_t *var_json(const struct ovar *v)
{
	return json_pack("{s:o,s:o,s:o,s:o}", "variable", v->name ? json_string(v->name) : json_null(),
			 "file", v->file ? json_string(v->file) : json_null(),
			 "line", v->line ? json_integer(v->line) : json_null(),
			 "function", v->function ? json_string(v->function) : json_null());
}

static json_t *hash_json(const struct ovar *v)
{
	char buf[24];
	if (!v || !v->has_hash)
		return json_null();
	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)v->hash);
	return json_string(buf);
}

/* Appends a difference to 'diffs' and its words to *text ("; " between). */
static void differ(json_t *diffs, char **text, const char *what, const struct ovar *v,
		   const struct ovar *w, const char *words)
{
	char *d = describe(v ? v : w), *t = NULL;
	json_t *o = var_json(v ? v : w);

	json_object_set_new(o, "what", json_string(what));
	json_object_set_new(o, "before_hash", hash_json(v));
	json_object_set_new(o, "after_hash", hash_json(w));
	json_array_append_new(diffs, o);
	if (asprintf(&t, "%s%s%s %s", *text ? *text : "", *text ? "; " : "", d ? d : "?", words) >= 0) {
		free(*text);
		*text = t;
	}
	free(d);
}

static void exit_text(char *buf, size_t n, const struct outcome *o)
{
	if (!o->has_exit)
		snprintf(buf, n, "unknown");
	else if (o->exit_signal)
		snprintf(buf, n, "%d (signal %d)", o->exit_status, o->exit_signal);
	else
		snprintf(buf, n, "%d", o->exit_status);
}

json_t *outcome_compare(struct outcome *b, struct outcome *a)
{
	json_t *doc = json_object(), *diffs = json_array(), *ex;
	char *differ_text = NULL, *unsure_text = NULL, *aside_text = NULL, *summary = NULL;
	char eb[32], ea[32];
	size_t compared = 0, returned = 0, aside = 0;
	int break_oom = 0;
	const char *status;
	/* Hashes of two definitions (docs/database.md: hash_function, hash_chunk_bytes) never compare. */
	int same_def = b->hash_function == a->hash_function && b->hash_chunk_bytes == a->hash_chunk_bytes;

	if (!doc || !diffs) {
		json_decref(doc);
		json_decref(diffs);
		return NULL;
	}
	for (size_t i = 0; i < b->n; i++)
		b->v[i].other = -1;
	for (size_t j = 0; j < a->n; j++)
		a->v[j].other = -1;
	for (enum pass p = BY_ADDRESS; p <= BY_PLACE; p++)
		if ((same_def || (p != BY_CONTENT && p != BY_PLACE_CONTENT)) && match(b, a, p) < 0)
			break_oom = 1;
	if (break_oom) {
		json_decref(doc);
		json_decref(diffs);
		return NULL;
	}

	exit_text(eb, sizeof(eb), b);
	exit_text(ea, sizeof(ea), a);
	if (b->has_exit != a->has_exit || b->exit_status != a->exit_status ||
	    b->exit_signal != a->exit_signal) {
		char *t;
		if (asprintf(&t, "exit status %s -> %s", eb, ea) >= 0)
			differ_text = t;
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct ovar *v = &b->v[i], *w = v->other >= 0 ? &a->v[v->other] : NULL;
		if (!v->returned && !(w && w->returned))
			continue;   /* only ever sent: an input */
		returned++;
		if (!w) {
			aside++;
			differ(diffs, &aside_text, "not_moved_after", v, NULL,
			       "came back to the host before, and is never moved after (if the host reads "
			       "it there, the change may alter what the program computes or prints)");
		} else if (!v->has_hash || !w->has_hash) {
			differ(diffs, &unsure_text, "no_hash", v, w, "has no content hash");
		} else if (!same_def) {
			differ(diffs, &unsure_text, "hash_definition", v, w,
			       "was hashed by another definition in each recording (stats hash_function, "
			       "hash_chunk_bytes: another CPU, MAPPROF_HASH or mapprof version)");
		} else if (v->hash == w->hash ||
			   (v->ret_has_hash && w->ret_has_hash && v->ret_hash == w->ret_hash)) {
			compared++;
		} else if (v->holds_pointer || w->holds_pointer) {
			/* Its bytes hold a heap address: they differ from run to run. */
			aside++;
			differ(diffs, &aside_text, "holds_pointer", v, w,
			       "holds a pointer (a heap address, which moves from run to run): its final "
			       "content cannot be compared");
		} else {
			differ(diffs, &differ_text, "content", v, w,
			       v->returned && w->returned ? "final content differs"
			       : "final content differs (it came back in one run only)");
		}
	}
	for (size_t j = 0; j < a->n; j++)
		if (a->v[j].returned && a->v[j].other < 0) {
			returned++;
			aside++;
			differ(diffs, &aside_text, "not_moved_before", NULL, &a->v[j],
			       "comes back to the host after, and was never moved before (if the host reads "
			       "it there, the change may alter what the program computes or prints)");
		}
	if (differ_text) {
		status = "differ";
		if (asprintf(&summary, "results: DIFFER: %s", differ_text) < 0)
			summary = NULL;
	} else if (unsure_text || (aside && !compared)) {
		status = "not_comparable";
		if (asprintf(&summary, "results: not comparable: %s", unsure_text ? unsure_text : aside_text) < 0)
			summary = NULL;
	} else if (!returned) {
		status = "not_comparable";
		if (asprintf(&summary, "results: not comparable: no data came back from a device in "
			     "either run (exit status %s both)", eb) < 0)
			summary = NULL;
	} else if (aside) {
		/*
		 * One run moving data the other never moves back: a pointer-swapped
		 * grid the fix leaves on the device, or a result (a 'target update
		 * from' the host printed) the change dropped.  The recording cannot
		 * tell which, so the line does not say identical alone.
		 */
		status = "partial";
		if (asprintf(&summary, "results: identical where compared (%zu %s, exit status %s both); "
			     "NOT compared: %s", compared,
			     compared == 1 ? "variable's final content matches"
					   : "variables' final contents match", eb, aside_text) < 0)
			summary = NULL;
	} else {
		status = "identical";
		if (asprintf(&summary, "results: identical (%zu %s, exit status %s both)", compared,
			     compared == 1 ? "variable's final content matches"
					   : "variables' final contents match", eb) < 0)
			summary = NULL;
	}
	json_object_set_new(doc, "status", json_string(status));
	json_object_set_new(doc, "summary", summary ? json_string(summary) : json_string("results: ?"));
	json_object_set_new(doc, "compared", json_integer((json_int_t)compared));
	json_object_set_new(doc, "not_compared", json_integer((json_int_t)aside));
	ex = json_object();
	json_object_set_new(ex, "before", b->has_exit ? json_integer(b->exit_status) : json_null());
	json_object_set_new(ex, "after", a->has_exit ? json_integer(a->exit_status) : json_null());
	json_object_set_new(ex, "before_signal", json_integer(b->exit_signal));
	json_object_set_new(ex, "after_signal", json_integer(a->exit_signal));
	json_object_set_new(doc, "exit_status", ex);
	json_object_set_new(doc, "differences", diffs);
	free(summary);
	free(differ_text);
	free(unsure_text);
	free(aside_text);
	return doc;
}
