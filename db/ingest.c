/*
 * ingest.c - expanding the collector's spool into the database's tables.
 *
 * Runs after the program has ended ('mapprof record'), so none of this work
 * is charged to the program.  The spool is mapped and its frames replayed,
 * in the order written, through the db_writer calls in one transaction.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db_internal.h"
#include "db/finish.h"
#include "db/ingest.h"
#include "db/spool.h"
#include "db/writer.h"

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
	default:
		return 0;  /* a frame type this version does not know: skipped */
	}
}

/* Allocations and deletes go to the pairer as they go by. */
static void feed(struct pairer *pr, struct ingest_result *res, const struct rec *r, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (r[i].type == REC_KERNEL) {
			res->kernels++;
		} else if (r[i].type == REC_TARGET) {
			res->targets++;
		} else if (r[i].type == REC_DATA_OP) {
			res->data_ops++;
			switch (r[i].kind) {
			case 1:
			case 17:  /* alloc: the device address it returns */
				pairer_add(pr, (int64_t)r[i].seq, 0, r[i].dst_dev, r[i].dst_addr, r[i].end_ns);
				break;
			case 4:
			case 20:  /* delete: the device address it frees */
				pairer_add(pr, (int64_t)r[i].seq, 1, r[i].src_dev, r[i].src_addr, r[i].end_ns);
				break;
			}
		}
	}
}

/*
 * Event times as timestamp counter ticks (the spool has CLOCK frames) map to
 * ns since the run's start through the first and last (ticks, ns) pairs.
 */
struct ticks_to_ns {
	int on;
	int64_t t0, n0;  /* ticks and ns (relative to the run's start) at the first pair */
	double ns_per_tick;
};

/* Find the CLOCK frames and the run's start.  Malformed frames are left to the replay. */
static void clock_scan(const unsigned char *p, size_t size, struct ticks_to_ns *tc)
{
	struct spool_field f[SPOOL_MAX_FIELDS];
	int64_t start_ns = 0, t_first = 0, n_first = 0, t_last = 0, n_last = 0;
	int pairs = 0;
	size_t off = sizeof(struct spool_header);

	memset(tc, 0, sizeof(*tc));
	while (size - off >= sizeof(struct spool_frame)) {
		struct spool_frame fr;
		memcpy(&fr, p + off, sizeof(fr));
		off += sizeof(fr);
		if (size - off < fr.len)
			break;
		if (fr.type == SPOOL_CLOCK && spool_unpack(fr.type, p + off, fr.len, f) == 0 && f[0].i) {
			if (!pairs++) {
				t_first = f[0].i;
				n_first = f[1].i;
			}
			t_last = f[0].i;
			n_last = f[1].i;
		} else if (fr.type == SPOOL_RUN && spool_unpack(fr.type, p + off, fr.len, f) == 0) {
			start_ns = f[5].i;
		}
		off += fr.len;
	}
	/* One pair: the collector did not time with the counter (the ns are plain). */
	if (pairs < 2 || t_last <= t_first || n_last <= n_first)
		return;
	tc->on = 1;
	tc->t0 = t_first;
	tc->n0 = n_first - start_ns;
	tc->ns_per_tick = (double)(n_last - n_first) / (double)(t_last - t_first);
}

static int64_t to_ns(const struct ticks_to_ns *tc, int64_t ticks)
{
	return tc->n0 + (int64_t)llround((double)(ticks - tc->t0) * tc->ns_per_tick);
}

/* Walk the frames of a mapped spool. */
static int replay_all(struct db_writer *w, struct pairer *pr, const unsigned char *p, size_t size,
		      struct ingest_result *res, const char *path, char **err)
{
	struct spool_field f[SPOOL_MAX_FIELDS];
	size_t off = sizeof(struct spool_header);
	struct ticks_to_ns tc;
	struct rec *conv = NULL;
	size_t conv_cap = 0;
	int rc = -1;

	clock_scan(p, size, &tc);
	while (off < size) {
		struct spool_frame fr;
		if (size - off < sizeof(fr)) {
			res->truncated = 1;
			break;
		}
		memcpy(&fr, p + off, sizeof(fr));
		off += sizeof(fr);
		if (size - off < fr.len) {
			res->truncated = 1;
			break;
		}
		if (fr.type == SPOOL_RECORDS) {
			size_t n = fr.len / sizeof(struct rec);
			if (fr.len % sizeof(struct rec)) {
				db_fail(err, "corrupt spool '%s' at byte %zu", path, off);
				goto out;
			}
			const struct rec *r = (const struct rec *)(const void *)(p + off);
			if (tc.on) {
				if (n > conv_cap) {
					free(conv);
					conv_cap = n;
					if (!(conv = malloc(n * sizeof(*conv)))) {
						db_fail(err, "out of memory");
						goto out;
					}
				}
				memcpy(conv, r, n * sizeof(*conv));
				for (size_t i = 0; i < n; i++) {
					conv[i].begin_ns = to_ns(&tc, conv[i].begin_ns);
					conv[i].end_ns = to_ns(&tc, conv[i].end_ns);
				}
				r = conv;
			}
			if (dbw_records(w, r, n) < 0)
				goto sql_error;
			feed(pr, res, r, n);
			res->records += n;
		} else if (fr.type == SPOOL_CLOCK) {
			/* Used above. */
		} else {
			if (spool_unpack(fr.type, p + off, fr.len, f) < 0) {
				if (spool_frame_format(fr.type)) {
					db_fail(err, "corrupt spool '%s' at byte %zu", path, off);
					goto out;
				}
			} else if (replay(w, fr.type, f) < 0) {
				if (fr.type == SPOOL_RUN) {
					db_fail(err, "the database already holds a recorded run");
					goto out;
				}
				goto sql_error;
			}
		}
		res->frames++;
		off += fr.len;
	}
	rc = 0;
	goto out;
sql_error:
	db_fail(err, "cannot write the spool's events: %s", dbw_errmsg(w));
out:
	free(conv);
	return rc;
}

int db_ingest_spool(struct db *db, const char *spool_path, struct ingest_result *res, char **err)
{
	struct spool_header h;
	struct db_writer *w = NULL;
	struct pairer *pr = NULL;
	unsigned char *map = NULL;
	struct stat st;
	int fd, rc = -1;

	memset(res, 0, sizeof(*res));
	fd = open(spool_path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			return 1;
		return db_fail(err, "cannot open '%s': %s", spool_path, strerror(errno));
	}
	if (fstat(fd, &st) < 0) {
		db_fail(err, "cannot read '%s': %s", spool_path, strerror(errno));
		goto out;
	}
	if ((size_t)st.st_size <= sizeof(h)) {
		/*
		 * Nothing after the header: no process claimed the spool 'mapprof
		 * record' made, or one claimed it and was killed at once.
		 */
		rc = 1;
		goto out;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		map = NULL;
		db_fail(err, "cannot map '%s': %s", spool_path, strerror(errno));
		goto out;
	}
	madvise(map, (size_t)st.st_size, MADV_SEQUENTIAL);
	memcpy(&h, map, sizeof(h));
	if (memcmp(h.magic, SPOOL_MAGIC, sizeof(h.magic)) || h.version != SPOOL_VERSION ||
	    h.rec_size != sizeof(struct rec)) {
		db_fail(err, "'%s' is not a spool this mapprof can read (version %u)", spool_path,
			h.version);
		goto out;
	}
	res->pid = h.pid;
	/* The tables grow page by page: a larger cache spills to the file less often. */
	db_exec(db, "PRAGMA cache_size = -65536", NULL);
	w = dbw_attach(db, err);
	pr = pairer_new();
	if (!w || !pr)
		goto out;
	if (db_begin(db) < 0) {
		db_fail(err, "cannot write '%s': %s", db_path(db), db_errmsg(db));
		goto out;
	}
	if (replay_all(w, pr, map, (size_t)st.st_size, res, spool_path, err) < 0 ||
	    pairer_write(pr, db, err) < 0 || db_set_host_device(db, err) < 0 || db_commit(db) < 0) {
		if (err && !*err)
			db_fail(err, "cannot write '%s': %s", db_path(db), db_errmsg(db));
		db_rollback(db);
		goto out;
	}
	rc = 0;
out:
	pairer_free(pr);
	dbw_detach(w);
	if (map)
		munmap(map, (size_t)st.st_size);
	close(fd);
	return rc;
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
