/*
 * timeline.c - binning the run's events per device and lane (see timeline.h).
 *
 * The intervals are streamed twice (timeline_rows.h), never held: the first
 * pass takes the span, the devices and the threads; the second gives every
 * (device, lane) and (device, thread) its bins at once, keeps the intervals
 * of those with at most TIMELINE_EXACT_LIMIT of them (dropped past that) and
 * the marks, and sends the allocation endpoints through lib/extsort.h for
 * the mapped-bytes peaks.  Busy time is spread over the bins an interval
 * covers with a difference array, so a long interval costs O(1) and the
 * whole build is O(events + devices * bins) in time, O(devices * (lanes +
 * threads) * bins) in memory, plus the sort of the endpoints (bounded
 * memory, a temporary file past a million).
 *
 * The intervals are those of sound rows only (db/read/sound.h): every time is
 * then in [0, DB_VALUE_MAX], so spans and bin arithmetic stay far from
 * overflow; the sums that grow with the number of events saturate
 * (lib/sat.h), and the number of bins is capped whatever the span.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/timeline.h"
#include "lib/grow.h"
#include "lib/tempfile.h"
#include "db/read/timeline_rows.h"
#include "db/read/threads.h"
#include "lib/batchq.h"
#include "lib/extsort.h"
#include "lib/sat.h"
#include "lib/sort.h"

static const char *const lane_names[LANE_COUNT] = {
	"kernels", "to_device", "from_device", "alloc_ops", "mapped",
};

struct bins {
	int64_t *busy, *count, *bytes, *diff;
	int64_t total_count, total_busy, total_bytes, peak;
};

static int has_seq(const int64_t *sorted, size_t n, int64_t seq)
{
	return seq >= 0 && n && bsearch(&seq, sorted, n, sizeof(*sorted), sort_cmp_i64);
}

/* An allocation endpoint for the mapped-bytes sweep: delta > 0 maps, < 0 frees. */
struct endpoint {
	int64_t t;
	int64_t delta;
	int64_t device;
};

static int cmp_endpoint(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;
	if (x->device != y->device)
		return (x->device > y->device) - (x->device < y->device);
	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	/* Frees before maps at the same instant: a reuse is not a peak. */
	return (x->delta > y->delta) - (x->delta < y->delta);
}

static void bins_add(struct bins *b, const struct iv *x, int64_t t0, int64_t w, int nbins)
{
	int64_t rb = x->begin_ns - t0, re = x->end_ns - t0;
	int64_t i0 = rb / w, i1;

	if (i0 >= nbins)
		i0 = nbins - 1;
	b->total_count++;
	b->total_busy = sat_add_i64(b->total_busy, re - rb);
	b->total_bytes = sat_add_i64(b->total_bytes, x->bytes);
	b->count[i0]++;
	if (x->lane != LANE_MAPPED)
		b->bytes[i0] = sat_add_i64(b->bytes[i0], x->bytes);
	if (re <= rb)
		return;
	i1 = (re - 1) / w;
	if (i1 >= nbins)
		i1 = nbins - 1;
	if (i0 == i1) {
		b->busy[i0] = sat_add_i64(b->busy[i0], re - rb);
		return;
	}
	b->busy[i0] = sat_add_i64(b->busy[i0], (i0 + 1) * w - rb);
	b->busy[i1] = sat_add_i64(b->busy[i1], re - i1 * w);
	if (i1 > i0 + 1) {
		b->diff[i0 + 1]++;
		b->diff[i1]--;
	}
}

/* Busy, count and bytes per bin (non-empty ones) and the totals into 'o' (the peak too: mapped). */
static void bins_json(json_t *o, struct bins *b, int64_t w, int nbins, int with_peak)
{
	json_t *arr = json_array();
	int64_t full = 0;

	for (int i = 0; i < nbins; i++) {
		full += b->diff[i];
		b->busy[i] = sat_add_i64(b->busy[i], sat_mul_i64(full, w));
		if (!b->busy[i] && !b->count[i] && !b->bytes[i])
			continue;
		json_array_append_new(arr, json_pack("[iIII]", i, (json_int_t)b->busy[i],
						     (json_int_t)b->count[i], (json_int_t)b->bytes[i]));
	}
	json_object_set_new(o, "count", json_integer(b->total_count));
	json_object_set_new(o, "busy_ns", json_integer(b->total_busy));
	json_object_set_new(o, "bytes", json_integer(b->total_bytes));
	if (with_peak)
		json_object_set_new(o, "peak_bytes", json_integer(b->peak));
	json_object_set_new(o, "bins", arr);
}

static json_t *device_types(struct db *db)
{
	json_t *types = json_object();
	sqlite3_stmt *st = db_prepare(db, "SELECT device, type FROM devices", NULL);
	if (!st)
		return types;
	while (sqlite3_step(st) == SQLITE_ROW) {
		char key[32];
		const char *type = (const char *)sqlite3_column_text(st, 1);
		snprintf(key, sizeof(key), "%d", sqlite3_column_int(st, 0));
		if (type)
			json_object_set_new(types, key, json_string(type));
	}
	sqlite3_finalize(st);
	return types;
}

/* A lane of a device, or a thread of a device: its bins and, while few, its intervals. */
struct track {
	struct bins b;
	json_t *ivs;                  /* NULL past TIMELINE_EXACT_LIMIT intervals */
	size_t nivs;
};

/* Everything of one device; threads by (sorted) position in 'threads'. */
struct dev {
	int device;
	struct track lanes[LANE_COUNT];
	int *threads;
	size_t nthreads, threads_cap;
	struct track *th;             /* beside threads[], th_cap of them */
	size_t th_cap;
	int ready;                    /* its lanes' bins are allocated */
	int64_t peak;                 /* mapped lane: most bytes mapped at once */
};

struct build {
	struct db *db;
	struct dev *devs;
	size_t ndev, devs_cap;
	int64_t t0, t1, w;
	int nbins;
	size_t nrows;
	const int64_t *marks;
	size_t n_marks;
	/*
	 * A bit per seq modulo mark_mask + 1, set for every mark: a clear bit
	 * answers has_mark() without a search (most of the intervals; NULL
	 * with no marks or out of memory, and every seq is searched).
	 */
	uint64_t *mark_bits;
	uint64_t mark_mask;
	json_t *jmarks;               /* kernels' and operations' marks, in stream order */
	struct mark_key *jkeys;       /* each jmarks entry's seq and seq2 (timeline_job_finish()) */
	size_t njkeys, jkeys_cap;
	json_t *lifemarks;            /* lifetimes' marks: [seq, seq2, mark] sorted after */
	struct extsort *ends;
	const char *why;
};

struct mark_key {
	int64_t seq, seq2;
};

static struct dev *dev_of(struct build *t, int device, int create)
{
	size_t lo = 0, hi = t->ndev;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->devs[mid].device < device)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < t->ndev && t->devs[lo].device == device)
		return &t->devs[lo];
	if (!create)
		return NULL;
	if (t->ndev == t->devs_cap) {
		size_t cap = t->devs_cap ? 2 * t->devs_cap : 8;
		struct dev *v = realloc(t->devs, cap * sizeof(*v));
		if (!v)
			return NULL;
		t->devs = v;
		t->devs_cap = cap;
	}
	memmove(&t->devs[lo + 1], &t->devs[lo], (t->ndev - lo) * sizeof(*t->devs));
	memset(&t->devs[lo], 0, sizeof(*t->devs));
	t->devs[lo].device = device;
	t->ndev++;
	return &t->devs[lo];
}

/* Position of 'thread' among d's sorted threads; created when asked.  -1 absent or out of memory. */
static long thread_pos(struct dev *d, int thread, int create)
{
	size_t lo = 0, hi = d->nthreads;

	/* Most events come from the thread before. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (d->threads[mid] < thread)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < d->nthreads && d->threads[lo] == thread)
		return (long)lo;
	if (!create)
		return -1;
	if (d->nthreads == d->threads_cap) {
		size_t cap = d->threads_cap ? 2 * d->threads_cap : 8;
		int *v = realloc(d->threads, cap * sizeof(*v));
		if (!v)
			return -1;
		d->threads = v;
		d->threads_cap = cap;
	}
	memmove(&d->threads[lo + 1], &d->threads[lo], (d->nthreads - lo) * sizeof(*d->threads));
	d->threads[lo] = thread;
	d->nthreads++;
	return (long)lo;
}

/* Pass 1 (when the caller did not give the span): the span. */
static int span_row(void *arg, const struct iv *x)
{
	struct build *t = arg;

	t->nrows++;
	if (x->begin_ns < t->t0)
		t->t0 = x->begin_ns;
	if (x->end_ns > t->t1)
		t->t1 = x->end_ns;
	if (x->begin_ns > t->t1)
		t->t1 = x->begin_ns;
	return 0;
}

void timeline_span_init(struct timeline_span *s)
{
	s->t0 = INT64_MAX;
	s->t1 = INT64_MIN;
	s->intervals = 0;
	s->rec = NULL;
}

void timeline_span_record(struct timeline_span *s, struct db *db)
{
	timeline_rec_free(s->rec);
	s->rec = timeline_rec_new(db);
}

void timeline_span_recorded(struct timeline_span *s, int complete)
{
	if (!complete || timeline_rec_finish(s->rec) < 0) {
		timeline_rec_free(s->rec);
		s->rec = NULL;
	}
}

void timeline_span_release(struct timeline_span *s)
{
	timeline_rec_free(s->rec);
	s->rec = NULL;
}

/*
 * The span pass 1 takes, from the events: its intervals are the sound
 * kernels, transfers, allocations and deletes (associations are on no lane)
 * and the lifetimes, which begin at an allocation and end at a delete or
 * (-1) not at all: inside the span of those already.
 */
void timeline_span_add(struct timeline_span *s, const struct event *ev)
{
	if (ev->kind == EV_ASSOCIATE || ev->kind == EV_DISASSOCIATE)
		return;
	s->intervals++;
	if (ev->begin_ns < s->t0)
		s->t0 = ev->begin_ns;
	if (ev->end_ns > s->t1)
		s->t1 = ev->end_ns;
	if (ev->begin_ns > s->t1)
		s->t1 = ev->begin_ns;
}

static int bins_alloc(struct bins *b, int nbins)
{
	b->busy = calloc(nbins, sizeof(int64_t));
	b->count = calloc(nbins, sizeof(int64_t));
	b->bytes = calloc(nbins, sizeof(int64_t));
	b->diff = calloc(nbins + 1, sizeof(int64_t));
	return b->busy && b->count && b->bytes && b->diff ? 0 : -1;
}

static void bins_free(struct bins *b)
{
	free(b->busy);
	free(b->count);
	free(b->bytes);
	free(b->diff);
}

static void track_free(struct track *k)
{
	bins_free(&k->b);
	json_decref(k->ivs);
}

static int track_init(struct track *k, int nbins)
{
	return bins_alloc(&k->b, nbins) < 0 || !(k->ivs = json_array()) ? -1 : 0;
}

/* Device 'device' with its lanes' bins, made when first seen.  NULL out of memory. */
static struct dev *dev_ready(struct build *t, int device)
{
	struct dev *d = dev_of(t, device, 1);

	if (!d || d->ready)
		return d;
	for (int l = 0; l < LANE_COUNT; l++)
		if (track_init(&d->lanes[l], t->nbins) < 0)
			return NULL;
	d->ready = 1;
	return d;
}

/* The track of 'thread' on d, made when first seen (kept in thread order).  NULL out of memory. */
static struct track *thread_track(struct build *t, struct dev *d, int thread)
{
	long pos = thread_pos(d, thread, 0);
	size_t n = d->nthreads;

	if (pos >= 0)
		return &d->th[pos];
	if (grow_one((void **)&d->th, &d->th_cap, d->nthreads, sizeof(*d->th)) < 0)
		return NULL;
	if ((pos = thread_pos(d, thread, 1)) < 0)
		return NULL;
	memmove(&d->th[pos + 1], &d->th[pos], (n - (size_t)pos) * sizeof(*d->th));
	memset(&d->th[pos], 0, sizeof(*d->th));
	if (track_init(&d->th[pos], t->nbins) < 0) {
		/* Still freed with the others: its pointers are NULL or its own. */
		return NULL;
	}
	return &d->th[pos];
}

/* Keep x's interval while the track has few; 'iv' is a new reference. */
static void track_keep(struct track *k, json_t *iv)
{
	if (k->ivs && k->nivs < TIMELINE_EXACT_LIMIT) {
		json_array_append_new(k->ivs, iv);
		k->nivs++;
		return;
	}
	json_decref(iv);
	json_decref(k->ivs);   /* more than the limit: bins only */
	k->ivs = NULL;
}

/* Whether seq may be a mark: 0 only when it is none. */
static int mark_maybe(const struct build *t, int64_t seq)
{
	uint64_t b = (uint64_t)seq & t->mark_mask;

	return seq >= 0 && (!t->mark_bits || (t->mark_bits[b >> 6] >> (b & 63) & 1));
}

static int has_mark(const struct build *t, const struct iv *x)
{
	return t->n_marks && ((mark_maybe(t, x->seq) && has_seq(t->marks, t->n_marks, x->seq)) ||
			      (mark_maybe(t, x->seq2) && has_seq(t->marks, t->n_marks, x->seq2)));
}

/* t's mark filter: about 8 bits a mark, from 4 Ki to 16 Mi bits (2 MiB). */
static void mark_filter(struct build *t)
{
	uint64_t nbits = (uint64_t)1 << 12;

	while (nbits < (uint64_t)1 << 24 && nbits < 8 * (uint64_t)t->n_marks)
		nbits <<= 1;
	if (!t->n_marks || !(t->mark_bits = calloc(nbits / 64, sizeof(*t->mark_bits))))
		return;
	t->mark_mask = nbits - 1;
	for (size_t i = 0; i < t->n_marks; i++) {
		uint64_t b = (uint64_t)t->marks[i] & t->mark_mask;
		t->mark_bits[b >> 6] |= (uint64_t)1 << (b & 63);
	}
}

/* Pass 2: every interval into its lane's and its thread's bins. */
static int bin_row(void *arg, const struct iv *in)
{
	struct build *t = arg;
	struct iv x = *in;
	struct dev *d = dev_ready(t, x.device);
	struct track *k;

	if (!d) {
		t->why = "out of memory";
		return 1;
	}
	if (x.end_ns < 0)   /* still mapped at exit */
		x.end_ns = t->t1;
	k = &d->lanes[x.lane];
	bins_add(&k->b, &x, t->t0, t->w, t->nbins);
	if (x.lane == LANE_MAPPED) {
		struct endpoint ep[2] = { { x.begin_ns, x.bytes, x.device }, { x.end_ns, -x.bytes, x.device } };
		if (extsort_add(t->ends, &ep[0], &t->why) < 0 || extsort_add(t->ends, &ep[1], &t->why) < 0)
			return 1;
		/* [seq, seq2, ...]: put in the lifetimes' order (by allocation, then delete) at the end. */
		if (k->ivs)
			track_keep(k, json_pack("[IIIIII]", (json_int_t)x.seq, (json_int_t)x.seq2,
						(json_int_t)x.begin_ns, (json_int_t)x.end_ns,
						(json_int_t)x.bytes, (json_int_t)x.seq));
		if (has_mark(t, &x))
			json_array_append_new(t->lifemarks, json_pack("[II[IisIIIi]]", (json_int_t)x.seq,
				(json_int_t)x.seq2, (json_int_t)x.seq, x.device, lane_names[x.lane],
				(json_int_t)x.begin_ns, (json_int_t)x.end_ns, (json_int_t)x.bytes, x.thread));
		return 0;
	}
	if (k->ivs)
		track_keep(k, json_pack("[IIII]", (json_int_t)x.begin_ns, (json_int_t)x.end_ns,
					(json_int_t)x.bytes, (json_int_t)x.seq));
	{
		if (!(k = thread_track(t, d, x.thread))) {
			t->why = "out of memory";
			return 1;
		}
		bins_add(&k->b, &x, t->t0, t->w, t->nbins);
		if (k->ivs)
			track_keep(k, json_pack("[IIIIs]", (json_int_t)x.begin_ns, (json_int_t)x.end_ns,
						(json_int_t)x.bytes, (json_int_t)x.seq, lane_names[x.lane]));
	}
	if (has_mark(t, &x)) {
		if (grow_one((void **)&t->jkeys, &t->jkeys_cap, t->njkeys, sizeof(*t->jkeys)) < 0) {
			t->why = "out of memory";
			return 1;
		}
		t->jkeys[t->njkeys++] = (struct mark_key){ x.seq, x.seq2 };
		json_array_append_new(t->jmarks, json_pack("[IisIIIi]", (json_int_t)x.seq, x.device,
							   lane_names[x.lane], (json_int_t)x.begin_ns,
							   (json_int_t)x.end_ns, (json_int_t)x.bytes, x.thread));
	}
	return 0;
}

/* The reading thread of pass 2: the intervals into the queue. */
struct reader {
	struct db *db;
	char *err;
};

static int push_iv(void *arg, const struct iv *x)
{
	struct batchq *q = arg;
	struct iv *slot = batchq_slot(q);

	if (!slot)
		return 1;   /* the binning stopped */
	*slot = *x;
	batchq_push(q);
	return 0;
}

static int read_ivs(void *arg, struct batchq *q)
{
	struct reader *r = arg;
	return timeline_rows_each(r->db, push_iv, q, &r->err);
}

/*
 * Pass 2 with the rows read on a thread of their own (SQLite's steps and
 * the pairing of deletes) while this one bins them, in the same order.
 * What timeline_rows_each(db, bin_row, t, err) returns.
 */
static int bin_queued(void *arg, const void *rec)
{
	return bin_row(arg, rec);
}

static int bin_rows(struct build *t, char **err)
{
	struct batchq *q = batchq_wanted() ? batchq_new(sizeof(struct iv), 1024, 8) : NULL;
	struct reader r = { t->db, NULL };
	int rc, stopped;

	if (!q || batchq_start(q, read_ivs, &r) < 0) {
		batchq_free(q);
		return timeline_rows_each(t->db, bin_row, t, err);
	}
	stopped = batchq_consume(q, bin_queued, t);
	rc = batchq_finish(q);
	batchq_free(q);
	if (stopped) {
		free(r.err);
		return stopped;
	}
	if (err)
		*err = r.err;
	else
		free(r.err);
	return rc;
}

/* Sort [seq, seq2, ...] arrays by (seq, seq2): the lifetimes' order of old. */
static int cmp_life(const void *a, const void *b)
{
	json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
	json_int_t xs = json_integer_value(json_array_get(x, 0)), ys = json_integer_value(json_array_get(y, 0));
	json_int_t x2 = json_integer_value(json_array_get(x, 1)), y2 = json_integer_value(json_array_get(y, 1));
	/* A lifetime that never ended (seq2 -1) was its allocation's only one. */
	if (xs != ys)
		return (xs > ys) - (xs < ys);
	return (x2 > y2) - (x2 < y2);
}

static json_t *sorted_lives(json_t *arr)
{
	size_t n = json_array_size(arr);
	json_t **v = malloc((n ? n : 1) * sizeof(*v)), *out = json_array();

	if (!v)
		return out;
	for (size_t i = 0; i < n; i++)
		v[i] = json_array_get(arr, i);
	sort_array(v, n, sizeof(*v), cmp_life);
	for (size_t i = 0; i < n; i++)
		json_array_append(out, v[i]);
	free(v);
	return out;
}

/* The peaks of every device's mapped lane, from the sorted endpoints (into lanes[MAPPED].b.bytes). */
static int mapped_peaks(struct build *t)
{
	struct extsort_reader *r = extsort_read(t->ends);
	struct endpoint ep;
	int have, rc = 0;

	if (!r)
		return -1;
	have = extsort_next(r, &ep);
	for (size_t di = 0; di < t->ndev && have >= 0; di++) {
		struct dev *d = &t->devs[di];
		struct bins *b = &d->lanes[LANE_MAPPED].b;
		int64_t live = 0;

		while (have == 1 && ep.device < d->device)
			have = extsort_next(r, &ep);
		for (int i = 0; i < t->nbins && have >= 0; i++) {
			int64_t bin_end = t->t0 + (int64_t)(i + 1) * t->w;
			int64_t peak = live;
			while (have == 1 && ep.device == d->device && ep.t < bin_end) {
				live = sat_add_i64(live, ep.delta);
				if (live > peak)
					peak = live;
				have = extsort_next(r, &ep);
			}
			b->bytes[i] = peak;
			if (peak > b->peak)
				b->peak = peak;
		}
	}
	if (have < 0)
		rc = -1;
	extsort_reader_free(r);
	return rc;
}

/* A lane's or a thread's JSON after the keys the caller set; the mapped lane's peak and lifetimes. */
static void track_json(json_t *o, struct track *k, enum lane lane, int64_t w, int nbins)
{
	bins_json(o, &k->b, w, nbins, lane == LANE_MAPPED);
	if (!k->ivs)
		return;
	if (lane == LANE_MAPPED) {
		json_t *sorted = sorted_lives(k->ivs), *ivs = json_array(), *x;
		size_t i;
		json_array_foreach(sorted, i, x)
			json_array_append_new(ivs, json_pack("[IIII]", json_integer_value(json_array_get(x, 2)),
							     json_integer_value(json_array_get(x, 3)),
							     json_integer_value(json_array_get(x, 4)),
							     json_integer_value(json_array_get(x, 5))));
		json_decref(sorted);
		json_object_set_new(o, "intervals", ivs);
	} else {
		json_object_set(o, "intervals", k->ivs);
	}
}

/*
 * A build in three stages: what needs the database (the threads, the device
 * types, and the span when not given) on the caller's thread; the binning
 * from the recorded intervals, which needs none, on a thread of its own
 * while the caller goes on (timeline_job_start()); and the marks, once the
 * caller knows which events they are (timeline_job_finish()).
 */
struct timeline_job {
	struct build t;
	struct db *db;
	const struct timeline_span *span;
	struct thread_rows threads;
	json_t *types;
	int64_t *marks;               /* the marks binned with, sorted */
	json_t *root;                 /* the binning's: all but "marks" */
	char *err;                    /* the binning's failure */
	pthread_t th;
	int threaded;
};

static void job_free(struct timeline_job *j)
{
	struct build *t = &j->t;

	thread_rows_release(&j->threads);
	json_decref(j->types);
	json_decref(j->root);
	for (size_t i = 0; i < t->ndev; i++) {
		for (int l = 0; l < LANE_COUNT; l++)
			track_free(&t->devs[i].lanes[l]);
		for (size_t k = 0; t->devs[i].th && k < t->devs[i].nthreads; k++)
			track_free(&t->devs[i].th[k]);
		free(t->devs[i].th);
		free(t->devs[i].threads);
	}
	free(t->devs);
	free(t->jkeys);
	json_decref(t->jmarks);
	json_decref(t->lifemarks);
	extsort_free(t->ends);
	free(t->mark_bits);
	free(j->marks);
	free(j->err);
	free(j);
}

/* seqs[0..n) sorted, in memory of the caller's (NULL when out of memory; n > 0). */
static int64_t *sorted_seqs(const int64_t *seqs, size_t n)
{
	int64_t *v = malloc(n * sizeof(*v));

	if (v) {
		memcpy(v, seqs, n * sizeof(*v));
		sort_array(v, n, sizeof(*v), sort_cmp_i64);
	}
	return v;
}

/* The caller's stage: NULL with *err set, or a job ready to bin. */
static struct timeline_job *job_prepare(struct db *db, const int64_t *mark_seqs, size_t n_marks,
					const struct timeline_span *span, char **err)
{
	struct timeline_job *j = calloc(1, sizeof(*j));
	struct build *t;
	int64_t span_bins;
	int rc;

	if (!j) {
		db_fail(err, "out of memory building the timeline of '%s'", db_path(db));
		return NULL;
	}
	t = &j->t;
	*t = (struct build){ .db = db, .t0 = INT64_MAX, .t1 = INT64_MIN };
	j->db = db;
	j->span = span;
	t->jmarks = json_array();
	t->lifemarks = json_array();
	/* The mapped lane's endpoints held in memory (2^20, 24 MiB) before a temporary file. */
	t->ends = extsort_new(sizeof(struct endpoint), cmp_endpoint, tempfile_buffer_records((size_t)1 << 20));
	if (!t->jmarks || !t->lifemarks || !t->ends)
		goto oom;
	if (thread_rows_read(db, &j->threads, err) < 0)
		goto fail;
	if (span) {
		t->t0 = span->t0;
		t->t1 = span->t1;
		t->nrows = span->intervals;
	} else {
		rc = timeline_rows_each(db, span_row, t, err);
		if (rc > 0) {
			if (t->why)
				db_fail(err, "cannot build the timeline of '%s': %s", db_path(db), t->why);
			goto fail;
		}
		if (rc < 0)
			goto fail;
	}
	if (!t->nrows)
		t->t0 = t->t1 = 0;
	if (t->t1 <= t->t0)
		t->t1 = t->t0 + 1;
	/* t0 >= 0 and t1 <= DB_VALUE_MAX + 1 (sound rows): no overflow below. */
	t->w = (t->t1 - t->t0 + TIMELINE_MAX_BINS - 1) / TIMELINE_MAX_BINS;
	if (t->w < 1)
		t->w = 1;
	span_bins = (t->t1 - t->t0 + t->w - 1) / t->w;
	t->nbins = span_bins > TIMELINE_MAX_BINS ? TIMELINE_MAX_BINS : (int)span_bins;

	if (n_marks && !(j->marks = sorted_seqs(mark_seqs, n_marks)))
		goto oom;
	t->marks = j->marks;
	t->n_marks = n_marks;
	mark_filter(t);
	j->types = device_types(db);
	return j;
oom:
	db_fail(err, "out of memory building the timeline of '%s'", db_path(db));
fail:
	job_free(j);
	return NULL;
}

/*
 * The binning, and the document but its marks, into j->root (j->err when
 * it fails).  Reads the database only when the intervals were not recorded
 * (bin_rows()): never on a thread of its own (timeline_job_start()).
 */
static void job_bin(struct timeline_job *j)
{
	struct build *t = &j->t;
	json_t *root, *jdevs, *lanes;
	int rc;

	rc = j->span && j->span->rec ? timeline_rec_each(j->span->rec, bin_row, t, &j->err) : bin_rows(t, &j->err);
	if (rc > 0)
		goto failed;
	if (rc < 0)
		return;
	if (mapped_peaks(t) < 0) {
		t->why = "cannot read the sorted allocations back";
		goto failed;
	}

	root = json_object();
	json_object_set_new(root, "start_ns", json_integer(t->t0));
	json_object_set_new(root, "end_ns", json_integer(t->t1));
	json_object_set_new(root, "bin_ns", json_integer(t->w));
	json_object_set_new(root, "bins", json_integer(t->nbins));
	lanes = json_array();
	for (int l = 0; l < LANE_COUNT; l++)
		json_array_append_new(lanes, json_string(lane_names[l]));
	json_object_set_new(root, "lanes", lanes);
	jdevs = json_array();
	json_object_set_new(root, "devices", jdevs);

	for (size_t di = 0; di < t->ndev; di++) {
		struct dev *d = &t->devs[di];
		json_t *jd = json_object(), *jl = json_object(), *type, *jt = json_array();
		char key[32];
		snprintf(key, sizeof(key), "%d", d->device);
		type = json_object_get(j->types, key);
		json_object_set_new(jd, "device", json_integer(d->device));
		json_object_set(jd, "type", type ? type : json_null());
		json_object_set_new(jd, "lanes", jl);
		json_array_append_new(jdevs, jd);
		for (int l = 0; l < LANE_COUNT; l++) {
			json_t *o;
			if (!d->lanes[l].b.total_count)
				continue;
			o = json_object();
			track_json(o, &d->lanes[l], l, t->w, t->nbins);
			json_object_set_new(jl, lane_names[l], o);
		}
		for (size_t k = 0; k < d->nthreads; k++) {
			const struct thread_row *r = thread_rows_find(&j->threads, d->threads[k]);
			json_t *o = json_object();
			json_object_set_new(o, "thread", json_integer(d->threads[k]));
			json_object_set_new(o, "tid", r && r->tid > 0 ? json_integer(r->tid) : json_null());
			json_object_set_new(o, "role", json_string(thread_role(r)));
			track_json(o, &d->th[k], LANE_COUNT, t->w, t->nbins);
			json_array_append_new(jt, o);
		}
		json_object_set_new(jd, "threads", jt);
	}
	j->root = root;
	return;
failed:
	if (t->why)
		db_fail(&j->err, "cannot build the timeline of '%s': %s", db_path(j->db), t->why);
	else if (!j->err)
		j->err = strdup("cannot build the timeline");
}

static void *job_main(void *arg)
{
	job_bin(arg);
	return NULL;
}

struct timeline_job *timeline_job_start(struct db *db, const int64_t *mark_seqs, size_t n_marks,
					const struct timeline_span *span, char **err)
{
	struct timeline_job *j;

	if (!span || !span->rec) {
		db_fail(err, "the timeline's intervals were not recorded");
		return NULL;
	}
	j = job_prepare(db, mark_seqs, n_marks, span, err);
	if (j && pthread_create(&j->th, NULL, job_main, j) == 0)
		j->threaded = 1;
	else if (j)
		job_bin(j);  /* no thread: binned now */
	return j;
}

static void job_join(struct timeline_job *j)
{
	if (j->threaded)
		pthread_join(j->th, NULL);
	j->threaded = 0;
}

void timeline_job_free(struct timeline_job *j)
{
	if (!j)
		return;
	job_join(j);
	job_free(j);
}

static int in_marks(const int64_t *sorted, size_t n, int64_t a, int64_t b)
{
	return has_seq(sorted, n, a) || has_seq(sorted, n, b);
}

/*
 * The binned job's root with its marks, the job freed (NULL and *err when
 * the binning failed): the events binned as marks (when 'filter', only
 * those among final[0..nfinal), sorted: none when nfinal is 0), then the
 * lifetimes, in their order.
 */
static json_t *job_take(struct timeline_job *j, int filter, const int64_t *final, size_t nfinal,
			char **err)
{
	struct build *t = &j->t;
	json_t *root = j->root, *marks, *lives, *x;
	size_t i;

	if (!root) {
		if (err) {
			*err = j->err;
			j->err = NULL;
		}
		job_free(j);
		return NULL;
	}
	j->root = NULL;
	marks = json_array();
	for (i = 0; i < json_array_size(t->jmarks); i++)
		if (!filter || in_marks(final, nfinal, t->jkeys[i].seq, t->jkeys[i].seq2))
			json_array_append(marks, json_array_get(t->jmarks, i));
	lives = sorted_lives(t->lifemarks);
	json_array_foreach(lives, i, x)
		if (!filter || in_marks(final, nfinal, json_integer_value(json_array_get(x, 0)),
				       json_integer_value(json_array_get(x, 1))))
			json_array_append(marks, json_array_get(x, 2));
	json_decref(lives);
	json_object_set_new(root, "marks", marks);
	job_free(j);
	return root;
}

json_t *timeline_job_finish(struct timeline_job *j, const int64_t *mark_seqs, size_t n_marks, char **err)
{
	int64_t *final = NULL;
	json_t *root;

	job_join(j);
	if (j->root && n_marks) {
		if (!(final = sorted_seqs(mark_seqs, n_marks))) {
			db_fail(err, "out of memory building the timeline of '%s'", db_path(j->db));
			job_free(j);
			return NULL;
		}
		/* A mark the binning was not given: binned again, with these. */
		for (size_t i = 0; i < n_marks; i++) {
			if (!has_seq(j->marks, j->t.n_marks, final[i])) {
				struct db *db = j->db;
				const struct timeline_span *span = j->span;
				free(final);
				job_free(j);
				return timeline_build_span(db, mark_seqs, n_marks, span, err);
			}
		}
	}
	root = job_take(j, 1, final, n_marks, err);
	free(final);
	return root;
}

json_t *timeline_build(struct db *db, const int64_t *mark_seqs, size_t n_marks, char **err)
{
	return timeline_build_span(db, mark_seqs, n_marks, NULL, err);
}

json_t *timeline_build_span(struct db *db, const int64_t *mark_seqs, size_t n_marks,
			    const struct timeline_span *span, char **err)
{
	struct timeline_job *j = job_prepare(db, mark_seqs, n_marks, span, err);

	if (!j)
		return NULL;
	job_bin(j);
	return job_take(j, 0, NULL, 0, err);
}
