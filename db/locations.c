/*
 * locations.c - reading what the symbolizer needs and storing what it found.
 */
#define _GNU_SOURCE
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/locations.h"
#include "lib/hmap.h"
#include "report/snippet.h"
#include "report/symbolize.h"

#define SECTION_BEGIN "-- BEGIN report: attribution tables"
#define SECTION_END "-- END report: attribution tables"

static char *column_str(sqlite3_stmt *st, int col)
{
	const unsigned char *v = sqlite3_column_text(st, col);
	return v ? strdup((const char *)v) : NULL;
}

void module_rows_free(struct module_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].path);
		free(rows[i].build_id);
	}
	free(rows);
}

void source_rows_free(struct source_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++) {
		free(rows[i].entry);
		free(rows[i].psource);
		free(rows[i].map_names);
	}
	free(rows);
}

/* Grow *rows (of 'size'-byte elements) to hold one more; -1 when out of memory. */
static int grow(void **rows, size_t *cap, size_t n, size_t size)
{
	if (n < *cap)
		return 0;
	size_t want = *cap ? *cap * 2 : 16;
	void *p = realloc(*rows, want * size);
	if (!p)
		return -1;
	memset((char *)p + *cap * size, 0, (want - *cap) * size);
	*rows = p;
	*cap = want;
	return 0;
}

/*
 * Read every row of 'sql' into a malloc'ed array of 'size'-byte elements,
 * filled by fill(); on failure the rows read so far go to release(n) (when
 * not NULL) and *err says what could not be read.
 */
static int read_rows(struct db *db, const char *sql, size_t size,
		     void (*fill)(sqlite3_stmt *st, void *row), void (*release)(void *rows, size_t n),
		     const char *what, void **rows, size_t *n, char **err)
{
	sqlite3_stmt *st = db_prepare(db, sql, err);
	void *r = NULL;
	size_t cap = 0, count = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (grow(&r, &cap, count, size) < 0)
			break;
		fill(st, (char *)r + count * size);
		count++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		if (release)
			release(r, count);
		else
			free(r);
		if (rc == SQLITE_ROW)
			return db_fail(err, "out of memory");
		return db_fail(err, "cannot read the %s of '%s': %s", what, db->path,
			       sqlite3_errmsg(db->sql));
	}
	*rows = r;
	*n = count;
	return 0;
}

static void fill_module(sqlite3_stmt *st, void *row)
{
	struct module_row *r = row;
	r->path = column_str(st, 0);
	r->base = (uint64_t)sqlite3_column_int64(st, 1);
	r->low = (uint64_t)sqlite3_column_int64(st, 2);
	r->high = (uint64_t)sqlite3_column_int64(st, 3);
	r->build_id = column_str(st, 4);
}

static void release_modules(void *rows, size_t n)
{
	module_rows_free(rows, n);
}

int locations_read_modules(struct db *db, struct module_row **rows, size_t *n, char **err)
{
	return read_rows(db, "SELECT path, base, low, high, build_id FROM module_raw ORDER BY id",
			 sizeof(**rows), fill_module, release_modules, "module map", (void **)rows, n, err);
}

static void fill_source(sqlite3_stmt *st, void *row)
{
	struct source_row *r = row;
	r->codeptr = (uint64_t)sqlite3_column_int64(st, 0);
	r->entry = column_str(st, 1);
	r->psource = column_str(st, 2);
	r->map_names = column_str(st, 3);
}

static void release_sources(void *rows, size_t n)
{
	source_rows_free(rows, n);
}

int locations_read_sources(struct db *db, struct source_row **rows, size_t *n, char **err)
{
	return read_rows(db, "SELECT codeptr, entry, psource, map_names FROM source_raw "
			 "WHERE codeptr IS NOT NULL ORDER BY codeptr", sizeof(**rows), fill_source,
			 release_sources, "source records", (void **)rows, n, err);
}

/*
 * Put the code pointers of column 0 of 'sql' into m (codeptr -> int, the
 * largest column 1 seen, 0 when the statement has one column).  A GROUP BY
 * would sort ten million rows: rows repeat the previous one's code pointer
 * almost always, and a map of the few distinct ones is much cheaper.
 */
static int scan_codeptrs(struct db *db, const char *sql, struct hmap *m, char **err)
{
	sqlite3_stmt *st = db_prepare(db, sql, err);
	int64_t last = 0;
	int last_kind = 0, have_last = 0, rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int64_t codeptr = sqlite3_column_int64(st, 0);
		int kind = sqlite3_column_count(st) > 1 ? sqlite3_column_int(st, 1) : 0;
		int *max;
		if (sqlite3_column_type(st, 0) == SQLITE_NULL ||
		    (have_last && codeptr == last && kind <= last_kind))
			continue;
		max = hmap_put(m, (const uint64_t *)&codeptr, NULL);
		if (!max)
			break;
		if (kind > *max)
			*max = kind;
		last = codeptr;
		last_kind = *max;
		have_last = 1;
	}
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return db_fail(err, "out of memory");
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read the code pointers of '%s': %s", db->path,
			       sqlite3_errmsg(db->sql));
	return 0;
}

static int cmp_codeptr_row(const void *a, const void *b)
{
	uint64_t x = ((const struct codeptr_row *)a)->codeptr;
	uint64_t y = ((const struct codeptr_row *)b)->codeptr;
	return (x > y) - (x < y);
}

/* The map's code pointers as sorted rows (malloc'ed).  -1 when out of memory. */
static int codeptr_rows(const struct hmap *m, struct codeptr_row **rows, size_t *n)
{
	struct codeptr_row *r = malloc((m->count ? m->count : 1) * sizeof(*r));
	const uint64_t *key;
	void *val;
	size_t count = 0;

	*rows = r;
	*n = 0;
	if (!r)
		return -1;
	for (size_t pos = 0; hmap_next(m, &pos, &key, &val); count++) {
		r[count].codeptr = key[0];
		r[count].target_kind = *(int *)val;
	}
	qsort(r, count, sizeof(*r), cmp_codeptr_row);
	*n = count;
	return 0;
}

int locations_read_codeptrs(struct db *db, struct codeptr_row **rows, size_t *n, char **err)
{
	struct hmap m;
	int rc = -1;

	*rows = NULL;
	*n = 0;
	hmap_init(&m, 1, sizeof(int));
	if (scan_codeptrs(db, "SELECT codeptr, kind FROM target_raw", &m, err) < 0 ||
	    scan_codeptrs(db, "SELECT codeptr FROM data_op_raw", &m, err) < 0)
		goto out;
	if (codeptr_rows(&m, rows, n) < 0) {
		db_fail(err, "out of memory");
		goto out;
	}
	rc = 0;
out:
	hmap_release(&m);
	return rc;
}

char *locations_run_cwd(struct db *db)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT cwd FROM run_raw LIMIT 1", NULL);
	char *cwd = NULL;
	if (st && sqlite3_step(st) == SQLITE_ROW)
		cwd = column_str(st, 0);
	sqlite3_finalize(st);
	return cwd;
}

int locations_ensure_tables(struct db *db, char **err)
{
	const char *schema = db_schema_sql();
	const char *b = strstr(schema, SECTION_BEGIN), *e = b ? strstr(b, SECTION_END) : NULL;
	char *section;
	int rc;

	if (!b || !e)
		return db_fail(err, "the embedded schema lacks the attribution tables");
	section = strndup(b, (size_t)(e - b));
	if (!section)
		return db_fail(err, "out of memory");
	rc = db_exec(db, section, err);
	free(section);
	return rc;
}

/* --- locations_update ------------------------------------------------------- */

struct update {
	struct db *db;
	struct symbolizer *s;
	char *cwd;
	sqlite3_stmt *ins_loc, *ins_snip, *ins_var, *comp_dir;
	struct locations_stats stats;
	char **err;
};

static void bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (s)
		sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, idx);
}

static int step_done(struct update *u, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return db_fail(u->err, "cannot store attributions in '%s': %s", u->db->path,
			       sqlite3_errmsg(u->db->sql));
	return 0;
}

/* Store the lines around file:line when the file is readable here. */
static int store_snippet(struct update *u, const char *file, int line, const char *comp_dir)
{
	const char *dirs[2] = { u->cwd, comp_dir };
	char *path, *text;
	int first = 0;

	if (!file || line <= 0)
		return 0;
	path = snippet_resolve(file, dirs, 2);
	text = path ? snippet_read(path, line, SNIPPET_CONTEXT, &first) : NULL;
	free(path);
	if (!text)
		return 0;
	bind_text(u->ins_snip, 1, file);
	sqlite3_bind_int(u->ins_snip, 2, line);
	sqlite3_bind_int(u->ins_snip, 3, first);
	bind_text(u->ins_snip, 4, text);
	free(text);
	if (step_done(u, u->ins_snip) < 0)
		return -1;
	u->stats.snippets += (size_t)sqlite3_changes(u->db->sql);
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
		json_object_set_new(o, "function", f->function ? json_string(f->function) : json_null());
		json_object_set_new(o, "file", f->file ? json_string(f->file) : json_null());
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
	const char *dirs[2];
	struct location loc;
	sqlite3_stmt *st = u->ins_loc;
	char *chain, *path;
	int rc;

	if (symbolize_code(u->s, codeptr, &loc) < 0)
		return db_fail(u->err, "out of memory");
	dirs[0] = u->cwd;
	dirs[1] = loc.comp_dir;
	chain = chain_json(&loc);
	path = loc.line > 0 ? snippet_resolve(loc.file, dirs, 2) : NULL;
	sqlite3_bind_int64(st, 1, (int64_t)codeptr);
	bind_text(st, 2, loc.module);
	db_bind_opt_int64(st, 3, loc.module != NULL, (int64_t)loc.offset);
	bind_text(st, 4, loc.function);
	bind_text(st, 5, loc.file);
	sqlite3_bind_int(st, 6, loc.line);
	sqlite3_bind_int(st, 7, loc.column);
	bind_text(st, 8, sym_origin_name(loc.origin));
	bind_text(st, 9, chain);
	bind_text(st, 10, loc.comp_dir);
	bind_text(st, 11, path);
	bind_text(st, 12, loc.note);
	rc = step_done(u, st);
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

/*
 * What one pass over data_op_raw gathers: each distinct variable key of an
 * operation as data_op_sources resolves it, {codeptr (0: none), map_index
 * (-1: none), host address (0: none)}, and each distinct code pointer.
 */
struct op_keys {
	struct hmap keys;
	struct hmap codeptrs;
};

static void op_keys_init(struct op_keys *k)
{
	hmap_init(&k->keys, 3, 0);
	hmap_init(&k->codeptrs, 1, sizeof(int));
}

static void op_keys_release(struct op_keys *k)
{
	hmap_release(&k->keys);
	hmap_release(&k->codeptrs);
}

static const char op_keys_sql[] =
	"SELECT seq, kind, codeptr, map_index, src_addr, dst_addr FROM data_op_raw";

/* The source of the allocation a delete frees (0 when unpaired). */
static const char delete_host_sql[] =
	"SELECT a.src_addr FROM delete_pair_raw p JOIN data_op_raw a ON a.seq = p.alloc_seq"
	" WHERE p.delete_seq = ?";

static int add_key(struct op_keys *k, int64_t codeptr, int64_t map_index, int64_t host_addr)
{
	uint64_t key[3] = { (uint64_t)codeptr, (uint64_t)map_index, (uint64_t)host_addr };
	return hmap_put(&k->keys, key, NULL) ? 0 : -1;
}

static int host_of_delete(struct update *u, sqlite3_stmt *st, int64_t seq, int64_t *host_addr)
{
	int rc;

	sqlite3_bind_int64(st, 1, seq);
	rc = sqlite3_step(st);
	*host_addr = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(u->err, "cannot read '%s': %s", u->db->path, sqlite3_errmsg(u->db->sql));
	return 0;
}

/*
 * One pass, in rowid order: rows repeat the previous one's key almost
 * always, so that is checked before the maps.  A delete without a map index
 * has its allocation's key (delete_pair_raw pairs deletes with allocations
 * only), which that allocation's row adds; a delete with one has its own map
 * entry and its allocation's host address, looked up by seq (rare).
 */
static int read_op_keys(struct update *u, struct op_keys *k)
{
	sqlite3_stmt *st = db_prepare(u->db, op_keys_sql, u->err);
	sqlite3_stmt *del = st ? db_prepare(u->db, delete_host_sql, u->err) : NULL;
	int64_t last[3] = { 0, 0, 0 }, last_codeptr = 0;
	int have_last = 0, have_codeptr = 0, rc = SQLITE_DONE;

	if (!del) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int kind = sqlite3_column_int(st, 1);
		int64_t codeptr = sqlite3_column_int64(st, 2), host = 0;
		int has_map_index = sqlite3_column_type(st, 3) != SQLITE_NULL;
		int64_t map_index = has_map_index ? sqlite3_column_int64(st, 3) : -1;

		if (sqlite3_column_type(st, 2) != SQLITE_NULL &&
		    (!have_codeptr || codeptr != last_codeptr)) {
			uint64_t key = (uint64_t)codeptr;
			if (!hmap_put(&k->codeptrs, &key, NULL))
				break;
			last_codeptr = codeptr;
			have_codeptr = 1;
		}
		switch (kind) {
		case 1: case 17: case 2: case 18: case 5: case 6:
			host = sqlite3_column_int64(st, 4);
			break;
		case 3: case 19:
			host = sqlite3_column_int64(st, 5);
			break;
		case 4: case 20:
			if (!has_map_index)
				continue;
			if (host_of_delete(u, del, sqlite3_column_int64(st, 0), &host) < 0) {
				sqlite3_finalize(st);
				sqlite3_finalize(del);
				return -1;
			}
			break;
		}
		if (have_last && codeptr == last[0] && map_index == last[1] && host == last[2])
			continue;
		if (add_key(k, codeptr, map_index, host) < 0)
			break;
		last[0] = codeptr;
		last[1] = map_index;
		last[2] = host;
		have_last = 1;
	}
	sqlite3_finalize(st);
	sqlite3_finalize(del);
	if (rc == SQLITE_ROW)
		return db_fail(u->err, "out of memory");
	if (rc != SQLITE_DONE)
		return db_fail(u->err, "cannot read '%s': %s", u->db->path, sqlite3_errmsg(u->db->sql));
	return 0;
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

/*
 * Every distinct code pointer of the run, as locations_read_codeptrs() reads
 * them: the data operations', gathered in k, and the constructs'.
 */
static int all_codeptrs(struct update *u, struct op_keys *k, struct codeptr_row **rows, size_t *n)
{
	if (scan_codeptrs(u->db, "SELECT codeptr, kind FROM target_raw", &k->codeptrs, u->err) < 0)
		return -1;
	if (codeptr_rows(&k->codeptrs, rows, n) < 0)
		return db_fail(u->err, "out of memory");
	return 0;
}

/* Insert a variable row for one key (map entry, or host address when codeptr is 0). */
static int store_variable(struct update *u, const struct variable *v, int64_t codeptr,
			  int map_index, int64_t host_addr)
{
	sqlite3_stmt *st = u->ins_var;

	db_bind_opt_int64(st, 1, codeptr != 0, codeptr);
	db_bind_opt_int64(st, 2, map_index >= 0, map_index);
	db_bind_opt_int64(st, 3, host_addr != 0, host_addr);
	bind_text(st, 4, v->name);
	bind_text(st, 5, v->decl_file);
	db_bind_opt_int64(st, 6, v->decl_line > 0, v->decl_line);
	db_bind_opt_int64(st, 7, v->decl_line > 0, v->decl_column);
	bind_text(st, 8, sym_origin_name(v->origin));
	if (step_done(u, st) < 0)
		return -1;
	u->stats.variables++;
	if (v->origin == ORIGIN_IDENT && v->decl_file) {
		char *comp_dir = NULL;
		int rc;
		sqlite3_bind_int64(u->comp_dir, 1, codeptr);
		if (sqlite3_step(u->comp_dir) == SQLITE_ROW)
			comp_dir = column_str(u->comp_dir, 0);
		sqlite3_reset(u->comp_dir);
		rc = store_snippet(u, v->decl_file, v->decl_line, comp_dir);
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
static int store_variables(struct update *u, const struct op_keys *k)
{
	int64_t *pairs = malloc((k->keys.count ? k->keys.count : 1) * 2 * sizeof(*pairs));
	int64_t *hosts = malloc((k->keys.count ? k->keys.count : 1) * sizeof(*hosts));
	struct hmap named;
	const uint64_t *key;
	void *val;
	size_t np = 0, nh = 0, pos = 0;
	int rc = -1;

	hmap_init(&named, 2, 0);
	if (!pairs || !hosts) {
		db_fail(u->err, "out of memory");
		goto out;
	}
	while (hmap_next(&k->keys, &pos, &key, &val))
		if (key[0] && (int64_t)key[1] >= 0) {
			pairs[2 * np] = (int64_t)key[0];
			pairs[2 * np++ + 1] = (int64_t)key[1];
		}
	qsort(pairs, np, 2 * sizeof(*pairs), cmp_i64_pair);
	for (size_t i = 0; i < np; i++) {
		struct variable v;
		int r = 0;
		if (i && !cmp_i64_pair(&pairs[2 * i], &pairs[2 * i - 2]))
			continue;
		if (symbolize_variable(u->s, (uint64_t)pairs[2 * i], (int)pairs[2 * i + 1], 0, &v) < 0) {
			db_fail(u->err, "out of memory");
			goto out;
		}
		if (v.origin == ORIGIN_IDENT) {
			r = store_variable(u, &v, pairs[2 * i], (int)pairs[2 * i + 1], 0);
			if (r == 0 && !hmap_put(&named, (const uint64_t *)&pairs[2 * i], NULL))
				r = db_fail(u->err, "out of memory");
		}
		variable_release(&v);
		if (r < 0)
			goto out;
	}
	pos = 0;
	while (hmap_next(&k->keys, &pos, &key, &val))
		if (key[2] && !hmap_get(&named, key))
			hosts[nh++] = (int64_t)key[2];
	qsort(hosts, nh, sizeof(*hosts), cmp_i64);
	for (size_t i = 0; i < nh; i++) {
		struct variable v;
		int r;
		if (i && hosts[i] == hosts[i - 1])
			continue;
		if (symbolize_variable(u->s, 0, -1, (uint64_t)hosts[i], &v) < 0) {
			db_fail(u->err, "out of memory");
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

static int prepare_all(struct update *u)
{
	u->ins_loc = db_prepare(u->db, "INSERT INTO location (codeptr, module, offset, function, file, "
				"line, column, origin, inline_chain, comp_dir, source_path, note) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", u->err);
	u->ins_snip = u->ins_loc ? db_prepare(u->db, "INSERT OR IGNORE INTO snippet (file, line, "
					      "first_line, text) VALUES (?, ?, ?, ?)", u->err) : NULL;
	u->ins_var = u->ins_snip ? db_prepare(u->db, "INSERT INTO variable (codeptr, map_index, "
					      "host_addr, name, decl_file, decl_line, decl_column, "
					      "origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", u->err) : NULL;
	u->comp_dir = u->ins_var ? db_prepare(u->db, "SELECT comp_dir FROM location WHERE codeptr = ?",
					      u->err) : NULL;
	return u->comp_dir ? 0 : -1;
}

int locations_update(struct db *db, struct symbolizer *s, struct locations_stats *stats, char **err)
{
	struct update u = { .db = db, .s = s, .err = err };
	struct op_keys keys;
	struct codeptr_row *codeptrs = NULL;
	size_t n = 0;
	int rc = -1;

	if (locations_ensure_tables(db, err) < 0)
		return -1;
	if (db_exec(db, "BEGIN", err) < 0)
		return -1;
	op_keys_init(&keys);
	u.cwd = locations_run_cwd(db);
	if (db_exec(db, "DELETE FROM location; DELETE FROM snippet; DELETE FROM variable;", err) < 0 ||
	    prepare_all(&u) < 0 || read_op_keys(&u, &keys) < 0)
		goto out;
	if (all_codeptrs(&u, &keys, &codeptrs, &n) < 0)
		goto out;
	if (symbolizer_set_codeptrs(s, codeptrs, n) < 0) {
		db_fail(err, "out of memory");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		if (store_location(&u, codeptrs[i].codeptr) < 0)
			goto out;
	rc = store_variables(&u, &keys);
out:
	sqlite3_finalize(u.ins_loc);
	sqlite3_finalize(u.ins_snip);
	sqlite3_finalize(u.ins_var);
	sqlite3_finalize(u.comp_dir);
	free(u.cwd);
	free(codeptrs);
	op_keys_release(&keys);
	if (rc == 0 && db_exec(db, "COMMIT", err) < 0)
		rc = -1;
	if (rc < 0)
		db_rollback(db);
	else if (stats)
		*stats = u.stats;
	return rc;
}
