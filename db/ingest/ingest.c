/*
 * ingest.c - expanding the collector's spool into the database's tables.
 *
 * Runs after the program has ended ('mapprof record'), so none of this work
 * is charged to the program.  The spool is mapped and its frames replayed,
 * in the order written: the events written as pages of their tables
 * (db/pages/pagewrite.c, below), the rest through the db_writer calls in one
 * transaction; or everything through them (MAPPROF_PAGEWRITE=0, or a file
 * pages cannot be appended to).
 * Memory stays bounded whatever the run's length: the mapping is dropped
 * behind the replay, SQLite's page cache is capped, the windows that put
 * the events in order (below, and the pairing of deletes in db/ingest/finish.c)
 * have fixed sizes, and pairing falls back to sorting in SQL.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <math.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db_internal.h"
#include "db/ingest/finish.h"
#include "db/ingest/ingest.h"
#include "db/store/locations.h"
#include "db/pages/pageformat.h"
#include "db/pages/pagewrite.h"
#include "db/spool/spool.h"
#include "db/ingest/writer.h"
#include "lib/grow.h"
#include "lib/huge.h"
#include "lib/tempfile.h"
#include "lib/hmap.h"

/* XXH3 from libxxhash's header, compiled in. */
#define XXH_INLINE_ALL
#include <xxhash.h>

/* Replay one (non-records) frame. */
static int replay(struct db_writer *w, uint32_t type, const struct spool_field *f)
{
	switch (type) {
	case SPOOL_RUN: {
		struct run_info ri = {
			.command_json = f[0].s, .cwd = f[1].s, .pid = (long)f[2].i, .host = f[3].s,
			.start_time = f[4].s, .start_ns = f[5].i, .runtime = f[6].s, .collector = f[7].s,
		};
		return dbw_run_info(w, &ri);
	}
	case SPOOL_ENV:
		return dbw_env(w, f[0].s, f[1].s);
	case SPOOL_STATUS:
		return dbw_status(w, f[0].s, f[1].s);
	case SPOOL_END:
		return dbw_end(w, f[0].i, (uint64_t)f[1].i);
	case SPOOL_DEVICE:
		return dbw_device(w, (int)f[0].i, f[1].s, f[2].i, f[3].i);
	case SPOOL_MODULE:
		return dbw_module(w, f[0].s, (uint64_t)f[1].i, (uint64_t)f[2].i, (uint64_t)f[3].i,
				  f[4].s, f[5].i);
	case SPOOL_THREAD:
		return dbw_thread(w, (int)f[0].i, (long)f[1].i);
	case SPOOL_IMAGE:
		return dbw_image(w, (int)f[0].i, f[1].s, (uint64_t)f[2].i, (uint64_t)f[3].i, f[4].i);
	case SPOOL_SOURCE:
		return dbw_source(w, (uint64_t)f[0].i, f[1].s, f[2].s, f[3].s);
	case SPOOL_PROCESS:
		return dbw_process(w, f[0].i, f[1].i, f[2].i, f[3].s, f[4].s);
	case SPOOL_STAT:
		return dbw_stat(w, f[0].s, f[1].i);
	case SPOOL_CHECK:
		return dbw_check(w, f[0].s, f[1].i, (int)f[2].i, f[3].i, f[4].i, f[5].i, f[6].i, f[7].s);
	case SPOOL_ACC:
		return dbw_acc_event(w, f);
	case SPOOL_HASH_FIX:
		return dbw_hash_fix(w, f);
	default:
		return 0;  /* a frame type this version does not know: skipped */
	}
}

/* Count the events by type. */
static void count(struct ingest_result *res, const struct rec *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].type == REC_KERNEL)
			res->kernels++;
		else if (r[i].type == REC_TARGET)
			res->targets++;
		else if (r[i].type == REC_DATA_OP)
			res->data_ops++;
	}
}

/*
 * Every data operation's attribution keys and every target construct's code
 * pointer (db/store/locations.h), as op_keys_sql and target_raw's scan read them.
 */
static int add_keys(struct op_keys *keys, const struct rec *r, size_t n, char **err)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].type == REC_TARGET) {
			if (op_keys_add_target(keys, (int64_t)r[i].codeptr, r[i].kind, err) < 0)
				return -1;
			continue;
		}
		if (r[i].type != REC_DATA_OP)
			continue;
		struct op_key_cols c = {
			.seq = (int64_t)r[i].seq,
			.kind = r[i].kind,
			.codeptr = (int64_t)r[i].codeptr,
			.has_codeptr = 1,
			.map_index = r[i].map_index,
			.has_map_index = r[i].map_index != -1,
			.src_addr = (int64_t)r[i].src_addr,
			.dst_addr = (int64_t)r[i].dst_addr,
		};
		if (op_keys_add(keys, &c, err) < 0)
			return -1;
	}
	return 0;
}

/*
 * The spool is read with pread() into a window of it, not through its
 * mapping: in a VM each page fault of a file mapping is a trip to the
 * hypervisor (reading 78 MB mapped, ~45-57 ms here; with pread() of 1 MiB
 * at a time, ~13 ms; 128 bytes every 100 KB, 15 ms mapped and 2 ms read).
 * The window holds the bytes [base, base + have) of the file.  It is small
 * and refilled (READ_WINDOW): its pages are fresh memory the first time,
 * and a window as large as a short run's whole spool, in huge pages, would
 * be most of that run's expansion (cg.fixed: 2 MiB zeroed twice, up to
 * 45 % of the expansion's CPU in clear_page).
 */
struct spool_reader {
	int fd;
	size_t size;        /* the spool's, as read */
	unsigned char *buf; /* malloc'd: aligned for struct rec at its start */
	size_t cap, base, have;
};

#define READ_WINDOW (256u << 10)

static void reader_free(struct spool_reader *r)
{
	free(r->buf);
	r->buf = NULL;
	r->cap = r->have = 0;
}

/*
 * The bytes [off, off + n) of the spool (within its size), or NULL (a read
 * failed, errno; out of memory).  When they are not in the window, it is
 * read again from 'off' on, 'window' bytes or n if more ('off' then at the
 * buffer's start: aligned; 'at_start': so read even when in the window).
 * Valid until the next call.
 */
static const unsigned char *reader_get(struct spool_reader *r, size_t off, size_t n, size_t window, int at_start)
{
	size_t len;

	if (off >= r->base && off + n <= r->base + r->have && (!at_start || off == r->base))
		return r->buf + (off - r->base);
	len = n > window ? n : window;
	if (len > r->size - off)
		len = r->size - off;
	if (len > r->cap) {
		unsigned char *b = malloc(len);
		if (!b) {
			errno = ENOMEM;
			return NULL;
		}
		free(r->buf);
		r->buf = b;
		r->cap = len;
	}
	r->base = off;
	r->have = 0;
	if (tempfile_io(r->fd, r->buf, len, (off_t)off, 0) < 0)
		return NULL;   /* EIO: shorter than its size said */
	r->have = len;
	return r->buf;
}

/*
 * Event times as timestamp counter ticks (the spool has CLOCK frames) map to
 * ns since the run's start through the two (ticks, ns) pairs furthest apart.
 * 'mapprof record' reads one pair before the program starts and hands it to
 * the collector, which writes it with its own when it starts: however early
 * the recording ends (record killed, the program killed), the spool holds
 * two pairs from the start.
 */
struct ticks_to_ns {
	int on;
	int64_t t0, n0;  /* ticks and ns (relative to the run's start) at the first pair */
	double ns_per_tick;
};

/*
 * Ticks per ns must be those of a real counter: from 10 MHz to 100 GHz.  A
 * damaged spool's pairs give anything, and times then stay as written.
 */
#define NS_PER_TICK_MIN 0.01
#define NS_PER_TICK_MAX 100.0

/*
 * Find the CLOCK frames and the run's start.  Malformed frames are left to
 * the replay.  Reads the frame headers from the file, not the mapping:
 * touching one byte a frame through the mapping faulted in (read ahead)
 * the whole spool.
 */
/*
 * RECORDS frames that a later frame overtakes: one of its records has a seq
 * above the first of a frame after it (the last chunks of a run: a
 * thread's partly filled chunk written at its exit before the drain's full
 * ones).  Written straight to the tables when they come (in order then),
 * they would leave the later frame's rows out of order: SQLite inserts
 * those among the others, pages cannot (SQLite's inserts again), and the
 * deletes' pairing gave up on them (a sort of the whole table in SQL, 1 s
 * of a 1.8 M-event run).  Held in the reorder window instead.  Offsets of
 * the frames' payloads, ascending.
 */
struct held {
	size_t *off;
	size_t n, cap;
};

struct frame_seqs {
	size_t off;
	uint64_t first, last;
};

static void held_scan(struct frame_seqs *f, size_t n, struct held *h)
{
	uint64_t min_after = UINT64_MAX;

	/* From the end: the least first seq of the frames after each one. */
	for (size_t i = n; i-- > 0;) {
		uint64_t first = f[i].first;
		f[i].first = f[i].last > min_after;   /* now: held */
		if (first < min_after)
			min_after = first;
	}
	for (size_t i = 0; i < n; i++) {
		if (!f[i].first)
			continue;
		if (h->n == h->cap) {
			size_t c = h->cap ? 2 * h->cap : 16;
			size_t *q = realloc(h->off, c * sizeof(*q));
			if (!q)
				return;   /* not held: only slower */
			h->off = q;
			h->cap = c;
		}
		h->off[h->n++] = f[i].off;
	}
}

/*
 * One pread() a frame: a frame's last record, the next one's header and
 * its first record lie together (three a frame, ~2.5 us each in a VM, were
 * 5,000 system calls after a 1.8 M-event program; through the mapping, a
 * page fault a frame cost more).
 */
static void clock_scan(int fd, size_t size, struct ticks_to_ns *tc, struct held *held)
{
	struct spool_reader rd = { .fd = fd, .size = size };
	const unsigned char *p;
	struct frame_seqs *fs = NULL;
	size_t nfs = 0, fs_cap = 0;
	struct spool_field f[SPOOL_MAX_FIELDS];
	int64_t start_ns = 0, t_first = 0, n_first = 0, t_last = 0, n_last = 0, dt, dn;
	int pairs = 0;
	size_t off = sizeof(struct spool_header);

	memset(tc, 0, sizeof(*tc));
	while (size - off >= sizeof(struct spool_frame)) {
		struct spool_frame fr;
		if (!(p = reader_get(&rd, off, sizeof(fr), 4096, 0)))
			break;
		memcpy(&fr, p, sizeof(fr));
		off += sizeof(fr);
		if (size - off < fr.len)
			break;
		if (fr.type == SPOOL_RECORDS && fr.len && fr.len % sizeof(struct rec) == 0) {
			struct frame_seqs x = { .off = off };
			size_t seq_at = offsetof(struct rec, seq);
			if (nfs == fs_cap) {
				size_t c = fs_cap ? 2 * fs_cap : 256;
				struct frame_seqs *q = realloc(fs, c * sizeof(*q));
				if (q) {
					fs = q;
					fs_cap = c;
				}
			}
			const unsigned char *a, *b;
			if (nfs < fs_cap && (a = reader_get(&rd, off + seq_at, sizeof(x.first), 4096, 0))) {
				memcpy(&x.first, a, sizeof(x.first));
				if ((b = reader_get(&rd, off + fr.len - sizeof(struct rec) + seq_at, sizeof(x.last), 4096, 0))) {
					memcpy(&x.last, b, sizeof(x.last));
					fs[nfs++] = x;
				}
			}
		}
		if ((fr.type == SPOOL_CLOCK || fr.type == SPOOL_RUN) && fr.len <= 4096 &&
		    (p = reader_get(&rd, off, fr.len, 4096, 0)) && spool_unpack(fr.type, p, fr.len, f) == 0) {
			if (fr.type == SPOOL_RUN) {
				start_ns = f[5].i;
			} else if (f[0].i > 0 && f[1].i > 0) {
				/* The earliest and the latest pair, in whatever order written. */
				if (!pairs++ || f[0].i < t_first) {
					t_first = f[0].i;
					n_first = f[1].i;
				}
				if (pairs == 1 || f[0].i > t_last) {
					t_last = f[0].i;
					n_last = f[1].i;
				}
			}
		}
		off += fr.len;
	}
	reader_free(&rd);
	held_scan(fs, nfs, held);
	free(fs);
	/* One pair: the collector did not time with the counter (the ns are plain). */
	if (pairs < 2 || t_last <= t_first || n_last <= n_first)
		return;
	dt = t_last - t_first;  /* both positive: no overflow */
	dn = n_last - n_first;
	tc->ns_per_tick = (double)dn / (double)dt;
	if (!(tc->ns_per_tick >= NS_PER_TICK_MIN && tc->ns_per_tick <= NS_PER_TICK_MAX) ||
	    __builtin_sub_overflow(n_first, start_ns, &tc->n0))
		return;
	tc->on = 1;
	tc->t0 = t_first;
}

/* Ticks to ns since the start; a damaged record's times saturate instead of overflowing. */
static int64_t to_ns(const struct ticks_to_ns *tc, int64_t ticks)
{
	int64_t dt;
	double ns;

	if (__builtin_sub_overflow(ticks, tc->t0, &dt))
		return ticks < tc->t0 ? INT64_MIN : INT64_MAX;
	ns = (double)tc->n0 + (double)dt * tc->ns_per_tick;
	if (ns >= 9.2e18)
		return INT64_MAX;
	if (ns <= -9.2e18)
		return INT64_MIN;
	return (int64_t)llround(ns);
}

/*
 * Nonzero when a RECORDS frame with this very payload came before (noted
 * in 'seen' otherwise).  A frame appended twice (its writer killed between
 * writing a chunk and saying so) must not fail the whole process on the
 * events' unique sequence numbers: the copy is skipped.  Keyed by its
 * length and its first and last records (no two chunks share a record:
 * hashing every byte was a quarter of the expansion once the rows were
 * written as pages), the whole payload compared when the key was seen.
 */
static int seen_before(struct hmap *seen, const unsigned char *map, int fd, const unsigned char *payload, size_t off,
		       size_t len)
{
	size_t edge = len < 2 * sizeof(struct rec) ? len : sizeof(struct rec);
	uint64_t key[3] = { XXH3_64bits(payload, edge), XXH3_64bits(payload + len - edge, edge), (uint64_t)len };
	int created = 1, same;
	uint64_t *first = hmap_put(seen, key, &created);
	unsigned char *copy;

	if (!first)
		return 0;   /* out of memory: a copy fails on its sequence numbers, as a damaged spool */
	if (created) {
		*first = off;
		return 0;
	}
	if (map)
		return !memcmp(map + *first, payload, len);
	/* The live expansion reads the spool as it grows: the first copy from the file. */
	if (!(copy = malloc(len)))
		return 0;
	same = pread(fd, copy, len, (off_t)*first) == (ssize_t)len && !memcmp(copy, payload, len);
	free(copy);
	return same;
}

/*
 * The event tables written as pages (db/pages/pagewrite.c) instead of through
 * SQLite's inserts, which were ~4,500 instructions a row, most of
 * 'mapprof record''s time after a program of many small events.  While the
 * events are read, the rows go to new pages after the file's end, the
 * connection idle and SQLite's locks held here; the trees are hooked into
 * the tables' roots, then the rest of the spool (run, modules, threads...)
 * and the rows that came out of rowid order go through SQLite as before, in
 * one transaction.  When that fails, the file is put back as it was: the
 * header and the roots saved here, truncated to its old size.
 * MAPPROF_PAGEWRITE=0 turns it off (every row through SQLite).
 */
#define PAGE_TABLES (DBW_TABLES + 1)   /* the event tables and delete_pair_raw */

struct page_sink {
	int fd;
	int wrote;                  /* the file was changed: undo on failure */
	int err;                    /* errno of a failed write */
	struct pagewriter *pw;
	struct pw_table *t[PAGE_TABLES];
	uint32_t root[PAGE_TABLES];
	struct pw_header h;
	off_t size;                 /* the file's size before */
	unsigned char hdr[100];     /* its header before */
	unsigned char *roots;       /* the roots' pages before */
	struct rec *late;           /* records out of their table's rowid order: SQLite inserts them */
	size_t nlate, late_cap;
	int64_t (*late_pairs)[2];   /* pairs out of delete_seq order: the same */
	size_t nlate_pairs, late_pairs_cap;
	size_t *others;             /* offsets of the frames that are not events: replayed after */
	size_t nothers, others_cap;
	/*
	 * The live expansion (ingest_live_new()): the times go in as written,
	 * begin and end, 8 bytes each; pw_finish() turns them into begin_ns
	 * and dur_ns (times_fn()).  The least and greatest time seen.
	 */
	int raw;
	int tcol[DBW_TABLES];
	int64_t tmin, tmax;
};

/*
 * SQLite's RESERVED lock only (its byte after the pending one): no other
 * writer may begin, readers still read (the pages past the header's count
 * are not theirs to see).  The live expansion's while the program runs:
 * the database's readers ('mapprof report' of a recording under way) are
 * not kept out for the whole run; lock_exclusive() excludes them at the end.
 */
static int lock_reserved(int fd)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = PENDING_BYTE + 1, .l_len = 1 };
	return fcntl(fd, F_SETLK, &l);
}

/*
 * What SQLite's EXCLUSIVE lock holds (its pending, reserved and shared
 * bytes) on the file open at fd, not a connection's.  fcntl()'s return.
 * Locks are the process's: closing any descriptor of the file drops them,
 * a connection's too.
 */
static int lock_exclusive(int fd)
{
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = PENDING_BYTE, .l_len = LOCK_BYTES };
	return fcntl(fd, F_SETLK, &l);
}

static void page_sink_free(struct page_sink *ps)
{
	if (!ps)
		return;
	pw_free(ps->pw);
	if (ps->fd >= 0)
		close(ps->fd);   /* the locks go with it */
	free(ps->roots);
	free(ps->late);
	free(ps->late_pairs);
	free(ps->others);
	free(ps);
}

/*
 * A page sink on the database, or NULL when its rows go through SQLite: turned
 * off, a file pages cannot be appended to (WAL, auto-vacuum...), tables not
 * empty or not as this mapprof made them, a connection of another process
 * on it, or out of memory.
 */
static struct page_sink *page_sink_new(struct db *db, int reserved)
{
	static const char *const names[PAGE_TABLES] = { "data_op_raw", "kernel_raw", "target_raw", "delete_pair_raw" };
	const char *env = getenv("MAPPROF_PAGEWRITE"), *why, *file = sqlite3_db_filename(db->sql, "main");
	struct page_sink *ps;
	struct stat st;
	char journal[4096];

	if ((env && !strcmp(env, "0")) || !file || !*file || !sqlite3_get_autocommit(db->sql))
		return NULL;
	if (snprintf(journal, sizeof(journal), "%s-journal", file) >= (int)sizeof(journal) ||
	    stat(journal, &st) == 0 || !(ps = calloc(1, sizeof(*ps))))
		return NULL;   /* a journal there: SQLite has something to roll back first */
	ps->fd = -1;
	for (int t = 0; t < PAGE_TABLES; t++)
		if (!(ps->root[t] = db_table_root(db, names[t], t < DBW_TABLES ? dbw_table_columns(t) : "delete_seq, alloc_seq")))
			goto no;
	/* The connection holds no lock now: SQLite's own, taken here, keep other processes out. */
	ps->fd = open(file, O_RDWR | O_CLOEXEC);
	/* Pages past the header's count (a live expansion's: 'mapprof record' killed while the program ran) cut off. */
	if (ps->fd < 0 || (reserved ? lock_reserved(ps->fd) : lock_exclusive(ps->fd)) < 0 ||
	    pw_file_header(ps->fd, ps->hdr, &ps->h, &why) < 0)
		goto no;
	ps->size = (off_t)ps->h.pages * ps->h.page_size;
	if (!(ps->roots = malloc((size_t)PAGE_TABLES * ps->h.page_size)) || !(ps->pw = pw_new(ps->fd, &ps->h)))
		goto no;
	for (int t = 0; t < PAGE_TABLES; t++) {
		unsigned char *r = ps->roots + (size_t)t * ps->h.page_size;
		/* An empty table's root: a leaf (13) of no cell. */
		if (ps->root[t] > ps->h.pages ||
		    tempfile_io(ps->fd, r, ps->h.page_size, (off_t)(ps->root[t] - 1) * ps->h.page_size, 0) < 0 ||
		    r[0] != 13 || r[3] || r[4] ||
		    !(ps->t[t] = pw_table_new(ps->pw, ps->root[t], t < DBW_TABLES ? dbw_table_ncols(t) : 2, 0)))
			goto no;
	}
	return ps;
no:
	page_sink_free(ps);
	return NULL;
}

/* The rows written as pages (the stats table's record_expand_page_rows: docs/database.md). */
static int64_t page_rows(const struct page_sink *ps)
{
	uint64_t n = 0;

	for (int t = 0; t < PAGE_TABLES; t++)
		n += pw_rows(ps->t[t]);
	return (int64_t)n;
}

/*
 * A row to table t's pages; one out of its rowid order (pw_append() says
 * so) appended to the late array instead (item, size bytes), for SQLite to
 * insert.  0, or -1 with ps->err set.
 */
static int sink_append(struct page_sink *ps, struct pw_table *t, int64_t rowid, const int64_t *v, uint32_t present,
		       void **late, size_t *cap, size_t *n, const void *item, size_t size)
{
	int k = pw_append(t, rowid, v, present);

	if (k < 0) {
		ps->err = errno;
		return -1;
	}
	if (k > 0) {
		if (grow_one(late, cap, *n, size) < 0) {
			ps->err = ENOMEM;
			return -1;
		}
		memcpy((char *)*late + *n * size, item, size);
		(*n)++;
	}
	return 0;
}

/* Records to the tables' pages; a record out of its table's order kept for SQLite.  0 or -1 (ps->err). */
static int page_records(struct page_sink *ps, const struct rec *r, size_t n)
{
	int64_t rowid, v[DBW_MAX_COLS];
	uint32_t present;

	for (size_t i = 0; i < n; i++) {
		int t = dbw_row(&r[i], &rowid, v, &present);
		if (t < 0)
			continue;
		if (ps->raw) {
			int64_t lo = r[i].begin_ns < r[i].end_ns ? r[i].begin_ns : r[i].end_ns;
			int64_t hi = r[i].begin_ns < r[i].end_ns ? r[i].end_ns : r[i].begin_ns;
			v[ps->tcol[t]] = r[i].begin_ns;
			v[ps->tcol[t] + 1] = r[i].end_ns;
			if (lo < ps->tmin)
				ps->tmin = lo;
			if (hi > ps->tmax)
				ps->tmax = hi;
		}
		ps->wrote = 1;
		if (sink_append(ps, ps->t[t], rowid, v, present, (void **)&ps->late, &ps->late_cap, &ps->nlate,
				&r[i], sizeof(r[i])) < 0)
			return -1;
	}
	return 0;
}

/*
 * db_pairer_sink(): a pair to delete_pair_raw's pages; one out of delete_seq
 * order (pairs come in the order of the frees' end times, which a late
 * chunk's threads break) kept for SQLite.  0 or -1 (ps->err).
 */
static int page_pair(void *ctx, int64_t delete_seq, int64_t alloc_seq)
{
	struct page_sink *ps = ctx;
	int64_t v[2] = { delete_seq, alloc_seq };

	ps->wrote = 1;
	return sink_append(ps, ps->t[DBW_TABLES], delete_seq, v, 3, (void **)&ps->late_pairs, &ps->late_pairs_cap,
			   &ps->nlate_pairs, v, sizeof(v));
}

/*
 * Put the file back as it was (header, roots, size), after SQLite's own
 * rollback: nothing of the spool stays.  0, or -1 when it cannot be.
 */
static int page_sink_undo(struct page_sink *ps, const char *file)
{
	int fd = ps->fd, rc = 0;

	if (!ps->wrote)
		return 0;
	if (fd < 0 && ((fd = open(file, O_RDWR | O_CLOEXEC)) < 0 || lock_exclusive(fd) < 0))
		rc = -1;
	for (int t = 0; rc == 0 && t < PAGE_TABLES; t++)
		if (pwrite(fd, ps->roots + (size_t)t * ps->h.page_size, ps->h.page_size,
			   (off_t)(ps->root[t] - 1) * ps->h.page_size) != (ssize_t)ps->h.page_size)
			rc = -1;
	if (rc == 0 && (pwrite(fd, ps->hdr, sizeof(ps->hdr), 0) != (ssize_t)sizeof(ps->hdr) ||
			ftruncate(fd, ps->size) < 0))
		rc = -1;
	/* The header as it was holds the counter SQLite may have cached pages for: a new one. */
	if (rc == 0) {
		unsigned char c[4];
		uint32_t counter;
		if (pread(fd, c, 4, 24) == 4) {
			counter = ((uint32_t)c[0] << 24 | (uint32_t)c[1] << 16 | (uint32_t)c[2] << 8 | c[3]) + 7;
			c[0] = (unsigned char)(counter >> 24), c[1] = (unsigned char)(counter >> 16);
			c[2] = (unsigned char)(counter >> 8), c[3] = (unsigned char)counter;
			if (pwrite(fd, c, 4, 24) != 4 || pwrite(fd, c, 4, 92) != 4)
				rc = -1;
		}
	}
	if (fd != ps->fd && fd >= 0)
		close(fd);
	ps->wrote = 0;
	return rc;
}

/*
 * The events go to the tables in sequence order, through a window of
 * REORDER_RECS of them: threads' chunks interleave in the spool, and rows
 * inserted among rows already there split pages in the middle of the
 * tables' b-trees (SQLite's costly rebalancing, a quarter of the expansion
 * of a four-thread program), where rows in key order are appended.  The
 * content is the same in any order; a record later than the window only
 * costs that.
 *
 * The window holds runs: each chunk that cannot go straight out is one
 * (or a few), its records kept sorted by seq as they come (a thread writes
 * a construct's record after the events inside it: a few places back; one
 * further back, a region's around many events, goes to the chunk's run of
 * such stragglers), and a small min-heap of the runs by their first seq
 * gives the window's least record.  A chunk's records are nearly sorted
 * already, so a record costs a copy and a comparison or two, where a heap
 * of every record costs a dozen cache misses a record (a fifth of a short
 * run's expansion).  What comes out, and when, is what a heap of the
 * records would give: the least held record whenever the window is full or
 * let go.
 */
#define REORDER_RECS 65536u
#define REORDER_BATCH 1024u
/* A run's records (a chunk's at most); one further back than RUN_SHIFT_MAX goes to the stragglers' run. */
#define RUN_RECS 1024u
#define RUN_SHIFT_MAX 64u
/*
 * Runs at most (a chunk fills two, its records and its stragglers: the
 * window's REORDER_RECS are 64 chunks): more (chunks of records in no
 * order) and the window lets its least go first.  At most 24 MiB of runs;
 * a run in order uses none.
 */
#define RUNS_MAX 256u
#define NO_RUN UINT32_MAX
/*
 * Runs' arrays come from 2 MiB slabs that fault in at once where the kernel
 * gives huge pages (lib/huge.h): a short program's records all pass through
 * runs, and each fresh 4 KiB of them was a page fault (a trip to the
 * hypervisor on a virtual machine: 8-16 us each on the 2-core VM, about half
 * of real/cg.fixed's 17-19 ms expansion with the page writer's buffer).
 */
#define RUN_BYTES ((size_t)RUN_RECS * sizeof(struct rec))
#define SLAB_BYTES ((size_t)2 << 20)
#define SLAB_RUNS ((uint32_t)(SLAB_BYTES / RUN_BYTES))
#define SLABS_MAX ((RUNS_MAX + SLAB_RUNS - 1) / SLAB_RUNS)

struct reorder_run {
	struct rec *r;          /* RUN_RECS; [at, n) held, sorted by seq */
	uint32_t at, n;
	uint32_t pos;           /* its place in the heap */
	uint64_t key;           /* r[at].seq */
};

struct reorder {
	struct db_writer *w;
	struct delete_pairer *pairer;
	struct page_sink *ps;   /* the rows to pages, or NULL: to SQLite */
	struct reorder_run *runs;   /* RUNS_MAX */
	uint32_t *heap;         /* the runs holding records, a min-heap by key */
	uint32_t *spare;        /* the runs holding none (their arrays kept for the next) */
	uint32_t nheap, nspare, nruns;
	unsigned char *slab[SLABS_MAX]; /* run i's array: slab[i / SLAB_RUNS] */
	uint32_t held;          /* records in the runs */
	uint32_t cur;           /* the run the chunk being added fills, or NO_RUN */
	uint32_t strag;         /* ... and its run of records far back, or NO_RUN */
	int nomem;              /* reorder_add() failed for want of memory (not a write) */
	/* Per event type (each its own table; 0: the others): a record came, the largest seq. */
	int any[4];
	uint64_t max_seq[4];
	uint32_t nbatch;
	struct rec batch[REORDER_BATCH];
};

static int reorder_init(struct reorder *o, struct db_writer *w, struct delete_pairer *pairer,
			struct page_sink *ps)
{
	memset(o, 0, offsetof(struct reorder, batch));
	o->w = w;
	o->pairer = pairer;
	o->ps = ps;
	o->cur = o->strag = NO_RUN;
	o->runs = calloc(RUNS_MAX, sizeof(*o->runs));
	o->heap = malloc(2 * RUNS_MAX * sizeof(*o->heap));
	if (!o->runs || !o->heap) {
		free(o->runs);
		free(o->heap);
		o->runs = NULL;
		o->heap = NULL;
		return -1;
	}
	o->spare = o->heap + RUNS_MAX;
	return 0;
}

static void reorder_release(struct reorder *o)
{
	for (uint32_t i = 0; i < SLABS_MAX; i++) {
		free(o->slab[i]);
		o->slab[i] = NULL;
	}
	free(o->runs);
	free(o->heap);
	o->runs = NULL;
	o->heap = NULL;
}

/* Records to their tables (and their deletes paired).  0, or -1 (SQLite's message, or ps->err). */
static int reorder_write(struct reorder *o, const struct rec *r, size_t n)
{
	if ((o->ps ? page_records(o->ps, r, n) : dbw_records(o->w, r, n)) < 0)
		return -1;
	return db_pairer_add(o->pairer, r, n);
}

/* Insert the batch.  0, or -1. */
static int reorder_flush(struct reorder *o)
{
	int rc = 0;

	if (o->nbatch)
		rc = reorder_write(o, o->batch, o->nbatch);
	o->nbatch = 0;
	return rc;
}

static int reorder_out(struct reorder *o, const struct rec *r)
{
	o->batch[o->nbatch++] = *r;
	return o->nbatch == REORDER_BATCH ? reorder_flush(o) : 0;
}

static void heap_set(struct reorder *o, uint32_t i, uint32_t run)
{
	o->heap[i] = run;
	o->runs[run].pos = i;
}

/* The run at heap place i moved up to where its key belongs. */
static void heap_up(struct reorder *o, uint32_t i)
{
	uint32_t run = o->heap[i];
	uint64_t key = o->runs[run].key;

	while (i > 0 && o->runs[o->heap[(i - 1) / 2]].key > key) {
		heap_set(o, i, o->heap[(i - 1) / 2]);
		i = (i - 1) / 2;
	}
	heap_set(o, i, run);
}

/* The run at heap place i moved down to where its key belongs. */
static void heap_down(struct reorder *o, uint32_t i)
{
	uint32_t run = o->heap[i], n = o->nheap;
	uint64_t key = o->runs[run].key;

	for (;;) {
		uint32_t c = 2 * i + 1;
		if (c >= n)
			break;
		if (c + 1 < n && o->runs[o->heap[c + 1]].key < o->runs[o->heap[c]].key)
			c++;
		if (key <= o->runs[o->heap[c]].key)
			break;
		heap_set(o, i, o->heap[c]);
		i = c;
	}
	heap_set(o, i, run);
}

/* The window's least record into the batch. */
static int reorder_pop(struct reorder *o)
{
	uint32_t run = o->heap[0];
	struct reorder_run *u = &o->runs[run];
	int rc = reorder_out(o, &u->r[u->at++]);

	o->held--;
	if (u->at < u->n) {
		u->key = u->r[u->at].seq;
		heap_down(o, 0);
		return rc;
	}
	/* Emptied: its array waits for the next run. */
	u->at = u->n = 0;
	if (o->cur == run)
		o->cur = NO_RUN;
	if (o->strag == run)
		o->strag = NO_RUN;
	o->spare[o->nspare++] = run;
	if (--o->nheap) {
		heap_set(o, 0, o->heap[o->nheap]);
		heap_down(o, 0);
	}
	return rc;
}

/* A run to fill, in the heap once it holds a record; NO_RUN (out of memory). */
static uint32_t run_new(struct reorder *o)
{
	uint32_t run;

	if (o->nspare)
		return o->spare[--o->nspare];
	if (o->nruns == RUNS_MAX)
		return NO_RUN;
	run = o->nruns;
	if (run % SLAB_RUNS == 0 && !o->slab[run / SLAB_RUNS] && !(o->slab[run / SLAB_RUNS] = huge_malloc(SLAB_BYTES)))
		return NO_RUN;
	o->runs[run].r = (struct rec *)(void *)(o->slab[run / SLAB_RUNS] + (size_t)(run % SLAB_RUNS) * RUN_BYTES);
	o->nruns++;
	return run;
}

/*
 * The first slab made and faulted in now: the live expansion does it while
 * the program runs, once the spool holds enough (live_warm()); a short
 * run's records all go through this slab after the program, where its huge
 * page's first touch (zeroing 2 MiB) was most of a millisecond of the
 * expansion, several on a virtual machine.
 */
static void reorder_populate(struct reorder *o)
{
	if (!o->slab[0] && (o->slab[0] = huge_malloc(SLAB_BYTES)))
		huge_populate(o->slab[0], SLAB_BYTES);
}

/* The place of seq in run u: after every record at or below it. */
static uint32_t run_place(const struct reorder_run *u, uint64_t seq)
{
	uint32_t lo = u->at, hi = u->n;

	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (u->r[mid].seq > seq)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

/*
 * One record into the window (held < REORDER_RECS): into the chunk's run
 * at its place from the end, into the chunk's stragglers when that is more
 * than RUN_SHIFT_MAX back, into a new run when the one it belongs in is
 * full or none is.  0, or -1 (no memory: o->nomem; a write's failure).
 */
static int reorder_hold(struct reorder *o, const struct rec *r)
{
	uint64_t seq = r->seq;
	uint32_t *which = &o->cur, j = 0;
	struct reorder_run *u = o->cur != NO_RUN ? &o->runs[o->cur] : NULL;

	if (u) {
		j = u->n;
		while (j > u->at && u->r[j - 1].seq > seq && u->n - j < RUN_SHIFT_MAX)
			j--;
		if (j > u->at && u->r[j - 1].seq > seq) {
			which = &o->strag;
			u = o->strag != NO_RUN ? &o->runs[o->strag] : NULL;
			if (u)
				j = run_place(u, seq);
		}
		if (u && u->n == RUN_RECS)
			u = NULL;
	}
	if (!u) {
		/* Every run in use: the least records go first until one is free. */
		while (!o->nspare && o->nruns == RUNS_MAX && o->nheap)
			if (reorder_pop(o) < 0)
				return -1;
		if ((*which = run_new(o)) == NO_RUN) {
			o->nomem = 1;
			errno = ENOMEM;
			return -1;
		}
		/* Empty (a spare one was emptied by reorder_pop()), at the heap's end: placed below. */
		u = &o->runs[*which];
		j = 0;
		heap_set(o, o->nheap++, *which);
	}
	memmove(&u->r[j + 1], &u->r[j], (u->n - j) * sizeof(*u->r));
	u->r[j] = *r;
	u->n++;
	o->held++;
	if (j == u->at) {
		/* Its new first record: the key went down. */
		u->key = seq;
		heap_up(o, u->pos);
	}
	return 0;
}

/*
 * In order as long as each table's records come in order (one thread: the
 * window stays empty; a construct's record, written at its end, comes after
 * the events inside it, but goes to a table of its own); from the first one
 * out of order on, through the window.
 */
static int reorder_add(struct reorder *o, const struct rec *r, size_t n, int hold)
{
	if (!o->nheap && !hold) {
		/* The whole chunk in order: straight to the tables, no copy. */
		int any[4], in_order = 1;
		uint64_t max_seq[4];
		memcpy(any, o->any, sizeof(any));
		memcpy(max_seq, o->max_seq, sizeof(max_seq));
		for (size_t k = 0; k < n && in_order; k++) {
			unsigned t = r[k].type <= REC_TARGET ? r[k].type : 0;
			in_order = !any[t] || r[k].seq > max_seq[t];
			any[t] = 1;
			max_seq[t] = r[k].seq;
		}
		if (in_order) {
			memcpy(o->any, any, sizeof(any));
			memcpy(o->max_seq, max_seq, sizeof(max_seq));
			if (reorder_flush(o) < 0 || reorder_write(o, r, n) < 0)
				return -1;
			return 0;
		}
	}
	/* Each chunk starts runs of its own: another chunk's run is sorted apart from it. */
	o->cur = o->strag = NO_RUN;
	for (size_t k = 0; k < n; k++) {
		uint64_t seq = r[k].seq;
		unsigned t = r[k].type <= REC_TARGET ? r[k].type : 0;
		int later = !o->any[t] || seq > o->max_seq[t];
		o->any[t] = 1;
		if (later)
			o->max_seq[t] = seq;
		if (!o->nheap && later && !hold) {
			if (reorder_out(o, &r[k]) < 0)
				return -1;
			continue;
		}
		if (o->held == REORDER_RECS && reorder_pop(o) < 0)
			return -1;
		if (reorder_hold(o, &r[k]) < 0)
			return -1;
	}
	o->cur = o->strag = NO_RUN;
	return 0;
}

/* The window's records below 'seq', in order (no later record is below it). */
static int reorder_release_below(struct reorder *o, uint64_t seq)
{
	while (o->nheap && o->runs[o->heap[0]].key < seq)
		if (reorder_pop(o) < 0)
			return -1;
	return 0;
}

/* Everything still in the window, in order. */
static int reorder_finish(struct reorder *o)
{
	while (o->nheap)
		if (reorder_pop(o) < 0)
			return -1;
	return reorder_flush(o);
}

/*
 * The state of a walk over a spool's frames: the whole spool mapped after
 * the program ('mapprof record', 'mapprof recover'), or the frames as they
 * land while it runs (the live expansion, below), then the rest mapped.
 */
struct replay {
	struct db_writer *w;
	struct delete_pairer *pairer;
	struct page_sink *ps;        /* the rows to pages, or NULL: to SQLite */
	struct ingest_result *res;
	struct op_keys *keys;
	const char *path;
	int fd;                      /* the spool */
	const unsigned char *map;    /* the spool mapped, or NULL (read as it grows) */
	struct ticks_to_ns tc;       /* off while ps->raw: the times go in as written */
	struct rec *conv;
	size_t conv_cap;
	int runs;
	struct hmap seen;
	struct held held;
	size_t nheld;
	struct reorder *order;
	int eager;                   /* replay_range(): the window let go early (frames_after_min()) */
	unsigned char *window;       /* replay_range()'s read window between calls (READ_WINDOW) */
	size_t window_cap;
};

static int replay_init(struct replay *s, struct db_writer *w, struct delete_pairer *pairer, struct page_sink *ps,
		       struct ingest_result *res, struct op_keys *keys, const char *path, int fd, char **err)
{
	memset(s, 0, sizeof(*s));
	s->w = w;
	s->pairer = pairer;
	s->ps = ps;
	s->res = res;
	s->keys = keys;
	s->path = path;
	s->fd = fd;
	hmap_init(&s->seen, 3, sizeof(uint64_t));
	s->order = malloc(sizeof(*s->order));
	if (!s->order || reorder_init(s->order, w, pairer, ps) < 0)
		return db_fail(err, "out of memory");
	return 0;
}

static void replay_release(struct replay *s)
{
	if (s->order)
		reorder_release(s->order);
	free(s->order);
	s->order = NULL;
	free(s->window);
	s->window = NULL;
	s->window_cap = 0;
	hmap_release(&s->seen);
	free(s->held.off);
	s->held.off = NULL;
	free(s->conv);
	s->conv = NULL;
}

/* The message of a failed write of the events. */
static int replay_write_fail(struct replay *s, char **err)
{
	if (s->ps && s->ps->err)
		return db_fail(err, "cannot write its pages: %s", strerror(s->ps->err));
	return db_fail(err, "%s", dbw_errmsg(s->w));
}

/*
 * One whole frame whose payload (at byte 'off' of the spool) is 'payload'.
 * With a page sink, the events go to pages and the other frames are checked
 * and kept for replay_others().  0, or -1 (*err).
 */
static int replay_frame(struct replay *s, const struct spool_frame *fr, const unsigned char *payload, size_t off,
			char **err)
{
	struct spool_field f[SPOOL_MAX_FIELDS];
	struct ingest_result *res = s->res;
	struct page_sink *ps = s->ps;
	int k;

	if (fr->type == SPOOL_RECORDS) {
		size_t n = fr->len / sizeof(struct rec);
		if (fr->len % sizeof(struct rec))
			return db_fail(err, "corrupt spool '%s' at byte %zu", s->path, off);
		/* A buffer written empty: nothing to copy or insert. */
		if (!n || seen_before(&s->seen, s->map, s->fd, payload, off, fr->len))
			return 0;
		/* The frames before it hold strings, so the payload may
		 * be misaligned for struct rec: copied then. */
		const struct rec *r = (const struct rec *)(const void *)payload;
		if (s->tc.on || (uintptr_t)payload % _Alignof(struct rec)) {
			if (n > s->conv_cap) {
				free(s->conv);
				s->conv_cap = n;
				if (!(s->conv = malloc(n * sizeof(*s->conv)))) {
					s->conv_cap = 0;
					return db_fail(err, "out of memory");
				}
			}
			memcpy(s->conv, payload, n * sizeof(*s->conv));
			for (size_t i = 0; s->tc.on && i < n; i++) {
				s->conv[i].begin_ns = to_ns(&s->tc, s->conv[i].begin_ns);
				s->conv[i].end_ns = to_ns(&s->tc, s->conv[i].end_ns);
			}
			r = s->conv;
		}
		while (s->nheld < s->held.n && s->held.off[s->nheld] < off)
			s->nheld++;
		if (reorder_add(s->order, r, n, s->nheld < s->held.n && s->held.off[s->nheld] == off) < 0)
			return s->order->nomem ? db_fail(err, "out of memory") : replay_write_fail(s, err);
		count(res, r, n);
		if (s->keys && add_keys(s->keys, r, n, err) < 0)
			return -1;
		res->records += n;
		return 0;
	}
	if (fr->type == SPOOL_CLOCK)
		return 0;   /* clock_scan()'s */
	if (spool_unpack(fr->type, payload, fr->len, f) < 0) {
		if (spool_frame_format(fr->type))
			return db_fail(err, "corrupt spool '%s' at byte %zu", s->path, off);
	} else if (fr->type == SPOOL_RUN && s->runs++) {
		/* One process, one run: two are the frames of two spools mixed. */
		return db_fail(err, "corrupt spool '%s' at byte %zu: a second run", s->path, off);
	} else if (ps) {
		if (grow_one((void **)&ps->others, &ps->others_cap, ps->nothers, sizeof(*ps->others)) < 0)
			return db_fail(err, "out of memory");
		ps->others[ps->nothers++] = off - sizeof(*fr);
	} else if ((k = replay(s->w, fr->type, f)) != 0) {
		/* Only the run's own conflict says a run is there; a full disk is a full disk. */
		if (k > 0)
			return db_fail(err, "the database already holds a recorded run");
		return replay_write_fail(s, err);
	}
	return 0;
}

/*
 * For the whole frames of the mapped spool from byte 'from': *after[i], the
 * smallest seq of any record in frame i or later (UINT64_MAX: none).  What
 * the window holds below it when frame i starts comes before everything
 * still to come: the live expansion holds whole frames it could not place
 * (and all that follows piles up behind them, a short run's every record:
 * 2 MiB of fresh pages, milliseconds on a virtual machine), and the rest of
 * the spool, known once the program ended, lets them go as soon as they can.
 * The tables get the same rows in the same order.  0, or -1 (no memory: the
 * window is let go at the end, as without it).
 */
static int frames_after_min(const unsigned char *map, size_t from, size_t size, uint64_t **after, size_t *n)
{
	size_t cap = 0, off = from;
	uint64_t *v = NULL;

	*n = 0;
	while (size - off >= sizeof(struct spool_frame)) {
		struct spool_frame fr;
		uint64_t lo = UINT64_MAX;
		memcpy(&fr, map + off, sizeof(fr));
		if (size - off - sizeof(fr) < fr.len)
			break;
		if (fr.type == SPOOL_RECORDS && fr.len % sizeof(struct rec) == 0) {
			const unsigned char *r = map + off + sizeof(fr);
			for (size_t i = 0; i < fr.len / sizeof(struct rec); i++) {
				uint64_t seq;
				memcpy(&seq, r + i * sizeof(struct rec) + offsetof(struct rec, seq), sizeof(seq));
				if (seq < lo)
					lo = seq;
			}
		}
		if (*n == cap && grow_one((void **)&v, &cap, *n, sizeof(*v)) < 0) {
			free(v);
			return -1;
		}
		v[(*n)++] = lo;
		off += sizeof(fr) + fr.len;
	}
	for (size_t i = *n; i-- > 1;)
		if (v[i] < v[i - 1])
			v[i - 1] = v[i];
	*after = v;
	return 0;
}

/* The read window kept for the next replay_range() (the live expansion's, faulted in as it starts). */
static void replay_keep_window(struct replay *s, struct spool_reader *rd)
{
	s->window = rd->buf;
	s->window_cap = rd->cap;
	rd->buf = NULL;
	rd->cap = rd->have = 0;
}

/* The mapped frames from byte 'from' (a frame's start) to the end.  0, or -1 (*err). */
static int replay_range(struct replay *s, size_t from, size_t size, char **err)
{
	struct spool_reader rd = { .fd = s->fd, .size = size, .buf = s->window, .cap = s->window_cap };
	const unsigned char *p;
	size_t off = from, nframe = 0, nafter = 0;
	uint64_t *after = NULL;
	int rc = 0;

	if (s->eager && s->map && frames_after_min(s->map, from, size, &after, &nafter) < 0)
		after = NULL;

	while (off < size) {
		struct spool_frame fr;
		if (size - off < sizeof(fr)) {
			s->res->truncated = 1;
			break;
		}
		if (!(p = reader_get(&rd, off, sizeof(fr), READ_WINDOW, 0)))
			goto fail;
		memcpy(&fr, p, sizeof(fr));
		if (size - off - sizeof(fr) < fr.len) {
			s->res->truncated = 1;
			break;
		}
		/* A frame of records read from its header on, aligned, where it is not (strings before it). */
		p = reader_get(&rd, off, sizeof(fr) + fr.len, READ_WINDOW, 0);
		if (p && fr.type == SPOOL_RECORDS && (uintptr_t)(p + sizeof(fr)) % _Alignof(struct rec))
			p = reader_get(&rd, off, sizeof(fr) + fr.len, READ_WINDOW, 1);
		if (!p)
			goto fail;
		off += sizeof(fr);
		if (replay_frame(s, &fr, p + sizeof(fr), off, err) < 0) {
			rc = -1;
			break;
		}
		s->res->frames++;
		off += fr.len;
		nframe++;
		if (after && nframe < nafter && reorder_release_below(s->order, after[nframe]) < 0) {
			rc = replay_write_fail(s, err);
			break;
		}
	}
	free(after);
	replay_keep_window(s, &rd);
	return rc;
fail:
	free(after);
	db_fail(err, "cannot read '%s': %s", s->path, strerror(errno));
	replay_keep_window(s, &rd);
	return -1;
}

/* Walk the frames of a mapped spool.  0, or -1 (*err). */
static int replay_all(struct db_writer *w, struct delete_pairer *pairer, struct page_sink *ps, int fd,
		      const unsigned char *p, size_t size, struct ingest_result *res, struct op_keys *keys,
		      const char *path, char **err)
{
	struct replay s;
	int rc = -1;

	if (replay_init(&s, w, pairer, ps, res, keys, path, fd, err) == 0) {
		s.map = p;
		clock_scan(fd, size, &s.tc, &s.held);
		if (replay_range(&s, sizeof(struct spool_header), size, err) == 0) {
			if (reorder_finish(s.order) < 0)
				replay_write_fail(&s, err);
			else
				rc = 0;
		}
	}
	replay_release(&s);
	return rc;
}

/* The raw times of a live expansion: begin and end as written in, begin_ns and dur_ns out. */
static void times_fn(void *ctx, int64_t *a, int64_t *b)
{
	const struct ticks_to_ns *tc = ctx;
	int64_t begin = *a, end = *b;

	if (tc->on) {
		begin = to_ns(tc, begin);
		end = to_ns(tc, end);
	}
	*a = begin;
	*b = (int64_t)((uint64_t)end - (uint64_t)begin);   /* writer.c's dur_ns() */
}

/* After the pages: the frames replay_all() kept, then the records and pairs out of order.  0 or -1. */
static int replay_others(struct db *db, struct db_writer *w, struct page_sink *ps, const unsigned char *p,
			 const struct ticks_to_ns *tc, char **err)
{
	sqlite3_stmt *st;
	struct spool_field f[SPOOL_MAX_FIELDS];
	int k;

	for (size_t i = 0; i < ps->nothers; i++) {
		struct spool_frame fr;
		memcpy(&fr, p + ps->others[i], sizeof(fr));
		if (spool_unpack(fr.type, p + ps->others[i] + sizeof(fr), fr.len, f) < 0)
			continue;   /* checked as the events were read: cannot happen */
		if ((k = replay(w, fr.type, f)) > 0)
			return db_fail(err, "the database already holds a recorded run");
		if (k < 0)
			return db_fail(err, "%s", dbw_errmsg(w));
	}
	/* The live expansion's records hold their times as written. */
	for (size_t i = 0; ps->raw && tc->on && i < ps->nlate; i++) {
		ps->late[i].begin_ns = to_ns(tc, ps->late[i].begin_ns);
		ps->late[i].end_ns = to_ns(tc, ps->late[i].end_ns);
	}
	if (ps->nlate && dbw_records(w, ps->late, ps->nlate) < 0)
		return db_fail(err, "%s", dbw_errmsg(w));
	if (!ps->nlate_pairs)
		return 0;
	if (!(st = db_prepare(db, "INSERT INTO delete_pair_raw (delete_seq, alloc_seq) VALUES (?,?)", err)))
		return -1;
	for (size_t i = 0; i < ps->nlate_pairs; i++) {
		sqlite3_bind_int64(st, 1, ps->late_pairs[i][0]);
		sqlite3_bind_int64(st, 2, ps->late_pairs[i][1]);
		if (sqlite3_step(st) != SQLITE_DONE) {
			db_fail(err, "%s", db_errmsg(db));
			sqlite3_finalize(st);
			return -1;
		}
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return 0;
}

int db_ingest_spool(struct db *db, const char *spool_path, struct ingest_result *res, char **err)
{
	return db_ingest_spool_keys(db, spool_path, res, NULL, err);
}

/* The spool opened and mapped for the expansion: 0, 1 (no spool, or nothing in it), -1 (*err). */
static int spool_map(const char *spool_path, int *fd, unsigned char **map, size_t *size, struct ingest_result *res,
		     char **err)
{
	struct spool_header h;
	struct stat st;

	*map = NULL;
	*fd = open(spool_path, O_RDONLY | O_CLOEXEC);
	if (*fd < 0) {
		if (errno == ENOENT)
			return 1;
		return db_fail(err, "cannot open '%s': %s", spool_path, strerror(errno));
	}
	if (fstat(*fd, &st) < 0)
		return db_fail(err, "cannot read '%s': %s", spool_path, strerror(errno));
	*size = (size_t)st.st_size;
	/*
	 * Nothing after the header: no process claimed the spool 'mapprof
	 * record' made, or one claimed it and was killed at once.
	 */
	if ((size_t)st.st_size <= sizeof(h))
		return 1;
	*map = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, *fd, 0);
	if (*map == MAP_FAILED) {
		*map = NULL;
		return db_fail(err, "cannot map '%s': %s", spool_path, strerror(errno));
	}
	madvise(*map, *size, MADV_SEQUENTIAL);
	memcpy(&h, *map, sizeof(h));
	if (memcmp(h.magic, SPOOL_MAGIC, sizeof(h.magic)) || h.version != SPOOL_VERSION ||
	    h.rec_size != sizeof(struct rec))
		return db_fail(err, "'%s' is not a spool this mapprof can read (version %u)", spool_path, h.version);
	res->pid = h.pid;
	return 0;
}

/*
 * A bounded page cache (SQLite's default is 2 MB; the tables grow page by
 * page and a larger cache spills to the file less often), and the sorts of
 * pairing go to a temporary file beyond it, whatever the run's length.
 */
static void expand_pragmas(struct db *db)
{
	db_exec(db, "PRAGMA cache_size = -16384", NULL);
	db_exec(db, "PRAGMA temp_store = FILE", NULL);
}

/* The file put back as it was; when it cannot be, *err says so too. */
static void sink_undo(struct db *db, struct page_sink *ps, char **err)
{
	if (page_sink_undo(ps, sqlite3_db_filename(db->sql, "main")) < 0 && err && *err) {
		char *more = NULL;
		if (asprintf(&more, "%s (and its event tables could not be emptied again: record it anew)", *err) >= 0) {
			free(*err);
			*err = more;
		}
	}
}

/*
 * The end of an expansion through pages (the events all given to the
 * sink): the trees hooked in, then the rest through SQLite in one
 * transaction.  0, or -1 (*err) with the file put back as it was.
 */
static int pages_commit(struct db *db, struct db_writer *w, struct delete_pairer *pairer, struct page_sink *ps,
			const unsigned char *map, const struct ticks_to_ns *tc, int64_t live_rows, char **err)
{
	uint32_t pages;

	if (db_pairer_drain(pairer) < 0 || pw_finish(ps->pw, &pages) < 0) {
		db_fail(err, "cannot write '%s': %s", db_path(db), strerror(ps->err ? ps->err : errno));
		goto undo;
	}
	/* SQLite's turn: closing the file lets its locks go (the connection holds none). */
	close(ps->fd);
	ps->fd = -1;
	if (db_begin(db) < 0) {
		db_fail(err, "cannot write '%s': %s", db_path(db), db_errmsg(db));
		goto undo;
	}
	if (replay_others(db, w, ps, map, tc, err) < 0 ||
	    dbw_stat(w, "record_expand_page_rows", page_rows(ps)) < 0 ||
	    (live_rows >= 0 && dbw_stat(w, "record_expand_live_rows", live_rows) < 0) ||
	    db_pairer_finish(pairer, err) < 0 || db_set_host_device(db, err) < 0 || db_commit(db) < 0) {
		if (err && !*err)
			db_fail(err, "cannot write '%s': %s", db_path(db), db_errmsg(db));
		db_rollback(db);
		goto undo;
	}
	return 0;
undo:
	sink_undo(db, ps, err);
	return -1;
}

int db_ingest_spool_keys(struct db *db, const char *spool_path, struct ingest_result *res, struct op_keys *keys,
			 char **err)
{
	struct db_writer *w = NULL;
	struct delete_pairer *pairer = NULL;
	struct page_sink *ps = NULL;
	unsigned char *map = NULL;
	size_t size = 0;
	int fd, rc;

	memset(res, 0, sizeof(*res));
	rc = spool_map(spool_path, &fd, &map, &size, res, err);
	if (rc != 0)
		goto out;
	rc = -1;
	expand_pragmas(db);
	w = dbw_attach(db, err);
	if (!w || !(pairer = db_pairer_new(db, err)))
		goto out;
	if ((ps = page_sink_new(db, 0))) {
		struct ticks_to_ns none = { 0 };
		db_pairer_sink(pairer, page_pair, ps);
		if (replay_all(w, pairer, ps, fd, map, size, res, keys, spool_path, err) < 0) {
			sink_undo(db, ps, err);
			goto out;
		}
		if (pages_commit(db, w, pairer, ps, map, &none, -1, err) == 0)
			rc = 0;
		goto out;
	}
	if (db_begin(db) < 0) {
		db_fail(err, "cannot write '%s': %s", db_path(db), db_errmsg(db));
		goto out;
	}
	if (replay_all(w, pairer, NULL, fd, map, size, res, keys, spool_path, err) < 0 ||
	    db_pairer_finish(pairer, err) < 0 || db_set_host_device(db, err) < 0 || db_commit(db) < 0) {
		if (err && !*err)
			db_fail(err, "cannot write '%s': %s", db_path(db), db_errmsg(db));
		db_rollback(db);
		goto out;
	}
	rc = 0;
out:
	page_sink_free(ps);
	db_pairer_free(pairer);
	dbw_detach(w);
	if (map)
		munmap(map, size);
	if (fd >= 0)
		close(fd);
	return rc;
}

/* A frame of records at least this long is read when it is expanded, not when queued (struct live_frame). */
#define LIVE_READ_LATER 4096u

/*
 * The live expansion.  While the program runs, the frames the drain (and
 * the collector) append to the spool are expanded as they land, on
 * 'mapprof record''s otherwise idle core: the event rows go to the tables'
 * pages past the file's end (invisible until pw_finish() counts them in),
 * their times as written, counter ticks whose ns are known only from the
 * spool's last clock pair.  After the program, db_ingest_spool_live()
 * expands the rest the same way, checks that nothing made the head start
 * differ from what the whole spool gives (a frame the reorder window holds,
 * a pairing the ns could order otherwise, a time that would saturate), and
 * converts the times in place as the pages are finished: the same rows as
 * db_ingest_spool_keys() makes of the same spool.  Otherwise the pages are
 * dropped (the file truncated) and the spool expanded as usual: it stays
 * the store of record throughout.
 */
struct ingest_live {
	struct db *db;
	const char *path;
	int fd;
	struct db_writer *w;
	struct delete_pairer *pairer;
	struct page_sink *ps;
	struct op_keys *keys;
	struct ingest_result res;
	struct replay s;
	int started;       /* s initialised */
	int warm;          /* live_warm() ran */
	int ticks;         /* the times are counter ticks (ps->raw) */
	int failed;        /* given up: the usual expansion after the program */
	atomic_int cut;    /* ingest_live_cut(): no more frames this step */
	size_t off;        /* the next frame's offset in the spool (not expanded yet) */
	/*
	 * The frames seen but not expanded yet, from 'off' on: a frame is
	 * expanded once 'lag' record frames came after it, held (struct held)
	 * when one of those overtakes it, as clock_scan() will say of the
	 * whole spool if nothing overtakes it later still; what was held is
	 * noted, checked after the program.
	 */
	struct live_frame {
		size_t off;          /* the frame's (its header's) */
		struct spool_frame fr;
		/*
		 * Its payload (aligned), read when queued, or NULL: empty, or a
		 * frame of records, read when it is expanded (into buf).  A short
		 * run's frames are all still queued when the program ends and the
		 * expansion after it reads the spool itself: payloads read when
		 * queued were fresh memory never used (real/cg.fixed: 2.4 MB, 600
		 * page faults of 8-16 us on a virtual machine).
		 */
		struct rec *data;
		int recs;            /* a RECORDS frame with records: first and last hold their seqs */
		uint64_t first, last;
	} *q;
	size_t qhead, qn, qcap, qrecs;
	struct rec *buf;   /* the payload of the frame being expanded, when not read when queued */
	size_t buf_cap;    /* buf's records */
	size_t scan;       /* the next frame to look at (the end of the queue) */
	unsigned lag;
	struct held held;  /* the frames expanded held, ascending */
	int any_unheld;    /* a record frame expanded not held: the largest last seq of those */
	uint64_t unheld_last;
};

void ingest_live_free(struct ingest_live *l)
{
	if (!l)
		return;
	if (l->started)
		replay_release(&l->s);
	if (l->ps && l->ps->wrote)
		page_sink_undo(l->ps, sqlite3_db_filename(l->db->sql, "main"));
	page_sink_free(l->ps);
	db_pairer_free(l->pairer);
	dbw_detach(l->w);
	op_keys_free(l->keys);
	if (l->fd >= 0)
		close(l->fd);
	for (size_t i = l->qhead; i < l->qn; i++)
		free(l->q[i].data);
	free(l->q);
	free(l->buf);
	free(l->held.off);
	free(l);
}

struct ingest_live *ingest_live_new(struct db *db, const char *spool_path, unsigned lag, int ticks)
{
	const char *env = getenv("MAPPROF_LIVE_EXPAND");
	struct ingest_live *l;
	char *err = NULL;

	if ((env && !strcmp(env, "0")) || !(l = calloc(1, sizeof(*l))))
		return NULL;
	l->db = db;
	l->path = spool_path;
	l->fd = open(spool_path, O_RDONLY | O_CLOEXEC);
	l->off = l->scan = sizeof(struct spool_header);
	l->lag = lag ? lag : 1;
	if (l->fd < 0)
		goto no;
	expand_pragmas(db);
	if (!(l->keys = op_keys_new(db, &err)) || !(l->w = dbw_attach(db, &err)) ||
	    !(l->pairer = db_pairer_new(db, &err)) || !(l->ps = page_sink_new(db, 1)))
		goto no;
	db_pairer_sink(l->pairer, page_pair, l->ps);
	l->ticks = ticks;
	/* Plain ns (no counter): the rows as the usual expansion writes them, nothing to convert. */
	for (int t = 0; ticks && t < DBW_TABLES; t++) {
		/* begin_ns, then dur_ns (writer.c): the two time columns, together. */
		const char *cols = dbw_table_columns(t), *at = strstr(cols, "begin_ns, dur_ns");
		int col = 0;
		if (!at)
			goto no;
		for (const char *c = cols; c < at; c++)
			col += *c == ',';
		l->ps->tcol[t] = col;
		pw_table_times(l->ps->t[t], col);
	}
	if (ticks) {
		db_pairer_ticks(l->pairer);
		l->ps->raw = 1;
		l->ps->tmin = INT64_MAX;
		l->ps->tmax = INT64_MIN;
	}
	if (replay_init(&l->s, l->w, l->pairer, l->ps, &l->res, l->keys, spool_path, l->fd, &err) < 0) {
		replay_release(&l->s);
		goto no;
	}
	/* The buffers every run writes: faulted in once the spool says they will be used (live_warm()). */
	if ((l->s.window = malloc(READ_WINDOW)))
		l->s.window_cap = READ_WINDOW;
	l->started = 1;
	return l;
no:
	free(err);
	ingest_live_free(l);
	return NULL;
}

/* The queue's first frame expanded.  0, or -1. */
static int live_expand_one(struct ingest_live *l)
{
	struct live_frame *x = &l->q[l->qhead];
	const struct spool_frame *fr = &x->fr;
	uint64_t min_after = UINT64_MAX;
	int hold = 0;
	char *err = NULL;
	size_t hold_off = x->off + sizeof(*fr);

	/*
	 * A frame of records not read when queued: read now, into the one
	 * buffer such frames share (before s.held points at hold_off below).
	 */
	const struct rec *data = x->data;
	if (!data && fr->len) {
		size_t nrec = (fr->len + sizeof(struct rec) - 1) / sizeof(struct rec);
		if (nrec > l->buf_cap) {
			struct rec *b = malloc(nrec * sizeof(*b));
			if (!b)
				return -1;
			free(l->buf);
			l->buf = b;
			l->buf_cap = nrec;
		}
		if (pread(l->fd, l->buf, fr->len, (off_t)(x->off + sizeof(*fr))) != (ssize_t)fr->len)
			return -1;
		data = l->buf;
	}
	if (x->recs) {
		/* As held_scan() says of it, from what came after it so far. */
		for (size_t i = l->qhead + 1; i < l->qn; i++)
			if (l->q[i].recs && l->q[i].first < min_after)
				min_after = l->q[i].first;
		hold = x->last > min_after;
	}
	if (hold && (grow_one((void **)&l->held.off, &l->held.cap, l->held.n, sizeof(*l->held.off)) < 0))
		return -1;
	/* replay_frame() holds the frames s.held lists: this one, alone. */
	if (hold) {
		l->s.held.off = &hold_off;
		l->s.held.n = l->s.held.cap = 1;
		l->s.nheld = 0;
	}
	int rc = replay_frame(&l->s, fr, (const unsigned char *)data, x->off + sizeof(*fr), &err);
	free(x->data);
	x->data = NULL;
	memset(&l->s.held, 0, sizeof(l->s.held));
	l->s.nheld = 0;
	free(err);
	if (rc < 0)
		return -1;
	if (hold)
		l->held.off[l->held.n++] = x->off + sizeof(*fr);
	else if (x->recs && (!l->any_unheld || x->last > l->unheld_last)) {
		l->any_unheld = 1;
		l->unheld_last = x->last;
	}
	l->res.frames++;
	l->off = x->off + sizeof(*fr) + fr->len;
	l->qrecs -= (size_t)x->recs;
	l->qhead++;
	return 0;
}

/*
 * The buffers every expansion writes (the reorder's first slab, the page
 * writer's pages, the read window), faulted in at once by this thread
 * while the program runs, once the spool holds LIVE_WARM_AT bytes: the
 * expansion would then touch much of them after the program, where each
 * first touch is a page fault (several milliseconds of a short run's end
 * on a virtual machine).  A run that records little never pays for the
 * ~4.5 MiB (a recording of /bin/sleep took ~1.5 ms more CPU with them).
 */
#define LIVE_WARM_AT ((size_t)64 << 10)
/* The most of the spool db_ingest_spool_live() maps in at once. */
#define LIVE_POPULATE_MAX ((size_t)64 << 20)

static void live_warm(struct ingest_live *l)
{
	l->warm = 1;
	reorder_populate(l->s.order);
	pw_populate(l->ps->pw);
	if (l->s.window)
		huge_populate(l->s.window, l->s.window_cap);
}

int ingest_live_step(struct ingest_live *l)
{
	struct stat st;
	int n = 0;

	if (l->failed)
		return -1;
	if (fstat(l->fd, &st) < 0)
		goto fail;
	if (!l->warm && (size_t)st.st_size >= LIVE_WARM_AT)
		live_warm(l);
	if (l->scan == sizeof(struct spool_header) && (size_t)st.st_size >= sizeof(struct spool_header)) {
		struct spool_header h;
		if (pread(l->fd, &h, sizeof(h), 0) != (ssize_t)sizeof(h) || memcmp(h.magic, SPOOL_MAGIC, sizeof(h.magic)) ||
		    h.version != SPOOL_VERSION || h.rec_size != sizeof(struct rec))
			goto fail;
	}
	/*
	 * The queue: the new whole frames, with the seqs clock_scan() reads.
	 * A small frame's payload is read once, as it is queued, with the next
	 * frame's header behind it: one pread() a frame, not four (a system
	 * call is ~2.5 us in a VM).  A frame of records (LIVE_READ_LATER):
	 * its last record with the next frame's header and first record
	 * behind it, and the payload when it is expanded: two (1,800 frames
	 * for 1.8 M events).  A header is kept only within this call: a frame
	 * not whole yet may be cut back.
	 */
	if (l->qhead == l->qn)
		l->qhead = l->qn = 0;
	int have_next = 0, have_first = 0;
	struct spool_frame next;
	uint64_t next_first = 0;   /* have_first: the seq of next's frame's first record */
	for (;;) {
		/*
		 * Expanded once 'lag' record frames came after: a frame overtaken
		 * comes before.  Before the next is read: no more than 'lag'
		 * payloads in memory, however far behind this thread is.
		 */
		while (l->qhead < l->qn && l->qrecs > l->lag) {
			if (atomic_load_explicit(&l->cut, memory_order_relaxed))
				return n;
			if (live_expand_one(l) < 0)
				goto fail;
			n++;
		}
		if ((size_t)st.st_size < l->scan + sizeof(struct spool_frame) ||
		    atomic_load_explicit(&l->cut, memory_order_relaxed))
			break;
		struct live_frame x = { .off = l->scan };
		size_t p = l->scan + sizeof(x.fr), want;
		int known_first = have_first;   /* set only with have_next */
		if (have_next)
			x.fr = next;
		else if (pread(l->fd, &x.fr, sizeof(x.fr), (off_t)l->scan) != (ssize_t)sizeof(x.fr))
			goto fail;
		have_next = have_first = 0;
		if ((size_t)st.st_size - p < x.fr.len)
			break;   /* still being written (or cut short: left to the end) */
		want = x.fr.len;
		size_t after = (size_t)st.st_size - p - x.fr.len;   /* bytes behind the payload */
		int tail = after >= sizeof(next);
		if (tail)
			want += sizeof(next);
		if (x.fr.type == SPOOL_RECORDS && x.fr.len >= LIVE_READ_LATER && x.fr.len % sizeof(struct rec) == 0) {
			/*
			 * Now, in one pread(): the last record, the next frame's
			 * header behind it and that frame's first record (its first
			 * seq when it is a frame of records: the next frame's read
			 * is then this one); this frame's first seq came so from the
			 * frame before, or is read alone.  The payload is read when
			 * the frame is expanded (live_expand_one()).
			 */
			unsigned char last[2 * sizeof(struct rec) + sizeof(next)];
			size_t nlast = sizeof(struct rec) +
				(after >= sizeof(next) + sizeof(struct rec) ? sizeof(next) + sizeof(struct rec)
				 : tail ? sizeof(next) : 0);
			uint64_t first = next_first;
			if ((!known_first && pread(l->fd, &first, sizeof(first), (off_t)(p + offsetof(struct rec, seq))) !=
						    (ssize_t)sizeof(first)) ||
			    pread(l->fd, last, nlast, (off_t)(p + x.fr.len - sizeof(struct rec))) != (ssize_t)nlast)
				goto fail;
			if (tail) {
				memcpy(&next, last + sizeof(struct rec), sizeof(next));
				have_next = 1;
				if (nlast == sizeof(last) && next.type == SPOOL_RECORDS && next.len >= sizeof(struct rec)) {
					memcpy(&next_first, last + sizeof(struct rec) + sizeof(next) + offsetof(struct rec, seq),
					       sizeof(next_first));
					have_first = 1;
				}
			}
			x.first = first;
			memcpy(&x.last, last + offsetof(struct rec, seq), sizeof(x.last));
			x.recs = 1;
			want = 0;
		}
		if (want) {
			/* Whole records, so that the header behind the payload fits too. */
			size_t nrec = (x.fr.len + sizeof(next) + sizeof(struct rec) - 1) / sizeof(struct rec);
			if (!(x.data = malloc(nrec * sizeof(struct rec))))
				goto fail;
			if (pread(l->fd, x.data, want, (off_t)p) != (ssize_t)want) {
				free(x.data);
				goto fail;
			}
			if (want > x.fr.len) {
				memcpy(&next, (const unsigned char *)x.data + x.fr.len, sizeof(next));
				have_next = 1;
			}
		}
		if (x.data && x.fr.type == SPOOL_RECORDS && x.fr.len && x.fr.len % sizeof(struct rec) == 0) {
			x.first = x.data[0].seq;
			x.last = x.data[x.fr.len / sizeof(struct rec) - 1].seq;
			x.recs = 1;
		}
		if (x.recs) {
			/*
			 * It overtakes a frame expanded without being held: the
			 * whole spool holds that one, the head start differs.  Given
			 * up now rather than after the program.
			 */
			if (l->any_unheld && x.first < l->unheld_last) {
				free(x.data);
				goto fail;
			}
		}
		if (l->qn == l->qcap && l->qhead) {
			memmove(l->q, l->q + l->qhead, (l->qn - l->qhead) * sizeof(*l->q));
			l->qn -= l->qhead;
			l->qhead = 0;
		}
		if (grow_one((void **)&l->q, &l->qcap, l->qn, sizeof(*l->q)) < 0) {
			free(x.data);
			goto fail;
		}
		l->q[l->qn++] = x;
		l->qrecs += (size_t)x.recs;
		l->scan += sizeof(x.fr) + x.fr.len;
	}
	return n;
fail:
	l->failed = 1;
	return -1;
}

void ingest_live_cut(struct ingest_live *l)
{
	if (l)
		atomic_store_explicit(&l->cut, 1, memory_order_relaxed);
}

static void drop_err(char **err)
{
	if (err) {
		free(*err);
		*err = NULL;
	}
}

/* Nonzero when the head start gives the rows the whole spool gives (see struct ingest_live). */
static int live_holds(struct ingest_live *l, const struct ticks_to_ns *tc)
{
	uint64_t gap = db_pairer_tie_gap(l->pairer);

	/* The frames before 'off' held as the whole spool says (both lists ascending). */
	size_t k = 0;
	for (size_t i = 0; i < l->s.held.n && l->s.held.off[i] < l->off; i++, k++)
		if (k >= l->held.n || l->held.off[k] != l->s.held.off[i])
			return 0;
	if (k != l->held.n)
		return 0;
	if (!l->ticks)
		return !tc->on;   /* expanded as plain ns: right unless the spool says ticks */
	if (!tc->on)
		return 1;   /* the times are ns already: times_fn() makes dur_ns only */
	/* Ends that many ticks apart are at least 2 ns apart: llround() keeps them apart. */
	if (gap != UINT64_MAX && (double)gap * tc->ns_per_tick < 2.0)
		return 0;
	/* to_ns() saturates no time (strictly monotone then). */
	if (l->ps->tmin <= l->ps->tmax) {
		int64_t a = to_ns(tc, l->ps->tmin), b = to_ns(tc, l->ps->tmax);
		if (a <= -(INT64_C(1) << 62) || b >= INT64_C(1) << 62)
			return 0;
	}
	return 1;
}

int db_ingest_spool_live(struct db *db, const char *spool_path, struct ingest_result *res, struct op_keys **keys,
			 struct ingest_live *l, int usable, char **err)
{
	unsigned char *map = NULL;
	size_t size = 0;
	int fd = -1, rc;
	int64_t live_rows;

	if (!l)
		return db_ingest_spool_keys(db, spool_path, res, *keys, err);
	if (l->failed || !usable)
		goto usual;
	memset(res, 0, sizeof(*res));
	rc = spool_map(spool_path, &fd, &map, &size, res, err);
	if (rc != 0 || size < l->off) {
		/* Gone, emptied or cut back: the usual path says what it finds. */
		drop_err(err);
		goto usual_close;
	}
	/* Readers out now: the header and the roots change (a reader's query is short). */
	for (int i = 0; lock_exclusive(l->ps->fd) < 0; i++) {
		if (i == 100)
			goto usual_close;
		usleep(2000);
	}
	live_rows = page_rows(l->ps);
	/*
	 * replay_range() walks the frame headers of what the live expansion
	 * left through the map first (frames_after_min()): mapped at once, up
	 * to LIVE_POPULATE_MAX, not a fault every 16 pages (~9 of them on
	 * real/tealeaf.fixed's 0.6 MB, as the program ends).
	 */
	huge_populate_read(map + l->off, size - l->off < LIVE_POPULATE_MAX ? size - l->off : LIVE_POPULATE_MAX);
	l->s.map = map;
	l->s.res = &l->res;
	l->res.pid = res->pid;
	clock_scan(fd, size, &l->s.tc, &l->s.held);
	/* The rest of the spool as the head start went: times as written, converted by pw_finish(). */
	{
		struct ticks_to_ns tc = l->s.tc;
		l->s.tc.on = 0;
		l->s.eager = 1;
		if (replay_range(&l->s, l->off, size, err) < 0 || reorder_finish(l->s.order) < 0 ||
		    db_pairer_drain(l->pairer) < 0) {
			drop_err(err);
			goto usual_close;
		}
		if (!live_holds(l, &tc))
			goto usual_close;
		l->s.tc = tc;
	}
	if (l->ticks)
		pw_set_times(l->ps->pw, times_fn, &l->s.tc);
	rc = pages_commit(db, l->w, l->pairer, l->ps, map, &l->s.tc, live_rows, err);
	l->ps->wrote = 0;   /* committed, or put back already */
	*res = l->res;
	if (rc == 0) {
		/* The keys gathered on the way are the run's. */
		op_keys_free(*keys);
		*keys = l->keys;
		l->keys = NULL;
	}
	munmap(map, size);
	close(fd);
	ingest_live_free(l);
	return rc;
usual_close:
	if (map)
		munmap(map, size);
	if (fd >= 0)
		close(fd);
usual:
	ingest_live_free(l);
	return db_ingest_spool_keys(db, spool_path, res, *keys, err);
}

__attribute__((visibility("default")))
int mapprof_ingest_file(const char *spool_path, const char *db_path_, char **err)
{
	struct ingest_result res;
	struct db *db = db_create(db_path_, 0, err);
	int rc;

	if (!db)
		return -1;
	rc = db_ingest_spool(db, spool_path, &res, err);
	db_close(db);
	if (rc < 0)
		unlink(db_path_);
	return rc < 0 ? -1 : 0;
}
