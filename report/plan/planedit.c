/*
 * planedit.c - a plan's findings and its construct's map entries in, one
 * suggested edit (and, for the simple cases, a unified diff) out.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/attribution.h"
#include "report/plan/loopscan.h"
#include "report/findings/paths.h"
#include "report/plan/plans.h"
#include "report/findings/analysis.h"
#include "report/attribute/safefile.h"
#include "lib/utf8.h"

#define DIFF_CONTEXT 3

const char *plan_edit_kind_name(enum plan_edit_kind kind)
{
	static const char *const names[] = {
		[EDIT_ADVICE] = "advice", [EDIT_WRAP_LOOP] = "wrap_loop", [EDIT_MAP_TYPE] = "map_type",
		[EDIT_REMOVE_MAP] = "remove_map", [EDIT_ALLOC_ONLY] = "alloc_only", [EDIT_HOIST] = "hoist",
	};
	return names[kind];
}

void plan_edit_release(struct plan_edit *e)
{
	if (!e)
		return;
	free(e->text);
	free(e->clauses);
	free(e->patch);
	memset(e, 0, sizeof(*e));
}

/* A source file split into lines (the text is kept; lines point into it). */
struct source {
	char *text;
	size_t n;
	char **line;     /* line[1..nlines], NUL-terminated in place */
	int nlines;
	int final_newline;
};

static void source_release(struct source *s)
{
	free(s->text);
	free(s->line);
	memset(s, 0, sizeof(*s));
}

/* Read path through safefile_open(); 0, or -1 (unreadable, not text, out of memory). */
static int source_read(const char *path, struct source *s)
{
	int fd = safefile_open(path, SAFEFILE_MAX_SOURCE_BYTES, NULL);
	size_t cap = 0;
	ssize_t got;

	memset(s, 0, sizeof(*s));
	if (fd < 0)
		return -1;
	for (;;) {
		if (s->n + 4096 + 1 > cap) {
			char *t = realloc(s->text, cap = cap ? cap * 2 : 8192);
			if (!t)
				goto fail;
			s->text = t;
		}
		got = read(fd, s->text + s->n, cap - s->n - 1);
		if (got < 0)
			goto fail;
		if (got == 0)
			break;
		s->n += (size_t)got;
		if (s->n > SAFEFILE_MAX_SOURCE_BYTES)
			goto fail;
	}
	close(fd);
	fd = -1;
	if (!s->text || memchr(s->text, '\0', s->n))
		goto fail;   /* empty, or not text */
	s->text[s->n] = '\0';
	s->final_newline = s->n && s->text[s->n - 1] == '\n';
	for (size_t i = 0; i < s->n; i++)
		s->nlines += s->text[i] == '\n';
	s->nlines += !s->final_newline;
	s->line = calloc((size_t)s->nlines + 2, sizeof(*s->line));
	if (!s->line)
		goto fail;
	/* Split a copy: the scan needs the text whole. */
	{
		char *copy = malloc(s->n + 1), *p;
		int k = 1;
		if (!copy)
			goto fail;
		memcpy(copy, s->text, s->n + 1);
		for (p = copy; k <= s->nlines; k++) {
			char *nl = strchr(p, '\n');
			s->line[k] = p;
			if (!nl)
				break;
			*nl = '\0';
			p = nl + 1;
		}
		s->line[0] = copy;   /* owns the copy */
	}
	return 0;
fail:
	if (fd >= 0)
		close(fd);
	free(s->text);
	free(s->line);   /* its copy was not made: line[0] owns nothing yet */
	memset(s, 0, sizeof(*s));
	return -1;
}

static void source_free(struct source *s)
{
	if (s->line)
		free(s->line[0]);
	source_release(s);
}

/* The source files read for one set of plans: path -> its lines, or unreadable. */
struct plan_sources {
	struct cached_source {
		char *path;
		struct source src;
		int ok;             /* read and split; 0: unreadable, not tried again */
	} *v;
	size_t n, cap;
};

struct plan_sources *plan_sources_new(void)
{
	return calloc(1, sizeof(struct plan_sources));
}

void plan_sources_free(struct plan_sources *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].path);
		source_free(&c->v[i].src);
	}
	free(c->v);
	free(c);
}

/*
 * The source at path: c's copy, read now if c has none (once per path, a
 * linear scan: a program's plans name a few files); without c, read into
 * *own (the caller frees it).  NULL when it cannot be read or out of memory.
 */
static const struct source *plan_sources_get(struct plan_sources *c, const char *path, struct source *own)
{
	struct cached_source *e;

	if (!c)
		return source_read(path, own) == 0 ? own : NULL;
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->v[i].path, path))
			return c->v[i].ok ? &c->v[i].src : NULL;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 4;
		struct cached_source *v = realloc(c->v, cap * sizeof(*v));
		if (!v)
			return NULL;
		c->v = v;
		c->cap = cap;
	}
	e = &c->v[c->n];
	if (!(e->path = strdup(path)))
		return NULL;
	c->n++;
	e->ok = source_read(path, &e->src) == 0;
	return e->ok ? &e->src : NULL;
}

/*
 * Line k of s, or "" when s has no such line: the numbers come from the
 * recording and the file is read now, so they may point past its end.
 */
static const char *src_line(const struct source *s, int k)
{
	return s->line && k >= 1 && k <= s->nlines && s->line[k] ? s->line[k] : "";
}

/* Whether s has line k. */
static int has_line(const struct source *s, int k)
{
	return s->line && k >= 1 && k <= s->nlines && s->line[k];
}

/* A growing string; ok drops to 0 when out of memory. */
struct buf {
	char *s;
	size_t len, cap;
	int ok;
};

static void put(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void put(struct buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (!b->ok)
		return;
	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->ok = 0;
		return;
	}
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 256;
		char *t;
		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		if (!(t = realloc(b->s, cap))) {
			b->ok = 0;
			return;
		}
		b->s = t;
		b->cap = cap;
	}
	va_start(ap, fmt);
	vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

/* The buffer's string (the caller's), or NULL when out of memory. */
static char *take(struct buf *b)
{
	if (!b->ok || !b->s) {
		free(b->s);
		return b->ok ? strdup("") : NULL;
	}
	return b->s;
}

/*
 * One change to the file: 'ins' lines inserted before line 'at' (nlines + 1:
 * at the end), then line 'at' replaced by 'repl' when it is not NULL.
 */
struct change {
	int at;
	const char *ins[2];
	int nins;
	const char *repl;
};

/* The unified diff of 'ch' (sorted by line) to s, paths a/rel and b/rel. */
static char *unified_diff(const struct source *s, const char *rel, const struct change *ch, int n)
{
	struct buf b = { .ok = 1 };
	int delta = 0;

	put(&b, "--- a/%s\n+++ b/%s\n", rel, rel);
	for (int i = 0; i < n;) {
		int j = i, first, last, old = 0, neu = 0;
		/* Changes whose contexts touch share a hunk. */
		while (j + 1 < n && ch[j + 1].at - (ch[j].at + (ch[j].repl ? 1 : 0)) <= 2 * DIFF_CONTEXT)
			j++;
		first = ch[i].at - DIFF_CONTEXT > 1 ? ch[i].at - DIFF_CONTEXT : 1;
		last = ch[j].at + (ch[j].repl ? 0 : -1) + DIFF_CONTEXT;
		if (last > s->nlines)
			last = s->nlines;
		old = last - first + 1;
		neu = old;
		for (int k = i; k <= j; k++)
			neu += ch[k].nins;   /* a replaced line is one out, one in */
		put(&b, "@@ -%d,%d +%d,%d @@\n", first, old, first + delta, neu);
		for (int line = first, k = i; line <= last + 1; line++) {
			int replaced = 0;
			for (; k <= j && ch[k].at == line; k++) {
				for (int m = 0; m < ch[k].nins; m++)
					put(&b, "+%s\n", ch[k].ins[m]);
				if (ch[k].repl) {
					put(&b, "-%s\n+%s\n", src_line(s, line), ch[k].repl);
					replaced = 1;
				}
			}
			if (!replaced && line <= last)
				put(&b, " %s\n", src_line(s, line));
		}
		delta += neu - old;
		i = j + 1;
	}
	return take(&b);
}

/* The identifier a section starts with ("u" of "u[0:64 * 64]"), into out. */
static void base_name(const char *s, char *out, size_t size)
{
	size_t k = 0;
	while (isspace((unsigned char)*s))
		s++;
	while ((isalnum((unsigned char)*s) || *s == '_') && k + 1 < size)
		out[k++] = *s++;
	out[k] = '\0';
}

/*
 * Line 'text' with the map type of the clause that maps 'var' alone changed
 * from 'from' to 'to' (malloc'ed); NULL when no such clause is on the line.
 */
static char *retype_clause(const char *text, const char *var, const char *from, const char *to)
{
	char want[128], got[128];
	const char *p = text;

	if (!text || !var)
		return NULL;
	base_name(var, want, sizeof(want));
	if (!*want)
		return NULL;
	while ((p = strstr(p, "map")) != NULL) {
		const char *q = p + 3, *type, *item, *close;
		size_t tl;
		char *out;
		if (p > text && (isalnum((unsigned char)p[-1]) || p[-1] == '_')) {
			p = q;
			continue;
		}
		while (*q == ' ' || *q == '\t')
			q++;
		if (*q++ != '(') {
			p = q;
			continue;
		}
		while (*q == ' ' || *q == '\t')
			q++;
		type = q;
		while (isalpha((unsigned char)*q))
			q++;
		tl = (size_t)(q - type);
		while (*q == ' ' || *q == '\t')
			q++;
		p = q;
		if (tl != strlen(from) || memcmp(type, from, tl) || *q != ':')
			continue;
		item = q + 1;
		for (close = item; *close && *close != ')' && *close != ','; close++)
			if (*close == '(' || *close == '[') {
				char c = *close == '(' ? ')' : ']';
				while (*close && *close != c)
					close++;
				if (!*close)
					return NULL;
			}
		if (*close != ')')
			continue;   /* several items (or no end): not a simple case */
		base_name(item, got, sizeof(got));
		if (strcmp(got, want))
			continue;
		if (asprintf(&out, "%.*s%s%s", (int)(type - text), text, to, type + tl) < 0)
			return NULL;
		return out;
	}
	return NULL;
}

static const char *map_type(json_int_t to, json_int_t from)
{
	return to && from ? "tofrom" : to ? "to" : from ? "from" : "alloc";
}

/* Whether 'name' is in the array of strings 'names'. */
static int has_name(json_t *names, const char *name)
{
	size_t i;
	json_t *v;
	json_array_foreach(names, i, v)
		if (!strcmp(json_string_value(v), name))
			return 1;
	return 0;
}

/* "map(tofrom: a, b) map(to: c)" for the entries named in 'names'; NULL when none. */
static char *clause_list(json_t *entries, json_t *names, int *oom)
{
	static const char *const types[] = { "tofrom", "to", "from", "alloc" };
	struct buf b = { .ok = 1 };

	for (size_t t = 0; t < 4; t++) {
		const char *sep = NULL;
		size_t i;
		json_t *e;
		json_array_foreach(entries, i, e) {
			const char *name = json_string_value(json_object_get(e, "name"));
			const char *type = map_type(json_integer_value(json_object_get(e, "to_device")),
						    json_integer_value(json_object_get(e, "from_device")));
			if (!name || strcmp(type, types[t]) || !has_name(names, name))
				continue;
			if (!sep)
				put(&b, "%smap(%s: ", b.len ? " " : "", types[t]);
			put(&b, "%s%s", sep ? sep : "", name);
			sep = ", ";
		}
		if (sep)
			put(&b, ")");
	}
	if (!b.ok) {
		*oom = 1;
		free(b.s);
		return NULL;
	}
	if (!b.len) {
		free(b.s);
		return NULL;
	}
	return b.s;
}

struct inputs {
	json_t *names[FINDING_KIND_COUNT + 1];   /* variables per kind; [COUNT]: every one */
	json_t *hdh;                             /* host->device->host round trips */
	int repeat;                              /* duplicates, repeated allocs, d->h->d trips */
	json_t *entries;                         /* the construct's map entries */
	const char *file, *rel, *function;
	int line;
	const char *changed;                     /* the source changed since the recording: how */
};

static int add_name(json_t *arr, const char *name)
{
	if (!arr)
		return -1;
	if (!name || has_name(arr, name))
		return 0;
	return json_array_append_new(arr, json_string(name));
}

/* The first variable of 'names' (borrowed) or "the data". */
static const char *first_name(json_t *names)
{
	const char *s = json_string_value(json_array_get(names, 0));
	return s ? s : "the data";
}

static int build(const struct analysis *a, struct plan *pl, struct inputs *in, struct plan_sources *sources)
{
	struct plan_edit *e = &pl->edit;
	struct source own = { 0 };
	const struct source *src = NULL;
	struct loop_span loop = { 0 };
	struct buf t = { .ok = 1 };
	char *path = NULL;
	int oom = 0, found = 0, rc = -1, patchable;

	/*
	 * The source is read only when it is the one that was run, as far as
	 * 'record' could tell: another version's lines would be edited as this
	 * one's.  The line numbers come from the recording: any may be past the
	 * end of the file read now (src_line()).
	 */
	if (!a->no_source && !in->changed && in->line > 0 &&
	    (path = attribution_source_path(a->attr, pl->codeptr)) &&
	    (src = plan_sources_get(sources, path, &own)) && !has_line(src, in->line))
		src = NULL;   /* shorter than the directive's line: not the file that was built */
	if (src)
		found = loopscan_find(src->text, src->n, in->line, &loop) && has_line(src, loop.first_line) &&
			loop.last_line >= loop.first_line && loop.last_line <= src->nlines;
	/* A diff is bytes: JSON carries only UTF-8, so a file (or name) that is not gets none. */
	patchable = src && utf8_valid(src->text, src->n) && utf8_valid(in->rel, strlen(in->rel));
	if (in->repeat) {
		e->clauses = clause_list(in->entries, in->names[FINDING_KIND_COUNT], &oom);
		if (oom)
			goto out;
	}
	if (in->repeat && found && e->clauses) {
		e->kind = EDIT_WRAP_LOOP;
		e->loop_first = loop.first_line;
		e->loop_last = loop.last_line;
		put(&t, "Suggested: wrap lines %d-%d of %s (the loop around line %d) in "
			"'#pragma omp target data %s' (a braced block), so that the data is mapped once around the "
			"loop instead of on every iteration. The construct's own map clauses can stay: "
			"the data is then present, so they allocate and copy nothing. Map types from the "
			"recorded operations: 'to' where only copies to the device were recorded, 'from' "
			"where only copies back, 'tofrom' where both, 'alloc' where neither. If the host "
			"reads or writes these variables inside the loop, add 'target update' there.",
		    loop.first_line, loop.last_line, in->rel, in->line, e->clauses);
		if (patchable && loop.alone && !loop.pragma_before && src->final_newline) {
			const char *line = src_line(src, loop.first_line);
			size_t ind = strspn(line, " \t");
			char *l1 = NULL, *l2 = NULL, *l3 = NULL;
			if (asprintf(&l1, "%.*s#pragma omp target data %s", (int)ind, line, e->clauses) >= 0 &&
			    asprintf(&l2, "%.*s{", (int)ind, line) >= 0 &&
			    asprintf(&l3, "%.*s}", (int)ind, line) >= 0) {
				struct change ch[2] = {
					{ .at = loop.first_line, .ins = { l1, l2 }, .nins = 2 },
					{ .at = loop.last_line + 1, .ins = { l3 }, .nins = 1 },
				};
				e->patch = unified_diff(src, in->rel, ch, 2);
				if (!e->patch)
					oom = 1;
			} else {
				oom = 1;
			}
			free(l1);
			free(l2);
			free(l3);
		}
	} else if (json_array_size(in->hdh)) {
		const char *var = first_name(in->hdh);
		e->kind = EDIT_MAP_TYPE;
		put(&t, "Suggested: map %s 'to' instead of 'tofrom' on line %d of %s: its device copy "
			"came back unchanged, so the copy back is not needed.", var, in->line, in->rel);
		if (in->repeat && e->clauses)
			put(&t, " The construct is also repeated (duplicate transfers or repeated "
				"allocations) and no loop around it was found in its function: map the data once "
				"around the code that repeats it with '#pragma omp target data %s'.", e->clauses);
		free(e->clauses);
		if (asprintf(&e->clauses, "map(to: %s)", var) < 0)
			e->clauses = NULL, oom = 1;
		if (patchable && has_line(src, in->line)) {
			char *repl = retype_clause(src_line(src, in->line), var, "tofrom", "to");
			if (repl) {
				struct change ch = { .at = in->line, .repl = repl };
				e->patch = unified_diff(src, in->rel, &ch, 1);
				oom = !e->patch;
				free(repl);
			}
		}
	} else if (json_array_size(in->names[FINDING_UNUSED_ALLOC])) {
		e->kind = EDIT_REMOVE_MAP;
		free(e->clauses);
		e->clauses = NULL;
		put(&t, "Suggested: remove %s from the map clauses on line %d of %s (and from its "
			"matching 'exit data', if any): no kernel ran on the device while it was mapped.",
		    first_name(in->names[FINDING_UNUSED_ALLOC]), in->line, in->rel);
	} else if (json_array_size(in->names[FINDING_UNUSED_TRANSFER])) {
		const char *var = first_name(in->names[FINDING_UNUSED_TRANSFER]);
		e->kind = EDIT_ALLOC_ONLY;
		free(e->clauses);
		if (asprintf(&e->clauses, "map(alloc: %s)", var) < 0)
			e->clauses = NULL, oom = 1;
		put(&t, "Suggested: map %s 'alloc' instead of 'to' on line %d of %s (or drop the "
			"transfer): no kernel read what was sent.", var, in->line, in->rel);
		if (patchable && has_line(src, in->line)) {
			char *repl = retype_clause(src_line(src, in->line), var, "to", "alloc");
			if (repl) {
				struct change ch = { .at = in->line, .repl = repl };
				e->patch = unified_diff(src, in->rel, &ch, 1);
				oom = !e->patch;
				free(repl);
			}
		}
	} else if (in->repeat && e->clauses) {
		e->kind = EDIT_HOIST;
		put(&t, "Suggested: map the data once around the code that repeats the construct on line "
			"%d of %s with '#pragma omp target data %s' (a braced block). %s", in->line, in->rel,
		    e->clauses,
		    src ? "No loop around the directive was found in its function: the construct "
			       "is repeated by a loop in a caller, or by other constructs (the findings' "
			       "origins) that one region can cover."
			     : "The source was not read, so no loop is named.");
	} else {
		const struct finding *g = &a->findings.v[pl->members[0]];
		e->kind = EDIT_ADVICE;
		put(&t, "%s", finding_advice(g->kind, g->flavour));
	}
	if (in->changed) {
		e->source_changed = 1;
		put(&t, " Careful: %s, so the directive was not looked for in it and no patch is given; "
			"line %d is the line of the recorded program.", in->changed, in->line);
	}
	if (oom || !(e->text = take(&t)))
		goto out;
	t.s = NULL;
	rc = 0;
out:
	if (t.s)
		free(t.s);
	free(path);
	source_free(&own);
	return rc;
}

int plan_edit_build(const struct analysis *a, struct plan *pl, struct plan_sources *sources)
{
	struct inputs in = { 0 };
	json_t *loc = NULL;
	int rc = -1;

	memset(&pl->edit, 0, sizeof(pl->edit));
	for (int k = 0; k <= FINDING_KIND_COUNT; k++)
		if (!(in.names[k] = json_array()))
			goto out;
	if (!(in.hdh = json_array()))
		goto out;
	if (a->attr && pl->codeptr) {
		loc = attribution_location(a->attr, pl->codeptr);
		in.entries = attribution_map_entries(a->attr, pl->codeptr);
	}
	in.file = json_string_value(json_object_get(loc, "file"));
	in.line = (int)json_integer_value(json_object_get(loc, "line"));
	if (json_is_true(json_object_get(loc, "source_changed")) &&
	    !(in.changed = json_string_value(json_object_get(loc, "source_note"))))
		in.changed = "the source file changed since the recording";
	in.rel = in.file ? path_relative(a->source_root, in.file) : "the source";
	for (size_t i = 0; i < pl->nmembers; i++) {
		const struct finding *g = &a->findings.v[pl->members[i]];
		json_t *var = a->attr && g->nops ? attribution_variable(a->attr, g->ops[0].seq) : NULL;
		const char *name = json_string_value(json_object_get(var, "name"));
		int bad = add_name(in.names[g->kind], name) < 0 ||
			  add_name(in.names[FINDING_KIND_COUNT], name) < 0;
		if (g->kind == FINDING_DUPLICATE_TRANSFER || g->kind == FINDING_REPEATED_ALLOC ||
		    (g->kind == FINDING_ROUND_TRIP && g->flavour == FLAVOUR_DEVICE_HOST_DEVICE))
			in.repeat = 1;
		if (g->kind == FINDING_ROUND_TRIP && g->flavour == FLAVOUR_HOST_DEVICE_HOST)
			bad |= add_name(in.hdh, name) < 0;
		json_decref(var);
		if (bad)
			goto out;
	}
	rc = build(a, pl, &in, sources);
out:
	for (int k = 0; k <= FINDING_KIND_COUNT; k++)
		json_decref(in.names[k]);
	json_decref(in.hdh);
	json_decref(in.entries);
	json_decref(loc);
	if (rc < 0)
		plan_edit_release(&pl->edit);
	return rc;
}
