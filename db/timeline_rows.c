/*
 * timeline_rows.c - the timeline's intervals, one pass over each raw table
 * (see timeline_rows.h).
 *
 * Every row is read, in seq order, and judged by db/sound.h's sound_op() or
 * sound_kernel() as it comes: the rules as a WHERE, per row and again on
 * the rows the views join, were most of the cost of an HTML report.  What
 * the joins gave comes from delete_pair_raw, read first: the pass over
 * data_op_raw notes, on each pair, what it learns of the pair's two rows
 * (the allocation's bytes, the delete's end, whether each is sound), in
 * whichever order they come; the deletes' bytes are filled in after it,
 * and the lifetimes made from the allocations it kept.
 *
 * Values are read as the views read them: sqlite3_value_int64() of what the
 * column holds, and begin_ns + dur_ns summed by SQLite, so that a sound row
 * holding a real (only an edited database has one) reads the same.
 */
#include <stdlib.h>

#include "db/db_internal.h"
#include "db/sound.h"
#include "db/timeline_rows.h"
#include "lib/sort.h"

#define NO_IV ((size_t)-1)

/*
 * A row of delete_pair_raw, and what the pass over data_op_raw saw of its
 * rows: a sound row's bytes and end are never negative, so -1 says "no
 * sound row" (and a lifetime that ends at -1 never ends).
 */
struct pair {
	int64_t delete_seq;
	int64_t alloc_bytes;      /* the allocation's, or -1 */
	int64_t delete_end_ns;    /* the delete's, or -1 */
	size_t delete_iv;         /* the delete's interval, or NO_IV */
};

/* A pair whose alloc_seq can equal a seq, by (alloc_seq, delete_seq). */
struct by_alloc {
	int64_t alloc_seq;
	size_t pair;
};

struct pairs {
	struct pair *v;          /* by delete_seq */
	size_t n, cap;
	struct by_alloc *a;      /* as many as v */
	size_t na;
};

static const char kernels_sql[] =
	"SELECT k.seq, k.device, k.begin_ns, k.begin_ns + k.dur_ns, k.dur_ns, k.thread"
	" FROM kernel_raw k ORDER BY k.seq";
enum { K_SEQ, K_DEVICE, K_BEGIN, K_END, K_DUR, K_THREAD };

static const char ops_sql[] =
	"SELECT d.seq, d.kind, d.src_dev, d.dst_dev, d.bytes, d.begin_ns, d.begin_ns + d.dur_ns,"
	" d.dur_ns, d.thread FROM data_op_raw d ORDER BY d.seq";
enum { OP_SEQ, OP_KIND, OP_SRC_DEV, OP_DST_DEV, OP_BYTES, OP_BEGIN, OP_END, OP_DUR, OP_THREAD, OP_NCOLS };

/* A thread column: the collector's number, -1 when it is not an integer in range (not a rule of db/sound.h). */
static int thread_of(sqlite3_value *v)
{
	sqlite3_int64 t;

	if (sqlite3_value_type(v) != SQLITE_INTEGER)
		return -1;
	t = sqlite3_value_int64(v);
	return t >= 0 && t <= INT32_MAX ? (int)t : -1;
}

static const char pairs_sql[] =
	"SELECT delete_seq, alloc_seq FROM delete_pair_raw ORDER BY delete_seq";

static int push(struct ivs *a, const struct iv *x)
{
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 4096;
		struct iv *v = realloc(a->v, cap * sizeof(*v));
		if (!v)
			return -1;
		a->v = v;
		a->cap = cap;
	}
	a->v[a->n++] = *x;
	return 0;
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
		return -1;   /* row() has set *err */
	if (rc != SQLITE_DONE)
		return read_error(db, err);
	return 0;
}

struct pass {
	struct db *db;
	struct sound_judge judge;
	struct pairs pairs;
	size_t pi, ai;           /* the pass's place in pairs.v and pairs.a */
	struct ivs *out;
	size_t *allocs, n_allocs, cap_allocs;   /* the sound allocations' intervals in out */
	char **err;
};

static int kernel_row(void *ctx, sqlite3_stmt *st)
{
	struct pass *r = ctx;
	struct sound_kernel_row k = {
		.seq = sqlite3_column_int64(st, K_SEQ),
		.device = sqlite3_column_value(st, K_DEVICE),
		.begin_ns = sqlite3_column_value(st, K_BEGIN),
		.dur_ns = sqlite3_column_value(st, K_DUR),
	};
	struct iv x;
	int rc = sound_kernel(&r->judge, &k, NULL, r->err);

	if (rc <= 0)
		return rc;
	x = (struct iv){
		.seq = k.seq,
		.seq2 = -1,
		.begin_ns = sqlite3_value_int64(k.begin_ns),
		.end_ns = sqlite3_column_int64(st, K_END),
		.device = sqlite3_value_int(k.device),
		.thread = thread_of(sqlite3_column_value(st, K_THREAD)),
		.lane = LANE_KERNELS,
	};
	clamp_end(&x);
	return push(r->out, &x) < 0 ? oom(r->db, r->err) : 0;
}

/*
 * The value of alloc_seq that a seq can equal: an integer, or a real that
 * is one (a column without the schema's affinity can hold 5.0, which SQLite
 * compares equal to 5).  NULL, text, blobs and other reals equal no seq.
 */
static int join_key(sqlite3_stmt *st, int i, int64_t *key)
{
	double d;

	switch (sqlite3_column_type(st, i)) {
	case SQLITE_INTEGER:
		*key = sqlite3_column_int64(st, i);
		return 1;
	case SQLITE_FLOAT:
		d = sqlite3_column_double(st, i);
		if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0) || d != (double)(int64_t)d)
			return 0;
		*key = (int64_t)d;
		return 1;
	default:
		return 0;
	}
}

static int pair_row(void *ctx, sqlite3_stmt *st)
{
	struct pass *r = ctx;
	struct pairs *p = &r->pairs;
	int64_t key;

	if (p->n == p->cap) {
		size_t cap = p->cap ? 2 * p->cap : 4096;
		struct pair *v = realloc(p->v, cap * sizeof(*v));
		struct by_alloc *a;
		if (!v)
			return oom(r->db, r->err);
		p->v = v;
		if (!(a = realloc(p->a, cap * sizeof(*a))))
			return oom(r->db, r->err);
		p->a = a;
		p->cap = cap;
	}
	p->v[p->n] = (struct pair){
		.delete_seq = sqlite3_column_int64(st, 0),
		.alloc_bytes = -1,
		.delete_end_ns = -1,
		.delete_iv = NO_IV,
	};
	if (join_key(st, 1, &key))
		p->a[p->na++] = (struct by_alloc){ key, p->n };
	p->n++;
	return 0;
}

static int cmp_by_alloc(const void *a, const void *b)
{
	const struct by_alloc *x = a, *y = b;
	if (x->alloc_seq != y->alloc_seq)
		return (x->alloc_seq > y->alloc_seq) - (x->alloc_seq < y->alloc_seq);
	return (x->pair > y->pair) - (x->pair < y->pair);
}

static int op_row(void *ctx, sqlite3_stmt *st)
{
	struct pass *r = ctx;
	struct pairs *p = &r->pairs;
	sqlite3_value *c[OP_NCOLS];
	struct sound_op_row o;
	struct pair *del = NULL;
	struct iv x;
	int rc, kind;

	for (int i = 0; i < OP_NCOLS; i++)
		c[i] = sqlite3_column_value(st, i);
	o = (struct sound_op_row){
		.seq = sqlite3_value_int64(c[OP_SEQ]),
		.kind = c[OP_KIND],
		.src_dev = c[OP_SRC_DEV],
		.dst_dev = c[OP_DST_DEV],
		.bytes = c[OP_BYTES],
		.begin_ns = c[OP_BEGIN],
		.dur_ns = c[OP_DUR],
	};
	if ((rc = sound_op(&r->judge, &o, NULL, r->err)) <= 0)
		return rc;
	x = (struct iv){
		.seq = o.seq,
		.seq2 = -1,
		.begin_ns = sqlite3_value_int64(c[OP_BEGIN]),
		.end_ns = sqlite3_value_int64(c[OP_END]),
		.bytes = sqlite3_value_int64(c[OP_BYTES]),
		.device = sqlite3_value_int(c[OP_SRC_DEV]),
		.thread = thread_of(c[OP_THREAD]),
		.lane = LANE_ALLOC_OPS,
	};
	/* The pairs this row is the delete of (one: delete_seq is the key) or the allocation of. */
	while (r->pi < p->n && p->v[r->pi].delete_seq < o.seq)
		r->pi++;
	while (r->ai < p->na && p->a[r->ai].alloc_seq < o.seq)
		r->ai++;
	if (r->pi < p->n && p->v[r->pi].delete_seq == o.seq) {
		del = &p->v[r->pi];
		del->delete_end_ns = x.end_ns;
	}
	for (size_t k = r->ai; k < p->na && p->a[k].alloc_seq == o.seq; k++)
		p->v[p->a[k].pair].alloc_bytes = x.bytes;
	kind = sqlite3_value_int(c[OP_KIND]);
	switch (kind) {
	case 1: case 17: case 2: case 18:
		x.device = sqlite3_value_int(c[OP_DST_DEV]);
		x.lane = kind == 2 || kind == 18 ? LANE_TO : LANE_ALLOC_OPS;
		break;
	case 3: case 19:
		x.lane = LANE_FROM;
		break;
	case 4: case 20:
		if (del)
			del->delete_iv = r->out->n;
		break;
	default:
		return 0;   /* associate, disassociate: on no lane */
	}
	clamp_end(&x);
	if (push(r->out, &x) < 0)
		return oom(r->db, r->err);
	if (kind != 1 && kind != 17)
		return 0;
	if (r->n_allocs == r->cap_allocs) {
		size_t cap = r->cap_allocs ? 2 * r->cap_allocs : 4096;
		size_t *v = realloc(r->allocs, cap * sizeof(*v));
		if (!v)
			return oom(r->db, r->err);
		r->allocs = v;
		r->cap_allocs = cap;
	}
	r->allocs[r->n_allocs++] = r->out->n - 1;
	return 0;
}

/*
 * The lifetimes, after the pass: one per pair that frees an allocation (by
 * delete_seq), else one that never ends, for each allocation by seq.
 */
static int add_lifetimes(struct pass *r)
{
	const struct pairs *p = &r->pairs;
	size_t ai = 0;

	for (size_t i = 0; i < r->n_allocs; i++) {
		struct iv x = r->out->v[r->allocs[i]];   /* a copy: push() moves out->v */
		int freed = 0;
		x.end_ns = -1;
		x.lane = LANE_MAPPED;
		x.thread = -1;   /* a lifetime spans threads */
		while (ai < p->na && p->a[ai].alloc_seq < x.seq)
			ai++;
		for (size_t k = ai; k < p->na && p->a[k].alloc_seq == x.seq; k++, freed = 1) {
			const struct pair *q = &p->v[p->a[k].pair];
			x.seq2 = q->delete_seq;
			x.end_ns = q->delete_end_ns;
			clamp_end(&x);
			if (push(r->out, &x) < 0)
				return oom(r->db, r->err);
		}
		if (!freed && push(r->out, &x) < 0)
			return oom(r->db, r->err);
	}
	return 0;
}

int timeline_rows_read(struct db *db, struct ivs *out, char **err)
{
	struct pass r = { .db = db, .out = out, .err = err };
	sqlite3_stmt *st;
	int rc = -1;

	sound_judge_init(&r.judge, db);
	if (!(st = db_prepare(db, kernels_sql, err)) || each_row(db, st, kernel_row, &r, err) < 0)
		goto out;
	if (!(st = db_prepare(db, pairs_sql, err)) || each_row(db, st, pair_row, &r, err) < 0)
		goto out;
	sort_array(r.pairs.a, r.pairs.na, sizeof(*r.pairs.a), cmp_by_alloc);
	if (!(st = db_prepare(db, ops_sql, err)) || each_row(db, st, op_row, &r, err) < 0)
		goto out;
	for (size_t i = 0; i < r.pairs.n; i++) {
		const struct pair *q = &r.pairs.v[i];
		if (q->delete_iv != NO_IV && q->alloc_bytes >= 0)
			out->v[q->delete_iv].bytes = q->alloc_bytes;
	}
	rc = add_lifetimes(&r);
out:
	sound_judge_release(&r.judge);
	free(r.pairs.v);
	free(r.pairs.a);
	free(r.allocs);
	return rc;
}
