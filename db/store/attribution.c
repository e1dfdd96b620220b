/*
 * attribution.c - the attribution tables read back as JSON for the report.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store/attribution.h"
#include "db/db_internal.h"
#include "lib/utf8.h"

enum {
	ST_LOCATION,
	ST_SNIPPET,
	ST_VARIABLE,
	ST_DATA_OP,
	ST_KERNEL,
	ST_COUNT,
	/* Optional (a database from before these columns gets none): */
	ST_SOURCE_PATH = ST_COUNT,
	ST_MAP_ENTRIES,
	ST_CHANGED,
	ST_CHANGED_ALL,
	ST_HOST_OPS,
	ST_INLINE_CHAIN,
	ST_ALL
};

static const char *const sql[ST_COUNT] = {
	[ST_LOCATION] = "SELECT function, file, line, column, origin, note FROM location WHERE codeptr = ?",
	[ST_SNIPPET] = "SELECT first_line, text FROM snippet WHERE file = ? AND line = ?",
	[ST_VARIABLE] = ("SELECT variable, decl_file, decl_line, variable_origin FROM data_op_sources"
			 " WHERE seq = ? AND variable_origin IS NOT NULL"),
	[ST_DATA_OP] = "SELECT op, begin_ns, end_ns, bytes, src_device, dest_device FROM data_ops WHERE seq = ?",
	[ST_KERNEL] = "SELECT 'kernel', begin_ns, end_ns, 0, NULL, device FROM kernels WHERE seq = ?",
};

static const char *const optional_sql[ST_ALL - ST_COUNT] = {
	[ST_SOURCE_PATH - ST_COUNT] = "SELECT source_path FROM location WHERE codeptr = ?",
	/* Op kinds: OMPT's alloc 1, to_device 2, from_device 3; +16 when async. */
	[ST_MAP_ENTRIES - ST_COUNT] = ("SELECT v.map_index, v.name,"
				       " COALESCE(SUM(d.kind IN (1, 17)), 0),"
				       " COALESCE(SUM(d.kind IN (2, 18)), 0),"
				       " COALESCE(SUM(d.kind IN (3, 19)), 0)"
				       " FROM variable v LEFT JOIN data_op_raw d"
				       " ON d.codeptr = v.codeptr AND d.map_index = v.map_index"
				       " WHERE v.codeptr = ? AND v.map_index >= 0 AND v.origin = 'ompt-ident'"
				       " AND v.name IS NOT NULL"
				       " GROUP BY v.map_index, v.name ORDER BY v.map_index"),
	[ST_CHANGED - ST_COUNT] = ("SELECT c.note FROM location l JOIN source_changed c"
				   " ON c.path = l.source_path WHERE l.codeptr = ?"),
	[ST_CHANGED_ALL - ST_COUNT] = "SELECT path, note FROM source_changed ORDER BY path",
	/*
	 * Every allocation and transfer whose host range meets one of codeptr's.
	 * 'mine' is MATERIALIZED: inlined, SQLite ran it again for every
	 * operation (quadratic: 82 s of a 23 k-operation report).
	 */
	[ST_HOST_OPS - ST_COUNT] = ("WITH mine AS MATERIALIZED (SELECT DISTINCT CASE WHEN kind IN (3, 19) THEN dst_addr"
				    " ELSE src_addr END AS a, bytes AS b FROM data_op_raw"
				    " WHERE codeptr = ?1 AND kind IN (1, 2, 3, 17, 18, 19) AND bytes > 0),"
				    " ops AS (SELECT d.*, CASE WHEN d.kind IN (3, 19) THEN d.dst_addr"
				    " ELSE d.src_addr END AS h FROM data_op_raw d"
				    " WHERE d.kind IN (1, 2, 3, 17, 18, 19) AND d.bytes > 0)"
				    " SELECT o.seq, o.kind & 15, CASE WHEN o.kind & 15 = 3 THEN o.src_dev"
				    " ELSE o.dst_dev END, o.h, o.bytes, o.hash, o.codeptr, o.target_id,"
				    " COALESCE(t.kind & 7, 0), COALESCE(o.map_index, -1)"
				    " FROM ops o LEFT JOIN target_raw t ON t.id = o.target_id"
				    " WHERE EXISTS (SELECT 1 FROM mine m WHERE o.h < m.a + m.b AND m.a < o.h + o.bytes)"
				    " ORDER BY o.seq"),
	[ST_INLINE_CHAIN - ST_COUNT] = "SELECT inline_chain, comp_dir FROM location WHERE codeptr = ?",
};

struct attribution {
	sqlite3_stmt *st[ST_ALL];
};

struct attribution *attribution_open(struct db *db)
{
	struct attribution *at = calloc(1, sizeof(*at));
	if (!at)
		return NULL;
	for (int i = 0; i < ST_COUNT; i++) {
		at->st[i] = db_prepare(db, sql[i], NULL);
		if (!at->st[i]) {
			attribution_close(at);
			return NULL;
		}
	}
	for (int i = ST_COUNT; i < ST_ALL; i++)
		at->st[i] = db_prepare(db, optional_sql[i - ST_COUNT], NULL);
	return at;
}

void attribution_close(struct attribution *at)
{
	if (!at)
		return;
	for (int i = 0; i < ST_ALL; i++)
		sqlite3_finalize(at->st[i]);
	free(at);
}

json_t *attribution_text(const char *s, size_t n)
{
	json_t *v = json_stringn(s, n);
	if (!v) {
		size_t len;
		char *fixed = utf8_latin1(s, n, &len);
		v = fixed ? json_stringn(fixed, len) : NULL;
		free(fixed);
	}
	return v;
}

/* Set key to the column's text, or leave it out when NULL. */
static void set_text(json_t *o, const char *key, sqlite3_stmt *st, int col)
{
	const unsigned char *s = sqlite3_column_text(st, col);
	if (s)
		json_object_set_new(o, key, attribution_text((const char *)s, strlen((const char *)s)));
}

static void set_int(json_t *o, const char *key, sqlite3_stmt *st, int col)
{
	if (sqlite3_column_type(st, col) != SQLITE_NULL)
		json_object_set_new(o, key, json_integer(sqlite3_column_int64(st, col)));
}

static json_t *snippet(struct attribution *at, const char *file, int line)
{
	sqlite3_stmt *st = at->st[ST_SNIPPET];
	json_t *o = NULL;

	sqlite3_bind_text(st, 1, file, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int(st, 2, line);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 1)) {
		const char *text = (const char *)sqlite3_column_text(st, 1);
		json_t *lines = json_array();
		o = json_object();
		json_object_set_new(o, "first_line", json_integer(sqlite3_column_int(st, 0)));
		for (const char *p = text;;) {
			const char *nl = strchr(p, '\n');
			json_array_append_new(lines, attribution_text(p, nl ? (size_t)(nl - p) : strlen(p)));
			if (!nl)
				break;
			p = nl + 1;
		}
		json_object_set_new(o, "lines", lines);
	}
	sqlite3_reset(st);
	return o;
}

/*
 * Whether the source file of codeptr's location changed since the recording
 * (table source_changed): then "source_changed": true and "source_note" go
 * into o.
 */
static int source_changed(struct attribution *at, uint64_t codeptr, json_t *o)
{
	sqlite3_stmt *st = at->st[ST_CHANGED];
	int changed = 0;

	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, (int64_t)codeptr);
	if (sqlite3_step(st) == SQLITE_ROW) {
		changed = 1;
		json_object_set_new(o, "source_changed", json_true());
		set_text(o, "source_note", st, 0);
	}
	sqlite3_reset(st);
	return changed;
}

json_t *attribution_location(struct attribution *at, uint64_t codeptr)
{
	sqlite3_stmt *st = at->st[ST_LOCATION];
	json_t *o = NULL;
	char *file = NULL;
	int line = 0;

	sqlite3_bind_int64(st, 1, (int64_t)codeptr);
	if (sqlite3_step(st) == SQLITE_ROW) {
		o = json_object();
		set_text(o, "function", st, 0);
		set_text(o, "file", st, 1);
		set_int(o, "line", st, 2);
		set_int(o, "column", st, 3);
		set_text(o, "origin", st, 4);
		set_text(o, "note", st, 5);
		if (sqlite3_column_text(st, 1))
			file = strdup((const char *)sqlite3_column_text(st, 1));
		line = sqlite3_column_int(st, 2);
	}
	sqlite3_reset(st);
	if (o && source_changed(at, codeptr, o)) {
		/* Its lines would be another file's: none are quoted (report/attribute/attribute.h). */
	} else if (o && file && line > 0) {
		json_t *s = snippet(at, file, line);
		if (s)
			json_object_set_new(o, "snippet", s);
	}
	free(file);
	return o;
}

json_t *attribution_changed_sources(struct attribution *at)
{
	sqlite3_stmt *st = at->st[ST_CHANGED_ALL];
	json_t *arr = json_array();

	if (!st || !arr)
		return arr;
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *o = json_object();
		set_text(o, "path", st, 0);
		set_text(o, "note", st, 1);
		json_array_append_new(arr, o);
	}
	sqlite3_reset(st);
	return arr;
}

json_t *attribution_variable(struct attribution *at, int64_t seq)
{
	sqlite3_stmt *st = at->st[ST_VARIABLE];
	json_t *o = NULL;

	sqlite3_bind_int64(st, 1, seq);
	if (sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *origin = sqlite3_column_text(st, 3);
		const char *name = "address";
		if (origin && !strcmp((const char *)origin, "ompt-ident"))
			name = "map-name";
		else if (origin && !strcmp((const char *)origin, "symbol"))
			name = "symbol";
		o = json_object();
		set_text(o, "name", st, 0);
		set_text(o, "decl_file", st, 1);
		set_int(o, "decl_line", st, 2);
		json_object_set_new(o, "origin", json_string(name));
	}
	sqlite3_reset(st);
	return o;
}

json_t *attribution_events(struct attribution *at, json_t *seqs)
{
	json_t *arr = json_array(), *v;
	size_t i;

	json_array_foreach(seqs, i, v) {
		int64_t seq = json_integer_value(v);
		for (int k = ST_DATA_OP; k <= ST_KERNEL; k++) {
			sqlite3_stmt *st = at->st[k];
			int found = 0;
			sqlite3_bind_int64(st, 1, seq);
			if (sqlite3_step(st) == SQLITE_ROW) {
				json_t *o = json_object();
				json_object_set_new(o, "seq", json_integer(seq));
				set_text(o, "op", st, 0);
				set_int(o, "begin_ns", st, 1);
				set_int(o, "end_ns", st, 2);
				set_int(o, "bytes", st, 3);
				set_int(o, "src_device", st, 4);
				set_int(o, "dest_device", st, 5);
				json_array_append_new(arr, o);
				found = 1;
			}
			sqlite3_reset(st);
			if (found)
				break;
		}
	}
	return arr;
}

char *attribution_source_path(struct attribution *at, uint64_t codeptr)
{
	sqlite3_stmt *st = at->st[ST_SOURCE_PATH];
	char *path = NULL;

	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, (int64_t)codeptr);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		path = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_reset(st);
	return path;
}

json_t *attribution_inline_chain(struct attribution *at, uint64_t codeptr)
{
	sqlite3_stmt *st = at->st[ST_INLINE_CHAIN];
	json_t *chain = NULL, *frame;
	size_t i;

	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, (int64_t)codeptr);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		const char *dir = (const char *)sqlite3_column_text(st, 1);
		chain = json_loads((const char *)sqlite3_column_text(st, 0), 0, NULL);
		if (!json_is_array(chain)) {
			json_decref(chain);
			chain = NULL;
		}
		json_array_foreach(chain, i, frame) {
			const char *file = json_string_value(json_object_get(frame, "file"));
			char *joined;
			if (!file || file[0] == '/' || !dir || !*dir)
				continue;
			if (asprintf(&joined, "%s/%s", dir, file) < 0) {
				json_decref(chain);
				chain = NULL;
				break;
			}
			json_object_set_new(frame, "file", json_string(joined));
			free(joined);
		}
	}
	sqlite3_reset(st);
	return chain;
}

json_t *attribution_map_entries(struct attribution *at, uint64_t codeptr)
{
	sqlite3_stmt *st = at->st[ST_MAP_ENTRIES];
	json_t *arr;

	if (!st || !(arr = json_array()))
		return NULL;
	sqlite3_bind_int64(st, 1, (int64_t)codeptr);
	while (sqlite3_step(st) == SQLITE_ROW) {
		json_t *o = json_object();
		json_object_set_new(o, "index", json_integer(sqlite3_column_int64(st, 0)));
		set_text(o, "name", st, 1);
		json_object_set_new(o, "alloc", json_integer(sqlite3_column_int64(st, 2)));
		json_object_set_new(o, "to_device", json_integer(sqlite3_column_int64(st, 3)));
		json_object_set_new(o, "from_device", json_integer(sqlite3_column_int64(st, 4)));
		json_array_append_new(arr, o);
	}
	sqlite3_reset(st);
	return arr;
}

int attribution_host_ops(struct attribution *at, uint64_t codeptr, struct host_op **out, size_t *n)
{
	sqlite3_stmt *st = at ? at->st[ST_HOST_OPS] : NULL;
	struct host_op *v = NULL;
	size_t cap = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (!st)
		return 0;
	sqlite3_bind_int64(st, 1, (int64_t)codeptr);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct host_op *o;
		if (*n == cap) {
			struct host_op *t = realloc(v, (cap = cap ? cap * 2 : 64) * sizeof(*v));
			if (!t) {
				free(v);
				sqlite3_reset(st);
				return -1;
			}
			v = t;
		}
		o = &v[(*n)++];
		o->seq = sqlite3_column_int64(st, 0);
		o->op = sqlite3_column_int(st, 1);
		o->device = sqlite3_column_int(st, 2);
		o->host_addr = (uint64_t)sqlite3_column_int64(st, 3);
		o->bytes = (uint64_t)sqlite3_column_int64(st, 4);
		o->has_hash = sqlite3_column_type(st, 5) != SQLITE_NULL;
		o->hash = (uint64_t)sqlite3_column_int64(st, 5);
		o->codeptr = (uint64_t)sqlite3_column_int64(st, 6);
		o->target_id = sqlite3_column_int64(st, 7);
		o->target_kind = sqlite3_column_int(st, 8);
		o->map_index = sqlite3_column_int(st, 9);
	}
	sqlite3_reset(st);
	if (rc != SQLITE_DONE) {
		free(v);
		*n = 0;
		return -1;
	}
	*out = v;
	return 0;
}
