/*
 * attribute.c - symbolizer and snippets in, rows of the attribution tables out.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store/attribution.h"
#include "db/store/locations.h"
#include "db/store/source_files.h"
#include "lib/hmap.h"
#include "report/attribute/attribute.h"
#include "report/attribute/snippet.h"
#include "report/attribute/symbolize.h"
#include "lib/sort.h"
#include "lib/map_index.h"

/* A source file met on the way, once: what record hashes, or what report compared. */
struct seen_file {
	char *path;
	int changed;               /* report: differs from the recorded one */
};

struct update {
	struct symbolizer *s;
	struct locations_writer *w;    /* NULL at record time: nothing stored but the hashes */
	char *cwd;
	int snippets;              /* quote source files at all (not --no-source) */
	struct attribute_stats stats;
	char **err;
	struct seen_file *seen;
	size_t nseen, capseen;
	/* record time: each code pointer's compilation directory (codeptrs' order) */
	const struct codeptr_row *codeptrs;
	char **comp_dirs;
	size_t ncodeptrs;
	/* report time: what record found (db/store/source_files.h); none: nothing to compare */
	struct source_file_row *recorded;
	size_t nrecorded;
	/* wanted: each exactly placed code pointer and its place (call_sites) */
	int want_sites;
	struct site *sites;
	size_t nsites, capsites;
};

/* A code pointer and where it is: "module\nfile\nline:column", then "\nfile:line:column" per inlining. */
struct site {
	uint64_t codeptr;
	char *place;
};

/* Out of memory, said once (always -1). */
static int oom(char **err)
{
	if (err)
		*err = strdup("out of memory");
	return -1;
}

/*
 * At report time, whether the file at 'path' differs from the one 'record'
 * hashed (1; said once in table source_changed), 0 when it is the same or
 * was not hashed, -1 when out of memory (or the row cannot be stored).
 */
static int compare_recorded(struct update *u, const char *path)
{
	const struct source_file_row *r = NULL;
	char hash[17], *note = NULL;
	int64_t bytes = 0;
	int readable, rc;

	for (size_t i = 0; i < u->nrecorded && !r; i++)
		if (!strcmp(u->recorded[i].path, path))
			r = &u->recorded[i];
	if (!r)
		return 0;
	readable = snippet_hash(path, &bytes, hash) == 0;
	if (readable && bytes == r->bytes && !strcmp(hash, r->hash))
		return 0;
	if (!readable)
		rc = asprintf(&note, "the source file cannot be read as it was at the recording");
	else if (bytes != r->bytes)
		rc = asprintf(&note, "the source file changed since the recording (%lld bytes then, %lld now)",
			      (long long)r->bytes, (long long)bytes);
	else
		rc = asprintf(&note, "the source file changed since the recording (the same size, %lld "
			      "bytes, but other content)", (long long)bytes);
	if (rc < 0)
		return oom(u->err);
	rc = locations_writer_source_changed(u->w, path, note, u->err);
	free(note);
	if (rc < 0)
		return -1;
	u->stats.sources_changed++;
	return 1;
}

/*
 * Note a source file met: at record time the file to hash, at report time
 * whether it changed since.  Returns the entry (NULL with *err set when out
 * of memory).
 */
static struct seen_file *seen_file(struct update *u, const char *path)
{
	struct seen_file *f;
	int changed = 0;

	for (size_t i = 0; i < u->nseen; i++)
		if (!strcmp(u->seen[i].path, path))
			return &u->seen[i];
	if (u->nseen == u->capseen) {
		size_t want = u->capseen ? 2 * u->capseen : 16;
		struct seen_file *p = realloc(u->seen, want * sizeof(*p));
		if (!p) {
			oom(u->err);
			return NULL;
		}
		u->seen = p;
		u->capseen = want;
	}
	if (u->w && u->snippets && (changed = compare_recorded(u, path)) < 0)
		return NULL;
	f = &u->seen[u->nseen];
	if (!(f->path = strdup(path))) {
		oom(u->err);
		return NULL;
	}
	f->changed = changed;
	u->nseen++;
	return f;
}

/*
 * Where 'file' is on this machine (malloc'ed), when it is a source file of
 * the recorded program; else NULL (*err set and -1 in *rc when out of memory).
 * *changed: at report time, the file differs from the one 'record' hashed.
 */
static char *source_file(struct update *u, const char *file, const char *comp_dir, int *rc, int *changed)
{
	const char *dirs[2] = { u->cwd, comp_dir };
	char *path = snippet_resolve(file, dirs, 2);
	struct seen_file *f;
	int is;

	*rc = 0;
	*changed = 0;
	if (!path)
		return NULL;
	is = symbolizer_is_source(u->s, path);
	if (is <= 0) {
		free(path);
		if (is < 0)
			*rc = oom(u->err);
		return NULL;
	}
	if (!(f = seen_file(u, path))) {
		free(path);
		*rc = -1;
		return NULL;
	}
	*changed = f->changed;
	return path;
}

/*
 * Store the lines around file:line when it is a source file of the program
 * readable here, unchanged since the recording as far as 'record' could
 * tell (another file's lines would be quoted as this one's).
 */
static int store_snippet(struct update *u, const char *file, int line, const char *comp_dir)
{
	char *path, *text;
	int first = 0, rc, changed;

	if (!u->snippets || !file || line <= 0)
		return 0;
	path = source_file(u, file, comp_dir, &rc, &changed);
	if (rc < 0)
		return -1;
	if (!u->w || changed) {
		free(path);
		return 0;
	}
	text = path ? snippet_read(path, line, SNIPPET_CONTEXT, &first) : NULL;
	free(path);
	if (!text)
		return 0;
	rc = locations_writer_snippet(u->w, file, line, first, text, u->err);
	free(text);
	if (rc < 0)
		return -1;
	u->stats.snippets += (size_t)rc;
	return 0;
}

/* The inline chain as JSON text (malloc'ed), NULL when there is none. */
static char *chain_json(const struct location *loc)
{
	json_t *arr;
	char *text;
	if (!loc->n_inlined)
		return NULL;
	arr = json_array();
	for (size_t i = 0; arr && i < loc->n_inlined; i++) {
		const struct inline_frame *f = &loc->inlined[i];
		json_t *o = json_object();
		json_object_set_new(o, "function",
				    f->function ? attribution_text(f->function, strlen(f->function)) : json_null());
		json_object_set_new(o, "file", f->file ? attribution_text(f->file, strlen(f->file)) : json_null());
		json_object_set_new(o, "line", json_integer(f->line));
		json_object_set_new(o, "column", json_integer(f->column));
		json_array_append_new(arr, o);
	}
	text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
	json_decref(arr);
	return text;
}

/* Whether 'path' names 'file' too: equal, or 'file' is its tail after a '/'. */
static int same_file(const char *path, const char *file)
{
	size_t np = strlen(path), nf = strlen(file);

	if (np < nf)
		return same_file(file, path);
	return !strcmp(path + np - nf, file) && (np == nf || path[np - nf - 1] == '/');
}

/*
 * Keep where 'codeptr' is, when its file, line and column are the
 * directive's own (not a statement next to it): call_sites' key, with the
 * places it was inlined at.  A frame at the directive itself (the offload
 * region's outlined function inlined where the directive is) is no other
 * place.  0, or -1 when out of memory.
 */
static int note_site(struct update *u, const struct location *loc)
{
	struct site *t;
	char *place, *more;

	if (!loc->file || loc->line <= 0 || (loc->flags & LOC_LINE_NEARBY))
		return 0;
	if (u->nsites == u->capsites) {
		size_t ncap = u->capsites ? 2 * u->capsites : 16;
		if (!(t = realloc(u->sites, ncap * sizeof(*t))))
			return -1;
		u->sites = t;
		u->capsites = ncap;
	}
	/* A relative file is its compilation directory's: two kernel.c of two folders are two files. */
	if (asprintf(&place, "%s\n%s%s%s\n%d:%d", loc->module ? loc->module : "",
		     loc->file[0] != '/' && loc->comp_dir ? loc->comp_dir : "",
		     loc->file[0] != '/' && loc->comp_dir ? "/" : "", loc->file, loc->line, loc->column) < 0)
		return -1;
	for (size_t i = 0; i < loc->n_inlined; i++) {
		const struct inline_frame *f = &loc->inlined[i];
		if (f->line == loc->line && f->column == loc->column && f->file && same_file(f->file, loc->file))
			continue;
		if (asprintf(&more, "%s\n%s:%d:%d", place, f->file ? f->file : "?", f->line, f->column) < 0) {
			free(place);
			return -1;
		}
		free(place);
		place = more;
	}
	t = &u->sites[u->nsites++];
	t->codeptr = loc->codeptr;
	t->place = place;
	return 0;
}

static int cmp_site(const void *a, const void *b)
{
	const struct site *x = a, *y = b;
	int c = strcmp(x->place, y->place);
	if (c)
		return c;
	return (x->codeptr > y->codeptr) - (x->codeptr < y->codeptr);
}

static int cmp_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* u's sites into 'out': each code pointer of a place but its first, with that first. */
static int sites_to_pairs(struct update *u, struct call_sites *out)
{
	size_t n = 0;

	sort_array(u->sites, u->nsites, sizeof(*u->sites), cmp_site);
	for (size_t i = 1; i < u->nsites; i++)
		n += !strcmp(u->sites[i].place, u->sites[i - 1].place);
	out->n = 0;
	out->pairs = NULL;
	if (!n)
		return 0;
	if (!(out->pairs = malloc(n * sizeof(*out->pairs))))
		return -1;
	for (size_t i = 1, first = 0; i < u->nsites; i++) {
		if (strcmp(u->sites[i].place, u->sites[first].place)) {
			first = i;
			continue;
		}
		out->pairs[out->n][0] = u->sites[i].codeptr;
		out->pairs[out->n][1] = u->sites[first].codeptr;
		out->n++;
	}
	sort_array(out->pairs, out->n, sizeof(*out->pairs), cmp_pair);
	return 0;
}

static void sites_release(struct update *u)
{
	for (size_t i = 0; i < u->nsites; i++)
		free(u->sites[i].place);
	free(u->sites);
	u->sites = NULL;
	u->nsites = u->capsites = 0;
}

void call_sites_release(struct call_sites *cs)
{
	if (!cs)
		return;
	free(cs->pairs);
	cs->pairs = NULL;
	cs->n = 0;
}

/* Symbolize codeptrs[i] and store its location (at record time: keep its comp_dir, note its file). */
static int store_location(struct update *u, size_t i)
{
	uint64_t codeptr = u->codeptrs[i].codeptr;
	struct location loc;
	char *chain, *path = NULL;
	int rc = 0, changed = 0;

	if (symbolize_code(u->s, codeptr, &loc) < 0)
		return oom(u->err);
	chain = u->w ? chain_json(&loc) : NULL;
	if (u->want_sites && note_site(u, &loc) < 0) {
		free(chain);
		location_release(&loc);
		return oom(u->err);
	}
	if (loc.line > 0 && loc.file)
		path = source_file(u, loc.file, loc.comp_dir, &rc, &changed);
	if (rc == 0 && !u->w && loc.comp_dir && !(u->comp_dirs[i] = strdup(loc.comp_dir)))
		rc = oom(u->err);
	if (rc < 0 || !u->w) {
		free(chain);
		free(path);
		location_release(&loc);
		return rc;
	}
	rc = locations_writer_location(u->w, &(struct location_row){
			.codeptr = codeptr,
			.module = loc.module,
			.offset = loc.offset,
			.function = loc.function,
			.file = loc.file,
			.line = loc.line,
			.column = loc.column,
			.origin = sym_origin_name(loc.origin),
			.inline_chain = chain,
			.comp_dir = loc.comp_dir,
			.source_path = path,
			.note = loc.note,
		}, u->err);
	if (rc == 0)
		rc = store_snippet(u, loc.file, loc.line, loc.comp_dir);
	u->stats.codeptrs++;
	u->stats.by_origin[loc.origin]++;
	if (loc.flags & LOC_NEED_DEBUG)
		u->stats.need_debug++;
	if (loc.flags & LOC_BUILD_ID_DIFFER)
		u->stats.build_id_differ++;
	free(chain);
	free(path);
	location_release(&loc);
	return rc;
}

static int cmp_i64_pair(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	if (x[0] != y[0])
		return x[0] < y[0] ? -1 : 1;
	return (x[1] > y[1]) - (x[1] < y[1]);
}

static int cmp_codeptr(const void *key, const void *row)
{
	uint64_t k = *(const uint64_t *)key, c = ((const struct codeptr_row *)row)->codeptr;
	return (k > c) - (k < c);
}

/* At record time: the compilation directory store_location() kept for codeptr (malloc'ed), or NULL. */
static char *recorded_comp_dir(struct update *u, int64_t codeptr)
{
	uint64_t key = (uint64_t)codeptr;
	const struct codeptr_row *r = bsearch(&key, u->codeptrs, u->ncodeptrs, sizeof(*u->codeptrs),
					      cmp_codeptr);
	const char *dir = r ? u->comp_dirs[r - u->codeptrs] : NULL;
	return dir ? strdup(dir) : NULL;
}

/* Insert a variable row for one key (map entry, or host address when codeptr is 0). */
static int store_variable(struct update *u, const struct variable *v, int64_t codeptr,
			  int map_index, int64_t host_addr)
{
	struct variable_row r = {
		.codeptr = codeptr,
		.map_index = map_index,
		.host_addr = host_addr,
		.name = v->name,
		.decl_file = v->decl_file,
		.decl_line = v->decl_line,
		.decl_column = v->decl_column,
		.origin = sym_origin_name(v->origin),
	};

	if (u->w && locations_writer_variable(u->w, &r, u->err) < 0)
		return -1;
	u->stats.variables++;
	if (v->origin == ORIGIN_IDENT && v->decl_file) {
		char *comp_dir = u->w ? locations_writer_comp_dir(u->w, codeptr) : recorded_comp_dir(u, codeptr);
		int rc = store_snippet(u, v->decl_file, v->decl_line, comp_dir);
		free(comp_dir);
		return rc;
	}
	return 0;
}

/*
 * A struct mapped with members ('map(tofrom: s) map(tofrom: s.v[0:N])')
 * gets from clang an entry for the whole struct with no name
 * (";unknown;unknown;0;0;;"), followed by its members' entries, named.
 * Name that entry after the variable the next named entry starts with
 * ("s"), so that the struct's own transfers are not shown as an address.
 * Entries without names at all (no -g) stay unnamed.  0, or -1 when out of
 * memory.
 */
static int name_struct_entry(struct update *u, uint64_t codeptr, int map_index, struct variable *v)
{
	struct variable m;
	size_t n = 0;
	char *name;

	if (map_index < 0)
		return 0;
	if (symbolize_variable(u->s, codeptr, map_index + 1, 0, &m) < 0)
		return -1;
	if (m.origin == ORIGIN_IDENT && m.name)
		while (isalnum((unsigned char)m.name[n]) || m.name[n] == '_')
			n++;
	/* A section of the struct through a pointer ('map(tofrom: p[0:1])
	 * map(tofrom: p->v[0:N])'): named whole when a member of it follows. */
	if (n && m.name[n] == '[') {
		struct variable next;
		int member;
		if (symbolize_variable(u->s, codeptr, map_index + 2, 0, &next) < 0) {
			variable_release(&m);
			return -1;
		}
		member = next.origin == ORIGIN_IDENT && next.name && !strncmp(next.name, m.name, n) &&
			 (!strncmp(next.name + n, "->", 2) || next.name[n] == '[');
		variable_release(&next);
		if (member) {
			variable_release(v);
			*v = m;
			return 0;
		}
	}
	/* Only a member (s.v..., s->v..., s itself) tells which struct. */
	if (!n || (m.name[n] && m.name[n] != '.' && strncmp(m.name + n, "->", 2))) {
		variable_release(&m);
		return 0;
	}
	if (!(name = strndup(m.name, n))) {
		variable_release(&m);
		return -1;
	}
	variable_release(v);
	*v = m;
	free(v->name);
	v->name = name;
	return 0;
}

/* Whether the key's map entry got a name (store_variables' 'named'). */
static int key_named(const struct hmap *named, const struct op_key_row *k)
{
	uint64_t key[2] = { (uint64_t)k->codeptr, (uint64_t)k->map_index };
	return k->map_index != -1 && hmap_get(named, key) != NULL;
}

/*
 * A map entry's name as a struct member holding a pointer, "s.v" of
 * "s.v[0:N]" or "p->v" of "p->v[0:N]", into 'out'; 0 when it is no member
 * section.
 */
static int member_pointer(const char *name, char *out, size_t size)
{
	size_t n = strcspn(name, "[");
	int member = 0;

	if (!name[n] || n == 0 || n >= size || n >= 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (name[i] == '.' || (name[i] == '-' && name[i + 1] == '>'))
			member = 1;
		else if (!isalnum((unsigned char)name[i]) && name[i] != '_' && name[i] != '>')
			return 0;
	if (!member)
		return 0;
	memcpy(out, name, n);
	out[n] = '\0';
	return 1;
}

static int cmp_str64(const void *a, const void *b)
{
	return strcmp(a, b);
}

/*
 * The 8-byte transfer clang's runtime makes for a struct mapped with a
 * pointer member ('map(tofrom: s) map(tofrom: s.v[0:N])'): it writes the
 * device address of s.v's data into the device copy of s ("attaches" the
 * pointer), from a buffer of the runtime's own, with no map entry: named
 * "s.v (pointer attach)" after the member sections the directives that make
 * it map, when every unnamed operation on 'host' comes from a directive
 * that maps such a member (several: the members joined, "s.v, p->v").  A
 * symbol's name stays.  0, or -1 when out of memory.
 */
static int name_pointer_attach(struct update *u, const struct op_key_row *keys, size_t nkeys,
			       const struct hmap *named, int64_t host, struct variable *v)
{
	char list[8][64], m[64], *name;
	size_t nlist = 0, len = 0;
	int found = 0;

	if (v->origin == ORIGIN_SYMBOL)
		return 0;
	for (size_t i = 0; i < nkeys; i++) {
		int here = 0;
		if (keys[i].host_addr != host || key_named(named, &keys[i]))
			continue;
		if (!keys[i].codeptr || keys[i].map_index >= 0)
			return 0;
		/* The directive's member sections, from its named entries. */
		for (size_t j = 0; j < nkeys; j++) {
			struct variable e;
			uint64_t own[2] = { (uint64_t)keys[j].codeptr, (uint64_t)MAP_INDEX_ATTACH(keys[j].map_index) };
			if (keys[j].codeptr != keys[i].codeptr || !key_named(named, &keys[j]) ||
			    MAP_INDEX_IS_ATTACH(keys[j].map_index))
				continue;
			/* A member whose attaches the collector named (name_attach_entry()) is not this one. */
			if (keys[j].map_index >= 0 && hmap_get(named, own))
				continue;
			if (symbolize_variable(u->s, (uint64_t)keys[j].codeptr, (int)keys[j].map_index, 0, &e) < 0)
				return -1;
			if (e.origin == ORIGIN_IDENT && e.name && member_pointer(e.name, m, sizeof(m))) {
				size_t k = 0;
				here = 1;
				while (k < nlist && strcmp(list[k], m))
					k++;
				if (k == nlist && nlist < 8)
					memcpy(list[nlist++], m, sizeof(m));
			}
			variable_release(&e);
		}
		if (!here)
			return 0;   /* some other operation: no one name */
		found = 1;
	}
	if (!found)
		return 0;
	/* Sorted: the same name whatever order the keys came in. */
	sort_array(list, nlist, sizeof(list[0]), cmp_str64);
	for (size_t k = 0; k < nlist; k++)
		len += strlen(list[k]) + 2;
	if (!(name = malloc(len + sizeof(" (pointer attach)"))))
		return -1;
	name[0] = '\0';
	for (size_t k = 0; k < nlist; k++) {
		if (k)
			strcat(name, ", ");
		strcat(name, list[k]);
	}
	strcat(name, nlist ? " (pointer attach)" : "(pointer attach)");
	free(v->name);
	v->name = name;
	return 0;
}

/*
 * Host data moved by omp_target_memcpy (no map entry names it): named after
 * the call, with the arguments as the source line wrote them,
 * "omp_target_memcpy(d <- h)", when every unnamed operation on it comes
 * from one such call; from several calls, the argument they share (the
 * host variable, "h": it is the source of one and the destination of
 * another).  A symbol's name (a global) stays as it is.  0, or -1 when out
 * of memory.
 */
static int name_api_transfer(struct update *u, const struct op_key_row *keys, size_t nkeys,
			     const struct hmap *named, int64_t host, struct variable *v)
{
	char *common[2] = { NULL, NULL }, *name = NULL;
	int calls = 0, rc = 0, ok = 1;

	if (!u->snippets || !u->w || v->origin == ORIGIN_SYMBOL)
		return 0;
	for (size_t i = 0; i < nkeys && ok && rc == 0; i++) {
		struct location loc;
		char *path = NULL, *text = NULL, *dst = NULL, *src = NULL;
		int changed = 0, got = 0;

		if (keys[i].host_addr != host || !keys[i].codeptr || key_named(named, &keys[i]))
			continue;
		if (symbolize_code(u->s, (uint64_t)keys[i].codeptr, &loc) < 0)
			return -1;
		if (loc.line > 0 && loc.file)
			path = source_file(u, loc.file, loc.comp_dir, &rc, &changed);
		if (path && !changed && (text = snippet_directive(path, loc.line)))
			got = snippet_memcpy_args(text, &dst, &src);
		if (got < 0)
			rc = -1;
		else if (!got)
			ok = 0;   /* some other call moves it: no one name */
		else if (!calls++) {
			common[0] = dst;
			common[1] = src;
			dst = src = NULL;
		} else {
			/* keep only the arguments this call shares */
			for (int k = 0; k < 2; k++)
				if (common[k] && strcmp(common[k], dst) && strcmp(common[k], src)) {
					free(common[k]);
					common[k] = NULL;
				}
		}
		free(dst);
		free(src);
		free(text);
		free(path);
		location_release(&loc);
	}
	if (rc == 0 && ok && calls == 1 &&
	    asprintf(&name, "omp_target_memcpy(%s <- %s)", common[0], common[1]) < 0) {
		name = NULL;
		rc = -1;
	} else if (rc == 0 && ok && calls > 1 && common[0] && common[1] &&
		   asprintf(&name, "omp_target_memcpy(%s <- %s)", common[0], common[1]) < 0) {
		/* every call spelled the same: as one call */
		name = NULL;
		rc = -1;
	} else if (rc == 0 && ok && calls > 1 && !(common[0] && common[1]) && (common[0] || common[1]) &&
		 !(name = strdup(common[0] ? common[0] : common[1])))
		rc = -1;
	if (name) {
		free(v->name);
		v->name = name;
	}
	free(common[0]);
	free(common[1]);
	return rc;
}

/*
 * clang's map names expand macros ("f[0:64 * 64]"): spell the name as the
 * directive at 'codeptr' does ("f[0:NX*NY]"), when the source file is the
 * one recorded and readable here (snippet_map_spelling), so that the
 * clauses a plan suggests read as the user's own.  0, or -1 when out of
 * memory.
 */
static int respell(struct update *u, uint64_t codeptr, struct variable *v)
{
	struct location loc;
	char *path = NULL, *text = NULL, *spelled = NULL;
	int rc = 0, changed = 0;

	if (!u->snippets || !u->w || !v->name)
		return 0;
	if (symbolize_code(u->s, codeptr, &loc) < 0)
		return oom(u->err);
	if (loc.line > 0 && loc.file)
		path = source_file(u, loc.file, loc.comp_dir, &rc, &changed);
	if (path && !changed && (text = snippet_directive(path, loc.line)) &&
	    (spelled = snippet_map_spelling(text, v->name))) {
		free(v->name);
		v->name = spelled;
	}
	free(text);
	free(path);
	location_release(&loc);
	return rc;
}

/*
 * The transfer by which the runtime attaches the pointer of map entry i
 * (map_index MAP_INDEX_ATTACH(i), lib/map_index.h): named after the
 * entry's member without its section, "s.v (pointer attach)" of "s.v[0:N]",
 * "a[1].v (pointer attach)" of "a[1].v[0:M]", so that each struct's pointer
 * is its own variable (the runtime sends them all from one buffer of its
 * own, whose address names nothing).  v stays unnamed (not ORIGIN_IDENT)
 * when the entry has no name (built without -g): then the host address
 * names it, as before.  0, or -1 when out of memory.
 */
static int name_attach_entry(struct update *u, uint64_t codeptr, int map_index, struct variable *v)
{
	size_t n;
	char *name;

	if (symbolize_variable(u->s, codeptr, MAP_INDEX_ATTACH_ENTRY(map_index), 0, v) < 0)
		return oom(u->err);
	if (v->origin != ORIGIN_IDENT || !v->name)
		return 0;
	if (respell(u, codeptr, v) < 0)
		return -1;
	n = strlen(v->name);
	/* Without its trailing array section: the pointer, not what it points to. */
	if (n && v->name[n - 1] == ']') {
		int depth = 0;
		for (size_t i = n; i-- > 0;) {
			if (v->name[i] == ']') {
				depth++;
			} else if (v->name[i] == '[' && --depth == 0) {
				if (i > 0)
					n = i;
				break;
			}
		}
	}
	if (asprintf(&name, "%.*s (pointer attach)", (int)n, v->name) < 0)
		return oom(u->err);
	free(v->name);
	v->name = name;
	return 0;
}

/*
 * The name of one map entry key into *v (origin ORIGIN_IDENT when it has
 * one): a pointer's attach after its entry (name_attach_entry()), else the
 * entry's source record, a struct's unnamed entry after its members, spelled
 * as the directive is.  0, or -1 (*err set) when out of memory; *v is the
 * caller's to release either way.
 */
static int name_entry(struct update *u, uint64_t codeptr, int map_index, struct variable *v)
{
	if (MAP_INDEX_IS_ATTACH(map_index))
		return name_attach_entry(u, codeptr, map_index, v);
	if (symbolize_variable(u->s, codeptr, map_index, 0, v) < 0)
		return oom(u->err);
	if (v->origin != ORIGIN_IDENT && name_struct_entry(u, codeptr, map_index, v) < 0)
		return oom(u->err);
	if (v->origin == ORIGIN_IDENT)
		return respell(u, codeptr, v);
	return 0;
}

/*
 * Name the map entries that have a source record, then the host addresses
 * of the operations whose entry has none: one variable row per key, in key
 * order, for data_op_sources to pick per operation.
 */
static int store_variables(struct update *u, const struct op_key_row *keys, size_t nkeys)
{
	int64_t *pairs = malloc((nkeys ? nkeys : 1) * 2 * sizeof(*pairs));
	int64_t *hosts = malloc((nkeys ? nkeys : 1) * sizeof(*hosts));
	struct hmap named;
	size_t np = 0, nh = 0;
	int rc = -1;

	hmap_init(&named, 2, 0);
	if (!pairs || !hosts) {
		oom(u->err);
		goto out;
	}
	for (size_t i = 0; i < nkeys; i++)
		if (keys[i].codeptr && keys[i].map_index != -1) {
			pairs[2 * np] = keys[i].codeptr;
			pairs[2 * np++ + 1] = keys[i].map_index;
		}
	sort_array(pairs, np, 2 * sizeof(*pairs), cmp_i64_pair);
	for (size_t i = 0; i < np; i++) {
		struct variable v;
		int r = 0;
		if (i && !cmp_i64_pair(&pairs[2 * i], &pairs[2 * i - 2]))
			continue;
		if (name_entry(u, (uint64_t)pairs[2 * i], (int)pairs[2 * i + 1], &v) < 0) {
			variable_release(&v);
			goto out;
		}
		if (v.origin == ORIGIN_IDENT) {
			r = store_variable(u, &v, pairs[2 * i], (int)pairs[2 * i + 1], 0);
			if (r == 0 && !hmap_put(&named, (const uint64_t *)&pairs[2 * i], NULL))
				r = oom(u->err);
		}
		variable_release(&v);
		if (r < 0)
			goto out;
	}
	for (size_t i = 0; i < nkeys; i++) {
		uint64_t key[2] = { (uint64_t)keys[i].codeptr, (uint64_t)keys[i].map_index };
		if (keys[i].host_addr && !hmap_get(&named, key))
			hosts[nh++] = keys[i].host_addr;
	}
	sort_array(hosts, nh, sizeof(*hosts), sort_cmp_i64);
	for (size_t i = 0; i < nh; i++) {
		struct variable v;
		int r;
		if (i && hosts[i] == hosts[i - 1])
			continue;
		if (symbolize_variable(u->s, 0, -1, (uint64_t)hosts[i], &v) < 0 ||
		    name_api_transfer(u, keys, nkeys, &named, hosts[i], &v) < 0 ||
		    (v.origin != ORIGIN_SYMBOL && !strncmp(v.name ? v.name : "0x", "0x", 2) &&
		     name_pointer_attach(u, keys, nkeys, &named, hosts[i], &v) < 0)) {
			variable_release(&v);
			oom(u->err);
			goto out;
		}
		r = store_variable(u, &v, 0, -1, hosts[i]);
		variable_release(&v);
		if (r < 0)
			goto out;
	}
	rc = 0;
out:
	hmap_release(&named);
	free(pairs);
	free(hosts);
	return rc;
}

/*
 * The pass both times share: every code pointer's location, then every
 * key's variable, each through source_file().  u->w NULL: record time.
 */
static int attribute_pass(struct db *db, struct update *u, struct op_keys *op_keys, char **err)
{
	struct op_key_row *keys = NULL;
	struct codeptr_row *codeptrs = NULL;
	size_t nkeys = 0, n = 0;
	int rc = -1;

	u->cwd = locations_run_cwd(db);
	if ((op_keys ? op_keys_rows(op_keys, &keys, &nkeys, &codeptrs, &n, err)
		     : locations_read_keys(db, &keys, &nkeys, &codeptrs, &n, err)) < 0)
		goto out;
	u->codeptrs = codeptrs;
	u->ncodeptrs = n;
	if (!u->w && !(u->comp_dirs = calloc(n ? n : 1, sizeof(*u->comp_dirs)))) {
		oom(err);
		goto out;
	}
	if (symbolizer_set_codeptrs(u->s, codeptrs, n) < 0) {
		oom(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (store_location(u, i) < 0)
			goto out;
	if (store_variables(u, keys, nkeys) < 0)
		goto out;
	rc = 0;
out:
	for (size_t i = 0; u->comp_dirs && i < n; i++)
		free(u->comp_dirs[i]);
	free(u->comp_dirs);
	u->comp_dirs = NULL;
	u->codeptrs = NULL;
	free(u->cwd);
	u->cwd = NULL;
	free(codeptrs);
	free(keys);
	return rc;
}

static void update_release(struct update *u)
{
	for (size_t i = 0; i < u->nseen; i++)
		free(u->seen[i].path);
	free(u->seen);
	source_file_rows_free(u->recorded, u->nrecorded);
}

int attribute_run(struct db *db, struct symbolizer *s, int snippets, struct op_keys *op_keys,
		  struct attribute_stats *stats, struct call_sites *sites, char **err)
{
	struct update u = { .s = s, .snippets = snippets, .err = err, .want_sites = sites != NULL };
	int rc = -1;

	if (sites)
		*sites = (struct call_sites){ 0 };

	/* Before the writer's transaction: its rows are what 'record' stored. */
	if (source_files_read(db, &u.recorded, &u.nrecorded, err) < 0)
		return -1;
	u.w = locations_writer_open(db, err);
	if (!u.w) {
		update_release(&u);
		return -1;
	}
	if (attribute_pass(db, &u, op_keys, err) == 0)
		rc = locations_writer_commit(u.w, err);
	locations_writer_free(u.w);
	if (rc == 0 && stats)
		*stats = u.stats;
	if (rc == 0 && sites && sites_to_pairs(&u, sites) < 0)
		rc = oom(err);
	sites_release(&u);
	update_release(&u);
	return rc;
}

int attribute_sites(struct db *db, struct op_keys *op_keys, struct call_sites *sites, char **err)
{
	struct symbolizer *s;
	struct update u = { .err = err, .want_sites = 1 };
	struct op_key_row *keys = NULL;
	struct codeptr_row *codeptrs = NULL;
	size_t nkeys = 0, n = 0;
	int rc = -1;

	*sites = (struct call_sites){ 0 };
	if (!(s = u.s = symbolizer_new(db, err)))
		return -1;
	if ((op_keys ? op_keys_rows(op_keys, &keys, &nkeys, &codeptrs, &n, err)
		     : locations_read_codeptrs(db, &codeptrs, &n, err)) < 0)
		goto out;
	if (symbolizer_set_codeptrs(s, codeptrs, n) < 0) {
		oom(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct location loc;
		int r;
		if (symbolize_code(s, codeptrs[i].codeptr, &loc) < 0) {
			oom(err);
			goto out;
		}
		r = note_site(&u, &loc);
		location_release(&loc);
		if (r < 0) {
			oom(err);
			goto out;
		}
	}
	if (sites_to_pairs(&u, sites) < 0) {
		oom(err);
		goto out;
	}
	rc = 0;
out:
	sites_release(&u);
	free(codeptrs);
	free(keys);
	symbolizer_free(s);
	return rc;
}

int attribute_record_sources(struct db *db, struct op_keys *keys, char **err)
{
	struct symbolizer *s = symbolizer_new(db, err);
	struct update u = { .s = s, .snippets = 1, .err = err };
	struct source_file_row *rows = NULL;
	size_t n = 0;
	int rc = -1;

	if (!s)
		return -1;
	if (attribute_pass(db, &u, keys, err) < 0)
		goto out;
	if (!(rows = calloc(u.nseen ? u.nseen : 1, sizeof(*rows)))) {
		oom(err);
		goto out;
	}
	/* A file that cannot be read now is left out: report then checks nothing for it. */
	for (size_t i = 0; i < u.nseen; i++)
		if (snippet_hash(u.seen[i].path, &rows[n].bytes, rows[n].hash) == 0)
			rows[n++].path = u.seen[i].path;
	rc = source_files_store(db, rows, n, err) < 0 ? -1 : (int)n;
out:
	free(rows);   /* the paths are u's */
	update_release(&u);
	symbolizer_free(s);
	return rc;
}
