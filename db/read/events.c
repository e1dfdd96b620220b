/*
 * events.c - stream a run's events in detector order; read the run's facts;
 * name the event kinds.
 *
 * Three sources: data operations, kernels (with their construct's code
 * pointer) and, in seq mode, delete/alloc pairs, merged row by row.  In seq
 * mode all three come from db/pages/rowsrc.h (the file's pages where it allows,
 * else SQLite; the same rows), a kernel's code pointer from its construct's
 * row met in the same order (a statement when it is not), and in sorted
 * mode from statements.  The
 * raw tables are read directly rather than through the views: the views
 * format hashes as text and look delete sizes up with a subquery, which costs
 * seconds at ten million events.  The values are the same as the views'.
 * The size and host address of the allocation a delete frees come from a
 * map of the allocations seen but not yet freed, not from a join.
 *
 * Damaged rows (db/read/sound.h) are left out here, row by row, and counted per
 * reason (event_stream_damaged()): the stream holds only rows whose times,
 * sizes and devices the detectors can do arithmetic on.  The statements
 * select every row, since each is read anyway, and sound_op() and
 * sound_kernel() judge each as it comes: a WHERE per row cost a third of the
 * stream, and counting the damaged ones a second pass.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/events.h"
#include "db/store/locations.h"
#include "db/pages/rowsrc.h"
#include "db/read/sound.h"
#include "db/read/timeline_rows.h"
#include "lib/hmap.h"
#include "lib/map_index.h"

/* target_raw's columns (target_table_cols). */
enum { TG_ID, TG_KIND = 3, TG_CODEPTR = 7, TG_NCOLS };

struct event_stream {
	struct db *db;
	enum events_mode mode;
	sqlite3_stmt *ops, *kernels;              /* sorted mode */
	/* seq mode: data_op_raw, kernel_raw, delete_pair_raw, target_raw (db/pages/rowsrc.h) */
	struct rowsrc *op_rows, *kernel_rows, *pair_rows, *target_rows;
	struct dbval target[TG_NCOLS];            /* target_rows' row; have_target */
	int have_target;
	sqlite3_stmt *codeptr;                    /* a kernel's code pointer by SQLite's join */
	struct event op, kernel;
	int have_op, have_kernel, have_pair;
	int64_t pair_delete, pair_alloc;
	struct hmap live;              /* alloc seq -> {bytes, host addr} */
	struct op_keys *keys;          /* every row's attribution keys, or NULL */
	struct timeline_rec *rec;      /* every row for the page timeline too, or NULL */
	struct sound_judge judge;
	struct damaged damaged_ops, damaged_kernels;
	/* seq mode: the window, sorted by (begin_ns, seq), in win[head..tail) */
	struct event *win;
	size_t head, tail;
	int started;
	int64_t last_begin_ns, last_seq;
};

/*
 * The columns of OP_COLUMNS, in order: the table's own order (so that a row
 * read from its pages, db/pages/pageread.h, needs no reordering); dur_ns is for
 * the rules, map_index for the attribution keys; the sorted statement adds
 * the alloc_seq.
 */
enum {
	OP_SEQ, OP_THREAD, OP_KIND, OP_SRC_DEV, OP_DST_DEV, OP_SRC_ADDR, OP_DST_ADDR, OP_BYTES,
	OP_BEGIN, OP_DUR, OP_HASH, OP_CODEPTR, OP_TARGET, OP_MAP_INDEX, OP_NCOLS,
	OP_ALLOC_SEQ = OP_NCOLS
};
#define OP_COLUMNS \
	"d.seq, d.thread, d.kind, d.src_dev, d.dst_dev, d.src_addr, d.dst_addr, d.bytes," \
	" d.begin_ns, d.dur_ns, d.hash, d.codeptr, d.target_id, d.map_index"
/* data_op_raw's columns, as db/schema.sql creates them (OP_* order). */
static const char *const op_table_cols[OP_NCOLS] = {
	"seq", "thread", "kind", "src_dev", "dst_dev", "src_addr", "dst_addr", "bytes",
	"begin_ns", "dur_ns", "hash", "codeptr", "target_id", "map_index",
};

static const char ops_sorted_sql[] =
	"SELECT " OP_COLUMNS ","
	" (SELECT p.alloc_seq FROM delete_pair_raw p WHERE d.kind IN (4, 20) AND p.delete_seq = d.seq)"
	" FROM data_op_raw d ORDER BY d.begin_ns, d.seq";
/*
 * The columns of KERNEL_SELECT, in order.  An event's end is begin_ns +
 * dur_ns, summed by sound_end_ns() (as SQLite sums them) once the row is
 * sound, rather than by a computed column on every row.
 */
enum {
	K_SEQ, K_THREAD, K_DEVICE, K_BEGIN, K_CODEPTR, K_TARGET, K_DUR, K_NCOLS
};
#define KERNEL_SELECT \
	"SELECT k.seq, k.thread, k.device, k.begin_ns," \
	" t.codeptr, k.target_id, k.dur_ns FROM kernel_raw k LEFT JOIN target_raw t ON t.id = k.target_id"
/* kernel_raw's and target_raw's columns, as db/schema.sql creates them. */
enum { KR_SEQ, KR_THREAD, KR_TARGET, KR_DEVICE, KR_TEAMS, KR_BEGIN, KR_DUR, KR_NCOLS };
static const char *const kernel_table_cols[KR_NCOLS] = {
	"seq", "thread", "target_id", "device", "teams", "begin_ns", "dur_ns",
};
static const char *const target_table_cols[TG_NCOLS] = {
	"id", "seq", "thread", "kind", "device", "begin_ns", "dur_ns", "codeptr",
};
static const char *const pair_table_cols[2] = { "delete_seq", "alloc_seq" };
/* KERNEL_SELECT's code pointer of one kernel: what the join gives it. */
static const char kernel_codeptr_sql[] =
	"SELECT t.codeptr FROM kernel_raw k LEFT JOIN target_raw t ON t.id = k.target_id WHERE k.seq = ?1";
static const char kernels_sorted_sql[] = KERNEL_SELECT " ORDER BY k.begin_ns, k.seq";

struct live_alloc {
	uint64_t bytes, host_addr;
};

static int op_kind(int raw, enum ev_kind *kind)
{
	switch (raw) {
	case 1: case 17: *kind = EV_ALLOC; return 0;
	case 2: case 18: *kind = EV_TO_DEVICE; return 0;
	case 3: case 19: *kind = EV_FROM_DEVICE; return 0;
	case 4: case 20: *kind = EV_DELETE; return 0;
	case 5: *kind = EV_ASSOCIATE; return 0;
	case 6: *kind = EV_DISASSOCIATE; return 0;
	default: return -1;
	}
}

static int step_error(struct event_stream *s, char **err)
{
	return db_fail(err, "cannot read events from '%s': %s", s->db->path, sqlite3_errmsg(s->db->sql));
}

static uint64_t col_u64(sqlite3_stmt *st, int i)
{
	return (uint64_t)sqlite3_column_int64(st, i);
}

/* Count a damaged row (sound_op(), sound_kernel()): once, and once per reason. */
static int count_damaged(struct damaged *d, unsigned why)
{
	d->rows++;
	d->null += !!(why & SOUND_BAD_NULL);
	d->kind += !!(why & SOUND_BAD_KIND);
	d->device += !!(why & SOUND_BAD_DEVICE);
	d->bytes += !!(why & SOUND_BAD_BYTES);
	d->time += !!(why & SOUND_BAD_TIME);
	return 0;
}

/* The data operation in c (OP_* columns): 1 sound, 0 damaged (counted), -1 on error. */
static int op_sound(struct event_stream *s, const struct dbval *c, char **err)
{
	struct sound_op_row r = {
		.seq = c[OP_SEQ].i,
		.kind = &c[OP_KIND],
		.src_dev = &c[OP_SRC_DEV],
		.dst_dev = &c[OP_DST_DEV],
		.bytes = &c[OP_BYTES],
		.begin_ns = &c[OP_BEGIN],
		.dur_ns = &c[OP_DUR],
	};
	unsigned why;
	int rc = sound_op(&s->judge, &r, &why, err);

	return rc ? rc : count_damaged(&s->damaged_ops, why);
}

/* The kernel in c (K_* columns): 1 sound, 0 damaged (counted), -1 on error. */
static int kernel_sound(struct event_stream *s, const struct dbval *c, char **err)
{
	struct sound_kernel_row r = {
		.seq = c[K_SEQ].i,
		.device = &c[K_DEVICE],
		.begin_ns = &c[K_BEGIN],
		.dur_ns = &c[K_DUR],
	};
	unsigned why;
	int rc = sound_kernel(&s->judge, &r, &why, err);

	return rc ? rc : count_damaged(&s->damaged_kernels, why);
}

static int read_pair(struct event_stream *s, char **err)
{
	struct dbval c[2];
	int rc = rowsrc_next(s->pair_rows, c, err);

	if (rc < 0)
		return -1;
	s->have_pair = rc;
	if (!rc)
		return 0;   /* no row: c[] holds nothing */
	/* (the values sqlite3_column_int64() gives: 0 for a NULL) */
	s->pair_delete = c[0].type == SQLITE_NULL ? 0 : c[0].i;
	s->pair_alloc = c[1].type == SQLITE_NULL ? 0 : c[1].i;
	return 0;
}

/* The allocation a delete frees, from the pairs stream (seq mode) or the column. */
static int pair_delete(struct event_stream *s, struct event *e, char **err)
{
	uint64_t key;
	struct live_alloc *a;

	if (s->mode == EVENTS_BY_SEQ) {
		while (s->have_pair && s->pair_delete < e->seq)
			if (read_pair(s, err) < 0)
				return -1;
		if (s->have_pair && s->pair_delete == e->seq)
			e->alloc_seq = s->pair_alloc;
	} else {
		e->alloc_seq = sqlite3_column_int64(s->ops, OP_ALLOC_SEQ);
	}
	key = (uint64_t)e->alloc_seq;
	a = e->alloc_seq ? hmap_get(&s->live, &key) : NULL;
	if (a) {
		e->bytes = a->bytes;
		e->host_addr = a->host_addr;
		hmap_del(&s->live, &key);
	}
	return 0;
}

/* The attribution keys of the row in c, damaged or not (db/store/locations.h). */
static int add_keys(struct event_stream *s, const struct dbval *c, char **err)
{
	struct op_key_cols r = {
		.seq = c[OP_SEQ].i,
		.kind = (int)c[OP_KIND].i,
		.codeptr = c[OP_CODEPTR].i,
		.has_codeptr = c[OP_CODEPTR].type != SQLITE_NULL,
		.map_index = c[OP_MAP_INDEX].i,
		.has_map_index = c[OP_MAP_INDEX].type != SQLITE_NULL,
		.src_addr = c[OP_SRC_ADDR].i,
		.dst_addr = c[OP_DST_ADDR].i,
	};
	return op_keys_add(s->keys, &r, err);
}

/* The next row of st's n columns into c: 1, 0 at the end, -1. */
static int step_row(struct event_stream *s, sqlite3_stmt *st, struct dbval *c, int n, char **err)
{
	int rc = sqlite3_step(st);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return step_error(s, err);
	db_fetch_values(st, c, n);
	return 1;
}

/* The next row of data_op_raw into c: 1, 0 at the end, -1. */
static int fetch_op(struct event_stream *s, struct dbval *c, char **err)
{
	return s->op_rows ? rowsrc_next(s->op_rows, c, err) : step_row(s, s->ops, c, OP_NCOLS, err);
}

/*
 * Read the next data operation the detectors understand into s->op.  A row
 * is read for its keys, the timeline, its soundness and its event.
 */
static int read_op(struct event_stream *s, char **err)
{
	for (;;) {
		struct dbval c[OP_NCOLS];
		struct event *e = &s->op;
		int rc = fetch_op(s, c, err);
		if (rc <= 0) {
			s->have_op = 0;
			return rc;
		}
		if (s->rec) {
			const struct dbval *tl[TLO_NCOLS] = {
				[TLO_SEQ] = &c[OP_SEQ], [TLO_KIND] = &c[OP_KIND], [TLO_SRC_DEV] = &c[OP_SRC_DEV],
				[TLO_DST_DEV] = &c[OP_DST_DEV], [TLO_BYTES] = &c[OP_BYTES], [TLO_BEGIN] = &c[OP_BEGIN],
				[TLO_DUR] = &c[OP_DUR], [TLO_THREAD] = &c[OP_THREAD],
			};
			timeline_rec_op(s->rec, tl);
		}
		if (s->keys && add_keys(s, c, err) < 0)
			return -1;
		if ((rc = op_sound(s, c, err)) <= 0) {
			if (rc < 0)
				return -1;
			continue;
		}
		memset(e, 0, sizeof(*e));
		if (op_kind((int)c[OP_KIND].i, &e->kind) < 0)
			continue;
		e->seq = c[OP_SEQ].i;
		e->thread = (int)c[OP_THREAD].i;
		e->src_device = (int)c[OP_SRC_DEV].i;
		e->dest_device = (int)c[OP_DST_DEV].i;
		e->src_addr = (uint64_t)c[OP_SRC_ADDR].i;
		e->dest_addr = (uint64_t)c[OP_DST_ADDR].i;
		e->bytes = (uint64_t)c[OP_BYTES].i;
		e->attach = c[OP_MAP_INDEX].type != SQLITE_NULL && MAP_INDEX_IS_ATTACH(c[OP_MAP_INDEX].i)
				    ? 1 + (int)MAP_INDEX_ATTACH_ENTRY(c[OP_MAP_INDEX].i) : 0;
		e->begin_ns = c[OP_BEGIN].i;
		if (sound_end_ns(&s->judge, 0, c[OP_SEQ].i, &c[OP_BEGIN], &c[OP_DUR], &e->end_ns, err) < 0)
			return -1;
		e->has_hash = c[OP_HASH].type != SQLITE_NULL;
		e->hash = (uint64_t)c[OP_HASH].i;
		e->codeptr = (uint64_t)c[OP_CODEPTR].i;
		e->target_id = c[OP_TARGET].i;
		e->has_target_id = c[OP_TARGET].type != SQLITE_NULL;
		if (e->kind == EV_ALLOC) {
			uint64_t key = (uint64_t)e->seq;
			struct live_alloc *a = hmap_put(&s->live, &key, NULL);
			if (!a)
				return db_fail(err, "out of memory");
			a->bytes = e->bytes;
			a->host_addr = e->src_addr;
		} else if (e->kind == EV_DELETE && pair_delete(s, e, err) < 0) {
			return -1;
		}
		s->have_op = 1;
		return 0;
	}
}

/*
 * target_raw's next row into s->target, the one there first given to the
 * attribution keys (db/store/locations.h: its code pointer and kind, as
 * op_keys_rows() would read them), so that every row is given once, in
 * order, whatever the kernels ask.  0, or -1 with *err.
 */
static int next_target(struct event_stream *s, char **err)
{
	const struct dbval *c = s->target;

	if (s->keys && c[TG_CODEPTR].type != SQLITE_NULL &&
	    op_keys_target(s->keys, c[TG_CODEPTR].i, c[TG_KIND].type == SQLITE_NULL ? 0 : (int)c[TG_KIND].i,
			   err) < 0)
		return -1;
	s->have_target = rowsrc_next(s->target_rows, s->target, err);
	return s->have_target < 0 ? -1 : 0;
}

/*
 * The code pointer KERNEL_SELECT gives the kernel in k (kernel_raw's
 * columns) into *out: from target_raw's rows, read on in id order while
 * the kernels' target ids rise (as they do); by SQLite's own join when the
 * id is not an integer or lies behind them.  0, or -1 with *err.
 */
static int kernel_codeptr(struct event_stream *s, const struct dbval *k, struct dbval *out, char **err)
{
	const struct dbval *id = &k[KR_TARGET];
	int rc;

	*out = (struct dbval){ 0, 0, SQLITE_NULL };
	if (id->type == SQLITE_NULL)
		return 0;
	if (id->type == SQLITE_INTEGER) {
		while (s->have_target && s->target[TG_ID].i < id->i)
			if (next_target(s, err) < 0)
				return -1;
		if (s->have_target && s->target[TG_ID].i == id->i) {
			*out = s->target[TG_CODEPTR];
			return 0;
		}
	}
	if (!s->codeptr && !(s->codeptr = db_prepare(s->db, kernel_codeptr_sql, err)))
		return -1;
	sqlite3_bind_int64(s->codeptr, 1, k[KR_SEQ].i);
	rc = sqlite3_step(s->codeptr);
	if (rc == SQLITE_ROW)
		db_fetch_values(s->codeptr, out, 1);
	sqlite3_reset(s->codeptr);
	return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : step_error(s, err);
}

/* The next row of KERNEL_SELECT (seq mode) into c: 1, 0 at the end, -1. */
static int fetch_kernel(struct event_stream *s, struct dbval *c, char **err)
{
	struct dbval k[KR_NCOLS];
	int rc;

	if (!s->kernel_rows)
		return step_row(s, s->kernels, c, K_NCOLS, err);
	if ((rc = rowsrc_next(s->kernel_rows, k, err)) < 0)
		return -1;
	if (!rc) {
		/* The kernels' end: the targets after theirs, for the keys to have them all. */
		while (s->have_target)
			if (next_target(s, err) < 0)
				return -1;
		if (s->keys)
			op_keys_targets_done(s->keys);
		return 0;
	}
	c[K_SEQ] = k[KR_SEQ];
	c[K_THREAD] = k[KR_THREAD];
	c[K_DEVICE] = k[KR_DEVICE];
	c[K_BEGIN] = k[KR_BEGIN];
	c[K_TARGET] = k[KR_TARGET];
	c[K_DUR] = k[KR_DUR];
	return kernel_codeptr(s, k, &c[K_CODEPTR], err) < 0 ? -1 : 1;
}

/* Read the next sound kernel into s->kernel. */
static int read_kernel(struct event_stream *s, char **err)
{
	struct event *e = &s->kernel;
	struct dbval c[K_NCOLS];
	int rc;

	do {
		rc = fetch_kernel(s, c, err);
		if (rc < 0)
			return -1;
		if (!rc) {
			s->have_kernel = 0;
			return 0;
		}
		if (s->rec) {
			const struct dbval *tl[TLK_NCOLS] = {
				[TLK_SEQ] = &c[K_SEQ], [TLK_DEVICE] = &c[K_DEVICE], [TLK_BEGIN] = &c[K_BEGIN],
				[TLK_DUR] = &c[K_DUR], [TLK_THREAD] = &c[K_THREAD],
			};
			timeline_rec_kernel(s->rec, tl);
		}
	} while ((rc = kernel_sound(s, c, err)) == 0);
	if (rc < 0)
		return -1;
	memset(e, 0, sizeof(*e));
	if (sound_end_ns(&s->judge, 1, c[K_SEQ].i, &c[K_BEGIN], &c[K_DUR], &e->end_ns, err) < 0)
		return -1;
	e->kind = EV_KERNEL;
	e->seq = c[K_SEQ].i;
	e->thread = (int)c[K_THREAD].i;
	e->src_device = e->dest_device = (int)c[K_DEVICE].i;
	e->begin_ns = c[K_BEGIN].i;
	e->codeptr = (uint64_t)c[K_CODEPTR].i;
	e->target_id = c[K_TARGET].i;
	e->has_target_id = c[K_TARGET].type != SQLITE_NULL;
	s->have_kernel = 1;
	return 0;
}

struct event_stream *event_stream_open(struct db *db, enum events_mode mode, struct op_keys *keys,
				       char **err)
{
	return event_stream_open_rec(db, mode, keys, NULL, err);
}

struct event_stream *event_stream_open_rec(struct db *db, enum events_mode mode, struct op_keys *keys,
					   struct timeline_rec *rec, char **err)
{
	struct event_stream *s = calloc(1, sizeof(*s));
	int by_seq = mode == EVENTS_BY_SEQ;

	if (!s) {
		db_fail(err, "out of memory");
		return NULL;
	}
	s->db = db;
	s->mode = mode;
	s->keys = keys;
	s->rec = by_seq ? rec : NULL;
	sound_judge_init(&s->judge, db);
	hmap_init(&s->live, 1, sizeof(struct live_alloc));
	/*
	 * The sorter: memory before temp files, and helper threads.  Seq mode
	 * sorts nothing and reads each page once: a big page cache would only
	 * hold 64 MiB of pages already used.
	 */
	if (!by_seq)
		sqlite3_exec(db->sql, "PRAGMA cache_size = -65536; PRAGMA threads = 4", NULL, NULL, NULL);
	if (by_seq && (s->op_rows = rowsrc_open(db, "data_op_raw", op_table_cols, OP_NCOLS, OP_SEQ, err)) &&
	    (s->kernel_rows = rowsrc_open(db, "kernel_raw", kernel_table_cols, KR_NCOLS, KR_SEQ, err)) &&
	    (s->target_rows = rowsrc_open(db, "target_raw", target_table_cols, TG_NCOLS, TG_ID, err)) &&
	    (s->pair_rows = rowsrc_open(db, "delete_pair_raw", pair_table_cols, 2, 0, err)) &&
	    (s->have_target = rowsrc_next(s->target_rows, s->target, err)) >= 0 &&
	    !(s->win = malloc(2 * EVENTS_WINDOW * sizeof(*s->win))))
		db_fail(err, "out of memory");
	if (!by_seq && (s->ops = db_prepare(db, ops_sorted_sql, err)))
		s->kernels = db_prepare(db, kernels_sorted_sql, err);
	if ((by_seq ? !s->win : !s->kernels) || (by_seq && read_pair(s, err) < 0) ||
	    read_op(s, err) < 0 || read_kernel(s, err) < 0) {
		event_stream_close(s);
		return NULL;
	}
	return s;
}

static int before(const struct event *a, const struct event *b, int by_seq)
{
	if (by_seq)
		return a->seq < b->seq;
	return a->begin_ns < b->begin_ns || (a->begin_ns == b->begin_ns && a->seq < b->seq);
}

/* The next row of the merged statements: 1, 0 at the end, -1 on error. */
static int next_row(struct event_stream *s, struct event *ev, char **err)
{
	int take_op;

	if (!s->have_op && !s->have_kernel)
		return 0;
	if (!s->have_kernel)
		take_op = 1;
	else if (!s->have_op)
		take_op = 0;
	else
		take_op = before(&s->op, &s->kernel, s->mode == EVENTS_BY_SEQ);
	if (take_op) {
		*ev = s->op;
		return read_op(s, err) < 0 ? -1 : 1;
	}
	*ev = s->kernel;
	return read_kernel(s, err) < 0 ? -1 : 1;
}

/*
 * Seq mode: keep the window full, sorted by insertion from the back (rows
 * arrive nearly sorted, so that is a compare or two), and hand out its
 * front.  A row that belongs before what was already handed out means the
 * window was too small: restart sorted.
 */
int event_stream_next(struct event_stream *s, struct event *ev, char **err)
{
	if (s->mode == EVENTS_SORTED)
		return next_row(s, ev, err);
	while (s->tail - s->head < EVENTS_WINDOW) {
		struct event row;
		size_t i;
		int rc = next_row(s, &row, err);
		if (rc < 0)
			return -1;
		if (!rc)
			break;
		if (s->started && (row.begin_ns < s->last_begin_ns ||
				   (row.begin_ns == s->last_begin_ns && row.seq < s->last_seq)))
			return EVENTS_RESTART;
		if (s->tail == 2 * EVENTS_WINDOW) {
			memmove(s->win, s->win + s->head, (s->tail - s->head) * sizeof(*s->win));
			s->tail -= s->head;
			s->head = 0;
		}
		for (i = s->tail; i > s->head && before(&row, &s->win[i - 1], 0); i--)
			;
		memmove(s->win + i + 1, s->win + i, (s->tail - i) * sizeof(*s->win));
		s->win[i] = row;
		s->tail++;
	}
	if (s->head == s->tail)
		return 0;
	*ev = s->win[s->head++];
	s->started = 1;
	s->last_begin_ns = ev->begin_ns;
	s->last_seq = ev->seq;
	return 1;
}

void event_stream_close(struct event_stream *s)
{
	if (!s)
		return;
	rowsrc_close(s->op_rows);
	rowsrc_close(s->kernel_rows);
	rowsrc_close(s->target_rows);
	rowsrc_close(s->pair_rows);
	sqlite3_finalize(s->codeptr);
	sqlite3_finalize(s->ops);
	sqlite3_finalize(s->kernels);
	sound_judge_release(&s->judge);
	hmap_release(&s->live);
	free(s->win);
	free(s);
}

void event_stream_damaged(const struct event_stream *s, struct damaged *ops,
			  struct damaged *kernels)
{
	*ops = s->damaged_ops;
	*kernels = s->damaged_kernels;
}

static char *col_strdup(sqlite3_stmt *st, int i)
{
	const unsigned char *v = sqlite3_column_text(st, i);
	return v ? strdup((const char *)v) : NULL;
}

static int read_modules(struct db *db, struct run_info *run, char **err)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT path, base, low, high FROM module_raw ORDER BY id", err);
	size_t cap = 0;
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct run_module *m;
		if (run->nmodules == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct run_module *v = realloc(run->modules, ncap * sizeof(*v));
			if (!v)
				break;
			run->modules = v;
			cap = ncap;
		}
		m = &run->modules[run->nmodules++];
		m->path = col_strdup(st, 0);
		m->base = col_u64(st, 1);
		m->low = col_u64(st, 2);
		m->high = col_u64(st, 3);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read modules from '%s': %s", db->path,
			       rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db->sql));
	return 0;
}

static int read_devices(struct db *db, struct run_info *run, char **err)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT num, type FROM device_raw ORDER BY num", err);
	size_t cap = 0;
	int rc;

	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (run->ndevices == cap) {
			size_t ncap = cap ? 2 * cap : 8;
			struct run_device *v = realloc(run->devices, ncap * sizeof(*v));
			if (!v)
				break;
			run->devices = v;
			cap = ncap;
		}
		run->devices[run->ndevices].num = sqlite3_column_int(st, 0);
		run->devices[run->ndevices].type = col_strdup(st, 1);
		run->ndevices++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read devices from '%s': %s", db->path,
			       rc == SQLITE_ROW ? "out of memory" : sqlite3_errmsg(db->sql));
	return 0;
}

/* The integer stats row 'name', or 'absent' without one (an older recording). */
static int64_t stat_or(struct db *db, const char *name, int64_t absent)
{
	sqlite3_stmt *st;
	int64_t v = absent;

	if (sqlite3_prepare_v2(db->sql, "SELECT value FROM stats_raw WHERE name = ?", -1, &st, NULL) != SQLITE_OK)
		return absent;
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) == SQLITE_INTEGER)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int db_read_run(struct db *db, struct run_info *run, char **err)
{
	sqlite3_stmt *st;
	int rc;

	memset(run, 0, sizeof(*run));
	run->duration_ns = -1;
	st = db_prepare(db, "SELECT command, runtime, status, exit_status, exit_signal, end_ns,"
			    " host_device, events_lost, status_detail FROM run_raw WHERE id = 1", err);
	if (!st)
		return -1;
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		run->command = col_strdup(st, 0);
		run->runtime = col_strdup(st, 1);
		run->status = col_strdup(st, 2);
		run->has_exit_status = sqlite3_column_type(st, 3) != SQLITE_NULL;
		run->exit_status = sqlite3_column_int(st, 3);
		run->exit_signal = sqlite3_column_int(st, 4);
		if (sqlite3_column_type(st, 5) == SQLITE_INTEGER) {
			int64_t v = sqlite3_column_int64(st, 5);
			if (v >= 0 && v <= DB_VALUE_MAX)
				run->duration_ns = v;
			else
				run->damaged_run = 1;
		}
		if (sqlite3_column_type(st, 6) == SQLITE_INTEGER) {
			int64_t v = sqlite3_column_int64(st, 6);
			if (v >= DB_DEVICE_MIN && v <= DB_DEVICE_MAX) {
				run->has_host_device = 1;
				run->host_device = (int)v;
			} else {
				run->damaged_run = 1;
			}
		}
		run->events_lost = sqlite3_column_int64(st, 7);
		if (run->events_lost < 0)
			run->events_lost = 0;
		run->status_detail = col_strdup(st, 8);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW && rc != SQLITE_DONE)
		return db_fail(err, "cannot read the run from '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (!run->has_host_device) {
		/* The host is the source of a transfer to a device, the destination of one from it. */
		st = db_prepare(db, "SELECT CASE WHEN kind IN (2, 18) THEN src_dev ELSE dst_dev END"
				    " FROM data_op_raw d WHERE kind IN (2, 3, 18, 19) AND " OP_SOUND("d")
				    " ORDER BY seq LIMIT 1", err);
		if (!st)
			return -1;
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
			run->has_host_device = 1;
			run->host_device = sqlite3_column_int(st, 0);
		}
		sqlite3_finalize(st);
	}
	/* A recording older than these stats, or a table gone: unknown, not an error. */
	run->collector_own_ns = stat_or(db, "collector_own_ns", -1);
	if (run->collector_own_ns < 0)
		run->collector_own_ns = -1;
	run->hash_function = stat_or(db, "hash_function", 1);
	run->hash_chunk_bytes = stat_or(db, "hash_chunk_bytes", (int64_t)1 << 20);
	if (read_modules(db, run, err) < 0 || read_devices(db, run, err) < 0)
		return -1;
	return 0;
}

void run_info_release(struct run_info *run)
{
	if (!run)
		return;
	free(run->command);
	free(run->runtime);
	free(run->status);
	free(run->status_detail);
	for (size_t i = 0; i < run->nmodules; i++)
		free(run->modules[i].path);
	free(run->modules);
	for (size_t i = 0; i < run->ndevices; i++)
		free(run->devices[i].type);
	free(run->devices);
	memset(run, 0, sizeof(*run));
}

const char *ev_kind_name(enum ev_kind kind)
{
	static const char *const names[EV_KIND_COUNT] = {
		"alloc", "to_device", "from_device", "delete", "associate", "disassociate",
		"kernel",
	};
	return (unsigned)kind < EV_KIND_COUNT ? names[kind] : "unknown";
}
