/*
 * process.c - the process row of a database (process.h).
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/ingest/process.h"

static int has_table(struct db *db, const char *name)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT 1 FROM sqlite_master WHERE name = ?", NULL);
	int yes;

	if (!st)
		return 0;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	yes = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return yes;
}

int db_process_end(struct db *db, const struct process_end *e, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (!has_table(db, "process_raw"))
		return 0;  /* a database made before processes were recorded */
	if (db_begin(db) < 0)
		return db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (db_exec(db, "INSERT OR IGNORE INTO process_raw (id, pid, started)"
			" SELECT 1, pid, 'record' FROM run_raw WHERE id = 1", err) < 0)
		goto fail;
	st = db_prepare(db, "UPDATE process_raw SET ended = ?, exit_status = ?, exit_signal = ?,"
			    " recording = ? WHERE id = 1", err);
	if (!st)
		goto fail;
	sqlite3_bind_text(st, 1, e->ended, -1, SQLITE_STATIC);
	db_bind_opt_int64(st, 2, e->has_status, e->exit_status);
	db_bind_opt_int64(st, 3, e->has_status && e->signal, e->signal);
	sqlite3_bind_text(st, 4, e->recording, -1, SQLITE_STATIC);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto sql_fail;
	/* Not the program 'record' started: the run's exit status and resources were another's. */
	if (!e->has_status && strcmp(e->ended, "exec") &&
	    db_exec(db, "UPDATE run_raw SET exit_status = NULL, exit_signal = NULL, wall_ns = NULL,"
			" peak_rss_kb = NULL WHERE id = 1;"
			" DELETE FROM stats_raw WHERE name IN ('program_user_ns', 'program_sys_ns')", err) < 0)
		goto fail;
	if (e->detail || e->complete) {
		/*
		 * Complete only where the collector's missing end (db/ingest/finish.c)
		 * was the one thing missing; another reason stays, and is said.
		 */
		st = db_prepare(db, "UPDATE run_raw SET"
				    " status = CASE WHEN ?1 AND status_detail LIKE ?3 THEN 'complete' ELSE status END,"
				    " status_detail = CASE WHEN ?1 AND NOT status_detail LIKE ?3 THEN status_detail"
				    " ELSE COALESCE(?2, status_detail) END"
				    " WHERE id = 1 AND status = 'incomplete'", err);
		if (!st)
			goto fail;
		sqlite3_bind_int(st, 1, e->complete);
		if (e->detail)
			sqlite3_bind_text(st, 2, e->detail, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 3, "the program ended before the collector could finish%", -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE)
			goto sql_fail;
	}
	if (db_commit(db) < 0)
		goto sql_fail;
	return 0;
sql_fail:
	db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
fail:
	db_rollback(db);
	return -1;
}

static char *dup_col(sqlite3_stmt *st, int i)
{
	const unsigned char *s = sqlite3_column_text(st, i);
	return s ? strdup((const char *)s) : NULL;
}

/* 'record --ranks' as the collector kept it: the environment it saw (schema.sql env_raw). */
#define ENV_COLS \
	" (SELECT value FROM env_raw WHERE name = 'MAPPROF_RANKS' LIMIT 1)," \
	" (SELECT CAST(value AS INTEGER) FROM env_raw WHERE name = 'MAPPROF_WORLD_SIZE' LIMIT 1)"

int db_process_read(struct db *db, struct process_row *out, char **err)
{
	int proc = has_table(db, "process_raw");
	sqlite3_stmt *st;
	int rc;

	memset(out, 0, sizeof(*out));
	out->rank = -1;
	st = db_prepare(db, proc ?
		"SELECT COALESCE(p.pid, r.pid), p.ppid, p.rank, p.started, p.ended, r.command, p.recording,"
		" p.exit_status, p.exit_signal, r.end_ns IS NOT NULL, p.id IS NOT NULL," ENV_COLS
		" FROM run_raw r LEFT JOIN process_raw p ON p.id = 1 WHERE r.id = 1" :
		"SELECT r.pid, NULL, NULL, NULL, NULL, r.command, NULL, r.exit_status, r.exit_signal,"
		" r.end_ns IS NOT NULL, 0," ENV_COLS " FROM run_raw r WHERE r.id = 1", err);
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->pid = sqlite3_column_int64(st, 0);
		out->ppid = sqlite3_column_int64(st, 1);
		if (sqlite3_column_type(st, 2) != SQLITE_NULL)
			out->rank = sqlite3_column_int64(st, 2);
		out->started = dup_col(st, 3);
		out->ended = dup_col(st, 4);
		out->argv_json = dup_col(st, 5);
		out->recording = dup_col(st, 6);
		out->has_status = sqlite3_column_type(st, 7) != SQLITE_NULL;
		out->exit_status = sqlite3_column_int(st, 7);
		out->exit_signal = sqlite3_column_int(st, 8);
		out->has_end = sqlite3_column_int(st, 9);
		out->ranks = dup_col(st, 11);
		out->world_size = sqlite3_column_int64(st, 12);
		rc = sqlite3_column_int(st, 10) ? 0 : 1;
	} else if (rc == SQLITE_DONE) {
		rc = 1;
	} else {
		rc = db_fail(err, "cannot read '%s': %s", db->path, sqlite3_errmsg(db->sql));
	}
	sqlite3_finalize(st);
	return rc;
}

void process_row_release(struct process_row *p)
{
	if (p) {
		free(p->started);
		free(p->ended);
		free(p->argv_json);
		free(p->recording);
		free(p->ranks);
	}
}

int db_findings_stored(struct db *db)
{
	return has_table(db, "finding_summary_raw") &&
	       db_scalar(db, "SELECT EXISTS (SELECT 1 FROM finding_summary_raw)") == 1;
}

int db_finding_digests(struct db *db, struct process_totals *t,
		       int (*fn)(const struct finding_digest *, void *), void *arg, char **err)
{
	sqlite3_stmt *st;
	int rc;

	memset(t, 0, sizeof(*t));
	t->data_ops = (uint64_t)db_scalar(db, "SELECT COUNT(*) FROM data_op_raw");
	t->kernels = (uint64_t)db_scalar(db, "SELECT COUNT(*) FROM kernel_raw");
	t->savings_ns = db_scalar(db, "SELECT COALESCE(savings_ns, 0) FROM finding_summary_raw WHERE kind = 'all'");
	t->duration_ns = db_scalar(db, "SELECT COALESCE(duration_ns, 0) FROM finding_summary_raw WHERE kind = 'all'");
	st = db_prepare(db, "SELECT status FROM run_raw WHERE id = 1", NULL);
	if (st && sqlite3_step(st) == SQLITE_ROW)
		t->status = dup_col(st, 0);
	sqlite3_finalize(st);
	/* The first location's line, and the variable of the first operation. */
	st = db_prepare(db,
		"SELECT f.kind, f.flavour, f.fingerprint, f.occurrences, f.bytes, f.savings_ns,"
		" (SELECT v.variable FROM finding_event_raw e JOIN data_op_sources v ON v.seq = e.seq"
		"   WHERE e.finding = f.id ORDER BY e.occurrence LIMIT 1),"
		" l.file, l.line"
		" FROM finding_raw f LEFT JOIN location l ON l.codeptr = json_extract(f.locations, '$[0]')"
		" ORDER BY f.id", err);
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct finding_digest d = {
			(const char *)sqlite3_column_text(st, 0), (const char *)sqlite3_column_text(st, 1),
			(const char *)sqlite3_column_text(st, 2), (uint64_t)sqlite3_column_int64(st, 3),
			(uint64_t)sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
			(const char *)sqlite3_column_text(st, 6), (const char *)sqlite3_column_text(st, 7),
			sqlite3_column_int(st, 8),
		};
		int r;
		t->findings++;
		if (!d.kind || !d.fingerprint)
			continue;
		if ((r = fn(&d, arg))) {
			sqlite3_finalize(st);
			return r;
		}
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read the findings of '%s': %s", db->path, sqlite3_errmsg(db->sql));
	return 0;
}
