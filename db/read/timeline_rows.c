/*
 * timeline_rows.c - the timeline's intervals, one pass over each raw table
 * (see timeline_rows.h).
 *
 * Every row is read, in seq order, and judged by db/read/sound.h's sound_op() or
 * sound_kernel() as it comes: the rules as a WHERE, per row and again on
 * the rows the views join, were most of the cost of an HTML report.  What
 * the joins gave comes with each data operation from delete_pair_raw (the
 * allocation a delete frees, by the pair's key); the allocations still
 * mapped are kept in a map by seq (bytes, begin, device) until their delete
 * comes, so that the delete gets their bytes and the lifetime is made then,
 * in bounded memory at any length of run.
 *
 * Values are read as the views read them: sqlite3_value_int64() of what the
 * column holds, and begin_ns + dur_ns as SQLite sums them (sound_end_ns():
 * in C for integers, by SQLite for a sound row holding a real, which only
 * an edited database has).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "db/db_internal.h"
#include "db/pages/rowsrc.h"
#include "db/read/sound.h"
#include "db/read/timeline_rows.h"
#include "lib/extsort.h"
#include "lib/hmap.h"
#include "lib/tempfile.h"
#include "lib/sort.h"
#include "lib/varint.h"

static const char kernels_sql[] =
	"SELECT k.seq, k.device, k.begin_ns, k.dur_ns, k.thread"
	" FROM kernel_raw k ORDER BY k.seq";
enum { K_SEQ = TLK_SEQ, K_DEVICE = TLK_DEVICE, K_BEGIN = TLK_BEGIN, K_DUR = TLK_DUR,
       K_THREAD = TLK_THREAD, K_NCOLS = TLK_NCOLS };

static const char ops_sql[] =
	"SELECT d.seq, d.kind, d.src_dev, d.dst_dev, d.bytes, d.begin_ns, d.dur_ns, d.thread"
	" FROM data_op_raw d ORDER BY d.seq";
enum { OP_SEQ = TLO_SEQ, OP_KIND = TLO_KIND, OP_SRC_DEV = TLO_SRC_DEV, OP_DST_DEV = TLO_DST_DEV,
       OP_BYTES = TLO_BYTES, OP_BEGIN = TLO_BEGIN, OP_DUR = TLO_DUR,
       OP_THREAD = TLO_THREAD, OP_NCOLS = TLO_NCOLS };

/*
 * The pairs by their key (delete_seq, the table's rowid), walked beside the
 * operations (a merge, not a lookup per row), from db/pages/rowsrc.h: the file's
 * pages where it allows (SQLite's steps were a fifth of the reading).
 */
static const char *const pair_cols[2] = { "delete_seq", "alloc_seq" };

/*
 * How many deletes free each allocation: the pairs' alloc_seq values that
 * can equal a seq (join_key()), read in the table's order and sorted here
 * (lib/extsort: nearly sorted already, a linear merge; SQLite's ORDER BY
 * sorted them in a temporary b-tree before the pass could start, ~0.5 s at
 * ten million events), then walked beside the operations.
 */


/* A thread column: the collector's number, -1 when it is not an integer in range (not a rule of db/read/sound.h). */
static int thread_of(const struct dbval *v)
{
	int64_t t;

	if (v->type != SQLITE_INTEGER)
		return -1;
	t = v->i;
	return t >= 0 && t <= INT32_MAX ? (int)t : -1;
}

static void clamp_end(struct iv *x)
{
	if (x->end_ns >= 0 && x->end_ns < x->begin_ns)
		x->end_ns = x->begin_ns;
}

static int read_error(struct db *db, char **err)
{
	return db_fail(err, "cannot read the timeline of '%s': %s", db_path(db), db_errmsg(db));
}

static int oom(struct db *db, char **err)
{
	return db_fail(err, "out of memory reading the timeline of '%s'", db_path(db));
}

/* An allocation row not freed yet: what its delete and its lifetime take. */
struct live_alloc {
	int64_t bytes;           /* -1: the row is not sound */
	int64_t begin_ns;
	int device;
	int freed;               /* a lifetime was made */
	int64_t pending;         /* deletes still to come */
};

/* A delete read before the allocation it frees (no recording makes one). */
struct early_delete {
	int64_t alloc_seq, delete_seq, end_ns;
};

struct pass {
	struct db *db;
	struct sound_judge judge;
	struct hmap live;        /* alloc seq -> struct live_alloc */
	struct extsort *by_alloc;          /* the pairs' alloc_seq values, sorted */
	struct extsort_reader *by_alloc_r; /* at by_alloc_next: the first >= the last asked */
	int64_t by_alloc_next;
	int by_alloc_rc;         /* extsort_next()'s last */
	struct rowsrc *pairs;    /* at the first delete_seq >= the last row's seq, in pair[] */
	struct dbval pair[2];
	int pairs_rc;            /* rowsrc_next()'s last: 1 a row, 0 the end, -1 an error (*err set) */
	int64_t pair_delete;     /* its delete_seq (as sqlite3_column_int64() gives it), when pairs_rc is 1 */
	struct early_delete *early;
	size_t nearly, early_cap;
	int (*fn)(void *arg, const struct iv *x);
	void *arg;
	int fn_rc;               /* fn's non-zero return */
	char **err;
};

static int emit(struct pass *r, const struct iv *x)
{
	int rc = r->fn(r->arg, x);
	if (rc) {
		r->fn_rc = rc;
		return -1;
	}
	return 0;
}

/* Step st to its end, calling row(ctx) on each row; finalizes st. */
static int each_row(struct db *db, sqlite3_stmt *st, int (*row)(void *ctx, sqlite3_stmt *st),
		    void *ctx, char **err)
{
	int rc;

	while ((rc = sqlite3_step(st)) == SQLITE_ROW)
		if (row(ctx, st) < 0)
			break;
	sqlite3_finalize(st);
	if (rc == SQLITE_ROW)
		return -1;   /* row() has set *err, or fn stopped */
	if (rc != SQLITE_DONE)
		return read_error(db, err);
	return 0;
}

/* A kernel_raw row, its columns in kernels_sql's order (K_*). */
static int kernel_values(struct pass *r, const struct dbval *const *c)
{
	struct sound_kernel_row k = {
		.seq = c[K_SEQ]->i,
		.device = c[K_DEVICE],
		.begin_ns = c[K_BEGIN],
		.dur_ns = c[K_DUR],
	};
	struct iv x;
	int64_t end_ns;
	int rc = sound_kernel(&r->judge, &k, NULL, r->err);

	if (rc <= 0)
		return rc;
	if (sound_end_ns(&r->judge, 1, k.seq, k.begin_ns, k.dur_ns, &end_ns, r->err) < 0)
		return -1;
	x = (struct iv){
		.seq = k.seq,
		.seq2 = -1,
		.begin_ns = k.begin_ns->i,
		.end_ns = end_ns,
		.device = (int)k.device->i,
		.thread = thread_of(c[K_THREAD]),
		.lane = LANE_KERNELS,
	};
	clamp_end(&x);
	return emit(r, &x);
}

static int kernel_row(void *ctx, sqlite3_stmt *st)
{
	struct dbval v[K_NCOLS];
	const struct dbval *c[K_NCOLS];

	db_fetch_values(st, v, K_NCOLS);
	for (int i = 0; i < K_NCOLS; i++)
		c[i] = &v[i];
	return kernel_values(ctx, c);
}

/*
 * The value of alloc_seq that a seq can equal: an integer, or a real that
 * is one (a column without the schema's affinity can hold 5.0, which SQLite
 * compares equal to 5).  NULL, text, blobs and other reals equal no seq.
 */
static int join_key(const struct dbval *v, int64_t *key)
{
	double d;

	switch (v->type) {
	case SQLITE_INTEGER:
		*key = v->i;
		return 1;
	case SQLITE_FLOAT:
		d = v->r;
		if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(int64_t)d)
			return 0;
		*key = (int64_t)d;
		return 1;
	default:
		return 0;
	}
}

/* The lifetime of allocation 'seq' that delete 'delete_seq' (-1: none) ends at end_ns (-1: never). */
static int lifetime(struct pass *r, int64_t seq, const struct live_alloc *a, int64_t delete_seq,
		    int64_t end_ns)
{
	struct iv x = {
		.seq = seq,
		.seq2 = delete_seq,
		.begin_ns = a->begin_ns,
		.end_ns = end_ns,
		.bytes = a->bytes,
		.device = a->device,
		.thread = -1,   /* a lifetime spans threads */
		.lane = LANE_MAPPED,
	};
	clamp_end(&x);
	return emit(r, &x);
}

/* The number of pairs that free allocation 'seq' (seqs asked in increasing order); -1 on error. */
static int64_t pairs_of(struct pass *r, int64_t seq)
{
	int64_t n = 0;

	while (r->by_alloc_rc == 1 && r->by_alloc_next <= seq) {
		n += r->by_alloc_next == seq;
		r->by_alloc_rc = extsort_next(r->by_alloc_r, &r->by_alloc_next);
	}
	if (r->by_alloc_rc < 0)
		return db_fail(r->err, "cannot read back a temporary file for the timeline of '%s'", db_path(r->db));
	return n;
}

/* The next pair (its delete_seq read once, not at every data operation it is compared with). */
static void pair_step(struct pass *r)
{
	r->pairs_rc = rowsrc_next(r->pairs, r->pair, r->err);
	if (r->pairs_rc == 1)
		r->pair_delete = r->pair[0].type == SQLITE_NULL ? 0 : r->pair[0].i;
}

/* A data_op_raw row, its columns in ops_sql's order (OP_*). */
static int op_values(struct pass *r, const struct dbval *const *c)
{
	struct sound_op_row o;
	struct live_alloc *freed = NULL;
	int64_t alloc_seq = 0, end_ns = -1;
	uint64_t key;
	int rc, kind, paired = 0;
	struct iv x;

	o = (struct sound_op_row){
		.seq = c[OP_SEQ]->i,
		.kind = c[OP_KIND],
		.src_dev = c[OP_SRC_DEV],
		.dst_dev = c[OP_DST_DEV],
		.bytes = c[OP_BYTES],
		.begin_ns = c[OP_BEGIN],
		.dur_ns = c[OP_DUR],
	};
	/* The pair this row is the delete of (one: delete_seq is the key). */
	while (r->pairs_rc == 1 && r->pair_delete < o.seq)
		pair_step(r);
	if (r->pairs_rc < 0)
		return -1;
	if (r->pairs_rc == 1 && r->pair_delete == o.seq && join_key(&r->pair[1], &alloc_seq)) {
		key = (uint64_t)alloc_seq;
		freed = hmap_get(&r->live, &key);
		paired = 1;
	}
	if ((rc = sound_op(&r->judge, &o, NULL, r->err)) < 0)
		return rc;
	if (rc == 0) {
		/* Not sound: a lifetime it should end never ends. */
		if (freed && freed->bytes >= 0 && lifetime(r, alloc_seq, freed, o.seq, -1) < 0)
			return -1;
		if (freed) {
			freed->freed = 1;
			if (--freed->pending <= 0) {
				key = (uint64_t)alloc_seq;
				hmap_del(&r->live, &key);
			}
		}
		if (paired && !freed)
			goto early;
		return 0;
	}
	if (sound_end_ns(&r->judge, 0, o.seq, c[OP_BEGIN], c[OP_DUR], &end_ns, r->err) < 0)
		return -1;
	x = (struct iv){
		.seq = o.seq,
		.seq2 = -1,
		.begin_ns = c[OP_BEGIN]->i,
		.end_ns = end_ns,
		.bytes = c[OP_BYTES]->i,
		.device = (int)c[OP_SRC_DEV]->i,
		.thread = thread_of(c[OP_THREAD]),
		.lane = LANE_ALLOC_OPS,
	};
	kind = (int)c[OP_KIND]->i;
	switch (kind) {
	case 1: case 17: case 2: case 18:
		x.device = (int)c[OP_DST_DEV]->i;
		x.lane = kind == 2 || kind == 18 ? LANE_TO : LANE_ALLOC_OPS;
		break;
	case 3: case 19:
		x.lane = LANE_FROM;
		break;
	case 4: case 20:
		if (freed && freed->bytes >= 0)
			x.bytes = freed->bytes;
		break;
	default:
		x.lane = LANE_COUNT;   /* associate, disassociate: on no lane */
		break;
	}
	if (x.lane != LANE_COUNT) {
		clamp_end(&x);
		if (emit(r, &x) < 0)
			return -1;
	}
	if (freed) {
		if (freed->bytes >= 0 && lifetime(r, alloc_seq, freed, o.seq, end_ns) < 0)
			return -1;
		freed->freed = 1;
	} else if (paired) {
		goto early;
	}
	/* A freed allocation leaves the map once its last delete has been read. */
	if (freed && --freed->pending <= 0) {
		key = (uint64_t)alloc_seq;
		hmap_del(&r->live, &key);
	}
	if (kind == 1 || kind == 17) {
		struct live_alloc *a, v = { x.bytes, x.begin_ns, x.device, 0, pairs_of(r, o.seq) };
		int created;
		if (v.pending < 0)
			return -1;
		/* Deletes read before it (no recording makes them). */
		for (size_t i = 0; i < r->nearly; i++)
			if (r->early[i].alloc_seq == o.seq) {
				if (lifetime(r, o.seq, &v, r->early[i].delete_seq, r->early[i].end_ns) < 0)
					return -1;
				v.freed = 1;
				v.pending--;
			}
		if (v.pending > 0 || !v.freed) {
			key = (uint64_t)o.seq;
			if (!(a = hmap_put(&r->live, &key, &created)))
				return oom(r->db, r->err);
			*a = v;
		}
	}
	return 0;
early:
	if (r->nearly == r->early_cap) {
		size_t cap = r->early_cap ? 2 * r->early_cap : 16;
		struct early_delete *v = realloc(r->early, cap * sizeof(*v));
		if (!v)
			return oom(r->db, r->err);
		r->early = v;
		r->early_cap = cap;
	}
	r->early[r->nearly++] = (struct early_delete){ alloc_seq, o.seq, rc > 0 ? end_ns : -1 };
	return 0;
}

static int op_row(void *ctx, sqlite3_stmt *st)
{
	struct dbval v[OP_NCOLS];
	const struct dbval *c[OP_NCOLS];

	db_fetch_values(st, v, OP_NCOLS);
	for (int i = 0; i < OP_NCOLS; i++)
		c[i] = &v[i];
	return op_values(ctx, c);
}

struct never {
	int64_t seq;
	struct live_alloc a;
};

static int cmp_never(const void *a, const void *b)
{
	const struct never *x = a, *y = b;
	return (x->seq > y->seq) - (x->seq < y->seq);
}

/* The allocations never freed, by seq: lifetimes that never end. */
static int never_freed(struct pass *r)
{
	struct never *v = malloc((r->live.count ? r->live.count : 1) * sizeof(*v));
	size_t n = 0, pos = 0;
	const uint64_t *key;
	void *val;
	int rc = 0;

	if (!v)
		return oom(r->db, r->err);
	while (hmap_next(&r->live, &pos, &key, &val)) {
		const struct live_alloc *a = val;
		if (!a->freed && a->bytes >= 0)
			v[n++] = (struct never){ (int64_t)*key, *a };
	}
	sort_array(v, n, sizeof(*v), cmp_never);
	for (size_t i = 0; i < n && rc == 0; i++)
		rc = lifetime(r, v[i].seq, &v[i].a, -1, -1);
	free(v);
	return rc;
}

/* r->by_alloc filled from every pair's alloc_seq and opened for reading at its first value. */
static int sort_by_alloc(struct pass *r)
{
	struct rowsrc *pairs = rowsrc_open(r->db, "delete_pair_raw", pair_cols, 2, 0, r->err);
	const char *why = "out of memory";
	struct dbval c[2];
	int rc = 0;

	if (!pairs)
		return -1;
	r->by_alloc = extsort_new(sizeof(int64_t), sort_cmp_i64, tempfile_buffer_records((size_t)1 << 20));
	while (r->by_alloc && (rc = rowsrc_next(pairs, c, r->err)) == 1) {
		int64_t key;
		if (join_key(&c[1], &key) && extsort_add(r->by_alloc, &key, &why) < 0)
			break;
	}
	rowsrc_close(pairs);
	if (rc < 0)
		return -1;
	if (!r->by_alloc || rc == 1)
		return db_fail(r->err, "cannot sort the pairs for the timeline of '%s': %s", db_path(r->db), why);
	if (!(r->by_alloc_r = extsort_read(r->by_alloc)))
		return db_fail(r->err, "cannot sort the pairs for the timeline of '%s': %s", db_path(r->db),
			       "cannot read back a temporary file");
	r->by_alloc_rc = extsort_next(r->by_alloc_r, &r->by_alloc_next);
	return r->by_alloc_rc < 0 ? db_fail(r->err, "cannot read back a temporary file for the timeline of '%s'",
					     db_path(r->db)) : 0;
}

/* The pass's state and the statements walked beside the data operations. 0, or -1 with *err. */
static int pass_begin(struct pass *r, struct db *db, int (*fn)(void *arg, const struct iv *x), void *arg,
		      char **err)
{
	*r = (struct pass){ .db = db, .fn = fn, .arg = arg, .err = err };
	sound_judge_init(&r->judge, db);
	hmap_init(&r->live, 1, sizeof(struct live_alloc));
	if (sort_by_alloc(r) < 0)
		return -1;
	if (!(r->pairs = rowsrc_open(db, "delete_pair_raw", pair_cols, 2, 0, err)))
		return -1;
	pair_step(r);
	return r->pairs_rc < 0 ? -1 : 0;
}

static void pass_end(struct pass *r)
{
	extsort_reader_free(r->by_alloc_r);
	extsort_free(r->by_alloc);
	rowsrc_close(r->pairs);
	r->by_alloc_r = NULL;
	r->by_alloc = NULL;
	r->pairs = NULL;
	sound_judge_release(&r->judge);
	hmap_release(&r->live);
	free(r->early);
	r->early = NULL;
}

int timeline_rows_each(struct db *db, int (*fn)(void *arg, const struct iv *x), void *arg, char **err)
{
	struct pass r;
	sqlite3_stmt *st;
	int rc = -1;

	if (pass_begin(&r, db, fn, arg, err) < 0)
		goto out;
	if (!(st = db_prepare(db, kernels_sql, err)) || each_row(db, st, kernel_row, &r, err) < 0)
		goto out;
	if (!(st = db_prepare(db, ops_sql, err)) || each_row(db, st, op_row, &r, err) < 0)
		goto out;
	rc = never_freed(&r);
out:
	pass_end(&r);
	return r.fn_rc ? r.fn_rc : rc;
}

/* --- the intervals recorded while another pass reads the rows -------------- */

/*
 * The intervals are written compactly: a flags byte (the lane; whether seq2
 * and end_ns are there), then zigzag varints of the seq and begin_ns as
 * differences from the interval before in the file, seq2 and end_ns from
 * seq and begin_ns, bytes, device and thread.  About 12 bytes where the
 * struct is 56: at a hundred million events the files were 5.6 GB, more
 * than this machine's page cache kept beside the database.  Differences
 * are taken modulo 2^64, so any values come back exactly.
 */
#define REC_BYTES ((size_t)256 << 10)   /* bytes buffered per file */
#define REC_MAX 80                      /* an interval's most: 1 + 7 * VARINT_MAX */

struct rec_file {
	int fd;
	unsigned char *buf;
	size_t n;                /* bytes in buf */
	off_t off;               /* bytes written */
	uint64_t seq, begin;     /* the last interval's, for the differences */
};

struct timeline_rec {
	struct pass r;
	char *err;               /* why the recording was given up (it is then not used) */
	int broken, finished;
	struct rec_file files[2];   /* the kernels; the data operations and the lifetimes */
};

enum { REC_HAS_SEQ2 = 0x10, REC_HAS_END = 0x20, REC_LANE = 0x0f };

static uint64_t get_zz(const unsigned char **p)
{
	return zigzag_value(varint_get(p));
}

static unsigned char *rec_encode(struct rec_file *f, unsigned char *p, const struct iv *x)
{
	unsigned flags = (unsigned)x->lane & REC_LANE;

	flags |= x->seq2 != -1 ? REC_HAS_SEQ2 : 0;
	flags |= x->end_ns != -1 ? REC_HAS_END : 0;
	*p++ = (unsigned char)flags;
	p = zigzag_put(p, (uint64_t)x->seq - f->seq);
	if (flags & REC_HAS_SEQ2)
		p = zigzag_put(p, (uint64_t)x->seq2 - (uint64_t)x->seq);
	p = zigzag_put(p, (uint64_t)x->begin_ns - f->begin);
	if (flags & REC_HAS_END)
		p = zigzag_put(p, (uint64_t)x->end_ns - (uint64_t)x->begin_ns);
	p = zigzag_put(p, (uint64_t)x->bytes);
	p = zigzag_put(p, (uint64_t)(int64_t)x->device);
	p = zigzag_put(p, (uint64_t)(int64_t)x->thread);
	f->seq = (uint64_t)x->seq;
	f->begin = (uint64_t)x->begin_ns;
	return p;
}

/* rec_encode()'s inverse; 'last' holds the interval before (zero at a file's start). */
static const unsigned char *rec_decode(const unsigned char *p, struct iv *x, uint64_t last[2])
{
	unsigned flags = *p++;

	x->lane = (enum lane)(flags & REC_LANE);
	x->seq = (int64_t)(last[0] += get_zz(&p));
	x->seq2 = flags & REC_HAS_SEQ2 ? (int64_t)((uint64_t)x->seq + get_zz(&p)) : -1;
	x->begin_ns = (int64_t)(last[1] += get_zz(&p));
	x->end_ns = flags & REC_HAS_END ? (int64_t)((uint64_t)x->begin_ns + get_zz(&p)) : -1;
	x->bytes = (int64_t)get_zz(&p);
	x->device = (int)(int64_t)get_zz(&p);
	x->thread = (int)(int64_t)get_zz(&p);
	return p;
}

static int rec_flush(struct rec_file *f)
{
	if (!f->n)
		return 0;
	if (f->fd < 0 && (f->fd = tempfile_open("timeline")) < 0)
		return -1;
	if (tempfile_io(f->fd, f->buf, f->n, f->off, 1) < 0)
		return -1;
	f->off += (off_t)f->n;
	f->n = 0;
	return 0;
}

static int rec_emit(void *arg, const struct iv *x)
{
	struct rec_file *f = &((struct timeline_rec *)arg)->files[x->lane != LANE_KERNELS];

	if (f->n > REC_BYTES - REC_MAX && rec_flush(f) < 0)
		return 1;
	f->n = (size_t)(rec_encode(f, f->buf + f->n, x) - f->buf);
	return 0;
}

struct timeline_rec *timeline_rec_new(struct db *db)
{
	struct timeline_rec *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	for (int i = 0; i < 2; i++) {
		t->files[i].fd = -1;
		if (!(t->files[i].buf = malloc(REC_BYTES))) {
			free(t->files[0].buf);
			free(t);
			return NULL;
		}
	}
	if (pass_begin(&t->r, db, rec_emit, t, &t->err) < 0) {
		timeline_rec_free(t);
		return NULL;
	}
	return t;
}

static void rec_give_up(struct timeline_rec *t)
{
	t->broken = 1;
	pass_end(&t->r);
}

void timeline_rec_kernel(struct timeline_rec *t, const struct dbval *const *c)
{
	if (t && !t->broken && kernel_values(&t->r, c) < 0)
		rec_give_up(t);
}

void timeline_rec_op(struct timeline_rec *t, const struct dbval *const *c)
{
	if (t && !t->broken && op_values(&t->r, c) < 0)
		rec_give_up(t);
}

int timeline_rec_finish(struct timeline_rec *t)
{
	if (!t || t->broken)
		return -1;
	if (never_freed(&t->r) != 0 || rec_flush(&t->files[0]) < 0 || rec_flush(&t->files[1]) < 0) {
		rec_give_up(t);
		return -1;
	}
	pass_end(&t->r);
	t->finished = 1;
	return 0;
}

int timeline_rec_each(struct timeline_rec *t, int (*fn)(void *arg, const struct iv *x), void *arg, char **err)
{
	for (int i = 0; i < 2; i++) {
		struct rec_file *f = &t->files[i];
		uint64_t last[2] = { 0, 0 };
		size_t have = 0;   /* bytes in buf: what the last read left undecoded first */
		for (off_t off = 0; off < f->off || have;) {
			const unsigned char *p = f->buf, *stop;
			size_t want = REC_BYTES - have;
			if ((off_t)want > f->off - off)
				want = (size_t)(f->off - off);
			if (want && tempfile_io(f->fd, f->buf + have, want, off, 0) < 0)
				return db_fail(err, "cannot read the timeline back from a temporary file");
			off += (off_t)want;
			have += want;
			/* Whole intervals only, until the file's last bytes are in. */
			stop = f->buf + (off < f->off ? have - REC_MAX : have);
			while (p < stop) {
				struct iv x;
				int rc;
				p = rec_decode(p, &x, last);
				if ((rc = fn(arg, &x)))
					return rc;
			}
			if (p > f->buf + have)
				return db_fail(err, "the timeline's temporary file is damaged");
			have -= (size_t)(p - f->buf);
			memmove(f->buf, p, have);
		}
	}
	return 0;
}

void timeline_rec_free(struct timeline_rec *t)
{
	if (!t)
		return;
	if (!t->broken && !t->finished)
		pass_end(&t->r);
	for (int i = 0; i < 2; i++) {
		if (t->files[i].fd >= 0)
			close(t->files[i].fd);
		free(t->files[i].buf);
	}
	free(t->err);
	free(t);
}
