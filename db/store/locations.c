/*
 * locations.c - the rows the symbolizer reads, and the attribution tables'
 * writer (see locations.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/store/locations.h"
#include "lib/grow.h"
#include "lib/hmap.h"
#include "lib/sort.h"

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
		if (grow_one(&r, &cap, count, size) < 0)
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
	sort_array(r, count, sizeof(*r), cmp_codeptr_row);
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

/* --- the variable keys ----------------------------------------------------- */

/*
 * What one pass over data_op_raw gathers: each distinct variable key of an
 * operation as data_op_sources resolves it, {codeptr (0: none), map_index
 * (-1: none), host address (0: none)}, and each distinct code pointer.
 * Rows repeat the previous one's key almost always, so that is checked
 * before the maps.
 */
struct op_keys {
	struct db *db;
	sqlite3_stmt *del;          /* delete_host_sql, prepared at the first use */
	struct hmap keys;
	struct hmap codeptrs;
	int64_t last[3], last_codeptr;
	int have_last, have_codeptr;
	/* Deletes with their own map entry: their allocation's address is looked up in op_keys_rows(). */
	struct op_key_cols *pending;
	size_t npending, pending_cap;
	int targets_fed;            /* op_keys_add_target() had them all: target_raw is not read */
};

struct op_keys *op_keys_new(struct db *db, char **err)
{
	struct op_keys *k = calloc(1, sizeof(*k));

	if (!k) {
		db_fail(err, "out of memory");
		return NULL;
	}
	k->db = db;
	hmap_init(&k->keys, 3, 0);
	hmap_init(&k->codeptrs, 1, sizeof(int));
	return k;
}

void op_keys_free(struct op_keys *k)
{
	if (!k)
		return;
	sqlite3_finalize(k->del);
	free(k->pending);
	hmap_release(&k->keys);
	hmap_release(&k->codeptrs);
	free(k);
}

static const char op_keys_sql[] =
	"SELECT seq, kind, codeptr, map_index, src_addr, dst_addr FROM data_op_raw";

/* The source of the allocation a delete frees (0 when unpaired). */
static const char delete_host_sql[] =
	"SELECT a.src_addr FROM delete_pair_raw p JOIN data_op_raw a ON a.seq = p.alloc_seq"
	" WHERE p.delete_seq = ?";

static int host_of_delete(struct op_keys *k, int64_t seq, int64_t *host_addr, char **err)
{
	int rc;

	if (!k->del && !(k->del = db_prepare(k->db, delete_host_sql, err)))
		return -1;
	sqlite3_bind_int64(k->del, 1, seq);
	rc = sqlite3_step(k->del);
	*host_addr = rc == SQLITE_ROW ? sqlite3_column_int64(k->del, 0) : 0;
	sqlite3_reset(k->del);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(err, "cannot read '%s': %s", k->db->path, sqlite3_errmsg(k->db->sql));
	return 0;
}

/* The key (code pointer, map entry, host address), once. */
static int add_key(struct op_keys *k, int64_t codeptr, int64_t map_index, int64_t host, char **err)
{
	uint64_t key[3];

	if (k->have_last && codeptr == k->last[0] && map_index == k->last[1] && host == k->last[2])
		return 0;
	key[0] = (uint64_t)codeptr;
	key[1] = (uint64_t)map_index;
	key[2] = (uint64_t)host;
	if (!hmap_put(&k->keys, key, NULL))
		return db_fail(err, "out of memory");
	k->last[0] = codeptr;
	k->last[1] = map_index;
	k->last[2] = host;
	k->have_last = 1;
	return 0;
}

/*
 * A delete without a map index has its allocation's key (delete_pair_raw
 * pairs deletes with allocations only), which that allocation's row adds; a
 * delete with one has its own map entry and its allocation's host address,
 * looked up by seq in op_keys_rows() (rare), once the pairs are all there:
 * 'mapprof record' adds the rows as it expands the spool, before the
 * deletes are paired.
 */
int op_keys_add(struct op_keys *k, const struct op_key_cols *r, char **err)
{
	int64_t map_index = r->has_map_index ? r->map_index : -1, host = 0;

	if (r->has_codeptr && (!k->have_codeptr || r->codeptr != k->last_codeptr)) {
		uint64_t c = (uint64_t)r->codeptr;
		if (!hmap_put(&k->codeptrs, &c, NULL))
			return db_fail(err, "out of memory");
		k->last_codeptr = r->codeptr;
		k->have_codeptr = 1;
	}
	switch (r->kind) {
	case 1: case 17: case 2: case 18: case 5: case 6:
		host = r->src_addr;
		break;
	case 3: case 19:
		host = r->dst_addr;
		break;
	case 4: case 20:
		if (!r->has_map_index)
			return 0;
		if (grow_one((void **)&k->pending, &k->pending_cap, k->npending, sizeof(*k->pending)) < 0)
			return db_fail(err, "out of memory");
		k->pending[k->npending++] = *r;
		return 0;
	}
	return add_key(k, r->codeptr, map_index, host, err);
}

int op_keys_target(struct op_keys *k, int64_t codeptr, int kind, char **err)
{
	int *max = hmap_put(&k->codeptrs, (const uint64_t *)&codeptr, NULL);

	if (!max)
		return db_fail(err, "out of memory");
	if (kind > *max)
		*max = kind;
	return 0;
}

void op_keys_targets_done(struct op_keys *k)
{
	k->targets_fed = 1;
}

int op_keys_add_target(struct op_keys *k, int64_t codeptr, int kind, char **err)
{
	if (op_keys_target(k, codeptr, kind, err) < 0)
		return -1;
	op_keys_targets_done(k);
	return 0;
}

/* One pass, in rowid order. */
static int read_op_keys(struct op_keys *k, char **err)
{
	sqlite3_stmt *st = db_prepare(k->db, op_keys_sql, err);
	int rc = SQLITE_DONE;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct op_key_cols r = {
			.seq = sqlite3_column_int64(st, 0),
			.kind = sqlite3_column_int(st, 1),
			.codeptr = sqlite3_column_int64(st, 2),
			.has_codeptr = sqlite3_column_type(st, 2) != SQLITE_NULL,
			.map_index = sqlite3_column_int64(st, 3),
			.has_map_index = sqlite3_column_type(st, 3) != SQLITE_NULL,
			.src_addr = sqlite3_column_int64(st, 4),
			.dst_addr = sqlite3_column_int64(st, 5),
		};
		if (op_keys_add(k, &r, err) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read '%s': %s", k->db->path, sqlite3_errmsg(k->db->sql));
	return 0;
}

/* The keys of the map as rows (malloc'ed).  -1 when out of memory. */
static int key_rows(const struct hmap *m, struct op_key_row **rows, size_t *n)
{
	struct op_key_row *r = malloc((m->count ? m->count : 1) * sizeof(*r));
	const uint64_t *key;
	void *val;
	size_t count = 0;

	*rows = r;
	*n = 0;
	if (!r)
		return -1;
	for (size_t pos = 0; hmap_next(m, &pos, &key, &val); count++)
		r[count] = (struct op_key_row){ (int64_t)key[0], (int64_t)key[1], (int64_t)key[2] };
	*n = count;
	return 0;
}

int op_keys_rows(struct op_keys *k, struct op_key_row **keys, size_t *nkeys,
		 struct codeptr_row **codeptrs, size_t *ncodeptrs, char **err)
{
	*keys = NULL;
	*nkeys = 0;
	*codeptrs = NULL;
	*ncodeptrs = 0;
	for (size_t i = 0; i < k->npending; i++) {
		int64_t host;
		if (host_of_delete(k, k->pending[i].seq, &host, err) < 0 ||
		    add_key(k, k->pending[i].codeptr, k->pending[i].map_index, host, err) < 0)
			return -1;
	}
	k->npending = 0;
	if (!k->targets_fed && scan_codeptrs(k->db, "SELECT codeptr, kind FROM target_raw", &k->codeptrs, err) < 0)
		return -1;
	if (codeptr_rows(&k->codeptrs, codeptrs, ncodeptrs) < 0 || key_rows(&k->keys, keys, nkeys) < 0) {
		free(*codeptrs);
		*codeptrs = NULL;
		*ncodeptrs = 0;
		return db_fail(err, "out of memory");
	}
	return 0;
}

int locations_read_keys(struct db *db, struct op_key_row **keys, size_t *nkeys,
			struct codeptr_row **codeptrs, size_t *ncodeptrs, char **err)
{
	struct op_keys *k;
	int rc = -1;

	*keys = NULL;
	*nkeys = 0;
	*codeptrs = NULL;
	*ncodeptrs = 0;
	k = op_keys_new(db, err);
	if (k && read_op_keys(k, err) == 0)
		rc = op_keys_rows(k, keys, nkeys, codeptrs, ncodeptrs, err);
	op_keys_free(k);
	return rc;
}

/* --- the writer ------------------------------------------------------------- */

struct locations_writer {
	struct db *db;
	sqlite3_stmt *ins_loc, *ins_snip, *ins_var, *comp_dir, *ins_changed;
	int done;                       /* committed */
};

static void bind_text(sqlite3_stmt *st, int idx, const char *s)
{
	if (s)
		sqlite3_bind_text(st, idx, s, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, idx);
}

static int step_done(struct locations_writer *w, sqlite3_stmt *st, char **err)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot store attributions in '%s': %s", w->db->path,
			       sqlite3_errmsg(w->db->sql));
	return 0;
}

static int prepare_all(struct locations_writer *w, char **err)
{
	w->ins_loc = db_prepare(w->db, "INSERT INTO location (codeptr, module, offset, function, file, "
				"line, column, origin, inline_chain, comp_dir, source_path, note) "
				"VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", err);
	w->ins_snip = w->ins_loc ? db_prepare(w->db, "INSERT OR IGNORE INTO snippet (file, line, "
					      "first_line, text) VALUES (?, ?, ?, ?)", err) : NULL;
	w->ins_var = w->ins_snip ? db_prepare(w->db, "INSERT INTO variable (codeptr, map_index, "
					      "host_addr, name, decl_file, decl_line, decl_column, "
					      "origin) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", err) : NULL;
	w->comp_dir = w->ins_var ? db_prepare(w->db, "SELECT comp_dir FROM location WHERE codeptr = ?",
					      err) : NULL;
	w->ins_changed = w->comp_dir ? db_prepare(w->db, "INSERT OR REPLACE INTO source_changed (path, note)"
						  " VALUES (?, ?)", err) : NULL;
	return w->ins_changed ? 0 : -1;
}

struct locations_writer *locations_writer_open(struct db *db, char **err)
{
	struct locations_writer *w;

	if (locations_ensure_tables(db, err) < 0)
		return NULL;
	if (db_begin(db) < 0) {
		db_fail(err, "cannot write '%s': %s", db->path, sqlite3_errmsg(db->sql));
		return NULL;
	}
	w = calloc(1, sizeof(*w));
	if (!w) {
		db_fail(err, "out of memory");
		db_rollback(db);
		return NULL;
	}
	w->db = db;
	if (db_exec(db, "DELETE FROM location; DELETE FROM snippet; DELETE FROM variable;"
		    " DELETE FROM source_changed;", err) < 0 ||
	    prepare_all(w, err) < 0) {
		locations_writer_free(w);
		return NULL;
	}
	return w;
}

void locations_writer_free(struct locations_writer *w)
{
	if (!w)
		return;
	sqlite3_finalize(w->ins_loc);
	sqlite3_finalize(w->ins_snip);
	sqlite3_finalize(w->ins_var);
	sqlite3_finalize(w->comp_dir);
	sqlite3_finalize(w->ins_changed);
	if (!w->done)
		db_rollback(w->db);
	free(w);
}

int locations_writer_location(struct locations_writer *w, const struct location_row *r,
			      char **err)
{
	sqlite3_stmt *st = w->ins_loc;

	sqlite3_bind_int64(st, 1, (int64_t)r->codeptr);
	bind_text(st, 2, r->module);
	db_bind_opt_int64(st, 3, r->module != NULL, (int64_t)r->offset);
	bind_text(st, 4, r->function);
	bind_text(st, 5, r->file);
	sqlite3_bind_int(st, 6, r->line);
	sqlite3_bind_int(st, 7, r->column);
	bind_text(st, 8, r->origin);
	bind_text(st, 9, r->inline_chain);
	bind_text(st, 10, r->comp_dir);
	bind_text(st, 11, r->source_path);
	bind_text(st, 12, r->note);
	return step_done(w, st, err);
}

int locations_writer_snippet(struct locations_writer *w, const char *file, int line,
			     int first_line, const char *text, char **err)
{
	bind_text(w->ins_snip, 1, file);
	sqlite3_bind_int(w->ins_snip, 2, line);
	sqlite3_bind_int(w->ins_snip, 3, first_line);
	bind_text(w->ins_snip, 4, text);
	if (step_done(w, w->ins_snip, err) < 0)
		return -1;
	return sqlite3_changes(w->db->sql) > 0;
}

int locations_writer_variable(struct locations_writer *w, const struct variable_row *r,
			      char **err)
{
	sqlite3_stmt *st = w->ins_var;

	db_bind_opt_int64(st, 1, r->codeptr != 0, r->codeptr);
	db_bind_opt_int64(st, 2, r->map_index != -1, r->map_index);
	db_bind_opt_int64(st, 3, r->host_addr != 0, r->host_addr);
	bind_text(st, 4, r->name);
	bind_text(st, 5, r->decl_file);
	db_bind_opt_int64(st, 6, r->decl_line > 0, r->decl_line);
	db_bind_opt_int64(st, 7, r->decl_line > 0, r->decl_column);
	bind_text(st, 8, r->origin);
	return step_done(w, st, err);
}

int locations_writer_source_changed(struct locations_writer *w, const char *path, const char *note,
				    char **err)
{
	bind_text(w->ins_changed, 1, path);
	bind_text(w->ins_changed, 2, note);
	return step_done(w, w->ins_changed, err);
}

char *locations_writer_comp_dir(struct locations_writer *w, int64_t codeptr)
{
	char *comp_dir = NULL;

	sqlite3_bind_int64(w->comp_dir, 1, codeptr);
	if (sqlite3_step(w->comp_dir) == SQLITE_ROW)
		comp_dir = column_str(w->comp_dir, 0);
	sqlite3_reset(w->comp_dir);
	return comp_dir;
}

int locations_writer_commit(struct locations_writer *w, char **err)
{
	sqlite3_finalize(w->ins_loc);
	sqlite3_finalize(w->ins_snip);
	sqlite3_finalize(w->ins_var);
	sqlite3_finalize(w->comp_dir);
	sqlite3_finalize(w->ins_changed);
	w->ins_loc = w->ins_snip = w->ins_var = w->comp_dir = w->ins_changed = NULL;
	if (db_commit(w->db) < 0)
		return db_fail(err, "cannot write '%s': %s", w->db->path, sqlite3_errmsg(w->db->sql));
	w->done = 1;
	return 0;
}
