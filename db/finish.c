/*
 * finish.c - what 'mapprof record' adds once the program has ended.
 *
 * Kept out of the profiled program on purpose: the work here (an index and a
 * pass over the deletes) would otherwise run inside the program's exit.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/finish.h"

/*
 * A delete names the device address it frees.  Its allocation is the latest
 * one at that (device, address) that had completed by the time the delete
 * completed, and not already freed: an address is only handed out again after
 * it was freed, so ordering by completion is safe even when threads
 * interleave.  One sorted pass: (device, address, end), allocations first on
 * ties.
 */
static const char pairs_sql[] =
	"SELECT seq, is_delete, dev, addr FROM ("
	"  SELECT seq, 0 AS is_delete, dst_dev AS dev, dst_addr AS addr, begin_ns + dur_ns AS e"
	"    FROM data_op_raw WHERE kind IN (1, 17)"
	"  UNION ALL"
	"  SELECT seq, 1, src_dev, src_addr, begin_ns + dur_ns FROM data_op_raw WHERE kind IN (4, 20))"
	" ORDER BY dev, addr, e, is_delete, seq";

/* Host side of a map: an alloc's source, a transfer's host end. */
static const char host_sql[] =
	"UPDATE run_raw SET host_device = COALESCE("
	"  (SELECT src_dev FROM data_op_raw WHERE kind IN (1, 17) LIMIT 1),"
	"  (SELECT src_dev FROM data_op_raw WHERE kind IN (2, 18) AND hash IS NOT NULL LIMIT 1),"
	"  (SELECT dst_dev FROM data_op_raw WHERE kind IN (3, 19) AND hash IS NOT NULL LIMIT 1),"
	"  host_device) WHERE id = 1;"
	"INSERT OR REPLACE INTO meta (key, value) VALUES ('deletes_paired', '1');";

/* Inside a transaction: fill delete_pair_raw and run.host_device. */
static int pair_deletes(struct db *db, char **err)
{
	sqlite3_stmt *sel = NULL, *ins = NULL;
	int64_t alloc_seq = 0, dev = 0, addr = 0;
	int have_alloc = 0, rc;

	if (db_exec(db, "DELETE FROM delete_pair_raw", err) < 0)
		return -1;
	sel = db_prepare(db, pairs_sql, err);
	ins = sel ? db_prepare(db, "INSERT INTO delete_pair_raw (delete_seq, alloc_seq) VALUES (?, ?)", err) : NULL;
	if (!ins) {
		sqlite3_finalize(sel);
		return -1;
	}
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(sel, 0);
		int64_t d = sqlite3_column_int64(sel, 2), a = sqlite3_column_int64(sel, 3);
		if (d != dev || a != addr) {
			dev = d;
			addr = a;
			have_alloc = 0;
		}
		if (!sqlite3_column_int(sel, 1)) {
			alloc_seq = seq;
			have_alloc = 1;
		} else if (have_alloc) {
			sqlite3_bind_int64(ins, 1, seq);
			sqlite3_bind_int64(ins, 2, alloc_seq);
			if (sqlite3_step(ins) != SQLITE_DONE)
				break;
			sqlite3_reset(ins);
			have_alloc = 0;  /* freed: a second delete of it pairs with nothing */
		}
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot pair deletes in '%s': %s", db->path, sqlite3_errmsg(db->sql));
	return db_exec(db, host_sql, err);
}

int db_finish_run(struct db *db, const struct run_end *end, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (db_exec(db, "BEGIN", err) < 0)
		return -1;
	/* The collector never started: the program does not use OpenMP (or not this runtime). */
	if (db_exec(db,
		    "INSERT OR IGNORE INTO run_raw (id, status, status_detail) VALUES (1, 'no-collector',"
		    " 'the OpenMP runtime never loaded the mapprof collector: the program may not use"
		    " OpenMP, use a runtime without OMPT, or have OMP_TOOL=disabled')", err) < 0 ||
	    pair_deletes(db, err) < 0)
		goto fail;
	st = db_prepare(db, "UPDATE run_raw SET exit_status = ?, exit_signal = ?, wall_ns = ?, peak_rss_kb = ?,"
			    " status = CASE status WHEN 'recording' THEN 'incomplete' ELSE status END,"
			    " status_detail = CASE status WHEN 'recording' THEN"
			    "   'the program ended before the collector could finish (killed, or _exit)'"
			    "   ELSE status_detail END WHERE id = 1", err);
	if (!st)
		goto fail;
	sqlite3_bind_int(st, 1, end->exit_status);
	db_bind_opt_int64(st, 2, end->signal != 0, end->signal);
	db_bind_opt_int64(st, 3, end->wall_ns > 0, end->wall_ns);
	db_bind_opt_int64(st, 4, end->peak_rss_kb > 0, end->peak_rss_kb);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
		goto fail;
	}
	if (db_exec(db,
		    "UPDATE run_raw SET status_detail = 'the program ran no target construct: nothing was"
		    " offloaded (was it built with -fopenmp-targets=...?)' WHERE id = 1 AND status = 'complete'"
		    " AND NOT EXISTS (SELECT 1 FROM target_raw) AND NOT EXISTS (SELECT 1 FROM data_op_raw)",
		    err) < 0 || db_exec(db, "COMMIT", err) < 0)
		goto fail;
	return 0;
fail:
	db_rollback(db);
	return -1;
}

static long long scalar(struct db *db, const char *sql);

int db_pair_deletes_if_needed(struct db *db, char **err)
{
	if (scalar(db, "SELECT COUNT(*) FROM meta WHERE key = 'deletes_paired'"))
		return 0;
	if (db_exec(db, "BEGIN", err) < 0)
		return -1;
	if (pair_deletes(db, err) < 0 || db_exec(db, "COMMIT", err) < 0) {
		db_rollback(db);
		return -1;
	}
	return 0;
}

static long long scalar(struct db *db, const char *sql)
{
	sqlite3_stmt *st = db_prepare(db, sql, NULL);
	long long v = 0;
	if (st && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int db_record_counts(struct db *db, struct record_counts *out)
{
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	out->data_ops = scalar(db, "SELECT COUNT(*) FROM data_op_raw");
	out->kernels = scalar(db, "SELECT COUNT(*) FROM kernel_raw");
	out->targets = scalar(db, "SELECT COUNT(*) FROM target_raw");
	out->transfers_bytes = scalar(db, "SELECT COALESCE(SUM(bytes), 0) FROM data_op_raw WHERE kind IN (2, 3, 18, 19)");
	out->lost = scalar(db, "SELECT COALESCE(events_lost, 0) FROM run_raw");
	st = db_prepare(db, "SELECT status, status_detail FROM run_raw WHERE id = 1", NULL);
	if (st && sqlite3_step(st) == SQLITE_ROW) {
		const unsigned char *s = sqlite3_column_text(st, 0);
		const unsigned char *d = sqlite3_column_text(st, 1);
		out->status = s ? strdup((const char *)s) : NULL;
		out->status_detail = d ? strdup((const char *)d) : NULL;
	}
	sqlite3_finalize(st);
	return 0;
}

void record_counts_release(struct record_counts *c)
{
	free(c->status);
	free(c->status_detail);
}
