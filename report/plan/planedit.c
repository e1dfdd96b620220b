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

#include "db/store/attribution.h"
#include "report/plan/loopscan.h"
#include "report/findings/paths.h"
#include "report/plan/plans.h"
#include "report/findings/analysis.h"
#include "report/attribute/safefile.h"
#include "lib/grow.h"
#include "lib/sort.h"
#include "lib/utf8.h"
#include "lib/map_index.h"

#define DIFF_CONTEXT 3
#define CHANGE_MAX_INS 8

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
	free(e->unsure);
	free(e->file);
	free(e->keeps);
	free(e->removes);
	memset(e, 0, sizeof(*e));
}

int plan_edit_same_loop(const struct plan_edit *e, const struct plan_edit *by)
{
	if (!(by->kind == EDIT_WRAP_LOOP && !by->covered_by && by->patch && e->file && by->file &&
	      !strcmp(e->file, by->file)))
		return 0;
	/* A region around a caller's loop serves every construct of the callee's lines. */
	if (by->serves_first > 0 && (e->kind == EDIT_WRAP_LOOP || e->kind == EDIT_HOIST) &&
	    e->line >= by->serves_first && e->line <= by->serves_last)
		return 1;
	return e->kind == EDIT_WRAP_LOOP && e->loop_first == by->loop_first && e->loop_last == by->loop_last &&
	       e->loop_first > 0;
}

/* e without its patch: 'text' and 'unsure' (taken) in place of its own. */
static void give_up_patch(struct plan_edit *e, char *text, char *unsure)
{
	free(e->text);
	free(e->patch);
	free(e->unsure);
	e->text = text;
	e->patch = NULL;
	e->unsure = unsure;
}

int plan_edit_no_effect(struct plan_edit *e)
{
	static const char why[] = "the patch would take no finding's every operation of one kind "
				  "(transfers, sends, returns or allocations) away: it would remove none of them";
	char *text = NULL, *unsure = NULL;

	if (asprintf(&text, "%s Not sure: %s. No patch is given.", e->text ? e->text : "", why) < 0)
		return -1;
	if (!(unsure = strdup(why))) {
		free(text);
		return -1;
	}
	give_up_patch(e, text, unsure);
	e->nkeeps = e->nremoves = e->nfaults = 0;
	e->faults_ns = 0;
	return 0;
}

int plan_edit_cover(struct plan_edit *e, int n, const struct plan_edit *by)
{
	char *text = NULL, *unsure = NULL;

	int wide = by->serves_first > 0 && e->line >= by->serves_first && e->line <= by->serves_last;

	if ((wide ? asprintf(&text, "Covered by plan %d, whose 'target data' region around lines %d-%d (a loop that "
			    "calls this directive's function) holds the data of the constructs on lines %d-%d: "
			    "apply plan %d, then record again; what its region leaves of this directive's "
			    "findings is planned anew from that recording, so this plan gives no patch.",
			    n, by->loop_first, by->loop_last, by->serves_first, by->serves_last, n)
		 : asprintf(&text, "Covered by plan %d, which wraps the same loop (lines %d-%d) in its 'target data' "
			    "region: apply plan %d, then record again; what its region leaves of this directive's "
			    "findings is planned anew from that recording. A second region around the same loop "
			    "would only nest inside the first, so this plan gives no patch. (Alone, it would wrap "
			    "the loop in '#pragma omp target data %s'.)",
			    n, by->loop_first, by->loop_last, n, e->clauses ? e->clauses : "")) < 0)
		return -1;
	if (asprintf(&unsure, "covered by plan %d (%s)", n, wide ? "its region serves this directive" : "the same loop") < 0) {
		free(text);
		return -1;
	}
	give_up_patch(e, text, unsure);
	e->covered_by = n;
	return 0;
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
	const char *ins[CHANGE_MAX_INS];
	int nins;
	const char *repl;
	int del;          /* line 'at' removed (no repl) */
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
		while (j + 1 < n && ch[j + 1].at - (ch[j].at + (ch[j].repl || ch[j].del ? 1 : 0)) <= 2 * DIFF_CONTEXT)
			j++;
		first = ch[i].at - DIFF_CONTEXT > 1 ? ch[i].at - DIFF_CONTEXT : 1;
		last = ch[j].at + (ch[j].repl || ch[j].del ? 0 : -1) + DIFF_CONTEXT;
		if (last > s->nlines)
			last = s->nlines;
		old = last - first + 1;
		neu = old;
		for (int k = i; k <= j; k++)
			neu += ch[k].nins - ch[k].del;   /* a replaced line is one out, one in */
		put(&b, "@@ -%d,%d +%d,%d @@\n", first, old, first + delta, neu);
		for (int line = first, k = i; line <= last + 1; line++) {
			int replaced = 0;
			for (; k <= j && ch[k].at == line; k++) {
				for (int m = 0; m < ch[k].nins; m++)
					put(&b, "+%s\n", ch[k].ins[m]);
				if (ch[k].repl) {
					put(&b, "-%s\n+%s\n", src_line(s, line), ch[k].repl);
					replaced = 1;
				} else if (ch[k].del) {
					put(&b, "-%s\n", src_line(s, line));
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
/*
 * A map item's whole name, its section left out and blanks dropped:
 * "s.v[0:N]" -> "s.v", " u[0:n] " -> "u", "p->a[i]" -> "p->a": two items
 * are the same variable when these are equal (not only their first
 * identifier: s.a and s.b are two).
 */
static void item_name(const char *s, char *out, size_t size)
{
	size_t k = 0;
	int depth = 0;

	for (; *s && k + 1 < size; s++) {
		if (!depth && (*s == '[' || *s == ',' || *s == ')'))
			break;
		depth += *s == '(';
		depth -= *s == ')' && depth > 0;
		if (!isspace((unsigned char)*s))
			out[k++] = *s;
	}
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
	item_name(var, want, sizeof(want));
	if (!*want)
		return NULL;
	while ((p = strstr(p, "map")) != NULL) {
		const char *m0 = p, *q = p + 3, *type, *item, *close;
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
		{
			/* The clause's items, at its top-level commas; the one that is var. */
			const char *it = item, *hit = NULL, *hit_end = NULL;
			int nitems = 0;
			for (close = item;; close++) {
				if (*close == '(' || *close == '[') {
					char c = *close == '(' ? ')' : ']';
					while (*close && *close != c)
						close++;
					if (!*close)
						return NULL;
					continue;
				}
				if (!*close)
					return NULL;
				if (*close != ',' && *close != ')')
					continue;
				nitems++;
				item_name(it, got, sizeof(got));
				if (!strcmp(got, want) && !hit) {
					hit = it;
					hit_end = close;
				}
				if (*close == ')')
					break;
				it = close + 1;
			}
			if (!hit)
				continue;
			if (nitems == 1) {
				if (asprintf(&out, "%.*s%s%s", (int)(type - text), text, to, type + tl) < 0)
					return NULL;
				return out;
			}
			/*
			 * Several items: var gets a clause of its own, ahead of the
			 * others' ("map(tofrom: a, b)" -> "map(to: a) map(tofrom: b)").
			 */
			{
				const char *h0 = hit, *h1 = hit_end, *cut0, *cut1;
				while (*h0 == ' ' || *h0 == '\t')
					h0++;
				while (h1 > h0 && (h1[-1] == ' ' || h1[-1] == '\t'))
					h1--;
				if (*hit_end == ',') {
					/* Not the last: it and the comma after it (and the blanks) go. */
					cut0 = h0;
					cut1 = hit_end + 1;
					while (*cut1 == ' ' || *cut1 == '\t')
						cut1++;
				} else {
					/* The last: the comma before it and it go. */
					cut0 = hit - 1;
					cut1 = hit_end;
				}
				if (asprintf(&out, "%.*smap(%s: %.*s) %.*s%s", (int)(m0 - text), text, to, (int)(h1 - h0),
					     h0, (int)(cut0 - m0), m0, cut1) < 0)
					return NULL;
				return out;
			}
		}
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
	uint64_t hdh_return;                     /* the first one's return (its directive), 0: none */
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

/*
 * What a plan must add so that the program computes what it computed when
 * recorded: the recorded content hashes of the data it keeps on the device
 * say where the host changed it (a send whose content differs from what
 * the device held: 'target update to' before that construct) and where the
 * device changed it (a return whose content differs from what the host
 * had: 'target update from' right after it, the host may read it).  The
 * construct's device, if, nowait and depend clauses go into what is added.
 * Where the recording or the source cannot tell, the plan says so
 * (plan_edit.unsure) and gives no patch.
 */

/* Whether c may be part of an identifier. */
static int is_ident(int c)
{
	return isalnum(c) || c == '_';
}

/*
 * The directive starting on line k of s: its text, continuation lines
 * joined (malloc'ed), *last set to its last line.  NULL when line k holds
 * no '#pragma omp' (a directive written by a macro or _Pragma) or out of memory.
 */
static char *directive_text(const struct source *s, int k, int *last)
{
	struct buf b = { .ok = 1 };
	const char *l = src_line(s, k);
	const char *p = l + strspn(l, " \t");

	if (strncmp(p, "#pragma", 7) || !strstr(p, "omp"))
		return NULL;
	for (;; k++) {
		const char *t = src_line(s, k);
		size_t len = strlen(t);
		int more = len && t[len - 1] == '\\';
		put(&b, "%.*s ", (int)(more ? len - 1 : len), t);
		if (!more || !has_line(s, k + 1))
			break;
	}
	*last = k;
	return take(&b);
}

/*
 * The clause 'name' of directive d starting at or after *from: its
 * arguments' text between the parentheses into *args (pointer and length
 * into d), *from moved past it.  1 when found; for a clause without
 * arguments (nowait) *args_len is 0.
 */
static int clause_next(const char *d, const char *name, const char **from, const char **args, size_t *args_len)
{
	size_t nl = strlen(name);
	const char *p = *from;

	while ((p = strstr(p, name)) != NULL) {
		const char *q = p + nl;
		if ((p > d && is_ident((unsigned char)p[-1])) || is_ident((unsigned char)*q)) {
			p = q;
			continue;
		}
		while (*q == ' ' || *q == '\t')
			q++;
		*args = q;
		*args_len = 0;
		if (*q == '(') {
			int depth = 0;
			const char *r = q;
			for (; *r; r++) {
				depth += *r == '(';
				depth -= *r == ')';
				if (!depth)
					break;
			}
			if (!*r)
				return 0;
			*args = q + 1;
			*args_len = (size_t)(r - q - 1);
			q = r + 1;
		}
		*from = q;
		return 1;
	}
	return 0;
}

/* What a construct's clauses say about where and when it runs. */
struct carried {
	char *data;       /* for 'target data': " device(..) if(..)" */
	char *update;     /* for 'target update': the same, then " nowait depend(inout: ..)" */
	int nowait_alone; /* nowait without depend: an update cannot be ordered with it */
	int iterator;     /* a depend clause with an iterator or other modifier */
	char *idents;     /* the identifiers its device/if/depend expressions use, ' '-separated */
	char *region_idents;   /* those of its device/if alone (what a region evaluates) */
};

static void carried_release(struct carried *c)
{
	free(c->data);
	free(c->update);
	free(c->idents);
	free(c->region_idents);
	memset(c, 0, sizeof(*c));
}

/* Append the identifiers of text[0..n) to b, ' '-separated. */
static void put_idents(struct buf *b, const char *text, size_t n)
{
	for (size_t i = 0; i < n;) {
		if (is_ident((unsigned char)text[i]) && !isdigit((unsigned char)text[i])) {
			size_t j = i;
			while (j < n && is_ident((unsigned char)text[j]))
				j++;
			put(b, " %.*s", (int)(j - i), text + i);
			i = j;
		} else if (isdigit((unsigned char)text[i])) {
			while (i < n && is_ident((unsigned char)text[i]))
				i++;
		} else {
			i++;
		}
	}
}

/* The device, if, nowait and depend clauses of directive d.  0, or -1 when out of memory. */
static int carried_get(const char *d, struct carried *c)
{
	struct buf data = { .ok = 1 }, upd = { .ok = 1 }, ids = { .ok = 1 }, rids = { .ok = 1 };
	const char *from = d, *args;
	size_t n;
	int nowait = 0, depends = 0;

	memset(c, 0, sizeof(*c));
	if (clause_next(d, "device", &from, &args, &n) && n) {
		put(&data, " device(%.*s)", (int)n, args);
		put_idents(&ids, args, n);
		put_idents(&rids, args, n);
	}
	from = d;
	if (clause_next(d, "if", &from, &args, &n) && n) {
		/* A directive-name modifier: 'target' applies here, others do not. */
		const char *colon = memchr(args, ':', n);
		int keep = 1;
		if (colon && (colon + 1 >= args + n || colon[1] != ':')) {
			char mod[64];
			size_t ml = (size_t)(colon - args);
			while (ml && isspace((unsigned char)args[ml - 1]))
				ml--;
			snprintf(mod, sizeof(mod), "%.*s", (int)(ml < 63 ? ml : 63), args + strspn(args, " \t"));
			keep = !strcmp(mod, "target");
			n -= (size_t)(colon + 1 - args);
			args = colon + 1;
		}
		if (keep) {
			put(&data, " if(%.*s)", (int)n, args);
			put_idents(&ids, args, n);
			put_idents(&rids, args, n);
		}
	}
	from = d;
	nowait = clause_next(d, "nowait", &from, &args, &n);
	put(&upd, "%s", data.s ? data.s : "");
	if (nowait) {
		put(&upd, " nowait");
		from = d;
		while (clause_next(d, "depend", &from, &args, &n)) {
			const char *colon = memchr(args, ':', n);
			const char *type = args + strspn(args, " \t");
			size_t tl = 0;
			while (type + tl < args + n && isalpha((unsigned char)type[tl]))
				tl++;
			if (!colon || (size_t)(colon - type) < tl || strspn(type + tl, " \t") != (size_t)(colon - type - tl)) {
				c->iterator = 1;   /* depend(iterator(...), ...) or depend(source) */
				continue;
			}
			depends++;
			put(&upd, " depend(inout:%.*s)", (int)(args + n - colon - 1), colon + 1);
			put_idents(&ids, colon + 1, (size_t)(args + n - colon - 1));
		}
		c->nowait_alone = !depends;
	}
	if (!data.ok || !upd.ok || !ids.ok || !rids.ok) {
		free(data.s);
		free(upd.s);
		free(ids.s);
		free(rids.s);
		return -1;
	}
	c->data = data.s ? data.s : strdup("");
	c->update = upd.s ? upd.s : strdup("");
	c->idents = ids.s ? ids.s : strdup("");
	c->region_idents = rids.s ? rids.s : strdup("");
	return c->data && c->update && c->idents && c->region_idents ? 0 : -1;
}

/*
 * Whether identifier 'id' is declared on lines first..last of s: a type
 * word (or a struct's name, or '*') before it, '=', ';', ',', '[' or ')'
 * after it.  A scan of text, not a parser: it errs towards "declared".
 */
static int declared_in(const struct source *s, int first, int last, const char *id, size_t idl)
{
	static const char *const types[] = {
		"int", "long", "short", "char", "float", "double", "unsigned", "signed", "size_t",
		"bool", "_Bool", "auto", "const", "volatile", "ptrdiff_t", "ssize_t",
	};
	for (int k = first; k <= last; k++) {
		const char *l = src_line(s, k), *p = l;
		while ((p = strstr(p, id)) != NULL) {
			const char *q = p + idl, *w, *we;
			char word[64];
			if ((p > l && is_ident((unsigned char)p[-1])) || is_ident((unsigned char)*q)) {
				p = q;
				continue;
			}
			while (*q == ' ' || *q == '\t')
				q++;
			for (we = p; we > l && (we[-1] == ' ' || we[-1] == '\t' || we[-1] == '*'); we--)
				;
			for (w = we; w > l && is_ident((unsigned char)w[-1]); w--)
				;
			snprintf(word, sizeof(word), "%.*s", (int)(we - w < 63 ? we - w : 63), w);
			p += idl;
			if (!*word || !strchr("=;,[)", *q))
				continue;
			for (size_t t = 0; t < sizeof(types) / sizeof(types[0]); t++)
				if (!strcmp(word, types[t]))
					return 1;
			if (strlen(word) > 2 && !strcmp(word + strlen(word) - 2, "_t"))
				return 1;
			/* 'struct grid g': the word before the type's name. */
			while (w > l && (w[-1] == ' ' || w[-1] == '\t'))
				w--;
			if ((w - l >= 6 && !strncmp(w - 6, "struct", 6)) || (w - l >= 5 && !strncmp(w - 5, "union", 5)))
				return 1;
		}
	}
	return 0;
}

/* The first identifier of ' '-separated 'ids' declared on lines first..last, into out; 1 when one is. */
static int any_declared(const struct source *s, int first, int last, const char *ids, char *out, size_t size)
{
	for (const char *p = ids; *p;) {
		size_t n;
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n && declared_in(s, first, last, p, n)) {
			snprintf(out, size, "%.*s", (int)n, p);
			return 1;
		}
		p += n;
	}
	return 0;
}

/* A kept variable: its map entry of the plan's construct and its host range. */
struct kept {
	const char *name;     /* borrowed from the entries */
	int index;
	uint64_t addr, bytes;
	int to;               /* the first operation the region takes over is a send */
	int seen;             /* an operation inside the loop was replayed */
	int known;            /* last holds the content last moved */
	uint64_t last;
	int written;          /* around a caller's loop: the host may write it before the
				 first pass (its first send is an update) */
	size_t first_site;    /* the site of the first operation the region takes over */
	const char *first_name;   /* its name there (borrowed), NULL: none */
};

/* A construct inside the loop that needs updates. */
struct site {
	uint64_t codeptr;
	int line, kind;       /* its directive's line, ompt_target_t */
	int inloop;
	json_t *entries;      /* its map entries (names) */
	struct buf to, from;  /* the names to update before and after it */
};

/* The name of map entry 'index' in 'entries' (borrowed), or NULL. */
static const char *entry_name(json_t *entries, int index)
{
	size_t i;
	json_t *e;
	json_array_foreach(entries, i, e)
		if (json_integer_value(json_object_get(e, "index")) == index)
			return json_string_value(json_object_get(e, "name"));
	return NULL;
}

/* Add 'name' to a ", "-separated list unless it is there. */
/* Whether list_add() put name in b. */
static int listed(const struct buf *b, const char *name)
{
	const char *p = b->s;
	size_t nl = strlen(name);

	while (p && (p = strstr(p, name)) != NULL) {
		if ((p == b->s || p[-1] == ' ') && (p[nl] == ',' || !p[nl]))
			return 1;
		p += nl;
	}
	return 0;
}

static int cmp_seq(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
	return (a > b) - (a < b);
}

/*
 * The pointers the runtime attached at construct c in the loop (map_index
 * MAP_INDEX_ATTACH(i): 8 bytes into the device copy of a struct).  It
 * attaches one where it maps the pointee (entry i) or the struct anew, and
 * also where both are present but the host's pointer now holds another
 * address.  So the region is taken to remove an attach only where the
 * construct's instance (target_id) allocated entry i's pointee, and the
 * region removes that allocation and every other one of the instance:
 * then nothing is mapped anew and the pointer is the one the region
 * attached.  An attach of an instance that allocated no pointee is left
 * (e->removes, in seq order, sorted again after).  Only the construct's own
 * operations are all in ops (those of one instance lie around it).  0, or
 * -1 when out of memory.
 */
#define ATTACH_NEAR 256
static int removes_attaches(struct plan_edit *e, const struct host_op *ops, size_t n, uint64_t c, int64_t w0,
			    int64_t w1)
{
	size_t n0 = e->nremoves;

	for (size_t i = 0; i < n && n0; i++) {
		const struct host_op *o = &ops[i];
		size_t lo = i > ATTACH_NEAR ? i - ATTACH_NEAR : 0, hi = n - i > ATTACH_NEAR ? i + ATTACH_NEAR : n;
		int pointee = 0, all = 1;
		if (!MAP_INDEX_IS_ATTACH(o->map_index) || o->codeptr != c || o->seq < w0 || o->seq > w1 ||
		    !o->target_id || seq_listed(e->removes, n0, o->seq))
			continue;
		for (size_t j = lo; j < hi && all; j++)
			if (ops[j].target_id == o->target_id && ops[j].codeptr == c && ops[j].op == 1) {
				pointee |= ops[j].map_index == MAP_INDEX_ATTACH_ENTRY(o->map_index);
				all = seq_listed(e->removes, n0, ops[j].seq);
			}
		if (!pointee || !all)
			continue;
		if (grow_one((void **)&e->removes, &e->removes_cap, e->nremoves, sizeof(*e->removes)) < 0)
			return -1;
		e->removes[e->nremoves++] = o->seq;
	}
	if (e->nremoves > n0)
		sort_array(e->removes, e->nremoves, sizeof(*e->removes), cmp_seq);
	return 0;
}

/* v (n seqs) sorted, each once; the new count. */
static size_t sort_unique_seqs(int64_t *v, size_t n)
{
	size_t m = 0;

	sort_array(v, n, sizeof(*v), cmp_seq);
	for (size_t i = 0; i < n; i++)
		if (!m || v[m - 1] != v[i])
			v[m++] = v[i];
	return m;
}

static void list_add(struct buf *b, const char *name)
{
	if (!listed(b, name))
		put(b, "%s%s", b->len ? ", " : "", name);
}

/* One line to insert: before line 'at', 'after' ones first. */
struct insert {
	int at;
	int after;
	char *text;
	size_t order;      /* the order it was made in: lines at one place keep it */
};

static int cmp_insert(const void *x, const void *y)
{
	const struct insert *a = x, *b = y;
	if (a->at != b->at)
		return a->at < b->at ? -1 : 1;
	if (a->after != b->after)
		return b->after - a->after;
	return (a->order > b->order) - (a->order < b->order);
}

/*
 * The region a wrap_loop plan puts around 'loop', made to keep the
 * program's results: *clauses (the region's map clauses and the carried
 * device/if) and the patch in *patch (NULL when unsure: the reasons then in
 * *unsure).  0, or -1 when out of memory.
 */
/*
 * The allocations and transfers that touched pl's data
 * (attribution_host_ops()), the call sites of one directive (a loop the
 * compiler unrolled: several code pointers for one file, line, column and
 * inlining) made the one its findings are keyed by (a->site_pairs, as the
 * analysis merged them), so that the plan sees one construct per
 * directive.  0, or -1 when out of memory or on a read error.
 */
static int host_ops(const struct analysis *a, const struct plan *pl, struct host_op **ops, size_t *nops)
{
	if (attribution_host_ops(a->attr, pl->codeptr, ops, nops) < 0)
		return -1;
	for (size_t i = 0; a->nsite_pairs && i < *nops; i++)
		(*ops)[i].codeptr = findings_site_of((const uint64_t (*)[2])a->site_pairs, a->nsite_pairs,
						     (*ops)[i].codeptr);
	return 0;
}

/*
 * The variable an item of a clause list names, as item_name() names it,
 * pointer syntax aside: a leading '*', '&' or '(' and "this->" skipped, and
 * the parentheses and '*' of a dereference dropped ("s.v[0:N]" -> "s.v",
 * "(*p)" -> "p", "this->a" -> "a"); into out (n bytes).
 */
static void item_path(const char *b, const char *e, char *out, size_t n)
{
	size_t k = 0;

	while (b < e && (isspace((unsigned char)*b) || *b == '*' || *b == '&' || *b == '('))
		b++;
	if (e - b > 6 && !memcmp(b, "this->", 6))
		b += 6;
	for (; b < e && k + 1 < n; b++)
		if (*b != '(' && *b != ')' && *b != '*')
			out[k++] = *b;
	out[k] = 0;
	item_name(out, out, n);
}

/* Whether two paths name overlapping data: equal, or one a member path of the other. */
static int paths_overlap(const char *x, const char *y)
{
	size_t nx = strlen(x), ny = strlen(y);
	const char *longer = nx >= ny ? x : y;
	size_t n = nx < ny ? nx : ny;

	if (strncmp(x, y, n))
		return 0;
	return !longer[n] || longer[n] == '.' || (longer[n] == '-' && longer[n + 1] == '>');
}

/*
 * The items of 'list' (a clause's comma list) in update directives of their
 * own where they name overlapping data: clang takes a variable once per
 * 'target update', and not with data derived from it ("s.v[0:N], s" is an
 * error; "p.x[0:n], p.y[0:n]" is not), so 's.v[0:N]' goes in one and 's'
 * in the next.  Each item joins the first group where it overlaps nothing;
 * the groups' texts into out[] (at most max; malloc'ed).  The number of
 * groups; -2 when more than max (or more than 64 items) are needed; -1 when
 * out of memory.
 */
static int update_groups(const char *list, char **out, int max)
{
	enum { MAX_ITEMS = 64 };
	struct buf g[CHANGE_MAX_INS];
	struct { char path[128]; int group; } item[MAX_ITEMS];
	int ni = 0, ng = 0, rc = -1;
	const char *p = list;

	memset(g, 0, sizeof(g));
	if (max > CHANGE_MAX_INS)
		max = CHANGE_MAX_INS;
	while (*p) {
		const char *b, *e = p;
		int depth = 0, k = 0;
		while (*e && (depth || *e != ',')) {
			depth += (*e == '[' || *e == '(') - (*e == ']' || *e == ')');
			e++;
		}
		for (b = p; b < e && isspace((unsigned char)*b); b++)
			;
		if (ni == MAX_ITEMS) {
			rc = -2;
			goto out;
		}
		item_path(b, e, item[ni].path, sizeof(item[ni].path));
		/* The first group after every one that holds overlapping data. */
		for (int j = 0; j < ni; j++)
			if (paths_overlap(item[j].path, item[ni].path) && item[j].group >= k)
				k = item[j].group + 1;
		if (k >= max) {
			rc = -2;
			goto out;
		}
		item[ni++].group = k;
		if (k == ng)
			g[ng++].ok = 1;
		put(&g[k], "%s%.*s", g[k].len ? ", " : "", (int)(e - b), b);
		p = *e ? e + 1 : e;
	}
	for (int k = 0; k < ng; k++)
		if (!g[k].ok)
			goto out;
	for (int k = 0; k < ng; k++) {
		out[k] = g[k].s;
		g[k].s = NULL;
	}
	rc = ng;
out:
	for (int k = 0; k < CHANGE_MAX_INS; k++)
		free(g[k].s);
	return rc;
}

/*
 * A region around a caller's loop: the directive's function was inlined
 * into a caller that calls it from a loop of its own (the location's
 * inline chain), in the same source file.  A region around the directive's
 * own loop is entered again at every call and maps its data again each
 * time; one around the caller's loop maps it once for all calls, where
 * every name it maps means the same there (a global: declared in neither
 * function).
 */
struct widen {
	struct loop_span outer;       /* the caller's loop: where the region goes */
	int call_line;                /* the call inside it */
	char caller[64];              /* the caller's name */
	char callee[64];              /* the directive's function's name ("": unknown) */
	int body_first, body_last;    /* the constructs the region serves: the directive's
					 loop, or its function when it has none */
	int fn_first, fn_last;        /* the directive's function (parameters included) */
	int caller_first, caller_last;
};

/* Whether two paths name the same file (the same path, or the same inode). */
static int same_file(const char *x, const char *y)
{
	char *rx, *ry;
	int same;

	if (!strcmp(x, y))
		return 1;
	rx = realpath(x, NULL);
	ry = realpath(y, NULL);
	same = rx && ry && !strcmp(rx, ry);
	free(rx);
	free(ry);
	return same;
}

/* 1 when a caller's loop is found (*w set), 0 when none. */
static int caller_loop(const struct analysis *a, const struct plan *pl, const struct inputs *in,
		       const struct source *src, const char *path, const struct loop_span *inner, struct widen *w)
{
	json_t *chain = a->attr ? attribution_inline_chain(a->attr, pl->codeptr) : NULL;
	json_t *f = json_array_get(chain, 0);
	const char *file = json_string_value(json_object_get(f, "file"));
	const char *fn = json_string_value(json_object_get(f, "function"));
	int ok = 0;

	memset(w, 0, sizeof(*w));
	w->call_line = (int)json_integer_value(json_object_get(f, "line"));
	if (file && path && fn && w->call_line > 0 && has_line(src, w->call_line) && same_file(file, path) &&
	    loopscan_function(src->text, src->n, in->line, &w->fn_first, &w->fn_last) &&
	    (w->call_line < w->fn_first || w->call_line > w->fn_last) &&
	    loopscan_function(src->text, src->n, w->call_line, &w->caller_first, &w->caller_last) &&
	    loopscan_find_call(src->text, src->n, w->call_line, &w->outer) && w->outer.first_line >= w->caller_first &&
	    w->outer.last_line <= w->caller_last) {
		json_t *loc = attribution_location(a->attr, pl->codeptr);
		const char *callee = json_string_value(json_object_get(loc, "function"));
		snprintf(w->caller, sizeof(w->caller), "%s", fn);
		snprintf(w->callee, sizeof(w->callee), "%s", callee && strlen(callee) < sizeof(w->callee) ? callee : "");
		json_decref(loc);
		w->body_first = inner ? inner->first_line : w->fn_first;
		w->body_last = inner ? inner->last_line : w->fn_last;
		ok = 1;
	}
	json_decref(chain);
	return ok;
}

/*
 * What the host may do to name between the start of a region and a pass of
 * the construct: 0 nothing (the region's own copy sends what the construct
 * would), 1 write its content (its first send is an update before the
 * construct), 2 assign a pointer or a size the name is made of (the region,
 * which evaluates them once at its start, cannot hold it).  The code that
 * can run in between is on lines first[k]..last[k] (the loop; around a
 * caller's loop, that loop and the callee) and what it calls but callee
 * (loopscan.h: loopscan_host_writes(), kernels aside); a write the scan
 * cannot rule out counts.
 */
static int host_access(const struct source *src, const int *first, const int *last, int nranges,
		       const char *callee, const char *name)
{
	struct buf ids = { .ok = 1 };
	int access = 0, base = 1;

	put_idents(&ids, name, strlen(name));
	if (!ids.ok) {
		free(ids.s);
		return 2;
	}
	for (const char *p = ids.s ? ids.s : ""; *p && access < 2;) {
		size_t n;
		int f;
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (!n)
			break;
		f = loopscan_host_writes(src->text, src->n, first, last, nranges, callee, callee ? strlen(callee) : 0, p,
					 n);
		if (base && !strchr(name, '['))
			access = f ? 1 : access;      /* a variable mapped whole: any write is of its content */
		else if (base)
			access = f & LS_IDENTITY ? 2 : f ? 1 : access;   /* a section's pointer */
		else if (f)
			access = 2;                   /* a section's bound or offset */
		base = 0;
		p += n;
	}
	free(ids.s);
	return access;
}

/*
 * Whether one of ' '-separated ids cannot be named before the region: one
 * declared inside the loop; around a caller's loop, one that is not a
 * file-scope name before that loop, or that either function declares (a
 * local or parameter: the callee's would be another object, the caller's
 * would hide the global).  The first such id goes into out.
 */
static int declared_around(const struct source *src, const struct loop_span *loop, const struct widen *w,
			   const char *ids, char *out, size_t size)
{
	if (!w)
		return any_declared(src, loop->first_line, loop->last_line, ids, out, size);
	for (const char *p = ids; *p;) {
		size_t n;
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n && !loopscan_file_scope(src->text, src->n, p, n, w->outer.first_line)) {
			snprintf(out, size, "%.*s", (int)n, p);
			return 1;
		}
		p += n;
	}
	for (const char *p = ids; *p;) {
		size_t n;
		p += strspn(p, " ");
		n = strcspn(p, " ");
		if (n && (loopscan_declares(src->text, src->n, w->fn_first, w->fn_last, p, n) ||
			  loopscan_declares(src->text, src->n, w->caller_first, w->caller_last, p, n))) {
			snprintf(out, size, "%.*s", (int)n, p);
			return 1;
		}
		p += n;
	}
	return any_declared(src, w->fn_first, w->fn_last, ids, out, size) ||
	       any_declared(src, w->caller_first, w->caller_last, ids, out, size);
}

/*
 * The page faults pe's removed allocations took with them (pe->faults_ns):
 * each one's fresh memory was touched first by something that stays and
 * will touch the region's memory, written already, instead: the kernel
 * (seen when a copy back of it follows), or a copy its updates keep.  An
 * allocation whose first copy the patch removes too is left out (that copy
 * is priced as a first copy, its faults included), as is one nothing is
 * seen touching (an unused 'alloc').  The region's own allocation of each
 * range is fresh too: one allocation a range is not saved.  ops in seq
 * order, pe->removes ascending.
 */
static void fresh_faults(const struct analysis *a, const struct host_op *ops, size_t nops, struct plan_edit *pe)
{
	uint64_t range = 0;
	int have = 0;

	pe->faults_ns = 0;
	pe->nfaults = 0;
	for (size_t i = 0; i < nops; i++) {
		const struct host_op *o = &ops[i], *next = NULL;
		int64_t ns;
		int kept_copy, returned;
		if (o->op != 1 || !seq_listed(pe->removes, pe->nremoves, o->seq))
			continue;
		for (size_t j = i + 1; j < nops && !next; j++)
			if (ops[j].host_addr == o->host_addr && ops[j].device == o->device)
				next = &ops[j];
		if (!next || next->target_id != o->target_id)
			continue;
		kept_copy = next->op == 2 && !seq_listed(pe->removes, pe->nremoves, next->seq);
		returned = next->op == 3;
		if (!kept_copy && !returned)
			continue;
		if ((ns = cost_fault_premium_ns(&a->cost, o->bytes)) <= 0)
			continue;
		/* The first counted allocation of each range stands for the region's own. */
		if (!have || range != o->host_addr) {
			int seen = 0;
			for (size_t j = 0; j < i && !seen; j++)
				seen = ops[j].op == 1 && ops[j].host_addr == o->host_addr &&
				       seq_listed(pe->removes, pe->nremoves, ops[j].seq);
			range = o->host_addr;
			have = 1;
			if (!seen)
				continue;
		}
		pe->faults_ns += ns;
		pe->nfaults++;
	}
}

static int keep_region(const struct analysis *a, const struct plan *pl, const struct inputs *in,
		       const struct source *src, const struct loop_span *loop, const struct widen *w, json_t *names,
		       char **clauses, char **patch, struct buf *unsure, struct buf *note, struct plan_edit *pe,
		       size_t *nkept_out)
{
	struct host_op *ops = NULL;
	size_t nops = 0, nsites = 0, nkept = 0, nins = 0, ins_cap = 0;
	struct site *sites = NULL;
	struct kept *kept = NULL;
	struct insert *ins = NULL;
	struct change *ch = NULL;
	struct carried own = { 0 };
	int64_t w0 = -1, w1 = -1;
	int device = -1, rc = -1, last_line = 0, oom = 0;
	/* The constructs the region serves: those of the loop, or of the directive's loop in a callee. */
	int body_first = w ? w->body_first : loop->first_line, body_last = w ? w->body_last : loop->last_line;
	char *dir = NULL, ident[64];
	struct buf cl = { .ok = 1 };

	*clauses = NULL;
	*patch = NULL;
	*nkept_out = 0;
	if (host_ops(a, pl, &ops, &nops) < 0)
		goto out;
	if (!nops) {
		put(unsure, " The recording holds no transfer of this construct's data to check the plan against.");
		rc = 0;
		goto out;
	}
	if (!(dir = directive_text(src, in->line, &last_line))) {
		put(unsure, " Line %d of %s holds no '#pragma omp' (a macro or _Pragma writes the directive): "
			"the plan cannot read its clauses.", in->line, in->rel);
		rc = 0;
		goto out;
	}
	if (carried_get(dir, &own) < 0)
		goto out;
	/* The constructs that moved this data: where they are, whether inside the loop. */
	sites = calloc(nops, sizeof(*sites));
	kept = calloc(json_array_size(in->entries) + 1, sizeof(*kept));
	if (!sites || !kept)
		goto out;
	for (size_t i = 0; i < nops; i++) {
		size_t k;
		for (k = 0; k < nsites && sites[k].codeptr != ops[i].codeptr; k++)
			;
		if (k == nsites) {
			json_t *loc = attribution_location(a->attr, ops[i].codeptr);
			const char *file = json_string_value(json_object_get(loc, "file"));
			struct site *st = &sites[nsites++];
			st->codeptr = ops[i].codeptr;
			st->line = (int)json_integer_value(json_object_get(loc, "line"));
			st->kind = ops[i].target_kind;
			st->inloop = file && in->file && !strcmp(file, in->file) && st->line >= body_first &&
				     st->line <= body_last;
			st->to.ok = st->from.ok = 1;
			json_decref(loc);
		}
		if (sites[k].inloop) {
			if (w0 < 0)
				w0 = ops[i].seq;
			w1 = ops[i].seq;
		}
		if (ops[i].codeptr == pl->codeptr && ops[i].op != 1) {
			if (device >= 0 && ops[i].device != device) {
				put(unsure, " The construct ran on devices %d and %d: one region cannot hold its data "
					"on both.", device, ops[i].device);
				rc = 0;
				goto out;
			}
			device = ops[i].device;
		}
	}
	/* The variables the region keeps: named, with one host range, in scope before the loop. */
	{
		size_t i;
		json_t *e;
		json_array_foreach(in->entries, i, e) {
			const char *name = json_string_value(json_object_get(e, "name"));
			int index = (int)json_integer_value(json_object_get(e, "index"));
			struct kept *kv = &kept[nkept];
			struct buf ids = { .ok = 1 };
			int declared;
			if (!name || !has_name(names, name))
				continue;
			for (size_t j = 0; j < nops; j++)
				if (ops[j].codeptr == pl->codeptr && ops[j].map_index == index) {
					kv->addr = ops[j].host_addr;
					kv->bytes = ops[j].bytes;
					break;
				}
			if (!kv->bytes)
				continue;
			put_idents(&ids, name, strlen(name));
			if (!ids.ok) {
				free(ids.s);
				goto out;
			}
			declared = ids.s && declared_around(src, loop, w, ids.s, ident, sizeof(ident));
			free(ids.s);
			if (declared && w) {
				put(note, " %s stays mapped by the construct alone: '%s' is not a global both the "
					"construct's function and %s() see, so a region in %s() cannot name it.", name,
				    ident, w->caller, w->caller);
				continue;
			} else if (declared) {
				put(note, " %s stays mapped by the construct alone: '%s' is declared inside the loop, "
					"so a region before it cannot name it.", name, ident);
				continue;
			}
			kv->written = 0;
			if (w) {
				int first[2] = { w->outer.first_line, w->fn_first };
				int last[2] = { w->outer.last_line, w->fn_last };
				int access = host_access(src, first, last, 2, w->callee[0] ? w->callee : NULL, name);
				if (access == 2) {
					put(note, " %s stays mapped by the construct alone: the host may change what it "
						"names (a pointer or a size) between the region's start and the construct.",
					    name);
					continue;
				}
				kv->written = access;
			}
			kv->name = name;
			kv->index = index;
			nkept++;
		}
	}
	/*
	 * Around a caller's loop, every construct the region serves must be
	 * reached through that call: a callee inlined at another call too (a
	 * second loop) has constructs on the same lines that the region does
	 * not hold.
	 */
	for (size_t k = 0; w && k < nsites; k++) {
		json_t *chain, *f;
		const char *fn;
		int same;
		if (!sites[k].inloop)
			continue;
		chain = attribution_inline_chain(a->attr, sites[k].codeptr);
		f = json_array_get(chain, 0);
		fn = json_string_value(json_object_get(f, "function"));
		same = fn && !strcmp(fn, w->caller) && json_integer_value(json_object_get(f, "line")) == w->call_line;
		json_decref(chain);
		if (!same) {
			put(unsure, " The construct at line %d is also reached other than through the call on line %d: "
				"a region around that call's loop does not hold its data there.", sites[k].line,
			    w->call_line);
			rc = 0;
			goto out;
		}
	}
	/*
	 * 'delete' on an 'exit data' sets the reference count to zero: in the
	 * loop, it unmaps the region's copy too, which then saves nothing.
	 */
	for (int l = body_first; l <= body_last; l++) {
		int dl = 0;
		const char *hit = NULL;
		char *d = directive_text(src, l, &dl);
		int next = d && dl > l ? dl : l;
		for (size_t v = 0; d && strstr(d, "exit data") && strstr(d, "delete") && v < nkept && !hit; v++) {
			const char *id = kept[v].name + strcspn(kept[v].name, "abcdefghijklmnopqrstuvwxyz"
								   "ABCDEFGHIJKLMNOPQRSTUVWXYZ_");
			size_t idl = 0;
			while (is_ident((unsigned char)id[idl]))
				idl++;
			for (const char *p = d; idl && !hit && (p = strstr(p, id)) != NULL; p++)
				if ((p == d || !is_ident((unsigned char)p[-1])) && !is_ident((unsigned char)p[idl]))
					hit = kept[v].name;
		}
		free(d);
		if (hit) {
			put(unsure, " The 'exit data' on line %d maps %s 'delete', which unmaps it whatever holds it: a "
				"region cannot keep it across passes ('release' there would let it).", l, hit);
			rc = 0;
			goto out;
		}
		l = next;
	}
	/* A map with 'always' copies inside a region too: what the region saves is not known. */
	for (size_t k = 0; k < nsites; k++) {
		int dl = 0;
		char *d = sites[k].inloop ? directive_text(src, sites[k].line, &dl) : NULL;
		int always = d && strstr(d, "always") != NULL;
		free(d);
		if (always) {
			put(unsure, " The construct at line %d maps with 'always', which copies inside a 'target "
				"data' region too: the plan cannot tell what a region would save.", sites[k].line);
			rc = 0;
			goto out;
		}
	}
	/*
	 * A kernel that writes data it maps 'to' only changes a copy the
	 * program throws away: each pass sends the host's again.  A region
	 * would keep the device's changes, which no recorded return shows.
	 */
	for (size_t k = 0; k < nsites; k++) {
		int dl = 0, found;
		char *d;
		if (!sites[k].inloop || sites[k].kind != 1)
			continue;
		d = directive_text(src, sites[k].line, &dl);
		found = d != NULL;
		free(d);
		for (size_t v = 0; v < nkept; v++) {
			int sent = 0, back = 0, index = -1, writes = 1;
			const char *name = NULL;
			json_t *entries = NULL;
			struct buf ids = { .ok = 1 };
			for (size_t i = 0; i < nops; i++) {
				if (ops[i].codeptr != sites[k].codeptr || ops[i].host_addr >= kept[v].addr + kept[v].bytes ||
				    kept[v].addr >= ops[i].host_addr + ops[i].bytes)
					continue;
				if (ops[i].op == 2 && index < 0)
					sent = 1, index = ops[i].map_index;
				back |= ops[i].op == 3;
			}
			if (!sent || back)
				continue;
			entries = sites[k].codeptr == pl->codeptr ? json_incref(in->entries)
								  : attribution_map_entries(a->attr, sites[k].codeptr);
			name = entry_name(entries, index);
			if (name)
				put_idents(&ids, name, strlen(name));
			if (!ids.ok) {
				json_decref(entries);
				goto out;
			}
			if (found && ids.s) {
				const char *id = ids.s + strspn(ids.s, " ");
				writes = loopscan_kernel_writes(src->text, src->n, dl, id, strcspn(id, " ")) != 0;
			}
			free(ids.s);
			json_decref(entries);
			if (writes) {
				put(unsure, " The kernel at line %d may write %s, which it maps 'to' only: the program "
					"sends the host's copy again at every pass, where a region would keep the "
					"device's changes (no recorded return shows them).", sites[k].line, kept[v].name);
				rc = 0;
				goto out;
			}
		}
	}
	/* Every range the construct moves must be one the region holds. */
	for (size_t i = 0; i < nops; i++) {
		int inside = 0;
		if (ops[i].codeptr != pl->codeptr)
			continue;
		for (size_t k = 0; k < nkept; k++)
			inside |= ops[i].host_addr >= kept[k].addr &&
				  ops[i].host_addr + ops[i].bytes <= kept[k].addr + kept[k].bytes;
		for (size_t k = 0; !inside && k < nkept; k++)
			if (kept[k].index == ops[i].map_index) {
				put(note, " %s maps other data on other iterations (other addresses or sizes than "
					"before the loop): it stays mapped by the construct alone.", kept[k].name);
				kept[k] = kept[--nkept];
				break;
			}
	}
	*nkept_out = nkept;
	if (!nkept) {
		/* Why each stays (around a caller's loop, wrap_region() quotes the notes itself). */
		put(unsure, " No variable can be kept on the device by a region before the loop.%s",
		    !w && note->len ? note->s : "");
		rc = 0;
		goto out;
	}
	if (declared_around(src, loop, w, own.idents, ident, sizeof(ident))) {
		put(unsure, " The construct's device or if clause uses '%s', %s: a region before the loop cannot.",
		    ident, w ? "not a global both functions see" : "declared inside the loop");
		rc = 0;
		goto out;
	}
	/*
	 * The region evaluates the construct's device and if once, before the
	 * loop; the construct at every pass: what the loop may change (a size
	 * that sends small steps to the host) it cannot carry.
	 */
	for (const char *p = own.region_idents; *p;) {
		size_t idl;
		int first[2] = { loop->first_line, w ? w->fn_first : 0 }, last[2] = { loop->last_line, w ? w->fn_last : 0 };
		p += strspn(p, " ");
		idl = strcspn(p, " ");
		if (idl && loopscan_host_writes(src->text, src->n, first, last, w ? 2 : 1, w && w->callee[0] ? w->callee : NULL,
						w && w->callee[0] ? strlen(w->callee) : 0, p, idl)) {
			put(unsure, " The construct's device or if clause uses '%.*s', which the loop may change: a region "
				"evaluates it once, before the loop.", (int)idl, p);
			rc = 0;
			goto out;
		}
		p += idl;
	}
	/* Replay the recorded contents: where the region would lose a change, an update. */
	for (size_t i = 0; i < nops; i++) {
		const struct host_op *o = &ops[i];
		struct kept *kv = NULL;
		struct site *st;
		size_t k;
		for (k = 0; k < nkept; k++)
			if (o->host_addr < kept[k].addr + kept[k].bytes && kept[k].addr < o->host_addr + o->bytes)
				break;
		if (k == nkept || o->seq > w1)
			continue;
		kv = &kept[k];
		if (o->host_addr < kv->addr || o->host_addr + o->bytes > kv->addr + kv->bytes) {
			put(unsure, " Another construct moves part of %s: the plan cannot follow its content.", kv->name);
			rc = 0;
			goto out;
		}
		if (o->op == 1)
			continue;
		if (o->seq < w0 || o->target_kind == 4) {
			/* Before the loop, or a 'target update' (it moves data inside the region too). */
			kv->known = o->has_hash;
			kv->last = o->hash;
			continue;
		}
		for (k = 0; sites[k].codeptr != o->codeptr; k++)
			;
		st = &sites[k];
		if (o->device != device) {
			put(unsure, " %s is also used on device %d during the loop, the construct on device %d: one "
				"region cannot hold it on both.", kv->name, o->device, device);
			rc = 0;
			goto out;
		}
		if (!st->inloop) {
			put(unsure, " The construct at %s line %d (in a function called from the loop, or elsewhere) also "
				"moves %s during the loop: the plan cannot place updates there.",
			    in->rel, st->line, kv->name);
			rc = 0;
			goto out;
		}
		if (!o->has_hash) {
			put(unsure, " A transfer of %s has no recorded content to compare.", kv->name);
			rc = 0;
			goto out;
		}
		if (!st->to.len && !st->from.len && !st->entries)
			st->entries = o->codeptr == pl->codeptr ? json_incref(in->entries)
								 : attribution_map_entries(a->attr, o->codeptr);
		{
			const char *name = o->codeptr == pl->codeptr ? entry_name(in->entries, o->map_index)
								      : entry_name(st->entries, o->map_index);
			int changed = !kv->known || o->hash != kv->last;
			if (!kv->seen) {
				/*
				 * The region's own copy in: the host's content at the loop's
				 * start.  Around a caller's loop, the callee's code before its
				 * loop may write the data first (a search that resets its
				 * distances): the region only allocates, and the first send
				 * is an update.
				 */
				kv->seen = 1;
				kv->first_site = k;
				kv->first_name = name;
				if (!w) {
					/*
					 * In the loop's own function: what the host runs between the
					 * loop's start and this construct's first pass, the lines
					 * before it, or the whole loop where a pass may skip it (a
					 * branch, 'continue'). A pointer or size set there makes
					 * the region's section another than the construct's.
					 */
					int dl = 0, end, access, every;
					char *d = directive_text(src, st->line, &dl);
					every = d && loopscan_every_pass(src->text, src->n, loop->first_line, dl);
					free(d);
					end = every ? st->line - 1 : loop->last_line;
					access = end >= loop->first_line ? host_access(src, &loop->first_line, &end, 1, NULL, kv->name) : 0;
					if (access == 2) {
						put(unsure, " The loop may set the pointer or the size %s is mapped through before "
							"the construct on line %d runs: a region evaluates them once, before the loop.",
						    kv->name, st->line);
						rc = 0;
						goto out;
					}
					if (o->op == 2)
						kv->written = access;
				}
				if (o->op == 2 && !kv->written)
					kv->to = 1, changed = 0;
				else if (o->op == 2)
					changed = 1;
			}
			if (changed && !name) {
				put(unsure, " The construct at line %d moves %s under no recorded name.", st->line, kv->name);
				rc = 0;
				goto out;
			}
			if (changed)
				list_add(o->op == 2 ? &st->to : &st->from, name);
			if (!st->to.ok || !st->from.ok)
				goto out;
		}
		kv->known = 1;
		kv->last = o->hash;
	}
	/*
	 * Where the construct that sends a variable first gets an update to
	 * anyway (the host changes it at other passes), that update sends it
	 * at the first pass too: the region's own copy would be a second.
	 */
	for (size_t k = 0; k < nkept; k++)
		if (kept[k].to && kept[k].first_name && listed(&sites[kept[k].first_site].to, kept[k].first_name))
			kept[k].to = 0;
	/* The region's clauses: 'to' where it takes over a send, else 'alloc' (updates bring results back). */
	for (int t = 0; t < 2; t++) {
		const char *sep = NULL;
		for (size_t k = 0; k < nkept; k++) {
			if (kept[k].to != !t)
				continue;
			if (!sep)
				put(&cl, "%smap(%s: ", cl.len ? " " : "", t ? "alloc" : "to");
			put(&cl, "%s%s", sep ? sep : "", kept[k].name);
			sep = ", ";
		}
		if (sep)
			put(&cl, ")");
	}
	put(&cl, "%s", own.data);
	if (!(*clauses = take(&cl)))
		goto out;
	cl.s = NULL;
	/* The lines to add: the region around the loop, the updates around the constructs. */
	ins_cap = 3 + 2 * nsites;
	ins = calloc(ins_cap, sizeof(*ins));
	if (!ins)
		goto out;
	{
		const char *line = src_line(src, loop->first_line);
		int ind = (int)strspn(line, " \t");
		if (asprintf(&ins[nins].text, "%.*s#pragma omp target data %s", ind, line, *clauses) < 0)
			goto out;
		ins[nins++].at = loop->first_line;
		if (asprintf(&ins[nins].text, "%.*s{", ind, line) < 0)
			goto out;
		ins[nins++].at = loop->first_line;
		if (asprintf(&ins[nins].text, "%.*s}", ind, line) < 0)
			goto out;
		ins[nins++].at = loop->last_line + 1;
	}
	for (size_t k = 0; k < nsites; k++) {
		struct site *st = &sites[k];
		struct carried c = { 0 };
		struct stmt_span sp = { 0 };
		char *d;
		int dlast = 0, ind, structured;
		if (!st->to.len && !st->from.len)
			continue;
		if (!(d = directive_text(src, st->line, &dlast))) {
			put(unsure, " Line %d holds no '#pragma omp' (a macro writes the directive): the plan cannot "
				"put an update beside it.", st->line);
			rc = 0;
			goto out;
		}
		if (carried_get(d, &c) < 0) {
			free(d);
			goto out;
		}
		/* A kernel, or a 'target data' region (whose copies back come at its statement's end). */
		structured = st->kind == 1 || strstr(d, "target data") != NULL;
		free(d);
		ind = (int)strspn(src_line(src, st->line), " \t");
		if (c.nowait_alone || c.iterator) {
			put(unsure, " The construct at line %d is 'nowait' %s: an update beside it cannot be ordered "
				"with it.", st->line, c.iterator ? "with a depend clause the plan cannot copy" : "without depend");
			carried_release(&c);
			rc = 0;
			goto out;
		}
		if (!loopscan_statement(src->text, src->n, dlast, &sp) || !sp.in_block ||
		    (structured && (!sp.alone_after || sp.last_line >= body_last))) {
			put(unsure, " The construct at line %d is not a statement of its own in a braced block (the body "
				"of an if or loop without braces, or more on its lines): the plan cannot put an update "
				"beside it.", st->line);
			carried_release(&c);
			rc = 0;
			goto out;
		}
		for (int dir_from = 0; dir_from < 2 && !oom; dir_from++) {
			const struct buf *list = dir_from ? &st->from : &st->to;
			char *groups[CHANGE_MAX_INS];
			int ng;
			if (!list->len)
				continue;
			if ((ng = update_groups(list->s, groups, CHANGE_MAX_INS)) == -2) {
				put(unsure, " The construct at line %d would need more 'target update' directives "
					"than the plan writes (data that overlaps other data in one list).", st->line);
				carried_release(&c);
				rc = 0;
				goto out;
			}
			if (ng < 0) {
				oom = 1;
				break;
			}
			for (int gi = 0; gi < ng; gi++) {
				if (!oom && grow_one((void **)&ins, &ins_cap, nins, sizeof(*ins)) < 0)
					oom = 1;
				if (!oom) {
					ins[nins] = (struct insert){ 0 };
					if (asprintf(&ins[nins].text, "%.*s#pragma omp target update %s(%s)%s", ind,
						     src_line(src, st->line), dir_from ? "from" : "to", groups[gi],
						     c.update) < 0) {
						ins[nins].text = NULL;
						oom = 1;
					} else if (dir_from) {
						ins[nins].after = 1;
						ins[nins++].at = structured ? sp.last_line + 1 : dlast + 1;
					} else {
						ins[nins++].at = st->line;
					}
				}
				free(groups[gi]);
			}
		}
		if (st->to.len || st->from.len)
			put(note, " On line %d, %s%s%s%s%s: the recorded contents show the %s.", st->line,
			    st->to.len ? "'target update to(" : "", st->to.len ? st->to.s : "",
			    st->to.len ? ")' before the construct" : "", st->to.len && st->from.len ? " and " : "",
			    st->from.len ? "'target update from(...)' after it" : "",
			    st->to.len && st->from.len ? "host changes the data between constructs and the device changes it"
			    : st->to.len ? "host changes the data between constructs" : "device changes the data the host may read");
		carried_release(&c);
		if (oom)
			goto out;
	}
	/*
	 * The transfers the updates keep: each update runs at every pass of
	 * its construct, in place of the construct's own copy of that name.
	 * They are no saving of the plan (plans.c: its savings leave them out,
	 * and say what they cost).
	 */
	for (size_t i = 0; i < nops; i++) {
		const struct host_op *o = &ops[i];
		const char *name;
		size_t k;
		if ((o->op != 2 && o->op != 3) || o->seq < w0 || o->seq > w1 || o->target_kind == 4)
			continue;
		for (k = 0; k < nsites && sites[k].codeptr != o->codeptr; k++)
			;
		if (k == nsites || !sites[k].inloop || !(o->op == 2 ? sites[k].to.len : sites[k].from.len))
			continue;
		name = o->codeptr == pl->codeptr ? entry_name(in->entries, o->map_index)
						 : entry_name(sites[k].entries, o->map_index);
		if (!name || !listed(o->op == 2 ? &sites[k].to : &sites[k].from, name))
			continue;
		if (grow_one((void **)&pe->keeps, &pe->keeps_cap, pe->nkeeps, sizeof(*pe->keeps)) < 0) {
			oom = 1;
			goto out;
		}
		pe->keeps[pe->nkeeps++] = o->seq;
	}
	if (pe->nkeeps)
		sort_array(pe->keeps, pe->nkeeps, sizeof(*pe->keeps), cmp_seq);
	/*
	 * What the region removes: inside the loop, every allocation and
	 * transfer of the data it keeps by a construct in the loop (not a
	 * 'target update'), but those its updates keep.
	 */
	for (size_t i = 0; i < nops; i++) {
		const struct host_op *o = &ops[i];
		size_t k;
		int in_kept = 0;
		if (o->seq < w0 || o->seq > w1 || o->target_kind == 4)
			continue;
		for (k = 0; k < nsites && sites[k].codeptr != o->codeptr; k++)
			;
		if (k == nsites || !sites[k].inloop || seq_listed(pe->keeps, pe->nkeeps, o->seq))
			continue;
		for (k = 0; k < nkept && !in_kept; k++)
			in_kept = o->host_addr >= kept[k].addr && o->host_addr + o->bytes <= kept[k].addr + kept[k].bytes;
		if (!in_kept)
			continue;
		if (grow_one((void **)&pe->removes, &pe->removes_cap, pe->nremoves, sizeof(*pe->removes)) < 0) {
			oom = 1;
			goto out;
		}
		pe->removes[pe->nremoves++] = o->seq;
	}
	if (removes_attaches(pe, ops, nops, pl->codeptr, w0, w1) < 0) {
		oom = 1;
		goto out;
	}
	fresh_faults(a, ops, nops, pe);
	for (size_t i = 0; i < nins; i++)
		ins[i].order = i;
	sort_array(ins, nins, sizeof(*ins), cmp_insert);
	ch = calloc(nins, sizeof(*ch));
	if (!ch)
		goto out;
	{
		int n = 0;
		for (size_t i = 0; i < nins; i++) {
			if (!n || ch[n - 1].at != ins[i].at)
				ch[n++].at = ins[i].at;
			if (ch[n - 1].nins == CHANGE_MAX_INS) {
				put(unsure, " Too many lines to add in one place.");
				rc = 0;
				goto out;
			}
			ch[n - 1].ins[ch[n - 1].nins++] = ins[i].text;
		}
		if (!(*patch = unified_diff(src, in->rel, ch, n)))
			goto out;
	}
	rc = 0;
out:
	if (rc == 0 && unsure->len) {
		free(*patch);
		*patch = NULL;
	}
	for (size_t k = 0; sites && k < nsites; k++) {
		free(sites[k].to.s);
		free(sites[k].from.s);
		json_decref(sites[k].entries);
	}
	for (size_t i = 0; ins && i < nins; i++)
		free(ins[i].text);
	free(ins);
	free(ch);
	free(sites);
	free(kept);
	free(ops);
	free(dir);
	free(cl.s);
	carried_release(&own);
	return oom ? -1 : rc;
}

/* Whether the single 'kw' clause (map, to, from) of directive d holds one item, based on var. */
static int only_item(const char *d, const char *kw, const char *var)
{
	const char *from = d, *args, *a0 = NULL, *p;
	size_t n, n0 = 0;
	int count = 0, depth = 0;
	char want[128], got[128];

	while (clause_next(d, kw, &from, &args, &n))
		if (n) {
			count++;
			a0 = args;
			n0 = n;
		}
	if (count != 1)
		return 0;
	/* "to: x" or "present: x": the part after a colon outside brackets. */
	for (p = a0; p < a0 + n0; p++) {
		depth += *p == '[' || *p == '(';
		depth -= *p == ']' || *p == ')';
		if (!depth && *p == ',')
			return 0;
	}
	for (p = a0; p < a0 + n0 && *p != '[' && *p != '('; p++)
		if (*p == ':') {
			n0 -= (size_t)(p + 1 - a0);
			a0 = p + 1;
			break;
		}
	snprintf(got, sizeof(got), "%.*s", (int)(n0 < 127 ? n0 : 127), a0);
	item_name(got, got, sizeof(got));
	item_name(var, want, sizeof(want));
	return *want && !strcmp(want, got);
}

/*
 * The map indices of c's entries named 'var' match op o (any when the op
 * has none; never a pointer's attach: the runtime attaches it whatever the
 * map type of its entry).
 */
static int op_of(const struct host_op *o, uint64_t c, json_t *entries, const char *var)
{
	const char *name;
	if (o->codeptr != c || MAP_INDEX_IS_ATTACH(o->map_index))
		return 0;
	if (o->map_index < 0)
		return 1;
	name = entry_name(entries, o->map_index);
	return !name || !strcmp(name, var);
}

/*
 * Note in e->removes that its patch removes c's operations of kind 'op'
 * (1 alloc, 2 to, 3 from; 0 any) of 'var' (NULL: of every variable).
 * 0, or -1 when out of memory.
 */
static int removes_ops(struct plan_edit *e, const struct host_op *ops, size_t n, uint64_t c, json_t *entries,
		       const char *var, int op)
{
	for (size_t i = 0; i < n; i++) {
		if (ops[i].codeptr != c || (op && ops[i].op != op) || (var && !op_of(&ops[i], c, entries, var)))
			continue;
		if (grow_one((void **)&e->removes, &e->removes_cap, e->nremoves, sizeof(*e->removes)) < 0)
			return -1;
		e->removes[e->nremoves++] = ops[i].seq;
	}
	return 0;
}

/*
 * The content last moved for o's range before ops[i] (any construct) into
 * *hash: that move's index, -1 when none is known.
 */
static long last_before(const struct host_op *ops, size_t i, uint64_t *hash)
{
	for (size_t j = i; j-- > 0;)
		if (ops[j].op != 1 && ops[j].host_addr == ops[i].host_addr && ops[j].bytes == ops[i].bytes &&
		    ops[j].device == ops[i].device) {
			*hash = ops[j].hash;
			return ops[j].has_hash ? (long)j : -1;
		}
	return -1;
}

/*
 * Whether every return of var by construct c brought back what the host
 * already had: then c need not return it.  *returns: how many there were.
 */
static int returns_unchanged(const struct host_op *ops, size_t n, uint64_t c, json_t *entries, const char *var,
			     int *returns, int *changed)
{
	*returns = *changed = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t h;
		if (ops[i].op != 3 || !op_of(&ops[i], c, entries, var))
			continue;
		(*returns)++;
		if (!ops[i].has_hash || last_before(ops, i, &h) < 0 || h != ops[i].hash)
			(*changed)++;
	}
	return *returns && !*changed;
}

/*
 * Whether dropping c's sends of var keeps results: after each, the device's
 * copy is sent over again or never returned, or the send moved what the
 * device already held.
 */
static int sends_droppable(const struct host_op *ops, size_t n, uint64_t c, json_t *entries, const char *var)
{
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t prev;
		int known;
		if (ops[i].op != 2 || !op_of(&ops[i], c, entries, var))
			continue;
		any = 1;
		known = last_before(ops, i, &prev) >= 0;
		for (size_t j = i + 1; j < n; j++) {
			if (ops[j].op == 1 || ops[j].device != ops[i].device || ops[j].host_addr != ops[i].host_addr ||
			    ops[j].bytes != ops[i].bytes)
				continue;
			if (ops[j].op == 3 && !(known && prev == ops[i].hash))
				return 0;
			break;
		}
	}
	return any;
}

/*
 * Changes deleting the standalone directive at 'line' (with its
 * continuation lines) into ch (room for 8), *n set; 0 when it cannot be
 * deleted alone (the unbraced body of an if or loop).
 */
static int delete_directive(const struct source *src, int line, struct change *ch, int *n)
{
	struct stmt_span sp = { 0 };
	int last = 0;
	char *d = directive_text(src, line, &last);

	free(d);
	*n = 0;
	if (!d || last - line + 1 > CHANGE_MAX_INS ||
	    (loopscan_statement(src->text, src->n, last, &sp) && !sp.in_block))
		return 0;
	for (int k = line; k <= last; k++)
		ch[(*n)++] = (struct change){ .at = k, .del = 1 };
	return 1;
}

/* Line k without its leading blanks ("" past the file's end). */
static const char *trimmed(const struct source *s, int k)
{
	const char *l = has_line(s, k) ? src_line(s, k) : "";
	while (*l == ' ' || *l == '\t')
		l++;
	return l;
}

/*
 * Whether line k is '#pragma omp target WHAT' (blanks allowed around '#'
 * and between the words; WHAT a whole word).
 */
static int is_directive(const struct source *s, int k, const char *what)
{
	const char *l = trimmed(s, k), *w[] = { "#", "pragma", "omp", "target", what };

	for (size_t i = 0; i < sizeof(w) / sizeof(w[0]); i++) {
		while (*l == ' ' || *l == '\t')
			l++;
		if (strncmp(l, w[i], strlen(w[i])))
			return 0;
		l += strlen(w[i]);
		if (i > 0 && (isalnum((unsigned char)*l) || *l == '_'))
			return 0;
	}
	return 1;
}

/* Whether line k is a '#pragma omp target data'. */
static int is_target_data(const struct source *s, int k)
{
	return is_directive(s, k, "data");
}

/*
 * The line of a 'target data' region that holds the loop starting at line
 * first and nothing else: its pragma right above the loop, or above a
 * lone '{' right above it (the shape the plans' own patches write).
 * 0: none there.
 */
static int region_around(const struct source *s, int first)
{
	if (is_target_data(s, first - 1))
		return first - 1;
	if (!strcmp(trimmed(s, first - 1), "{") && is_target_data(s, first - 2))
		return first - 2;
	return 0;
}

/* The line of construct c's directive in the file of pl's own (in->file); 0: elsewhere or unknown. */
static int site_line(const struct analysis *a, const struct inputs *in, uint64_t c)
{
	json_t *loc = attribution_location(a->attr, c);
	const char *file = json_string_value(json_object_get(loc, "file"));
	int line = file && in->file && !strcmp(file, in->file) ? (int)json_integer_value(json_object_get(loc, "line")) : 0;

	json_decref(loc);
	return line;
}

/*
 * Whether the host may write var between ops[j] (the last move of a range)
 * and ops[i] (a return of it): the return then overwrites what the host
 * wrote, so that dropping it would keep the host's writes.  No host code
 * runs between a kernel's own copy in and copy back; else the host code
 * from ops[j]'s directive to ops[i]'s (a 'target data' region's whole
 * statement), in one function of the source read, is scanned (what it
 * calls too, kernels aside).  Anything else counts as a write.
 */
static int host_writes_between(const struct analysis *a, const struct source *src, const struct inputs *in,
			       const struct host_op *ops, size_t j, size_t i, const char *var)
{
	int lj, li, fj0 = 0, fj1 = 0, fi0 = 0, fi1 = 0, dl = 0, last;
	struct stmt_span sp = { 0 };
	char *d;

	if (ops[j].target_kind == 1 && ops[i].target_kind == 1 && ops[j].codeptr == ops[i].codeptr &&
	    ops[j].target_id == ops[i].target_id)
		return 0;
	if (!src || (lj = site_line(a, in, ops[j].codeptr)) <= 0 || (li = site_line(a, in, ops[i].codeptr)) < lj ||
	    !has_line(src, li) || !loopscan_function(src->text, src->n, lj, &fj0, &fj1) ||
	    !loopscan_function(src->text, src->n, li, &fi0, &fi1) || fj0 != fi0 || !(d = directive_text(src, li, &dl)))
		return 1;
	last = dl;
	if (strstr(d, "target data") && !strstr(d, "enter") && !strstr(d, "exit")) {
		if (!loopscan_statement(src->text, src->n, dl, &sp)) {
			free(d);
			return 1;
		}
		last = sp.last_line;
	}
	free(d);
	return host_access(src, &lj, &last, 1, NULL, var) != 0;
}

/*
 * returns_unchanged(), and no return of var by c follows host code that may
 * write it (host_writes_between()); *overwrites: the returns that may.
 */
static int returns_kept(const struct analysis *a, const struct source *src, const struct inputs *in,
			const struct host_op *ops, size_t n, uint64_t c, json_t *entries, const char *var,
			int *returns, int *changed, int *overwrites)
{
	*overwrites = 0;
	if (!returns_unchanged(ops, n, c, entries, var, returns, changed))
		return 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t h;
		long j;
		if (ops[i].op != 3 || !op_of(&ops[i], c, entries, var))
			continue;
		j = last_before(ops, i, &h);
		if (j < 0 || host_writes_between(a, src, in, ops, (size_t)j, i, var))
			(*overwrites)++;
	}
	return !*overwrites;
}

/* Whether line k is a 'target update' directive. */
static int is_update(const struct source *s, int k)
{
	return is_directive(s, k, "update");
}

/*
 * A wrap_loop's region: around the directive's own loop ('loop'), or around
 * its caller's loop ('w') where that region keeps the same variables and
 * gives a patch (it maps them once for all calls).  Sets e's clauses, patch,
 * keeps and removes, and writes why not (unsure) and what it adds (note).
 * 1 when the caller's loop was taken, 0 when not, -1 when out of memory.
 */
static int wrap_region(const struct analysis *a, struct plan *pl, const struct inputs *in, const struct source *src,
		       const struct loop_span *loop, const struct widen *w, struct plan_edit *e, struct buf *unsure,
		       struct buf *note)
{
	struct plan_edit wide = { 0 };
	struct buf wu = { .ok = 1 }, wn = { .ok = 1 };
	char *clauses = NULL, *wclauses = NULL, *wpatch = NULL;
	size_t nkept = 0, wkept = 0;
	int rc = -1;

	if (loop && keep_region(a, pl, in, src, loop, NULL, in->names[FINDING_KIND_COUNT], &clauses, &e->patch,
				unsure, note, e, &nkept) < 0)
		goto out;
	if (w && keep_region(a, pl, in, src, &w->outer, w, in->names[FINDING_KIND_COUNT], &wclauses, &wpatch,
			     &wu, &wn, &wide, &wkept) < 0)
		goto out;
	if (!wu.ok || !wn.ok)
		goto out;
	if (w && wpatch && !wu.len && wkept >= nkept) {
		/* The caller's loop: its clauses, patch, keeps, removes and words. */
		free(e->patch);
		free(clauses);
		free(e->keeps);
		free(e->removes);
		e->patch = wpatch, wpatch = NULL;
		clauses = wclauses, wclauses = NULL;
		e->keeps = wide.keeps, e->nkeeps = wide.nkeeps, e->keeps_cap = wide.keeps_cap;
		e->removes = wide.removes, e->nremoves = wide.nremoves, e->removes_cap = wide.removes_cap;
		e->faults_ns = wide.faults_ns, e->nfaults = wide.nfaults;
		wide.keeps = wide.removes = NULL;
		free(unsure->s);
		free(note->s);
		*unsure = (struct buf){ .ok = 1 };
		*note = wn, wn = (struct buf){ .ok = 1 };
		rc = 1;
	} else if (!loop) {
		/* No loop of its own: the caller's attempt says why it gave no patch. */
		free(unsure->s);
		free(note->s);
		*unsure = wu, wu = (struct buf){ .ok = 1 };
		*note = wn, wn = (struct buf){ .ok = 1 };
		if (wclauses) {
			free(clauses);
			clauses = wclauses, wclauses = NULL;
		}
		rc = 0;
	} else {
		if (w && e->patch && !unsure->len) {
			/*
			 * Entered at every call of a function its caller calls from a
			 * loop, the region maps the data again each time: the findings
			 * keep fewer occurrences, none goes.  The caller's loop could not
			 * take it: why, in its own words.
			 */
			put(unsure, " The construct's function is called from the loop in %s() (lines %d-%d, the call "
				"on line %d): a region around its own loop would be entered, and map the data again, "
				"at every call, which leaves its findings with fewer occurrences instead of removing "
				"them; a region around the caller's loop cannot hold the data here:%s%s", w->caller,
			    w->outer.first_line, w->outer.last_line, w->call_line, wu.len ? wu.s : "",
			    wn.len ? wn.s : (wu.len ? "" : " it would keep fewer variables."));
		}
		rc = 0;
	}
	if (clauses) {
		free(e->clauses);
		e->clauses = clauses;
		clauses = NULL;
	}
out:
	free(clauses);
	free(wclauses);
	free(wpatch);
	free(wu.s);
	free(wn.s);
	free(wide.keeps);
	free(wide.removes);
	return rc;
}

static int build(const struct analysis *a, struct plan *pl, struct inputs *in, struct plan_sources *sources)
{
	struct plan_edit *e = &pl->edit;
	struct source own = { 0 };
	const struct source *src = NULL;
	struct loop_span loop = { 0 };
	struct buf t = { .ok = 1 }, unsure = { .ok = 1 }, note = { .ok = 1 };
	struct host_op *ops = NULL;
	size_t nops = 0;
	char *path = NULL, *dir = NULL;
	int oom = 0, found = 0, rc = -1, patchable, dlast = 0, widened = 0;
	struct widen wd = { 0 };

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
	patchable = src && utf8_valid(src->text, src->n) && utf8_valid(in->rel, strlen(in->rel)) && src->final_newline;
	widened = src && in->repeat && caller_loop(a, pl, in, src, path, found ? &loop : NULL, &wd) &&
		  wd.outer.alone && !wd.outer.pragma_before && !wd.outer.leaves &&
		  !region_around(src, wd.outer.first_line);
	if (patchable) {
		dir = directive_text(src, in->line, &dlast);
		if (host_ops(a, pl, &ops, &nops) < 0)
			goto out;
	}
	if (in->repeat) {
		e->clauses = clause_list(in->entries, in->names[FINDING_KIND_COUNT], &oom);
		if (oom)
			goto out;
	}
	if (in->line <= 0) {
		/* No line: a plan would name addresses and "line 0"; say what gives it its line instead. */
		const struct finding *g = &a->findings.v[pl->members[0]];
		e->kind = EDIT_ADVICE;
		put(&t, "Source-level plans need -g: rebuild with -g added to the compile line (optimisation "
			"can stay: -O2 -g) and record again. No source line is known for this directive (the "
			"program has no debug line information), so this plan cannot name the line, the "
			"variables or the clauses to change, nor give a patch. Until then, in general: %s",
		    finding_advice(g->kind, g->flavour));
		put(&unsure, " Without source lines the plan cannot name what to change.");
	} else if (in->repeat && found && e->clauses && src && is_update(src, in->line) &&
		   !json_array_size(in->hdh)) {
		/* A region maps data; it never makes a 'target update' move less (it would only nest). */
		e->kind = EDIT_ADVICE;
		put(&t, "Suggested: the 'target update' on line %d of %s moves data its receiver already holds "
			"(the same content again): move it out of the loop (lines %d-%d) to where the other "
			"side first reads the data, or drop it where nothing reads the data in between. A 'target "
			"data' region around the loop would not change what it moves.",
		    in->line, in->rel, loop.first_line, loop.last_line);
		put(&unsure, " Whether the host or the device reads the data between two of these updates is "
			"not recorded: move or drop it by hand.");
		free(e->clauses);
		e->clauses = NULL;
	} else if (in->repeat && found && e->clauses && src && region_around(src, loop.first_line)) {
		/* A region is there already (the first plan applied, say): add to it, never nest a second. */
		int at = region_around(src, loop.first_line);
		struct buf ids = { .ok = 1 };
		char inside[128] = "";
		put_idents(&ids, e->clauses, strlen(e->clauses));
		if (!ids.ok)
			oom = 1;
		else if (ids.s)
			any_declared(src, loop.first_line, loop.last_line, ids.s, inside, sizeof(inside));
		free(ids.s);
		e->kind = EDIT_ADVICE;
		put(&t, "Suggested: the loop (lines %d-%d of %s) is already inside the 'target data' region of "
			"line %d: add what the directive on line %d still moves to that region's clauses (%s) "
			"instead of a second region nested inside the first.", loop.first_line, loop.last_line,
		    in->rel, at, in->line, e->clauses);
		if (*inside)
			put(&t, " '%s' is declared inside the loop: declare it before the region to map it there, "
				"or leave it to the construct (a few bytes a step).", inside);
		put(&unsure, " The region's clauses are edited by hand: the plan does not rewrite a region.");
	} else if (in->repeat && e->clauses && (found || (widened && !json_array_size(in->hdh)))) {
		int wide = 0;
		e->kind = EDIT_WRAP_LOOP;
		if (!patchable)
			put(&unsure, " The source cannot be given as a patch (not UTF-8, or no final newline).");
		else if (found && (!loop.alone || loop.pragma_before))
			put(&unsure, " The loop's first or last line holds more than the loop, or a pragma of its own "
				"precedes it: the plan cannot put a region around it.");
		else if (found && loop.leaves)
			put(&unsure, " The loop may be left by 'return', 'goto' or a longjmp, which may not leave a "
				"'target data' region: move the data region by hand (to the function, or after "
				"turning the early exit into a 'break').");
		else if ((wide = wrap_region(a, pl, in, src, found ? &loop : NULL, widened ? &wd : NULL, e, &unsure,
					     &note)) < 0)
			goto out;
		if (wide) {
			e->loop_first = wd.outer.first_line;
			e->loop_last = wd.outer.last_line;
			e->serves_first = wd.body_first;
			e->serves_last = wd.body_last;
			put(&t, "Suggested: wrap lines %d-%d of %s (the loop in %s() around its call on line %d, "
				"which repeats the construct on line %d) in '#pragma omp target data %s' (a braced "
				"block), so that the data is mapped once for all the calls instead of on every "
				"iteration. A region around the loop in the construct's own function would map it "
				"again at every call. The construct's own map clauses can stay: the data is then "
				"present, so they allocate and copy nothing.",
			    e->loop_first, e->loop_last, in->rel, wd.caller, wd.call_line, in->line, e->clauses);
		} else if (found) {
			e->loop_first = loop.first_line;
			e->loop_last = loop.last_line;
			put(&t, "Suggested: wrap lines %d-%d of %s (the loop around line %d) in "
				"'#pragma omp target data %s' (a braced block), so that the data is mapped once around the "
				"loop instead of on every iteration. The construct's own map clauses can stay: "
				"the data is then present, so they allocate and copy nothing.",
			    loop.first_line, loop.last_line, in->rel, in->line, e->clauses);
		} else {
			e->kind = EDIT_HOIST;
			put(&t, "Suggested: map the data once around the loop in %s() (lines %d-%d of %s) that "
				"repeats the construct on line %d (through the call on line %d) with '#pragma omp "
				"target data %s' (a braced block), with 'target update' where the host or the "
				"device changes the data in between.%s", wd.caller, wd.outer.first_line,
			    wd.outer.last_line, in->rel, in->line, wd.call_line, e->clauses, note.s ? note.s : "");
		}
		if (e->patch)
			put(&t, " The region maps a variable 'to' where the loop sends it first, else 'alloc'; "
				"where the recorded contents show the host or the device changing it inside the "
				"loop, the patch adds 'target update to' before the construct or 'target update "
				"from' after it, with the construct's device, if, nowait and depend clauses, so "
				"that the program computes what it computed.%s", note.s ? note.s : "");
		if (e->patch && e->nfaults)
			put(&t, " Its savings include the page faults of %zu fresh device allocation%s that a kernel "
				"or a kept copy touched first: the region's memory is written already (priced at "
				"this run's extra cost of a copy into fresh memory over one into written memory).",
			    e->nfaults, e->nfaults == 1 ? "" : "s");
		if (!e->patch)
			put(&t, " A variable the device changes must come back where the host reads it ('target "
				"update from' after the construct, or map it 'tofrom' on the region), and one the "
				"host changes inside the loop must be sent again ('target update to').");
	} else if (json_array_size(in->hdh)) {
		/*
		 * Every variable whose copy came back unchanged, not only the
		 * first: those that came back unchanged at every return there are
		 * retyped, the others named and left as they are.
		 */
		const char *var = first_name(in->hdh);
		size_t nh = json_array_size(in->hdh);
		int returns = 0, changed = 0, overwrites = 0, rline = in->line, rlast = 0;
		uint64_t rc_ptr = in->hdh_return ? in->hdh_return : pl->codeptr;
		json_t *rent = rc_ptr == pl->codeptr ? json_incref(in->entries) : attribution_map_entries(a->attr, rc_ptr);
		char *rdir = NULL;
		struct buf vars = { .ok = 1 }, stays = { .ok = 1 };
		if (rc_ptr != pl->codeptr) {
			json_t *rloc = attribution_location(a->attr, rc_ptr);
			const char *rfile = json_string_value(json_object_get(rloc, "file"));
			rline = rfile && in->file && !strcmp(rfile, in->file) ? (int)json_integer_value(json_object_get(rloc, "line")) : 0;
			json_decref(rloc);
		}
		if (patchable && rline > 0 && has_line(src, rline))
			rdir = directive_text(src, rline, &rlast);
		for (size_t i = 0; i < nh; i++) {
			const char *v = json_string_value(json_array_get(in->hdh, i));
			if (!v)
				continue;
			if (nh == 1 || !rdir || returns_kept(a, src, in, ops, nops, rc_ptr, rent, v, &returns, &changed,
							    &overwrites))
				list_add(&vars, v);
			else if (returns && !changed)
				put(&stays, " The host may write %s before %d of %d returns on line %d, which bring the "
					"device's copy back over it: it stays as it is.", v, overwrites, returns, rline);
			else if (!returns)
				put(&stays, " %s does not come back on line %d: it stays as it is.", v, rline);
			else
				put(&stays, " %s came back changed from %d of %d returns there: it stays as it is.", v,
				    changed, returns);
		}
		if (!vars.ok || !stays.ok)
			oom = 1;
		e->kind = EDIT_MAP_TYPE;
		put(&t, "Suggested: map %s 'to' instead of 'tofrom' on line %d of %s (or drop the 'from' where it "
			"comes back): %s device copy came back unchanged, so the copy back is not needed.%s",
		    vars.s ? vars.s : var, rline ? rline : in->line, in->rel,
		    vars.s && strchr(vars.s, ',') ? "their" : "its", stays.s ? stays.s : "");
		if (in->repeat && e->clauses)
			put(&t, " The construct is also repeated (duplicate transfers or repeated "
				"allocations) and no loop around it was found in its function: map the data once "
				"around the code that repeats it with '#pragma omp target data %s'.", e->clauses);
		free(e->clauses);
		e->clauses = NULL;
		if (vars.s && asprintf(&e->clauses, "map(to: %s)", vars.s) < 0)
			e->clauses = NULL, oom = 1;
		if (!patchable || !rdir) {
			put(&unsure, " %s.", !patchable ? "The source was not read, so no patch is given"
					       : "The directive that brings it back is not a '#pragma omp' line of this file");
		} else if (nh == 1 && !returns_unchanged(ops, nops, rc_ptr, rent, var, &returns, &changed)) {
			put(&unsure, " %s came back changed from %d of %d returns there: mapping it 'to' "
				"would lose what the device computed.", var, changed, returns);
		} else if (nh == 1 && !returns_kept(a, src, in, ops, nops, rc_ptr, rent, var, &returns, &changed,
						     &overwrites)) {
			put(&unsure, " The host may write %s before %d of its %d returns on line %d (host code "
				"between its copy to the device and the copy back), which bring the device's copy "
				"back over what the host wrote: mapping it 'to' would keep the host's writes.", var,
			    overwrites, returns, rline);
		} else if (!vars.s) {
			put(&unsure, " None of them came back unchanged at every return there.");
		} else {
			/* Each variable retyped in turn on the line; one the patch cannot reach is named. */
			char *repl = NULL, *line = strdup(src_line(src, rline));
			struct change ch[CHANGE_MAX_INS];
			int n = 0, done = 0;
			if (!line)
				oom = 1;
			for (size_t i = 0; line && i < nh; i++) {
				const char *v = json_string_value(json_array_get(in->hdh, i));
				char *r;
				if (!v || !listed(&vars, v))
					continue;
				r = retype_clause(line, v, "tofrom", "to");
				if (!r && strstr(rdir, "exit data") && (r = retype_clause(line, v, "from", "delete")) != NULL)
					put(&t, " The patch maps %s 'delete' instead of 'from' on the 'exit data' on line %d.", v,
					    rline);
				if (r) {
					free(line);
					line = r;
					done++;
				} else if (nh > 1) {
					put(&t, " %s is in no map clause of line %d the patch can change: edit it by hand.", v,
					    rline);
				}
			}
			if (done)
				repl = line, line = NULL;
			free(line);
			if (repl && (rline != in->line || !strstr(repl, "map(to"))) {
				free(e->clauses);   /* not a clause for the plan's own directive */
				e->clauses = NULL;
			}
			if (repl) {
				struct change c = { .at = rline, .repl = repl };
				e->patch = unified_diff(src, in->rel, &c, 1);
				oom = !e->patch;
				free(repl);
				/* What comes back there of the variables retyped: those not retyped stay. */
				for (size_t i = 0; !oom && i < nh; i++) {
					const char *v = json_string_value(json_array_get(in->hdh, i));
					if (v && listed(&vars, v) && removes_ops(e, ops, nops, rc_ptr, rent, v, 3) < 0)
						oom = 1;
				}
			} else if (nh == 1 && strstr(rdir, "target update") && only_item(rdir, "from", var) &&
				   !only_item(rdir, "to", var) && delete_directive(src, rline, ch, &n)) {
				e->patch = unified_diff(src, in->rel, ch, n);
				oom = !e->patch || removes_ops(e, ops, nops, rc_ptr, NULL, NULL, 0) < 0;
				free(e->clauses);
				e->clauses = NULL;
				put(&t, " The patch deletes the 'target update from' on line %d.", rline);
			} else {
				put(&unsure, " The clause to change does not map %s on line %d.", nh == 1 ? var : "them",
				    rline);
			}
		}
		free(vars.s);
		free(stays.s);
		free(rdir);
		json_decref(rent);
	} else if (json_array_size(in->names[FINDING_UNUSED_ALLOC])) {
		const char *var = first_name(in->names[FINDING_UNUSED_ALLOC]);
		struct change ch[CHANGE_MAX_INS];
		int n = 0, returns = 0, changed = 0;
		e->kind = EDIT_REMOVE_MAP;
		free(e->clauses);
		e->clauses = NULL;
		put(&t, "Suggested: remove %s from the map clauses on line %d of %s: no kernel ran on the "
			"device while it was mapped. Where it is the directive's only variable, delete the "
			"directive ('target enter data' or 'exit data' needs a map clause); a matching 'target "
			"exit data' may stay (it then finds nothing to delete).", var, in->line, in->rel);
		returns_unchanged(ops, nops, pl->codeptr, in->entries, var, &returns, &changed);
		if (!patchable || !dir)
			put(&unsure, " %s.", !patchable ? "The source was not read, so no patch is given"
					       : "The directive is not a '#pragma omp' line (a macro writes it)");
		else if (changed)
			put(&unsure, " %s came back changed while it was mapped: removing it could change results.", var);
		else if ((strstr(dir, "enter data") || strstr(dir, "exit data")) && only_item(dir, "map", var) &&
			 delete_directive(src, in->line, ch, &n)) {
			e->patch = unified_diff(src, in->rel, ch, n);
			oom = !e->patch || removes_ops(e, ops, nops, pl->codeptr, NULL, NULL, 0) < 0;
		} else {
			put(&unsure, " %s is not the only variable of a 'target enter data' or 'exit data' on line %d: "
				"edit the clause by hand.", var, in->line);
		}
	} else if (json_array_size(in->names[FINDING_UNUSED_TRANSFER])) {
		const char *var = first_name(in->names[FINDING_UNUSED_TRANSFER]);
		int update = dir && strstr(dir, "target update") != NULL;
		e->kind = EDIT_ALLOC_ONLY;
		free(e->clauses);
		e->clauses = NULL;
		if (update)
			put(&t, "Suggested: delete %s from the 'target update' on line %d of %s (the whole directive "
				"where it is its only variable): no kernel read what was sent.", var, in->line, in->rel);
		else {
			if (asprintf(&e->clauses, "map(alloc: %s)", var) < 0)
				e->clauses = NULL, oom = 1;
			put(&t, "Suggested: map %s 'alloc' instead of 'to' on line %d of %s (or drop the "
				"transfer): no kernel read what was sent.", var, in->line, in->rel);
		}
		if (!patchable || !dir) {
			put(&unsure, " %s.", !patchable ? "The source was not read, so no patch is given"
					       : "The directive is not a '#pragma omp' line (a macro writes it)");
		} else if (!sends_droppable(ops, nops, pl->codeptr, in->entries, var)) {
			put(&unsure, " The device's copy of %s is brought back later ('from'): without this transfer "
				"it would bring back older content.", var);
		} else if (update) {
			struct change ch[CHANGE_MAX_INS];
			int n = 0;
			if (only_item(dir, "to", var) && !only_item(dir, "from", var) &&
			    delete_directive(src, in->line, ch, &n)) {
				e->patch = unified_diff(src, in->rel, ch, n);
				oom = !e->patch || removes_ops(e, ops, nops, pl->codeptr, NULL, NULL, 0) < 0;
			} else {
				put(&unsure, " The 'target update' on line %d moves more than %s: edit it by hand.",
				    in->line, var);
			}
		} else {
			char *repl = retype_clause(src_line(src, in->line), var, "to", "alloc");
			if (repl) {
				struct change ch = { .at = in->line, .repl = repl };
				e->patch = unified_diff(src, in->rel, &ch, 1);
				oom = !e->patch || removes_ops(e, ops, nops, pl->codeptr, in->entries, var, 2) < 0;
				free(repl);
			} else {
				put(&unsure, " The clause to change does not map %s alone on line %d.", var, in->line);
			}
		}
	} else if (in->repeat && e->clauses) {
		e->kind = EDIT_HOIST;
		put(&t, "Suggested: map the data once around the code that repeats the construct on line "
			"%d of %s with '#pragma omp target data %s' (a braced block), with 'target update' "
			"where the host or the device changes the data in between.", in->line, in->rel, e->clauses);
		put(&unsure, " %s", src ? "No loop around the directive was found in its function: the construct "
					  "is repeated by a loop in a caller, or by other constructs (the findings' "
					  "origins) that one region can cover; the plan cannot see where the host "
					  "reads or writes the data."
					: "The source was not read, so no loop is named.");
	} else {
		const struct finding *g = &a->findings.v[pl->members[0]];
		e->kind = EDIT_ADVICE;
		put(&t, "%s", finding_advice(g->kind, g->flavour));
		put(&unsure, " The recording names no variable or clause to change here.");
	}
	if (in->changed) {
		e->source_changed = 1;
		put(&t, " Careful: %s, so the directive was not looked for in it and no patch is given; "
			"line %d is the line of the recorded program.", in->changed, in->line);
	}
	if (unsure.len) {
		free(e->patch);
		e->patch = NULL;
		put(&t, " Not sure:%s No patch is given.", unsure.s);
	}
	/* Kept transfers are what a patch keeps: with none, the plan's savings are all its findings'. */
	if (!e->patch)
		e->nkeeps = e->nremoves = e->nfaults = 0, e->faults_ns = 0;
	else if (e->nremoves)
		e->nremoves = sort_unique_seqs(e->removes, e->nremoves);
	if (unsure.len) {
		if (!(e->unsure = strdup(unsure.s + 1)))
			oom = 1;
	} else if (in->changed && !(e->unsure = strdup("the source file changed since the recording"))) {
		oom = 1;
	}
	if (oom || !unsure.ok || !note.ok || !(e->text = take(&t)))
		goto out;
	t.s = NULL;
	rc = 0;
out:
	if (t.s)
		free(t.s);
	free(unsure.s);
	free(note.s);
	free(path);
	free(dir);
	free(ops);
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
		json_t *var = a->attr && g->first_op_seq >= 0 ? attribution_variable(a->attr, g->first_op_seq) : NULL;
		const char *name = json_string_value(json_object_get(var, "name"));
		int bad = add_name(in.names[g->kind], name) < 0 ||
			  add_name(in.names[FINDING_KIND_COUNT], name) < 0;
		if (g->kind == FINDING_DUPLICATE_TRANSFER || g->kind == FINDING_REPEATED_ALLOC ||
		    (g->kind == FINDING_ROUND_TRIP && g->flavour == FLAVOUR_DEVICE_HOST_DEVICE))
			in.repeat = 1;
		if (g->kind == FINDING_ROUND_TRIP && g->flavour == FLAVOUR_HOST_DEVICE_HOST) {
			bad |= add_name(in.hdh, name) < 0;
			if (!in.hdh_return && g->nkey > 1)
				in.hdh_return = g->key[1];
		}
		json_decref(var);
		if (bad)
			goto out;
	}
	if (in.file && !(pl->edit.file = strdup(in.file)))
		goto out;
	pl->edit.line = in.line > 0 ? in.line : 0;
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
