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

static void fill_codeptr(sqlite3_stmt *st, void *row)
{
	struct codeptr_row *r = row;
	r->codeptr = (uint64_t)sqlite3_column_int64(st, 0);
	r->target_kind = sqlite3_column_int(st, 1);
}

int locations_read_codeptrs(struct db *db, struct codeptr_row **rows, size_t *n, char **err)
{
	return read_rows(db, "SELECT codeptr, MAX(kind) FROM ("
			 "SELECT codeptr, kind FROM target_raw UNION ALL "
			 "SELECT codeptr, 0 FROM data_op_raw) WHERE codeptr IS NOT NULL "
			 "GROUP BY codeptr ORDER BY codeptr", sizeof(**rows), fill_codeptr, NULL,
			 "code pointers", (void **)rows, n, err);
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
	sqlite3_stmt *ins_loc, *ins_snip, *ins_var, *assign_pair, *assign_addr, *comp_dir;
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

/* Read the int64 column 0 of every row of 'sql' into a malloc'ed array. */
static int read_ints(struct update *u, const char *sql, int64_t **out, size_t *n, int ncols)
{
	sqlite3_stmt *st = db_prepare(u->db, sql, u->err);
	int64_t *v = NULL;
	size_t cap = 0, count = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (grow((void **)&v, &cap, count + (size_t)ncols - 1, sizeof(*v)) < 0) {
			sqlite3_finalize(st);
			free(v);
			return db_fail(u->err, "out of memory");
		}
		for (int c = 0; c < ncols; c++)
			v[count++] = sqlite3_column_int64(st, c);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		free(v);
		return db_fail(u->err, "cannot read '%s': %s", u->db->path, sqlite3_errmsg(u->db->sql));
	}
	*out = v;
	*n = count / (size_t)ncols;
	return 0;
}

/* Insert a variable row and give it to the data ops 'assign' selects. */
static int store_variable(struct update *u, const struct variable *v, int64_t codeptr,
			  int map_index, int64_t host_addr, sqlite3_stmt *assign)
{
	sqlite3_stmt *st = u->ins_var;
	int64_t id;

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
	id = sqlite3_last_insert_rowid(u->db->sql);
	u->stats.variables++;
	sqlite3_bind_int64(assign, 1, id);
	if (assign == u->assign_pair) {
		sqlite3_bind_int64(assign, 2, codeptr);
		sqlite3_bind_int64(assign, 3, map_index);
	} else {
		sqlite3_bind_int64(assign, 2, host_addr);
	}
	if (step_done(u, assign) < 0)
		return -1;
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
 * The variable key of each data op: the op's own (codeptr, map_index) or,
 * for a delete without one, its allocation's; and the host address (alloc,
 * to-device, (dis)associate: source; from-device: destination; delete: its
 * allocation's source).  0 / -1 stand for unknown so that '=' works.
 */
static const char op_key_sql[] =
	"CREATE TEMP TABLE op_key AS SELECT d.seq AS seq,"
	" CASE WHEN d.map_index IS NULL AND d.kind IN (4, 20) AND a.seq IS NOT NULL"
	"      THEN IFNULL(a.codeptr, 0) ELSE IFNULL(d.codeptr, 0) END AS codeptr,"
	" CASE WHEN d.map_index IS NULL AND d.kind IN (4, 20) AND a.seq IS NOT NULL"
	"      THEN IFNULL(a.map_index, -1) ELSE IFNULL(d.map_index, -1) END AS map_index,"
	" IFNULL(CASE WHEN d.kind IN (1, 17, 2, 18, 5, 6) THEN d.src_addr"
	"             WHEN d.kind IN (3, 19) THEN d.dst_addr"
	"             WHEN d.kind IN (4, 20) THEN a.src_addr END, 0) AS host_addr"
	" FROM data_op_raw d"
	" LEFT JOIN delete_pair_raw p ON p.delete_seq = d.seq"
	" LEFT JOIN data_op_raw a ON a.seq = p.alloc_seq;"
	"CREATE INDEX temp.op_key_pair ON op_key (codeptr, map_index);"
	"CREATE INDEX temp.op_key_addr ON op_key (host_addr);";

static int store_variables(struct update *u)
{
	int64_t *keys = NULL;
	size_t n = 0;
	int rc = -1;

	/* By map clause name first: all ops of one map entry share it. */
	if (read_ints(u, "SELECT DISTINCT codeptr, map_index FROM op_key "
		      "WHERE codeptr != 0 AND map_index >= 0 ORDER BY 1, 2", &keys, &n, 2) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct variable v;
		int r;
		if (symbolize_variable(u->s, (uint64_t)keys[2 * i], (int)keys[2 * i + 1], 0, &v) < 0) {
			db_fail(u->err, "out of memory");
			goto out;
		}
		r = v.origin == ORIGIN_IDENT ? store_variable(u, &v, keys[2 * i], (int)keys[2 * i + 1],
							      0, u->assign_pair) : 0;
		variable_release(&v);
		if (r < 0)
			goto out;
	}
	free(keys);
	/* Then by host address, for the ops still without a name. */
	if (read_ints(u, "SELECT DISTINCT host_addr FROM op_key WHERE host_addr != 0 "
		      "AND seq NOT IN (SELECT seq FROM data_op_variable) ORDER BY 1", &keys, &n, 1) < 0)
		goto out;
	for (size_t i = 0; i < n; i++) {
		struct variable v;
		int r;
		if (symbolize_variable(u->s, 0, -1, (uint64_t)keys[i], &v) < 0) {
			db_fail(u->err, "out of memory");
			goto out;
		}
		r = store_variable(u, &v, 0, -1, keys[i], u->assign_addr);
		variable_release(&v);
		if (r < 0)
			goto out;
	}
	rc = 0;
out:
	free(keys);
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

/* The temp table op_key and the statements that read it. */
static int prepare_assign(struct update *u)
{
	if (db_exec(u->db, "DROP TABLE IF EXISTS temp.op_key", u->err) < 0 ||
	    db_exec(u->db, op_key_sql, u->err) < 0)
		return -1;
	u->assign_pair = db_prepare(u->db, "INSERT OR IGNORE INTO data_op_variable (seq, variable) "
				    "SELECT seq, ?1 FROM op_key WHERE codeptr = ?2 AND map_index = ?3",
				    u->err);
	u->assign_addr = u->assign_pair ? db_prepare(u->db, "INSERT OR IGNORE INTO data_op_variable "
						     "(seq, variable) SELECT seq, ?1 FROM op_key "
						     "WHERE host_addr = ?2", u->err) : NULL;
	return u->assign_addr ? 0 : -1;
}

int locations_update(struct db *db, struct symbolizer *s, struct locations_stats *stats, char **err)
{
	struct update u = { .db = db, .s = s, .err = err };
	int64_t *codeptrs = NULL;
	size_t n = 0;
	int rc = -1;

	if (locations_ensure_tables(db, err) < 0)
		return -1;
	if (db_exec(db, "BEGIN", err) < 0)
		return -1;
	u.cwd = locations_run_cwd(db);
	if (db_exec(db, "DELETE FROM location; DELETE FROM snippet; DELETE FROM variable; "
		    "DELETE FROM data_op_variable;", err) < 0 || prepare_all(&u) < 0)
		goto out;
	if (read_ints(&u, "SELECT codeptr FROM data_op_raw WHERE codeptr IS NOT NULL UNION "
		      "SELECT codeptr FROM target_raw WHERE codeptr IS NOT NULL ORDER BY 1",
		      &codeptrs, &n, 1) < 0)
		goto out;
	for (size_t i = 0; i < n; i++)
		if (store_location(&u, (uint64_t)codeptrs[i]) < 0)
			goto out;
	if (prepare_assign(&u) < 0)
		goto out;
	rc = store_variables(&u);
out:
	sqlite3_finalize(u.ins_loc);
	sqlite3_finalize(u.ins_snip);
	sqlite3_finalize(u.ins_var);
	sqlite3_finalize(u.comp_dir);
	sqlite3_finalize(u.assign_pair);
	sqlite3_finalize(u.assign_addr);
	free(u.cwd);
	free(codeptrs);
	db_exec(db, "DROP TABLE IF EXISTS temp.op_key", NULL);
	if (rc == 0 && db_exec(db, "COMMIT", err) < 0)
		rc = -1;
	if (rc < 0)
		db_rollback(db);
	else if (stats)
		*stats = u.stats;
	return rc;
}
