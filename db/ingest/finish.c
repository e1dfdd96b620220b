/*
 * finish.c - what 'mapprof record' adds once the program has ended.
 *
 * Kept out of the profiled program on purpose: the work here (an index and a
 * pass over the deletes) would otherwise run inside the program's exit.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/ingest/finish.h"
#include "db/spool/spool.h"
#include "lib/grow.h"
#include "lib/hmap.h"
#include "lib/shquote.h"

/*
 * A delete names the device address it frees.  Its allocation is the latest
 * one at that (device, address) that had completed by the time the delete
 * completed, and not already freed: an address is only handed out again after
 * it was freed, so ordering by completion is safe even when threads
 * interleave.  In (device, address, end) order, allocations first on ties, a
 * delete is paired exactly when the item before it at the same address is an
 * allocation (a delete before it either took that allocation or found none).
 *
 * Done in SQL with a window over the table, not in memory: SQLite sorts in
 * bounded memory (spilling to a temporary file), where an array of every
 * allocation and delete grew with the run (53 MB of 'mapprof record' on a
 * four-million-event run).
 */
/*
 * Each delete is paired with the allocation it frees: in the stream of the
 * allocations and deletes of one (device, device address), ordered by end
 * time, a delete right after an allocation frees it.  SQLite sorts (to
 * temporary files when the run is large: bounded memory); this walks the
 * sorted rows once, keeping only the previous one.  A window function
 * (LAG ... PARTITION BY) says the same but took three times as long.
 */
static const char pair_sql[] =
	"SELECT seq, kind IN (4, 20) AS is_delete,"
	" CASE WHEN kind IN (4, 20) THEN src_dev ELSE dst_dev END AS dev,"
	" CASE WHEN kind IN (4, 20) THEN src_addr ELSE dst_addr END AS addr,"
	" begin_ns + dur_ns AS end_ns"
	" FROM data_op_raw WHERE kind IN (1, 17, 4, 20)"
	" ORDER BY dev, addr, end_ns, is_delete, seq";

/* A column's value, NULL told apart from every number (as PARTITION BY does). */
struct key_col {
	int null;
	int64_t v;
};

static struct key_col key_col(sqlite3_stmt *st, int i)
{
	struct key_col k = { sqlite3_column_type(st, i) == SQLITE_NULL, 0 };
	if (!k.null)
		k.v = sqlite3_column_int64(st, i);
	return k;
}

static int key_eq(struct key_col a, struct key_col b)
{
	return a.null == b.null && (a.null || a.v == b.v);
}

/* Host side of a map: an alloc's source, a transfer's host end. */
static const char host_sql[] =
	"UPDATE run_raw SET host_device = COALESCE("
	"  (SELECT src_dev FROM data_op_raw WHERE kind IN (1, 17) LIMIT 1),"
	"  (SELECT src_dev FROM data_op_raw WHERE kind IN (2, 18) AND hash IS NOT NULL LIMIT 1),"
	"  (SELECT dst_dev FROM data_op_raw WHERE kind IN (3, 19) AND hash IS NOT NULL LIMIT 1),"
	"  host_device) WHERE id = 1";

/*
 * Late attached pointer slots' fixes (hash_fix_raw, collector/attach.h).
 * A transfer between the host and a fix's device whose host range holds the
 * fix's slot, between the buffer's allocation and the slot (from_seq < seq <
 * to_seq), takes the fixes that cover it in the order they were learned: a
 * hash equal to new_hash stays (taken after the slot was known: a copy back
 * hashed late), one equal to old_hash becomes new_hash, any other NULL (not
 * the bytes of the device copy then, or only part of them).  One pass over
 * the transfers of the fixes' windows, whatever their number.  An older
 * database without the table has none.
 */
struct hash_fix {
	int64_t id, known, old_h, new_h, from, to, dev, slot;
};

static int fix_by_slot(const void *a, const void *b)
{
	const struct hash_fix *x = a, *y = b;
	return (x->slot > y->slot) - (x->slot < y->slot);
}

static int fix_by_order(const void *a, const void *b)
{
	const struct hash_fix *x = *(const struct hash_fix *const *)a, *y = *(const struct hash_fix *const *)b;
	if (x->to != y->to)
		return (x->to > y->to) - (x->to < y->to);
	return (x->id > y->id) - (x->id < y->id);
}

struct hash_change {
	int64_t seq, hash;
	int known;
};

/* op's hash after the fixes that cover it (fx sorted by slot); 0 when it is no longer known. */
static int fixed_hash(const struct hash_fix *fx, size_t nfx, int64_t seq, int64_t dev, int64_t host, int64_t bytes,
		      int64_t *hash)
{
	const struct hash_fix *on[16];
	size_t lo = 0, hi = nfx, n = 0;

	/* The first slot that can end inside [host, host + bytes): slot + 8 > host. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (fx[mid].slot + 8 <= host)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (size_t i = lo; i < nfx && fx[i].slot < host + bytes; i++) {
		if (fx[i].dev != dev || seq <= fx[i].from || seq >= fx[i].to)
			continue;
		if (n == sizeof(on) / sizeof(on[0]))
			return 0;   /* more than can be ordered here: not known */
		on[n++] = &fx[i];
	}
	qsort(on, n, sizeof(on[0]), fix_by_order);
	for (size_t i = 0; i < n; i++) {
		if (on[i]->known && *hash == on[i]->new_h)
			continue;
		if (!on[i]->known || *hash != on[i]->old_h)
			return 0;
		*hash = on[i]->new_h;
	}
	return 1;
}

static int apply_hash_fixes(struct db *db, char **err)
{
	struct hash_fix *fx = NULL;
	struct hash_change *ch = NULL;
	size_t nfx = 0, cap = 0, nch = 0, chcap = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	sqlite3_stmt *st;
	int rc, ret = -1;

	if (!db_scalar(db, "SELECT COUNT(*) FROM hash_fix_raw"))   /* (0 without the table) */
		return 0;
	st = db_prepare(db, "SELECT id, known, old_hash, new_hash, from_seq, to_seq, device, slot FROM hash_fix_raw",
			err);
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (grow_one((void **)&fx, &cap, nfx, sizeof(*fx)) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		fx[nfx] = (struct hash_fix){ sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
					     sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
					     sqlite3_column_int64(st, 4), sqlite3_column_int64(st, 5),
					     sqlite3_column_int64(st, 6), sqlite3_column_int64(st, 7) };
		lo = fx[nfx].from < lo ? fx[nfx].from : lo;
		hi = fx[nfx].to > hi ? fx[nfx].to : hi;
		nfx++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto out_fail;
	qsort(fx, nfx, sizeof(*fx), fix_by_slot);
	/* The transfers of the windows, once. */
	st = db_prepare(db, "SELECT seq, kind, src_dev, dst_dev, src_addr, dst_addr, bytes, hash FROM data_op_raw"
			    " WHERE seq > ?1 AND seq < ?2 AND kind IN (2, 3, 18, 19) AND hash IS NOT NULL", err);
	if (!st)
		goto out;
	sqlite3_bind_int64(st, 1, lo);
	sqlite3_bind_int64(st, 2, hi);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int to = sqlite3_column_int(st, 1) == 2 || sqlite3_column_int(st, 1) == 18;
		int64_t seq = sqlite3_column_int64(st, 0), hash = sqlite3_column_int64(st, 7), was = hash;
		int64_t dev = sqlite3_column_int64(st, to ? 3 : 2), host = sqlite3_column_int64(st, to ? 4 : 5);
		int known = fixed_hash(fx, nfx, seq, dev, host, sqlite3_column_int64(st, 6), &hash);
		if (known && hash == was)
			continue;
		if (grow_one((void **)&ch, &chcap, nch, sizeof(*ch)) < 0) {
			rc = SQLITE_NOMEM;
			break;
		}
		ch[nch++] = (struct hash_change){ seq, hash, known };
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		goto out_fail;
	st = db_prepare(db, "UPDATE data_op_raw SET hash = ?2 WHERE seq = ?1", err);
	if (!st)
		goto out;
	for (size_t i = 0; i < nch; i++) {
		sqlite3_bind_int64(st, 1, ch[i].seq);
		if (ch[i].known)
			sqlite3_bind_int64(st, 2, ch[i].hash);
		else
			sqlite3_bind_null(st, 2);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
		if (rc != SQLITE_DONE)
			break;
	}
	sqlite3_finalize(st);
	if (nch && rc != SQLITE_DONE)
		goto out_fail;
	/* Applied once: a database finished again (recover) must not apply them twice. */
	ret = db_exec(db, "DELETE FROM hash_fix_raw WHERE 1", err);
	goto out;
out_fail:
	if (rc == SQLITE_NOMEM)
		db_fail(err, "out of memory");
	else
		db_fail(err, "cannot fix hashes in '%s': %s", db->path, sqlite3_errmsg(db->sql));
out:
	free(fx);
	free(ch);
	return ret;
}

int db_pair_deletes(struct db *db, char **err)
{
	sqlite3_stmt *sel, *ins;
	struct key_col dev = { 1, 0 }, addr = { 1, 0 };
	int64_t prev_seq = 0;
	int have_prev = 0, prev_delete = 0, rc;

	/* (SQLite truncates the table: no update hook says so, and the pages in the file are stale now) */
	db_table_written(db, "delete_pair_raw");
	if (db_exec(db, "DELETE FROM delete_pair_raw", err) < 0)
		return -1;
	sel = db_prepare(db, pair_sql, err);
	ins = sel ? db_prepare(db, "INSERT INTO delete_pair_raw (delete_seq, alloc_seq) VALUES (?, ?)", err)
		  : NULL;
	if (!ins) {
		sqlite3_finalize(sel);
		return -1;
	}
	while ((rc = sqlite3_step(sel)) == SQLITE_ROW) {
		int64_t seq = sqlite3_column_int64(sel, 0);
		int is_delete = sqlite3_column_int(sel, 1);
		struct key_col d = key_col(sel, 2), a = key_col(sel, 3);

		if (!have_prev || !key_eq(d, dev) || !key_eq(a, addr)) {
			dev = d;
			addr = a;
			have_prev = 0;
		}
		if (is_delete && have_prev && !prev_delete) {
			sqlite3_bind_int64(ins, 1, seq);
			sqlite3_bind_int64(ins, 2, prev_seq);
			if (sqlite3_step(ins) != SQLITE_DONE) {
				rc = SQLITE_ERROR;
				break;
			}
			sqlite3_reset(ins);
		}
		have_prev = 1;
		prev_delete = is_delete;
		prev_seq = seq;
	}
	sqlite3_finalize(sel);
	sqlite3_finalize(ins);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot pair deletes in '%s': %s", db->path, sqlite3_errmsg(db->sql));
	return db_exec(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('deletes_paired', '1')", err);
}

/*
 * Pairing while the spool is replayed, without the sort above: taken in
 * pair_sql's order (end, allocations first, seq), "a delete right after an
 * allocation at its address frees it" needs only the last item of each
 * address.  The spool is nearly in that order already: the allocations and
 * deletes wait in a heap in that order, PAIR_WINDOW of them, which puts
 * right what the writers mix up (a thread's last partly filled chunk written
 * at its exit before its full one the drain had not written yet; threads
 * whose chunks interleave; an address one thread frees and another gets).
 * The first item that leaves the heap after a later one of its address (it
 * came too late), an end time the SQL would compute differently (overflow),
 * or more addresses than PAIR_MAX_KEYS (memory stays bounded) gives up: the
 * pass above pairs the whole table instead, with the same result.
 */
#define PAIR_MAX_KEYS (1u << 18)
#define PAIR_WINDOW (1u << 17)
#define PAIR_BATCH 64

/* An allocation or a delete, keyed and timed as pair_sql sees it. */
struct pair_item {
	int64_t seq;
	int64_t end_ns;
	uint64_t dev;  /* the int32 device, sign-extended */
	uint64_t addr;
	int is_delete;
};

struct pair_last {
	int64_t end_ns;
	int64_t seq;
	int64_t is_delete;
};

struct delete_pairer {
	struct db *db;
	struct hmap last;          /* (device, address) -> struct pair_last */
	int off;                   /* given up: db_pair_deletes() pairs */
	struct pair_item *heap;    /* PAIR_WINDOW items, a heap in pair_sql's order */
	size_t nheap;
	int taken;                 /* an item was taken: 'last' holds */
	struct pair_item last_taken;
	sqlite3_stmt *one, *many;  /* one pair; PAIR_BATCH pairs */
	int (*sink)(void *, int64_t, int64_t);  /* db_pairer_sink(): where pairs go instead */
	void *sink_ctx;
	int ticks;                 /* db_pairer_ticks(): times are counter ticks, tie_gap kept */
	uint64_t tie_gap;
	int n;
	int64_t pend[PAIR_BATCH][2];
};

struct delete_pairer *db_pairer_new(struct db *db, char **err)
{
	struct delete_pairer *p = calloc(1, sizeof(*p));

	if (!p || !(p->heap = malloc(PAIR_WINDOW * sizeof(*p->heap)))) {
		free(p);
		db_fail(err, "out of memory");
		return NULL;
	}
	p->db = db;
	hmap_init(&p->last, 2, sizeof(struct pair_last));
	/* Its statements are prepared when first run (prepare_inserts()): with a sink, never. */
	return p;
}

/* The pairer's inserts, one pair and a batch, prepared once.  0, or -1. */
static int prepare_inserts(struct delete_pairer *p)
{
	char *sql = NULL;
	size_t len = 0;
	FILE *f;

	if (p->many)
		return 0;
	if (!p->one &&
	    !(p->one = db_prepare(p->db, "INSERT INTO delete_pair_raw (delete_seq, alloc_seq) VALUES (?,?)", NULL)))
		return -1;
	if (!(f = open_memstream(&sql, &len)))
		return -1;
	fputs("INSERT INTO delete_pair_raw (delete_seq, alloc_seq) VALUES (?,?)", f);
	for (int i = 1; i < PAIR_BATCH; i++)
		fputs(",(?,?)", f);
	fclose(f);
	p->many = sql ? db_prepare(p->db, sql, NULL) : NULL;
	free(sql);
	return p->many ? 0 : -1;
}

void db_pairer_free(struct delete_pairer *p)
{
	if (!p)
		return;
	hmap_release(&p->last);
	free(p->heap);
	sqlite3_finalize(p->one);
	sqlite3_finalize(p->many);
	free(p);
}

static int step_reset(sqlite3_stmt *st)
{
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? 0 : -1;
}

/* Insert the pending pairs: a whole batch, or with 'all' the rest one by one. */
static int pairer_flush(struct delete_pairer *p, int all)
{
	if (p->n && prepare_inserts(p) < 0)
		return -1;
	if (p->n == PAIR_BATCH) {
		for (int i = 0; i < PAIR_BATCH; i++) {
			sqlite3_bind_int64(p->many, 2 * i + 1, p->pend[i][0]);
			sqlite3_bind_int64(p->many, 2 * i + 2, p->pend[i][1]);
		}
		p->n = 0;
		return step_reset(p->many);
	}
	for (int i = 0; all && i < p->n; i++) {
		sqlite3_bind_int64(p->one, 1, p->pend[i][0]);
		sqlite3_bind_int64(p->one, 2, p->pend[i][1]);
		if (step_reset(p->one) < 0)
			return -1;
	}
	if (all)
		p->n = 0;
	return 0;
}

/* Give up: the SQL pass starts over, and nothing kept here is needed. */
static void pairer_off(struct delete_pairer *p)
{
	p->off = 1;
	hmap_release(&p->last);
	hmap_init(&p->last, 2, sizeof(struct pair_last));
	p->nheap = 0;
	p->n = 0;
}

/* a before b in pair_sql's order (within one address; across addresses any order serves). */
static int item_before(const struct pair_item *a, const struct pair_item *b)
{
	if (a->end_ns != b->end_ns)
		return a->end_ns < b->end_ns;
	if (a->is_delete != b->is_delete)
		return a->is_delete < b->is_delete;
	return a->seq < b->seq;
}

/* The next item of its address in the SQL's order: pair it or give up.  0, or -1 (SQLite). */
static int pairer_take(struct delete_pairer *p, const struct pair_item *e)
{
	uint64_t key[2] = { e->dev, e->addr };
	struct pair_last *l;
	int created;

	p->taken = 1;
	p->last_taken = *e;
	l = hmap_put(&p->last, key, &created);
	if (!l || (created && p->last.count > PAIR_MAX_KEYS)) {
		pairer_off(p);
		return 0;
	}
	if (!created) {
		/* Ordered as pair_sql orders: end, allocations first, seq. */
		struct pair_item prev = { .seq = l->seq, .end_ns = l->end_ns, .is_delete = (int)l->is_delete };
		if (!item_before(&prev, e)) {
			pairer_off(p);
			return 0;
		}
		/*
		 * Ticks: two ends a few ticks apart may be the same ns, which
		 * orders them by (is_delete, seq) instead; where that order is
		 * the other one, the gap is noted (db_pairer_tie_gap()).
		 */
		if (p->ticks && !(prev.is_delete < e->is_delete || (prev.is_delete == e->is_delete && prev.seq < e->seq))) {
			uint64_t gap = (uint64_t)e->end_ns - (uint64_t)prev.end_ns;
			if (gap < p->tie_gap)
				p->tie_gap = gap;
		}
		if (e->is_delete && !l->is_delete && p->sink) {
			int k = p->sink(p->sink_ctx, e->seq, l->seq);
			if (k < 0)
				return -1;
			if (k > 0) {
				pairer_off(p);   /* 'l' is gone with the map */
				return 0;
			}
		} else if (e->is_delete && !l->is_delete) {
			p->pend[p->n][0] = e->seq;
			p->pend[p->n][1] = l->seq;
			if (++p->n == PAIR_BATCH && pairer_flush(p, 0) < 0)
				return -1;
		}
	}
	l->end_ns = e->end_ns;
	l->seq = e->seq;
	l->is_delete = e->is_delete;
	return 0;
}

/* The heap's first item out into *out. */
static void heap_pop(struct delete_pairer *p, struct pair_item *out)
{
	struct pair_item *h = p->heap, last;
	size_t i = 0, n = --p->nheap;

	*out = h[0];
	last = h[n];
	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && item_before(&h[c + 1], &h[c]))
			c++;
		if (!item_before(&h[c], &last))
			break;
		h[i] = h[c];
		i = c;
	}
	h[i] = last;
}

static void heap_push(struct delete_pairer *p, const struct pair_item *e)
{
	struct pair_item *h = p->heap;
	size_t i = p->nheap++;

	while (i > 0 && item_before(e, &h[(i - 1) / 2])) {
		h[i] = h[(i - 1) / 2];
		i = (i - 1) / 2;
	}
	h[i] = *e;
}

int db_pairer_add(struct delete_pairer *p, const struct rec *r, size_t n)
{
	for (size_t i = 0; i < n && !p->off; i++) {
		const struct rec *e = &r[i];
		struct pair_item it, out;

		if (e->type != REC_DATA_OP || !(e->kind == 1 || e->kind == 17 || e->kind == 4 || e->kind == 20))
			continue;
		it.is_delete = e->kind == 4 || e->kind == 20;
		/* begin_ns + dur_ns as the table has them (writer.c): SQLite would make an overflow a real. */
		if (__builtin_add_overflow(e->begin_ns, (int64_t)((uint64_t)e->end_ns - (uint64_t)e->begin_ns),
					   &it.end_ns)) {
			pairer_off(p);
			break;
		}
		/* As the table stores them: a device is an int32, an address and seq int64s. */
		it.seq = (int64_t)e->seq;
		it.dev = (uint64_t)(int64_t)(it.is_delete ? e->src_dev : e->dst_dev);
		it.addr = it.is_delete ? e->src_addr : e->dst_addr;
		/* In order (one thread): taken at once, the heap stays empty. */
		if (!p->nheap && (!p->taken || item_before(&p->last_taken, &it))) {
			if (pairer_take(p, &it) < 0)
				return -1;
			continue;
		}
		if (p->nheap == PAIR_WINDOW) {
			heap_pop(p, &out);
			if (pairer_take(p, &out) < 0)
				return -1;
			if (p->off)
				break;
		}
		heap_push(p, &it);
	}
	return 0;
}

void db_pairer_ticks(struct delete_pairer *p)
{
	p->ticks = 1;
	p->tie_gap = UINT64_MAX;
}

uint64_t db_pairer_tie_gap(const struct delete_pairer *p)
{
	return p->ticks ? p->tie_gap : UINT64_MAX;
}

void db_pairer_sink(struct delete_pairer *p, int (*fn)(void *ctx, int64_t delete_seq, int64_t alloc_seq),
		    void *ctx)
{
	p->sink = fn;
	p->sink_ctx = ctx;
}

int db_pairer_drain(struct delete_pairer *p)
{
	struct pair_item out;

	while (!p->off && p->nheap) {
		heap_pop(p, &out);
		if (pairer_take(p, &out) < 0)
			return -1;
	}
	return 0;
}

int db_pairer_finish(struct delete_pairer *p, char **err)
{
	if (db_pairer_drain(p) < 0)
		goto fail;
	if (p->off)
		return db_pair_deletes(p->db, err);
	if (pairer_flush(p, 1) < 0)
		goto fail;
	return db_exec(p->db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('deletes_paired', '1')", err);
fail:
	return db_fail(err, "cannot pair deletes in '%s': %s", p->db->path, sqlite3_errmsg(p->db->sql));
}

int db_set_host_device(struct db *db, char **err)
{
	return db_exec(db, host_sql, err);
}

/* A statement of one integer parameter (?1), run once.  0, or -1 (*err set). */
static int exec_int(struct db *db, const char *sql, int64_t v, char **err)
{
	sqlite3_stmt *st = db_prepare(db, sql, err);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int64(st, 1, v);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
	return 0;
}

int db_finish_run(struct db *db, const struct run_end *end, char **err)
{
	sqlite3_stmt *st;
	int rc;

	if (db_begin(db) < 0)
		return db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (end->lost_why) {
		st = db_prepare(db, "INSERT INTO run_raw (id, status, status_detail)"
				" VALUES (1, 'incomplete', 'the events could not be expanded into the database: ' || ?)"
				" ON CONFLICT (id) DO UPDATE SET status = excluded.status,"
				" status_detail = excluded.status_detail WHERE run_raw.command IS NULL", err);
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
	/* The collector never started: the program does not use OpenMP (or not this runtime), or never started. */
	st = db_prepare(db,
			"INSERT INTO run_raw (id, status, status_detail) VALUES (1, 'no-collector',"
			" COALESCE(?, 'the OpenMP runtime never loaded the mapprof collector: the program may not use"
			" OpenMP, use a runtime without OMPT, or have OMP_TOOL=disabled'))"
			" ON CONFLICT (id) DO UPDATE SET status = excluded.status, status_detail ="
			" excluded.status_detail WHERE run_raw.command IS NULL AND run_raw.status = 'recording'",
			err);
	if (!st)
		goto fail;
	if (end->no_collector_why)
		sqlite3_bind_text(st, 1, end->no_collector_why, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 1);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
		goto fail;
	}
	/* (The expansion derived the host device already, unless it stopped short.) */
	if (apply_hash_fixes(db, err) < 0 ||
	    (!db_scalar(db, "SELECT COUNT(*) FROM meta WHERE key = 'deletes_paired'") &&
	     db_pair_deletes(db, err) < 0) ||
	    (db_scalar(db, "SELECT host_device IS NULL FROM run_raw WHERE id = 1") && db_set_host_device(db, err) < 0))
		goto fail;
	st = db_prepare(db, "UPDATE run_raw SET exit_status = ?, exit_signal = ?, wall_ns = ?, peak_rss_kb = ?,"
			    " status = CASE status WHEN 'recording' THEN 'incomplete' ELSE status END,"
			    " status_detail = CASE status WHEN 'recording' THEN"
			    "   COALESCE(?, 'the program ended before the collector could finish (killed, or _exit)')"
			    "   ELSE status_detail END WHERE id = 1", err);
	if (!st)
		goto fail;
	db_bind_opt_int64(st, 1, !end->exit_unknown, end->exit_status);
	db_bind_opt_int64(st, 2, !end->exit_unknown && end->signal != 0, end->signal);
	db_bind_opt_int64(st, 3, !end->exit_unknown && end->wall_ns > 0, end->wall_ns);
	db_bind_opt_int64(st, 4, !end->exit_unknown && end->peak_rss_kb > 0, end->peak_rss_kb);
	if (end->unfinished_why)
		sqlite3_bind_text(st, 5, end->unfinished_why, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 5);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
		goto fail;
	}
	if (!end->exit_unknown && (end->user_ns > 0 || end->sys_ns > 0)) {
		st = db_prepare(db, "INSERT OR REPLACE INTO stats_raw (name, value)"
				    " VALUES ('program_user_ns', ?), ('program_sys_ns', ?)", err);
		if (!st)
			goto fail;
		sqlite3_bind_int64(st, 1, end->user_ns);
		sqlite3_bind_int64(st, 2, end->sys_ns);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
			goto fail;
		}
	}
	if (end->expand_ns > 0) {
		st = db_prepare(db, "INSERT OR REPLACE INTO stats_raw (name, value)"
				    " VALUES ('record_expand_ns', ?), ('record_expand_cpu_ns', ?),"
				    " ('record_expand_early', ?)", err);
		if (!st)
			goto fail;
		sqlite3_bind_int64(st, 1, end->expand_ns);
		sqlite3_bind_int64(st, 2, end->expand_cpu_ns);
		sqlite3_bind_int64(st, 3, end->expand_early);
		rc = sqlite3_step(st);
		sqlite3_finalize(st);
		if (rc != SQLITE_DONE) {
			db_fail(err, "cannot update '%s': %s", db->path, sqlite3_errmsg(db->sql));
			goto fail;
		}
	}
	/*
	 * The program offloaded on after the runtime finalized the tool (a hard
	 * pause): those events reached no tool, so the recording misses them.
	 * Said beside what the detail already says; once (db_finish_run() may
	 * run again).
	 */
	if (end->calls_late > 0 &&
	    (exec_int(db, "UPDATE run_raw SET status = 'incomplete', status_detail ="
			  " COALESCE(NULLIF(status_detail, '') || '; ', '') || ?1 || ' offload call'"
			  " || CASE ?1 WHEN 1 THEN '' ELSE 's' END || ' came after the OpenMP runtime had"
			  " finalized the mapprof collector (omp_pause_resource_all(omp_pause_hard) does that):"
			  " the events of ' || CASE ?1 WHEN 1 THEN 'that call' ELSE 'those calls' END || ' are not"
			  " recorded' WHERE id = 1 AND status IN ('complete', 'incomplete')"
			  " AND NOT EXISTS (SELECT 1 FROM stats_raw WHERE name = 'offload_calls_late')",
			  end->calls_late, err) < 0 ||
	     exec_int(db, "INSERT OR IGNORE INTO stats_raw (name, value) VALUES ('offload_calls_late', ?1)",
		      end->calls_late, err) < 0))
		goto fail;
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

int db_mark_recording(struct db *db, const char *spool_path, const char *replaces, char **err)
{
	sqlite3_stmt *st = db_prepare(db, "INSERT INTO run_raw (id, status, status_detail) VALUES (1, 'recording', ?)", err);
	/* The command is pasted into a shell: the path quoted for one (lib/shquote.h). */
	size_t qn = shquote(NULL, 0, spool_path);
	char *detail, *quoted = malloc(qn + 1);
	int rc;

	if (!st) {
		free(quoted);
		return -1;
	}
	if (quoted)
		shquote(quoted, qn + 1, spool_path);
	if (!quoted || asprintf(&detail, "mapprof record has not finished this database: it is still"
				" running, or it was killed; the events are in the spool '%s': recover them"
				" with: mapprof recover %s", spool_path, quoted) < 0) {
		free(quoted);
		sqlite3_finalize(st);
		return db_fail(err, "out of memory");
	}
	free(quoted);
	sqlite3_bind_text(st, 1, detail, -1, free);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot write '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (!replaces)
		return 0;
	st = db_prepare(db, "INSERT OR REPLACE INTO meta (key, value) VALUES ('replaces', ?)", err);
	if (!st)
		return -1;
	sqlite3_bind_text(st, 1, replaces, -1, SQLITE_TRANSIENT);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot write '%s': %s", db->path, sqlite3_errmsg(db->sql));
	return 0;
}

char *db_take_replaces(struct db *db)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT value FROM meta WHERE key = 'replaces'", NULL);
	char *path = NULL;

	if (!st)
		return NULL;
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		path = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	if (path && db_exec(db, "DELETE FROM meta WHERE key = 'replaces'", NULL) < 0) {
		free(path);
		path = NULL;
	}
	return path;
}

int db_pair_deletes_if_needed(struct db *db, char **err)
{
	int paired = (int)db_scalar(db, "SELECT COUNT(*) FROM meta WHERE key = 'deletes_paired'");
	int fixes = db_scalar(db, "SELECT COUNT(*) FROM hash_fix_raw") > 0;   /* (0 without the table) */

	if (paired && !fixes)
		return 0;
	if (db_begin(db) < 0)
		return db_fail(err, "cannot pair deletes in '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (apply_hash_fixes(db, err) < 0 || (!paired && db_pair_deletes(db, err) < 0) ||
	    db_set_host_device(db, err) < 0)
		goto fail;
	if (db_commit(db) < 0) {
		db_fail(err, "cannot pair deletes in '%s': %s", db->path, sqlite3_errmsg(db->sql));
		goto fail;
	}
	return 0;
fail:
	db_rollback(db);
	return -1;
}

int db_record_counts(struct db *db, struct record_counts *out)
{
	sqlite3_stmt *st;

	memset(out, 0, sizeof(*out));
	out->lost = db_scalar(db, "SELECT COALESCE(events_lost, 0) FROM run_raw");
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
