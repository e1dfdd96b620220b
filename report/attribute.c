/*
 * attribute.c - symbolizer and snippets in, rows of the attribution tables out.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/locations.h"
#include "lib/hmap.h"
#include "report/attribute.h"
#include "report/snippet.h"
#include "report/symbolize.h"
#include "lib/sort.h"
#include "lib/utf8.h"

struct update {
	struct symbolizer *s;
	struct locations_writer *w;
	char *cwd;
	int snippets;              /* quote source files at all (not --no-source) */
	struct attribute_stats stats;
	char **err;
};

/* Out of memory, said once (always -1). */
static int oom(char **err)
{
	if (err)
		*err = strdup("out of memory");
	return -1;
}

/*
 * Where 'file' is on this machine (malloc'ed), when it is a source file of
 * the recorded program; else NULL (*err set and -1 in *rc when out of memory).
 */
static char *source_file(struct update *u, const char *file, const char *comp_dir, int *rc)
{
	const char *dirs[2] = { u->cwd, comp_dir };
	char *path = snippet_resolve(file, dirs, 2);
	int is;

	*rc = 0;
	if (!path)
		return NULL;
	is = symbolizer_is_source(u->s, path);
	if (is <= 0) {
		free(path);
		if (is < 0)
			*rc = oom(u->err);
		return NULL;
	}
	return path;
}

/* Store the lines around file:line when it is a source file of the program readable here. */
static int store_snippet(struct update *u, const char *file, int line, const char *comp_dir)
{
	char *path, *text;
	int first = 0, rc;

	if (!u->snippets || !file || line <= 0)
		return 0;
	path = source_file(u, file, comp_dir, &rc);
	if (rc < 0)
		return -1;
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

/* s as a JSON string, bytes that are not UTF-8 read as their characters (lib/utf8.h). */
static json_t *json_text(const char *s)
{
	json_t *v = json_string(s);
	if (!v) {
		char *fixed = utf8_latin1(s, strlen(s), NULL);
		v = fixed ? json_string(fixed) : NULL;
		free(fixed);
	}
	return v;
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
		json_object_set_new(o, "function", f->function ? json_text(f->function) : json_null());
		json_object_set_new(o, "file", f->file ? json_text(f->file) : json_null());
		json_object_set_new(o, "line", json_integer(f->line));
		json_object_set_new(o, "column", json_integer(f->column));
		json_array_append_new(arr, o);
	}
	text = arr ? json_dumps(arr, JSON_COMPACT) : NULL;
	json_decref(arr);
	return text;
}

static int store_location(struct update *u, uint64_t codeptr)
{
	struct location loc;
	char *chain, *path = NULL;
	int rc = 0;

	if (symbolize_code(u->s, codeptr, &loc) < 0)
		return oom(u->err);
	chain = chain_json(&loc);
	if (loc.line > 0 && loc.file)
		path = source_file(u, loc.file, loc.comp_dir, &rc);
	if (rc < 0) {
		free(chain);
		location_release(&loc);
		return -1;
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

static int cmp_i64(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;
	return (*x > *y) - (*x < *y);
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

	if (locations_writer_variable(u->w, &r, u->err) < 0)
		return -1;
	u->stats.variables++;
	if (v->origin == ORIGIN_IDENT && v->decl_file) {
		char *comp_dir = locations_writer_comp_dir(u->w, codeptr);
		int rc = store_snippet(u, v->decl_file, v->decl_line, comp_dir);
		free(comp_dir);
		return rc;
	}
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
		if (keys[i].codeptr && keys[i].map_index >= 0) {
			pairs[2 * np] = keys[i].codeptr;
			pairs[2 * np++ + 1] = keys[i].map_index;
		}
	sort_array(pairs, np, 2 * sizeof(*pairs), cmp_i64_pair);
	for (size_t i = 0; i < np; i++) {
		struct variable v;
		int r = 0;
		if (i && !cmp_i64_pair(&pairs[2 * i], &pairs[2 * i - 2]))
			continue;
		if (symbolize_variable(u->s, (uint64_t)pairs[2 * i], (int)pairs[2 * i + 1], 0, &v) < 0) {
			oom(u->err);
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
	sort_array(hosts, nh, sizeof(*hosts), cmp_i64);
	for (size_t i = 0; i < nh; i++) {
		struct variable v;
		int r;
		if (i && hosts[i] == hosts[i - 1])
			continue;
		if (symbolize_variable(u->s, 0, -1, (uint64_t)hosts[i], &v) < 0) {
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

int attribute_run(struct db *db, struct symbolizer *s, int snippets, struct op_keys *op_keys,
		  struct attribute_stats *stats, char **err)
{
	struct update u = { .s = s, .snippets = snippets, .err = err };
	struct op_key_row *keys = NULL;
	struct codeptr_row *codeptrs = NULL;
	size_t nkeys = 0, n = 0;
	int rc = -1;

	u.w = locations_writer_open(db, err);
	if (!u.w)
		return -1;
	u.cwd = locations_run_cwd(db);
	if ((op_keys ? op_keys_rows(op_keys, &keys, &nkeys, &codeptrs, &n, err)
		     : locations_read_keys(db, &keys, &nkeys, &codeptrs, &n, err)) < 0)
		goto out;
	if (symbolizer_set_codeptrs(s, codeptrs, n) < 0) {
		oom(err);
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (store_location(&u, codeptrs[i].codeptr) < 0)
			goto out;
	if (store_variables(&u, keys, nkeys) < 0)
		goto out;
	rc = locations_writer_commit(u.w, err);
out:
	locations_writer_free(u.w);
	free(u.cwd);
	free(codeptrs);
	free(keys);
	if (rc == 0 && stats)
		*stats = u.stats;
	return rc;
}
