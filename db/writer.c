/*
 * writer.c - writing recorded events into the database's tables (the spool
 * is replayed through these calls, see db/ingest.c).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db_internal.h"
#include "db/writer.h"

enum {
	ST_DATA_OP,
	ST_KERNEL,
	ST_TARGET,
	ST_MODULE,
	ST_DATA_OPS,  /* the three event inserts, BATCH_ROWS rows at a time */
	ST_KERNELS,
	ST_TARGETS,
	ST_COUNT
};

#define BATCH_ROWS 32

static const char *const stmt_sql[ST_COUNT] = {
	[ST_DATA_OP] = "INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr,"
		       " bytes, begin_ns, dur_ns, hash, codeptr, target_id, map_index)"
		       " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
	[ST_KERNEL] = "INSERT INTO kernel_raw (seq, thread, target_id, device, teams, begin_ns, dur_ns)"
		      " VALUES (?,?,?,?,?,?,?)",
	[ST_TARGET] = "INSERT INTO target_raw (id, seq, thread, kind, device, begin_ns, dur_ns, codeptr)"
		      " VALUES (?,?,?,?,?,?,?,?)",
	[ST_MODULE] = "INSERT OR IGNORE INTO module_raw (path, base, low, high, build_id, seen_ns)"
		      " VALUES (?,?,?,?,?,?)",
};

struct db_writer {
	struct db *db;
	sqlite3_stmt *st[ST_COUNT];
	char errmsg[256];  /* the first failed step's message (a reset clears SQLite's) */
};

/* stmt_sql[one] with its VALUES group repeated BATCH_ROWS times (malloc'ed). */
static char *multi_row_sql(int one)
{
	const char *sql = stmt_sql[one], *values = strstr(sql, " VALUES ");
	size_t head = (size_t)(values - sql) + 8, group = strlen(values + 8);
	char *out = malloc(head + BATCH_ROWS * (group + 1) + 1), *p = out;

	if (!out)
		return NULL;
	memcpy(p, sql, head);
	p += head;
	for (int i = 0; i < BATCH_ROWS; i++) {
		if (i)
			*p++ = ',';
		memcpy(p, values + 8, group);
		p += group;
	}
	*p = 0;
	return out;
}

struct db_writer *dbw_attach(struct db *db, char **err)
{
	struct db_writer *w = calloc(1, sizeof(*w));

	if (!w) {
		db_fail(err, "out of memory");
		return NULL;
	}
	w->db = db;
	for (int i = 0; i < ST_COUNT; i++) {
		if (i >= ST_DATA_OPS) {
			char *sql = multi_row_sql(i - ST_DATA_OPS + ST_DATA_OP);
			w->st[i] = sql ? db_prepare(db, sql, err) : NULL;
			if (!sql)
				db_fail(err, "out of memory");
			free(sql);
		} else {
			w->st[i] = db_prepare(db, stmt_sql[i], err);
		}
		if (!w->st[i]) {
			dbw_detach(w);
			return NULL;
		}
	}
	return w;
}

void dbw_detach(struct db_writer *w)
{
	if (!w)
		return;
	for (int i = 0; i < ST_COUNT; i++)
		sqlite3_finalize(w->st[i]);
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

/* Run one statement with text/int parameters given as a format: 't' text, 'i' int64. */
static int exec_params(struct db_writer *w, const char *sql, const char *fmt, ...)
{
	sqlite3_stmt *st = db_prepare(w->db, sql, NULL);
	va_list ap;
	int rc;

	if (!st)
		return -1;
	va_start(ap, fmt);
	for (int i = 0; fmt[i]; i++) {
		if (fmt[i] == 't') {
			const char *s = va_arg(ap, const char *);
			if (s)
				sqlite3_bind_text(st, i + 1, s, -1, SQLITE_TRANSIENT);
		} else {
			sqlite3_bind_int64(st, i + 1, va_arg(ap, int64_t));
		}
	}
	va_end(ap);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : -1;
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
	sqlite3_stmt *st = w->st[ST_MODULE];
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

int dbw_begin(struct db_writer *w)
{
	return db_begin(w->db);
}

int dbw_commit(struct db_writer *w)
{
	return db_commit(w->db);
}

/* A record's duration; a damaged spool's times wrap instead of overflowing. */
static int64_t dur_ns(const struct rec *r)
{
	return (int64_t)((uint64_t)r->end_ns - (uint64_t)r->begin_ns);
}

/* Bind one record's values from parameter k + 1 on. */
static void bind_data_op(sqlite3_stmt *st, int k, const struct rec *r)
{
	sqlite3_bind_int64(st, k + 1, (int64_t)r->seq);
	sqlite3_bind_int(st, k + 2, r->thread);
	sqlite3_bind_int(st, k + 3, r->kind);
	sqlite3_bind_int(st, k + 4, r->src_dev);
	sqlite3_bind_int(st, k + 5, r->dst_dev);
	sqlite3_bind_int64(st, k + 6, (int64_t)r->src_addr);
	sqlite3_bind_int64(st, k + 7, (int64_t)r->dst_addr);
	sqlite3_bind_int64(st, k + 8, (int64_t)r->bytes);
	sqlite3_bind_int64(st, k + 9, r->begin_ns);
	sqlite3_bind_int64(st, k + 10, dur_ns(r));
	db_bind_opt_int64(st, k + 11, r->has_hash, (int64_t)r->hash);
	sqlite3_bind_int64(st, k + 12, (int64_t)r->codeptr);
	db_bind_opt_int64(st, k + 13, r->target_id != 0, (int64_t)r->target_id);
	db_bind_opt_int64(st, k + 14, r->map_index >= 0, r->map_index);
}

static void bind_kernel(sqlite3_stmt *st, int k, const struct rec *r)
{
	sqlite3_bind_int64(st, k + 1, (int64_t)r->seq);
	sqlite3_bind_int(st, k + 2, r->thread);
	db_bind_opt_int64(st, k + 3, r->target_id != 0, (int64_t)r->target_id);
	sqlite3_bind_int(st, k + 4, r->src_dev);
	sqlite3_bind_int64(st, k + 5, r->teams);
	sqlite3_bind_int64(st, k + 6, r->begin_ns);
	sqlite3_bind_int64(st, k + 7, dur_ns(r));
}

static void bind_target(sqlite3_stmt *st, int k, const struct rec *r)
{
	sqlite3_bind_int64(st, k + 1, (int64_t)r->target_id);
	sqlite3_bind_int64(st, k + 2, (int64_t)r->seq);
	sqlite3_bind_int(st, k + 3, r->thread);
	sqlite3_bind_int(st, k + 4, r->kind);
	sqlite3_bind_int(st, k + 5, r->src_dev);
	sqlite3_bind_int64(st, k + 6, r->begin_ns);
	sqlite3_bind_int64(st, k + 7, dur_ns(r));
	sqlite3_bind_int64(st, k + 8, (int64_t)r->codeptr);
}

static const struct {
	uint8_t type;
	int one, many;  /* statements for one row and for BATCH_ROWS rows */
	int nparams;
	void (*bind)(sqlite3_stmt *st, int k, const struct rec *r);
} rec_tables[] = {
	{ REC_DATA_OP, ST_DATA_OP, ST_DATA_OPS, 14, bind_data_op },
	{ REC_KERNEL, ST_KERNEL, ST_KERNELS, 7, bind_kernel },
	{ REC_TARGET, ST_TARGET, ST_TARGETS, 8, bind_target },
};

/*
 * Rows go in BATCH_ROWS at a time through one multi-row INSERT (a third of
 * the cost of one statement per row), the remainder one by one.  The first
 * failure ends it: SQLite may have rolled the whole transaction back (a full
 * disk), and a row inserted after that would be committed on its own.
 */
int dbw_records(struct db_writer *w, const struct rec *recs, size_t n)
{
	const struct rec *batch[BATCH_ROWS];

	for (size_t t = 0; t < sizeof(rec_tables) / sizeof(rec_tables[0]); t++) {
		int nb = 0;
		for (size_t i = 0; i < n; i++) {
			if (recs[i].type != rec_tables[t].type)
				continue;
			batch[nb++] = &recs[i];
			if (nb < BATCH_ROWS)
				continue;
			for (int j = 0; j < nb; j++)
				rec_tables[t].bind(w->st[rec_tables[t].many], j * rec_tables[t].nparams, batch[j]);
			if (step_reset(w, w->st[rec_tables[t].many]) < 0)
				return -1;
			nb = 0;
		}
		for (int j = 0; j < nb; j++) {
			rec_tables[t].bind(w->st[rec_tables[t].one], 0, batch[j]);
			if (step_reset(w, w->st[rec_tables[t].one]) < 0)
				return -1;
		}
	}
	return 0;
}
