/*
 * writer.c - writing recorded events into the database's tables (the spool
 * is replayed through these calls, see db/ingest/ingest.c).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db_internal.h"
#include "db/ingest/writer.h"

enum {
	ST_MODULE,
	ST_DATA_OPS,  /* the three event inserts: INSERT ... SELECT from the records (below) */
	ST_KERNELS,
	ST_TARGETS,
	ST_COUNT
};

enum { T_DATA_OP, T_KERNEL, T_TARGET, T_COUNT };

/*
 * The records of one dbw_records() call go into each event table through
 * one INSERT ... SELECT from an eponymous virtual table over them
 * (mapprof_recs_*): no statement per row or per group of rows, no
 * sqlite3_bind_* per value; SQLite reads each value once, from the record.
 * Measured against the multi-row INSERT with bound values this replaced: 14%
 * fewer instructions per row; what remains is SQLite's own (the rowid
 * uniqueness seek, building and inserting the record).
 */
static const struct {
	uint8_t type;
	const char *vtab, *columns;
} tables[T_COUNT] = {
	[T_DATA_OP] = { REC_DATA_OP, "mapprof_recs_data_op",
			"seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes, begin_ns, dur_ns,"
			" hash, codeptr, target_id, map_index" },
	[T_KERNEL] = { REC_KERNEL, "mapprof_recs_kernel",
		       "seq, thread, target_id, device, teams, begin_ns, dur_ns" },
	[T_TARGET] = { REC_TARGET, "mapprof_recs_target",
		       "id, seq, thread, kind, device, begin_ns, dur_ns, codeptr" },
};

static const char *const stmt_sql[ST_COUNT] = {
	[ST_MODULE] = "INSERT OR IGNORE INTO module_raw (path, base, low, high, build_id, seen_ns)"
		      " VALUES (?,?,?,?,?,?)",
	[ST_DATA_OPS] = "INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr,"
			" bytes, begin_ns, dur_ns, hash, codeptr, target_id, map_index)"
			" SELECT * FROM mapprof_recs_data_op",
	[ST_KERNELS] = "INSERT INTO kernel_raw (seq, thread, target_id, device, teams, begin_ns, dur_ns)"
		       " SELECT * FROM mapprof_recs_kernel",
	[ST_TARGETS] = "INSERT INTO target_raw (id, seq, thread, kind, device, begin_ns, dur_ns, codeptr)"
		       " SELECT * FROM mapprof_recs_target",
};

struct db_writer;

/* What a mapprof_recs_* module reads: its table and the writer's records. */
struct recs_source {
	struct db_writer *w;
	int table;
};

#define EXEC_KEPT 24

struct db_writer {
	struct db *db;
	sqlite3_stmt *st[ST_COUNT];
	struct recs_source src[T_COUNT];
	int modules;               /* how many mapprof_recs_* modules are registered */
	const struct rec *recs;    /* the records of the dbw_records() call running */
	size_t nrecs;
	char errmsg[256];  /* the first failed step's message (a reset clears SQLite's) */
	/*
	 * exec_params()'s statements, by the address of their SQL (a literal):
	 * the run's environment, statistics, devices and sources are a row a
	 * call, ~40 calls of a dozen statements for a small run, each prepared
	 * anew before (~7 us a prepare here).
	 */
	struct kept_stmt {
		const char *sql;
		sqlite3_stmt *st;
	} kept[EXEC_KEPT];
	int nkept;
};

/* A record's duration; a damaged spool's times wrap instead of overflowing. */
static int64_t dur_ns(const struct rec *r)
{
	return (int64_t)((uint64_t)r->end_ns - (uint64_t)r->begin_ns);
}

/*
 * Column 'col' of record r in 'table', as the bound values were before:
 * 1 and *v, or 0 for NULL.
 */
static int rec_value(int table, const struct rec *r, int col, int64_t *v)
{
	switch (table) {
	case T_DATA_OP:
		switch (col) {
		case 0: *v = (int64_t)r->seq; return 1;
		case 1: *v = r->thread; return 1;
		case 2: *v = r->kind; return 1;
		case 3: *v = r->src_dev; return 1;
		case 4: *v = r->dst_dev; return 1;
		case 5: *v = (int64_t)r->src_addr; return 1;
		case 6: *v = (int64_t)r->dst_addr; return 1;
		case 7: *v = (int64_t)r->bytes; return 1;
		case 8: *v = r->begin_ns; return 1;
		case 9: *v = dur_ns(r); return 1;
		case 10: *v = (int64_t)r->hash; return r->has_hash != 0;
		case 11: *v = (int64_t)r->codeptr; return 1;
		case 12: *v = (int64_t)r->target_id; return r->target_id != 0;
		case 13: *v = r->map_index; return r->map_index != -1;
		}
		break;
	case T_KERNEL:
		switch (col) {
		case 0: *v = (int64_t)r->seq; return 1;
		case 1: *v = r->thread; return 1;
		case 2: *v = (int64_t)r->target_id; return r->target_id != 0;
		case 3: *v = r->src_dev; return 1;
		case 4: *v = r->teams; return 1;
		case 5: *v = r->begin_ns; return 1;
		case 6: *v = dur_ns(r); return 1;
		}
		break;
	case T_TARGET:
		switch (col) {
		case 0: *v = (int64_t)r->target_id; return 1;
		case 1: *v = (int64_t)r->seq; return 1;
		case 2: *v = r->thread; return 1;
		case 3: *v = r->kind; return 1;
		case 4: *v = r->src_dev; return 1;
		case 5: *v = r->begin_ns; return 1;
		case 6: *v = dur_ns(r); return 1;
		case 7: *v = (int64_t)r->codeptr; return 1;
		}
		break;
	}
	return 0;
}

/* As rec_value() gives them, column by column (the same NULLs), without a switch a value. */
int dbw_row(const struct rec *r, int64_t *rowid, int64_t *v, uint32_t *present)
{
	switch (r->type) {
	case REC_DATA_OP:
		v[0] = (int64_t)r->seq;
		v[1] = r->thread;
		v[2] = r->kind;
		v[3] = r->src_dev;
		v[4] = r->dst_dev;
		v[5] = (int64_t)r->src_addr;
		v[6] = (int64_t)r->dst_addr;
		v[7] = (int64_t)r->bytes;
		v[8] = r->begin_ns;
		v[9] = dur_ns(r);
		v[10] = (int64_t)r->hash;
		v[11] = (int64_t)r->codeptr;
		v[12] = (int64_t)r->target_id;
		v[13] = r->map_index;
		*present = 0x3ff | 1u << 11 | (uint32_t)(r->has_hash != 0) << 10 | (uint32_t)(r->target_id != 0) << 12 |
			   (uint32_t)(r->map_index != -1) << 13;
		*rowid = v[0];
		return T_DATA_OP;
	case REC_KERNEL:
		v[0] = (int64_t)r->seq;
		v[1] = r->thread;
		v[2] = (int64_t)r->target_id;
		v[3] = r->src_dev;
		v[4] = r->teams;
		v[5] = r->begin_ns;
		v[6] = dur_ns(r);
		*present = 0x7b | (uint32_t)(r->target_id != 0) << 2;
		*rowid = v[0];
		return T_KERNEL;
	case REC_TARGET:
		v[0] = (int64_t)r->target_id;
		v[1] = (int64_t)r->seq;
		v[2] = r->thread;
		v[3] = r->kind;
		v[4] = r->src_dev;
		v[5] = r->begin_ns;
		v[6] = dur_ns(r);
		v[7] = (int64_t)r->codeptr;
		*present = 0xff;
		*rowid = v[0];
		return T_TARGET;
	}
	return -1;
}

const char *dbw_table_name(int t)
{
	return t == T_DATA_OP ? "data_op_raw" : t == T_KERNEL ? "kernel_raw" : "target_raw";
}

const char *dbw_table_columns(int t)
{
	return tables[t].columns;
}

int dbw_table_ncols(int t)
{
	return t == T_DATA_OP ? 14 : t == T_KERNEL ? 7 : 8;
}

/* --- the mapprof_recs_* virtual tables: the records of one type, in order ---- */

struct recs_vtab {
	sqlite3_vtab base;
	struct recs_source *src;
};

struct recs_cursor {
	sqlite3_vtab_cursor base;
	struct recs_source *src;
	size_t i;  /* the record under the cursor, or nrecs */
};

static int recs_connect(sqlite3 *sql, void *aux, int argc, const char *const *argv,
			sqlite3_vtab **out, char **err)
{
	struct recs_source *src = aux;
	struct recs_vtab *t;
	char *decl;
	int rc;

	(void)argc, (void)argv, (void)err;
	decl = sqlite3_mprintf("CREATE TABLE x(%s)", tables[src->table].columns);
	if (!decl)
		return SQLITE_NOMEM;
	rc = sqlite3_declare_vtab(sql, decl);
	sqlite3_free(decl);
	if (rc != SQLITE_OK)
		return rc;
	/* Only for the writer's own statements: never from a trigger or a view. */
	sqlite3_vtab_config(sql, SQLITE_VTAB_DIRECTONLY);
	t = sqlite3_malloc(sizeof(*t));
	if (!t)
		return SQLITE_NOMEM;
	memset(t, 0, sizeof(*t));
	t->src = src;
	*out = &t->base;
	return SQLITE_OK;
}

static int recs_disconnect(sqlite3_vtab *t)
{
	sqlite3_free(t);
	return SQLITE_OK;
}

static int recs_best_index(sqlite3_vtab *t, sqlite3_index_info *info)
{
	(void)t;
	info->estimatedCost = 1000;
	return SQLITE_OK;
}

static int recs_open(sqlite3_vtab *t, sqlite3_vtab_cursor **out)
{
	struct recs_cursor *c = sqlite3_malloc(sizeof(*c));

	if (!c)
		return SQLITE_NOMEM;
	memset(c, 0, sizeof(*c));
	c->src = ((struct recs_vtab *)t)->src;
	*out = &c->base;
	return SQLITE_OK;
}

static int recs_close(sqlite3_vtab_cursor *c)
{
	sqlite3_free(c);
	return SQLITE_OK;
}

/* Move to the first record of the table's type at or after i. */
static void recs_seek(struct recs_cursor *c, size_t i)
{
	const struct db_writer *w = c->src->w;
	uint8_t type = tables[c->src->table].type;

	while (i < w->nrecs && w->recs[i].type != type)
		i++;
	c->i = i;
}

static int recs_filter(sqlite3_vtab_cursor *cur, int idx, const char *idx_str, int argc,
		       sqlite3_value **argv)
{
	(void)idx, (void)idx_str, (void)argc, (void)argv;
	recs_seek((struct recs_cursor *)cur, 0);
	return SQLITE_OK;
}

static int recs_next(sqlite3_vtab_cursor *cur)
{
	struct recs_cursor *c = (struct recs_cursor *)cur;
	recs_seek(c, c->i + 1);
	return SQLITE_OK;
}

static int recs_eof(sqlite3_vtab_cursor *cur)
{
	struct recs_cursor *c = (struct recs_cursor *)cur;
	return c->i >= c->src->w->nrecs;
}

static int recs_column(sqlite3_vtab_cursor *cur, sqlite3_context *ctx, int col)
{
	struct recs_cursor *c = (struct recs_cursor *)cur;
	int64_t v;

	if (rec_value(c->src->table, &c->src->w->recs[c->i], col, &v))
		sqlite3_result_int64(ctx, v);
	else
		sqlite3_result_null(ctx);
	return SQLITE_OK;
}

static int recs_rowid(sqlite3_vtab_cursor *cur, sqlite3_int64 *rowid)
{
	*rowid = (sqlite3_int64)((struct recs_cursor *)cur)->i;
	return SQLITE_OK;
}

/* Eponymous-only (no xCreate), read-only. */
static const sqlite3_module recs_module = {
	.iVersion = 0,
	.xConnect = recs_connect,
	.xBestIndex = recs_best_index,
	.xDisconnect = recs_disconnect,
	.xOpen = recs_open,
	.xClose = recs_close,
	.xFilter = recs_filter,
	.xNext = recs_next,
	.xEof = recs_eof,
	.xColumn = recs_column,
	.xRowid = recs_rowid,
};

struct db_writer *dbw_attach(struct db *db, char **err)
{
	struct db_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		db_fail(err, "out of memory");
		return NULL;
	}
	w->db = db;
	for (int t = 0; t < T_COUNT; t++) {
		w->src[t].w = w;
		w->src[t].table = t;
		if (sqlite3_create_module_v2(db->sql, tables[t].vtab, &recs_module, &w->src[t], NULL) !=
		    SQLITE_OK) {
			db_fail(err, "cannot write '%s': %s", db->path, sqlite3_errmsg(db->sql));
			dbw_detach(w);
			return NULL;
		}
		w->modules++;
	}
	/* The statements are prepared when first run (stmt()): with pages (ingest.c) the event inserts
	 * take only the late records, and a short run's have none. */
	return w;
}

/* Statement i, prepared the first time; NULL (errmsg set) when it cannot be. */
static sqlite3_stmt *stmt(struct db_writer *w, int i)
{
	if (!w->st[i] && !(w->st[i] = db_prepare(w->db, stmt_sql[i], NULL)) && !w->errmsg[0])
		snprintf(w->errmsg, sizeof(w->errmsg), "%s", sqlite3_errmsg(w->db->sql));
	return w->st[i];
}

void dbw_detach(struct db_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(w->st[i]);
	for (int i = 0; i < w->nkept; i++)
		sqlite3_finalize(w->kept[i].st);
	/* The modules point at w: gone with it (a NULL module drops the name). */
	for (int t = 0; t < w->modules; t++)
		sqlite3_create_module_v2(w->db->sql, tables[t].vtab, NULL, NULL, NULL);
	free(w);
}

const char *dbw_errmsg(struct db_writer *w)
{
	return w->errmsg[0] ? w->errmsg : db_errmsg(w->db);
}

/* Run and reset; every parameter is bound again (NULLs too) before the next run. */
static int step_reset(struct db_writer *w, sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	if (rc != SQLITE_DONE && !w->errmsg[0])
		snprintf(w->errmsg, sizeof(w->errmsg), "%s", sqlite3_errmsg(w->db->sql));
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/*
 * Run one statement with text/int parameters given as a format: 't' text
 * (NULL: NULL), 'i' int64, 'n' int64 or NULL for INT64_MIN.
 */
static int exec_params(struct db_writer *w, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st = NULL;
	va_list ap;
	int rc, k;

	for (k = 0; k < w->nkept && w->kept[k].sql != sql; k++)
		;
	if (k < w->nkept) {
		st = w->kept[k].st;
		sqlite3_clear_bindings(st);   /* a NULL text is left unbound below */
	} else {
		st = db_prepare(w->db, sql, NULL);
		if (!st)
			return -1;
		if (w->nkept < EXEC_KEPT)
			w->kept[w->nkept++] = (struct kept_stmt){ sql, st };
		else
			k = -1;   /* not kept: finalized after */
	}
	va_start(ap, fmt);
	for (int i = 0; fmt[i]; i++) {
		if (fmt[i] == 't') {
			const char *s = va_arg(ap, const char *);
			if (s)
				sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT);
		} else {
			int64_t v = va_arg(ap, int64_t);
			if (fmt[i] == 'i' || v != INT64_MIN)
				sqlite3_bind_int64(st, i + 1, v);
		}
	}
	va_end(ap);
	rc = step_reset(w, st);
	if (k < 0)
		sqlite3_finalize(st);
	return rc;
}

/*
 * The run's row, or the row 'mapprof record' left while the program ran
 * (db_mark_recording(): no command yet) filled in; a row that already holds
 * a run stays as it is, and that is an error.
 */
int dbw_run_info(struct db_writer *w, const struct run_info *ri)
{
	if (exec_params(w,
		"INSERT INTO run_raw (id, command, cwd, pid, host, start_time, start_ns,"
		" runtime, status, collector) VALUES (1,?,?,?,?,?,?,?,'recording',?)"
		" ON CONFLICT (id) DO UPDATE SET command = excluded.command, cwd = excluded.cwd,"
		" pid = excluded.pid, host = excluded.host, start_time = excluded.start_time,"
		" start_ns = excluded.start_ns, runtime = excluded.runtime, status = 'recording',"
		" status_detail = NULL, collector = excluded.collector WHERE run_raw.command IS NULL",
		"ttittitt", ri->command_json, ri->cwd, (int64_t)ri->pid, ri->host, ri->start_time,
		ri->start_ns, ri->runtime, ri->collector) < 0)
		return -1;
	/* No row changed: the conflict's WHERE found a run there already. */
	return sqlite3_changes(w->db->sql) == 1 ? 0 : 1;
}

int dbw_env(struct db_writer *w, const char *name, const char *value)
{
	return exec_params(w, "INSERT INTO env_raw (name, value) VALUES (?,?)", "tt", name, value);
}

int dbw_stat(struct db_writer *w, const char *name, int64_t value)
{
	if (!name)
		return 0;
	return exec_params(w, "INSERT OR REPLACE INTO stats_raw (name, value) VALUES (?,?)", "ti",
			   name, value);
}

int dbw_check(struct db_writer *w, const char *kind, int64_t seq, int device, int64_t host_addr,
	      int64_t first, int64_t end, int64_t bytes, const char *note)
{
	if (!kind)
		return 0;
	return exec_params(w, "INSERT INTO check_raw (kind, seq, device, host_addr, first_byte, end_byte,"
			   " bytes, note) VALUES (?,?,?,?,?,?,?,?)", "tiiiiiit", kind, seq, (int64_t)device,
			   host_addr, first, end, bytes, note);
}

int dbw_status(struct db_writer *w, const char *status, const char *detail)
{
	return exec_params(w, "UPDATE run_raw SET status = ?, status_detail = ? WHERE id = 1", "tt",
			   status, detail);
}

int dbw_end(struct db_writer *w, int64_t end_ns, uint64_t events_lost)
{
	return exec_params(w,
		"UPDATE run_raw SET end_ns = ?, events_lost = ?,"
		" status = CASE status WHEN 'recording' THEN 'complete' ELSE status END WHERE id = 1",
		"ii", end_ns, (int64_t)events_lost);
}

int dbw_device(struct db_writer *w, int num, const char *type, int64_t init_ns, int64_t fini_ns)
{
	if (fini_ns >= 0 && !type)
		return exec_params(w, "UPDATE device_raw SET fini_ns = ? WHERE num = ?", "ii",
				   fini_ns, (int64_t)num);
	return exec_params(w, "INSERT OR REPLACE INTO device_raw (num, type, init_ns) VALUES (?,?,?)",
			   "iti", (int64_t)num, type, init_ns);
}

int dbw_module(struct db_writer *w, const char *path, uint64_t base, uint64_t low, uint64_t high,
	       const char *build_id, int64_t seen_ns)
{
	sqlite3_stmt *st = stmt(w, ST_MODULE);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, path, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 2, (int64_t)base);
	sqlite3_bind_int64(st, 3, (int64_t)low);
	sqlite3_bind_int64(st, 4, (int64_t)high);
	if (build_id)
		sqlite3_bind_text(st, 5, build_id, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 5);
	sqlite3_bind_int64(st, 6, seen_ns);
	return step_reset(w, st);
}

int dbw_thread(struct db_writer *w, int id, long tid)
{
	return exec_params(w, "INSERT OR REPLACE INTO thread_raw (id, tid) VALUES (?,?)", "ii",
			   (int64_t)id, (int64_t)tid);
}

int dbw_process(struct db_writer *w, int64_t pid, int64_t ppid, int64_t rank, const char *rank_var,
		const char *started)
{
	if (rank < 0)
		return exec_params(w, "INSERT OR REPLACE INTO process_raw (id, pid, ppid, started)"
				   " VALUES (1,?,?,?)", "iit", pid, ppid, started);
	return exec_params(w, "INSERT OR REPLACE INTO process_raw (id, pid, ppid, rank, rank_var, started)"
			   " VALUES (1,?,?,?,?,?)", "iiitt", pid, ppid, rank, rank_var, started);
}

int dbw_image(struct db_writer *w, int device, const char *file, uint64_t host_addr,
	      uint64_t bytes, int64_t ns)
{
	return exec_params(w, "INSERT INTO image_raw (device, file, host_addr, bytes, ns) VALUES (?,?,?,?,?)",
			   "itiii", (int64_t)device, file, (int64_t)host_addr, (int64_t)bytes, ns);
}

int dbw_source(struct db_writer *w, uint64_t codeptr, const char *entry, const char *psource,
	       const char *map_names_json)
{
	return exec_params(w, "INSERT OR IGNORE INTO source_raw (codeptr, entry, psource, map_names)"
			   " VALUES (?,?,?,?)", "ittt", (int64_t)codeptr, entry, psource, map_names_json);
}

int dbw_acc_event(struct db_writer *w, const struct spool_field *f)
{
	return exec_params(w, "INSERT OR REPLACE INTO acc_event_raw (seq, event, parent_construct, implicit,"
			   " device_type, device_number, async, async_queue, valid_bytes, begin_ns, end_ns,"
			   " detail) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)", "ittntnnnnnnt", f[0].i, f[1].s, f[2].s,
			   f[3].i, f[4].s, f[5].i, f[6].i, f[7].i, f[8].i, f[9].i, f[10].i, f[11].s);
}

int dbw_hash_fix(struct db_writer *w, const struct spool_field *f)
{
	return exec_params(w, "INSERT INTO hash_fix_raw (device, host_addr, bytes, slot, from_seq, to_seq, known,"
			   " old_hash, new_hash) VALUES (?,?,?,?,?,?,?,?,?)", "iiiiiiiii", f[0].i, f[1].i, f[2].i,
			   f[3].i, f[4].i, f[5].i, f[6].i, f[7].i, f[8].i);
}

int dbw_begin(struct db_writer *w)
{
	return db_begin(w->db);
}

int dbw_commit(struct db_writer *w)
{
	return db_commit(w->db);
}

/*
 * Each table's rows through its INSERT ... SELECT over the records.  The
 * first failure ends it: SQLite may have rolled the whole transaction back
 * (a full disk), and a row inserted after that would be committed on its own.
 */
int dbw_records(struct db_writer *w, const struct rec *recs, size_t n)
{
	int rc = 0;

	w->recs = recs;
	w->nrecs = n;
	for (int t = 0; t < T_COUNT && rc == 0; t++) {
		sqlite3_stmt *st = stmt(w, ST_DATA_OPS + t);
		rc = st ? step_reset(w, st) : -1;
	}
	w->recs = NULL;
	w->nrecs = 0;
	return rc;
}
