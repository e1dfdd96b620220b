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
struct pair_item {
	int64_t dev;
	uint64_t addr;
	int64_t end;
	int64_t seq;
	int is_delete;
};

struct pairer {
	struct pair_item *v;
	size_t n, cap;
	int failed;  /* out of memory */
};

struct pairer *pairer_new(void)
{
	return calloc(1, sizeof(struct pairer));
}

void pairer_free(struct pairer *p)
{
	if (p) {
		free(p->v);
		free(p);
	}
}

void pairer_add(struct pairer *p, int64_t seq, int is_delete, int64_t dev, uint64_t addr, int64_t end)
{
	if (p->n == p->cap) {
		size_t ncap = p->cap ? p->cap * 2 : 4096;
		struct pair_item *nv = realloc(p->v, ncap * sizeof(*nv));
		if (!nv) {
			p->failed = 1;
			return;
		}
		p->v = nv;
		p->cap = ncap;
	}
	p->v[p->n++] = (struct pair_item){ dev, addr, end, seq, is_delete };
}

static int cmp_item(const void *a, const void *b)
{
	const struct pair_item *x = a, *y = b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->end != y->end)
		return x->end < y->end ? -1 : 1;
	if (x->is_delete != y->is_delete)
		return x->is_delete - y->is_delete;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int pairer_write(struct pairer *p, struct db *db, char **err)
{
	sqlite3_stmt *ins;
	int64_t alloc_seq = 0;
	int have_alloc = 0;

	if (p->failed)
		return db_fail(err, "out of memory pairing deletes");
	if (db_exec(db, "DELETE FROM delete_pair_raw", err) < 0)
		return -1;
	ins = db_prepare(db, "INSERT INTO delete_pair_raw (delete_seq, alloc_seq) VALUES (?, ?)", err);
	if (!ins)
		return -1;
	if (p->n)  /* no deletes nor allocations: p->v is NULL, which qsort may not take */
		qsort(p->v, p->n, sizeof(*p->v), cmp_item);
	for (size_t i = 0; i < p->n; i++) {
		const struct pair_item *it = &p->v[i];
		if (i && (it->dev != p->v[i - 1].dev || it->addr != p->v[i - 1].addr))
			have_alloc = 0;
		if (!it->is_delete) {
			alloc_seq = it->seq;
			have_alloc = 1;
		} else if (have_alloc) {
			sqlite3_bind_int64(ins, 1, it->seq);
			sqlite3_bind_int64(ins, 2, alloc_seq);
			if (sqlite3_step(ins) != SQLITE_DONE) {
				sqlite3_finalize(ins);
				return db_fail(err, "cannot pair deletes in '%s': %s", db->path,
					       sqlite3_errmsg(db->sql));
			}
			sqlite3_reset(ins);
			have_alloc = 0;  /* freed: a second delete of it pairs with nothing */
		}
	}
	sqlite3_finalize(ins);
	return db_exec(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('deletes_paired', '1')", err);
}

/* Host side of a map: an alloc's source, a transfer's host end. */
static const char host_sql[] =
	"UPDATE run_raw SET host_device = COALESCE("
	"  (SELECT src_dev FROM data_op_raw WHERE kind IN (1, 17) LIMIT 1),"
	"  (SELECT src_dev FROM data_op_raw WHERE kind IN (2, 18) AND hash IS NOT NULL LIMIT 1),"
	"  (SELECT dst_dev FROM data_op_raw WHERE kind IN (3, 19) AND hash IS NOT NULL LIMIT 1),"
	"  host_device) WHERE id = 1";

/* Inside a transaction: pair from the table (when the spool was not paired while replayed). */
static int pair_deletes(struct db *db, char **err)
{
	struct pairer *p = pairer_new();
	sqlite3_stmt *sel;
	int rc;

	if (!p)
		return db_fail(err, "out of memory");
	sel = db_prepare(db, "SELECT seq, kind IN (4, 20), CASE WHEN kind IN (4, 20) THEN src_dev ELSE dst_dev END,"
			 " CASE WHEN kind IN (4, 20) THEN src_addr ELSE dst_addr END, begin_ns + dur_ns"
			 " FROM data_op_raw WHERE kind IN (1, 17, 4, 20)", err);
	if (!sel) {
		pairer_free(p);
		return -1;
	}
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW)
		pairer_add(p, sqlite3_column_int64(sel, 0), sqlite3_column_int(sel, 1),
			   sqlite3_column_int64(sel, 2), (uint64_t)sqlite3_column_int64(sel, 3),
			   sqlite3_column_int64(sel, 4));
	sqlite3_finalize(sel);
	if (rc != SQLITE_DONE) {
		pairer_free(p);
		return db_fail(err, "cannot pair deletes in '%s': %s", db->path, sqlite3_errmsg(db->sql));
	}
	rc = pairer_write(p, db, err);
	pairer_free(p);
	return rc;
}

int db_set_host_device(struct db *db, char **err)
{
	return db_exec(db, host_sql, err);
}

static long long scalar(struct db *db, const char *sql);

int db_finish_run(struct db *db, const struct run_end *end, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (db_begin(db) < 0)
		return db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (end->lost_why) {
		st = db_prepare(db, "INSERT OR IGNORE INTO run_raw (id, status, status_detail)"
				" VALUES (1, 'incomplete', 'the events could not be expanded into the database: ' || ?)", err);
		if (!st)
			goto fail;
		sqlite3_bind_text(st, 1, end->lost_why, -1, SQLITE_TRANSIENT);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
			goto fail;
		}
	}
	/* The collector never started: the program does not use OpenMP (or not this runtime). */
	if (db_exec(db,
		    "INSERT OR IGNORE INTO run_raw (id, status, status_detail) VALUES (1, 'no-collector',"
		    " 'the OpenMP runtime never loaded the mapprof collector: the program may not use"
		    " OpenMP, use a runtime without OMPT, or have OMP_TOOL=disabled')", err) < 0)
		goto fail;
	if ((!scalar(db, "SELECT COUNT(*) FROM meta WHERE key = 'deletes_paired'") &&
	     pair_deletes(db, err) < 0) || db_set_host_device(db, err) < 0)
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
	/* Offload calls were seen (the collector's entry-point records) but no
	 * OMPT target event came: the runtime's OMPT link is broken, not the
	 * program.  LLVM's libomptarget attaches to libomp's OMPT interface by
	 * opening "libomp.so" from libLLVM's directory, which fails where that
	 * is the system library directory (Debian without llvm-N-dev). */
	if (db_exec(db,
		    "UPDATE run_raw SET status = 'incomplete', status_detail = 'the program called the"
		    " offload entry points, but the OpenMP runtime delivered no target event: libomptarget"
		    " did not attach to the OMPT interface of libomp (it opens libomp.so from the directory"
		    " of libLLVM; on Debian and Ubuntu install llvm-<version>-dev, or run with"
		    " LD_LIBRARY_PATH naming the directory of libomp.so)' WHERE id = 1 AND status = 'complete'"
		    " AND NOT EXISTS (SELECT 1 FROM target_raw) AND NOT EXISTS (SELECT 1 FROM data_op_raw)"
		    " AND EXISTS (SELECT 1 FROM source_raw)", err) < 0 ||
	    db_exec(db,
		    "UPDATE run_raw SET status_detail = 'the program ran no target construct: nothing was"
		    " offloaded (was it built with -fopenmp-targets=...?)' WHERE id = 1 AND status = 'complete'"
		    " AND NOT EXISTS (SELECT 1 FROM target_raw) AND NOT EXISTS (SELECT 1 FROM data_op_raw)",
		    err) < 0)
		goto fail;
	if (db_commit(db) < 0) {
		db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
		goto fail;
	}
	return 0;
fail:
	db_rollback(db);
	return -1;
}

int db_pair_deletes_if_needed(struct db *db, char **err)
{
	if (scalar(db, "SELECT COUNT(*) FROM meta WHERE key = 'deletes_paired'"))
		return 0;
	if (db_begin(db) < 0)
		return db_fail(err, "cannot pair deletes in '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (pair_deletes(db, err) < 0 || db_set_host_device(db, err) < 0)
		goto fail;
	if (db_commit(db) < 0) {
		db_fail(err, "cannot pair deletes in '%s': %s", db->path, sqlite3_errmsg(db->sql));
		goto fail;
	}
	return 0;
fail:
	db_rollback(db);
	return -1;
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
