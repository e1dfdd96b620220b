/*
 * timeline.c - binning the run's events per device and lane (see timeline.h).
 *
 * Every interval is read once into an array (about 48 bytes per event:
 * timeline_rows.h), the span is taken from them, and each (device, lane)
 * gets its bins.  Busy time is spread over the bins an interval covers with
 * a difference array, so a long interval costs O(1) and the whole build is
 * O(events + devices * bins), plus one sort of the allocation endpoints for
 * the mapped-bytes peaks.
 *
 * The intervals are those of sound rows only (db/sound.h): every time is
 * then in [0, DB_VALUE_MAX], so spans and bin arithmetic stay far from
 * overflow; the sums that grow with the number of events saturate
 * (lib/sat.h), and the number of bins is capped whatever the span.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/timeline.h"
#include "db/timeline_rows.h"
#include "db/threads.h"
#include "lib/sat.h"
#include "lib/sort.h"

static const char *const lane_names[LANE_COUNT] = {
	"kernels", "to_device", "from_device", "alloc_ops", "mapped",
};

struct bins {
	int64_t *busy, *count, *bytes, *diff;
	int64_t total_count, total_busy, total_bytes, peak;
};

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int has_seq(const int64_t *sorted, size_t n, int64_t seq)
{
	return seq >= 0 && n && bsearch(&seq, sorted, n, sizeof(*sorted), cmp_i64);
}

/* An allocation endpoint for the mapped-bytes sweep: delta > 0 maps, < 0 frees. */
struct endpoint {
	int64_t t;
	int64_t delta;
};

static int cmp_endpoint(const void *a, const void *b)
{
	const struct endpoint *x = a, *y = b;
	if (x->t != y->t)
		return (x->t > y->t) - (x->t < y->t);
	/* Frees before maps at the same instant: a reuse is not a peak. */
	return (x->delta > y->delta) - (x->delta < y->delta);
}

/* Peak bytes mapped per bin of one device's mapped lane (into b->bytes). */
static int mapped_peaks(const struct ivs *all, int device, int64_t t0, int64_t w, int nbins,
			struct bins *b)
{
	size_t n = 0, k = 0;
	struct endpoint *ep;
	int64_t live = 0;

	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].lane == LANE_MAPPED && all->v[i].device == device)
			n += 2;
	ep = malloc((n ? n : 1) * sizeof(*ep));
	if (!ep)
		return -1;
	for (size_t i = 0; i < all->n; i++) {
		const struct iv *x = &all->v[i];
		if (x->lane != LANE_MAPPED || x->device != device)
			continue;
		ep[k++] = (struct endpoint){ x->begin_ns, x->bytes };
		ep[k++] = (struct endpoint){ x->end_ns, -x->bytes };
	}
	sort_array(ep, n, sizeof(*ep), cmp_endpoint);
	k = 0;
	for (int i = 0; i < nbins; i++) {
		int64_t bin_end = t0 + (int64_t)(i + 1) * w;
		int64_t peak = live;
		while (k < n && ep[k].t < bin_end) {
			live = sat_add_i64(live, ep[k++].delta);
			if (live > peak)
				peak = live;
		}
		b->bytes[i] = peak;
		if (peak > b->peak)
			b->peak = peak;
	}
	free(ep);
	return 0;
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

/* Busy, count and bytes per bin (non-empty ones) and the totals into 'o'. */
static void bins_json(json_t *o, struct bins *b, int64_t w, int nbins)
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
	json_object_set_new(o, "bins", arr);
}

static void bins_clear(struct bins *b, int nbins)
{
	size_t sz = nbins * sizeof(int64_t);

	memset(b->busy, 0, sz);
	memset(b->count, 0, sz);
	memset(b->bytes, 0, sz);
	memset(b->diff, 0, sz + sizeof(int64_t));
	b->total_count = b->total_busy = b->total_bytes = b->peak = 0;
}

/*
 * One host thread's lane on one device: every kernel, transfer, allocation
 * and delete it made there (not the mapped lifetimes, which span threads),
 * binned together; its intervals carry their lane's name.
 */
static json_t *thread_json(struct bins *b, const struct ivs *all, int device, int thread,
			   const struct thread_rows *threads, int64_t t0, int64_t w, int nbins)
{
	json_t *o = json_object();
	const struct thread_row *r = thread_rows_find(threads, thread);

	bins_clear(b, nbins);
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].device == device && all->v[i].thread == thread && all->v[i].lane != LANE_MAPPED)
			bins_add(b, &all->v[i], t0, w, nbins);
	json_object_set_new(o, "thread", json_integer(thread));
	json_object_set_new(o, "tid", r && r->tid > 0 ? json_integer(r->tid) : json_null());
	json_object_set_new(o, "role", json_string(thread_role(r)));
	bins_json(o, b, w, nbins);
	if (b->total_count <= TIMELINE_EXACT_LIMIT) {
		json_t *ivs = json_array();
		for (size_t i = 0; i < all->n; i++) {
			const struct iv *x = &all->v[i];
			if (x->device != device || x->thread != thread || x->lane == LANE_MAPPED)
				continue;
			json_array_append_new(ivs, json_pack("[IIIIs]", (json_int_t)x->begin_ns,
							     (json_int_t)x->end_ns, (json_int_t)x->bytes,
							     (json_int_t)x->seq, lane_names[x->lane]));
		}
		json_object_set_new(o, "intervals", ivs);
	}
	return o;
}

/* The threads with events on 'device' (mapped lifetimes aside), sorted and unique; NULL out of memory. */
static int *thread_list(const struct ivs *all, int device, size_t *n)
{
	int *t = malloc((all->n ? all->n : 1) * sizeof(*t));
	size_t m = 0, k = 0;

	if (!t)
		return NULL;
	for (size_t i = 0; i < all->n; i++)
		if (all->v[i].device == device && all->v[i].lane != LANE_MAPPED)
			t[m++] = all->v[i].thread;
	sort_array(t, m, sizeof(*t), cmp_int);
	for (size_t i = 0; i < m; i++)
		if (!k || t[k - 1] != t[i])
			t[k++] = t[i];
	*n = k;
	return t;
}

static json_t *lane_json(struct bins *b, const struct ivs *all, int device, enum lane lane,
			 int64_t w, int nbins)
{
	json_t *o = json_object(), *arr = json_array();
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
	if (lane == LANE_MAPPED)
		json_object_set_new(o, "peak_bytes", json_integer(b->peak));
	json_object_set_new(o, "bins", arr);
	if (b->total_count <= TIMELINE_EXACT_LIMIT) {
		json_t *ivs = json_array();
		for (size_t i = 0; i < all->n; i++) {
			const struct iv *x = &all->v[i];
			if (x->device != device || x->lane != lane)
				continue;
			json_array_append_new(ivs, json_pack("[IIII]", (json_int_t)x->begin_ns,
							     (json_int_t)x->end_ns, (json_int_t)x->bytes,
							     (json_int_t)x->seq));
		}
		json_object_set_new(o, "intervals", ivs);
	}
	return o;
}

/* The device numbers that occur, sorted and unique; *n is their count. */
static int *device_list(const struct ivs *all, size_t *n)
{
	int *d = malloc((all->n ? all->n : 1) * sizeof(*d));
	size_t k = 0;
	if (!d)
		return NULL;
	for (size_t i = 0; i < all->n; i++)
		d[i] = all->v[i].device;
	sort_array(d, all->n, sizeof(*d), cmp_int);
	for (size_t i = 0; i < all->n; i++)
		if (!k || d[k - 1] != d[i])
			d[k++] = d[i];
	*n = k;
	return d;
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

json_t *timeline_build(struct db *db, const int64_t *mark_seqs, size_t n_marks, char **err)
{
	struct ivs all = { 0 };
	int64_t *marks = NULL, t0 = INT64_MAX, t1 = INT64_MIN, w, span_bins;
	int *devs = NULL, nbins;
	size_t ndev = 0;
	json_t *root = NULL, *jdevs, *jmarks, *types = NULL, *lanes;
	struct bins b = { 0 };
	struct thread_rows threads = { 0 };

	if (timeline_rows_read(db, &all, err) < 0 || thread_rows_read(db, &threads, err) < 0)
		goto out;

	for (size_t i = 0; i < all.n; i++) {
		if (all.v[i].begin_ns < t0)
			t0 = all.v[i].begin_ns;
		if (all.v[i].end_ns > t1)
			t1 = all.v[i].end_ns;
		if (all.v[i].begin_ns > t1)
			t1 = all.v[i].begin_ns;
	}
	if (!all.n)
		t0 = t1 = 0;
	if (t1 <= t0)
		t1 = t0 + 1;
	for (size_t i = 0; i < all.n; i++)
		if (all.v[i].end_ns < 0)   /* still mapped at exit */
			all.v[i].end_ns = t1;
	/* t0 >= 0 and t1 <= DB_VALUE_MAX + 1 (sound rows): no overflow below. */
	w = (t1 - t0 + TIMELINE_MAX_BINS - 1) / TIMELINE_MAX_BINS;
	if (w < 1)
		w = 1;
	span_bins = (t1 - t0 + w - 1) / w;
	nbins = span_bins > TIMELINE_MAX_BINS ? TIMELINE_MAX_BINS : (int)span_bins;

	if (n_marks) {
		marks = malloc(n_marks * sizeof(*marks));
		if (!marks)
			goto oom;
		memcpy(marks, mark_seqs, n_marks * sizeof(*marks));
		sort_array(marks, n_marks, sizeof(*marks), cmp_i64);
	}
	devs = device_list(&all, &ndev);
	b.busy = calloc(nbins, sizeof(int64_t));
	b.count = calloc(nbins, sizeof(int64_t));
	b.bytes = calloc(nbins, sizeof(int64_t));
	b.diff = calloc(nbins + 1, sizeof(int64_t));
	if (!devs || !b.busy || !b.count || !b.bytes || !b.diff)
		goto oom;

	root = json_object();
	types = device_types(db);
	json_object_set_new(root, "start_ns", json_integer(t0));
	json_object_set_new(root, "end_ns", json_integer(t1));
	json_object_set_new(root, "bin_ns", json_integer(w));
	json_object_set_new(root, "bins", json_integer(nbins));
	lanes = json_array();
	for (int l = 0; l < LANE_COUNT; l++)
		json_array_append_new(lanes, json_string(lane_names[l]));
	json_object_set_new(root, "lanes", lanes);
	jdevs = json_array();
	json_object_set_new(root, "devices", jdevs);

	for (size_t d = 0; d < ndev; d++) {
		json_t *jd = json_object(), *jl = json_object(), *type;
		char key[32];
		snprintf(key, sizeof(key), "%d", devs[d]);
		type = json_object_get(types, key);
		json_object_set_new(jd, "device", json_integer(devs[d]));
		json_object_set(jd, "type", type ? type : json_null());
		json_object_set_new(jd, "lanes", jl);
		json_array_append_new(jdevs, jd);
		for (int l = 0; l < LANE_COUNT; l++) {
			size_t sz = nbins * sizeof(int64_t);
			memset(b.busy, 0, sz);
			memset(b.count, 0, sz);
			memset(b.bytes, 0, sz);
			memset(b.diff, 0, sz + sizeof(int64_t));
			b.total_count = b.total_busy = b.total_bytes = b.peak = 0;
			for (size_t i = 0; i < all.n; i++)
				if (all.v[i].device == devs[d] && all.v[i].lane == (enum lane)l)
					bins_add(&b, &all.v[i], t0, w, nbins);
			if (!b.total_count)
				continue;
			if (l == LANE_MAPPED && mapped_peaks(&all, devs[d], t0, w, nbins, &b) < 0)
				goto oom;
			json_object_set_new(jl, lane_names[l], lane_json(&b, &all, devs[d], l, w, nbins));
		}
		{
			size_t nth = 0;
			int *ths = thread_list(&all, devs[d], &nth);
			json_t *jt = json_array();
			if (!ths) {
				json_decref(jt);
				goto oom;
			}
			for (size_t i = 0; i < nth; i++)
				json_array_append_new(jt, thread_json(&b, &all, devs[d], ths[i], &threads, t0, w, nbins));
			free(ths);
			json_object_set_new(jd, "threads", jt);
		}
	}

	jmarks = json_array();
	json_object_set_new(root, "marks", jmarks);
	for (size_t i = 0; n_marks && i < all.n; i++) {
		const struct iv *x = &all.v[i];
		if (!has_seq(marks, n_marks, x->seq) && !has_seq(marks, n_marks, x->seq2))
			continue;
		json_array_append_new(jmarks, json_pack("[IisIIIi]", (json_int_t)x->seq, x->device,
							lane_names[x->lane], (json_int_t)x->begin_ns,
							(json_int_t)x->end_ns, (json_int_t)x->bytes, x->thread));
	}
	goto out;
oom:
	db_fail(err, "out of memory building the timeline of '%s'", db_path(db));
	json_decref(root);
	root = NULL;
out:
	thread_rows_release(&threads);
	json_decref(types);
	free(all.v);
	free(marks);
	free(devs);
	free(b.busy);
	free(b.count);
	free(b.bytes);
	free(b.diff);
	return root;
}
