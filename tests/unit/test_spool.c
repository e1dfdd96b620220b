/*
 * test_spool.c - the spool format and its replay into the database.
 */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "tests/unit/check_db.h"
#include "db/ingest/ingest.h"
#include "db/spool/spool.h"

static void test_pack_unpack(void)
{
	unsigned char buf[256];
	struct spool_field f[SPOOL_MAX_FIELDS];
	struct spool_frame fr;
	size_t n = spool_pack(buf, sizeof(buf), SPOOL_MODULE, "/lib/libx.so", (int64_t)0x1000,
			      (int64_t)0x1000, (int64_t)0x2000, (const char *)NULL, (int64_t)-5);

	memcpy(&fr, buf, sizeof(fr));
	CHECK_INT(fr.type, SPOOL_MODULE);
	CHECK_INT(fr.len, n - sizeof(fr));
	CHECK_INT(spool_unpack(SPOOL_MODULE, buf + sizeof(fr), fr.len, f), 0);
	CHECK_STR(f[0].s, "/lib/libx.so");
	CHECK_INT(f[1].i, 0x1000);
	CHECK_INT(f[3].i, 0x2000);
	CHECK(f[4].s == NULL);
	CHECK_INT(f[5].i, -5);

	/* Too small a buffer: the size needed, nothing written past cap. */
	memset(buf, 0xAA, sizeof(buf));
	CHECK_INT(spool_pack(buf, 4, SPOOL_ENV, "OMP_NUM_THREADS", "4"),
		  sizeof(fr) + 2 * sizeof(uint32_t) + sizeof("OMP_NUM_THREADS") + sizeof("4"));
	CHECK_INT(buf[4], 0xAA);

	/* Malformed payloads are refused, not read past their end. */
	n = spool_pack(buf, sizeof(buf), SPOOL_ENV, "A", "B");
	CHECK_INT(spool_unpack(SPOOL_ENV, buf + sizeof(fr), n - sizeof(fr) - 1, f), -1);
	CHECK_INT(spool_unpack(SPOOL_ENV, buf + sizeof(fr), n - sizeof(fr) + 1, f), -1);
	buf[sizeof(fr) + sizeof(uint32_t) + 1] = 'x';  /* the NUL after "A" */
	CHECK_INT(spool_unpack(SPOOL_ENV, buf + sizeof(fr), n - sizeof(fr), f), -1);
	CHECK(spool_frame_format(SPOOL_FRAME_TYPES) == NULL);
}

/* An OpenACC event's frame: the most fields of any frame, NULL strings and INT64_MIN (NULL) kept. */
static void test_acc_frame(void)
{
	unsigned char buf[512];
	struct spool_field f[SPOOL_MAX_FIELDS];
	struct spool_frame fr;
	size_t n = spool_pack(buf, sizeof(buf), SPOOL_ACC, (int64_t)7, "update", (const char *)NULL,
			      INT64_MIN, "host", (int64_t)0, (int64_t)-2, (int64_t)-2, (int64_t)24, INT64_MIN,
			      INT64_MIN, "{}");

	CHECK_INT(strlen(spool_frame_format(SPOOL_ACC)), 12);
	memcpy(&fr, buf, sizeof(fr));
	CHECK_INT(fr.len, n - sizeof(fr));
	CHECK_INT(spool_unpack(SPOOL_ACC, buf + sizeof(fr), fr.len, f), 0);
	CHECK_INT(f[0].i, 7);
	CHECK_STR(f[1].s, "update");
	CHECK(f[2].s == NULL);
	CHECK(f[3].i == INT64_MIN);
	CHECK_STR(f[4].s, "host");
	CHECK_INT(f[7].i, -2);
	CHECK_INT(f[8].i, 24);
	CHECK(f[10].i == INT64_MIN);
	CHECK_STR(f[11].s, "{}");
}

static void put_frame(FILE *f, uint32_t type, ...)
{
	unsigned char buf[1024];
	va_list ap;
	size_t n;
	va_start(ap, type);
	n = spool_vpack(buf, sizeof(buf), type, ap);
	va_end(ap);
	fwrite(buf, 1, n, f);
}

static long long scalar(const char *path, const char *sql)
{
	sqlite3 *db;
	sqlite3_stmt *st;
	long long v = -1;
	if (sqlite3_open(path, &db) == SQLITE_OK &&
	    sqlite3_prepare_v2(db, sql, -1, &st, NULL) == SQLITE_OK) {
		if (sqlite3_step(st) == SQLITE_ROW)
			v = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
	}
	sqlite3_close(db);
	return v;
}

/* A spool as the collector writes it, cut short in its last frame. */
static void write_spool(const char *path, int cut)
{
	struct spool_header h = { SPOOL_MAGIC, SPOOL_VERSION, sizeof(struct rec), 4242 };
	struct rec r[3];
	struct spool_frame fr = { SPOOL_RECORDS, sizeof(r) };
	FILE *f = fopen(path, "wb");

	if (!f) {
		perror(path);
		exit(1);
	}
	fwrite(&h, sizeof(h), 1, f);
	put_frame(f, SPOOL_RUN, "[\"./app\"]", "/tmp", (int64_t)4242, "host", "2026-01-01T00:00:00Z",
		  (int64_t)1, "LLVM", "test");
	put_frame(f, SPOOL_ENV, "OMP_TARGET_OFFLOAD", "MANDATORY");
	memset(r, 0, sizeof(r));
	for (int i = 0; i < 3; i++) {
		r[i].type = REC_DATA_OP;
		r[i].kind = 2;  /* transfer to device */
		r[i].seq = (uint64_t)(10 + i);
		r[i].bytes = 64;
		r[i].has_hash = 1;
		r[i].hash = 0xfeed;
		r[i].map_index = -1;
		r[i].begin_ns = 100 * i;
		r[i].end_ns = 100 * i + 50;
	}
	fwrite(&fr, sizeof(fr), 1, f);
	fwrite(r, sizeof(r), 1, f);
	put_frame(f, SPOOL_DEVICE, (int64_t)0, "generic-64bit", (int64_t)5, (int64_t)-1);
	put_frame(f, SPOOL_END, (int64_t)999, (int64_t)0);
	if (cut) {
		/* A records frame the program was killed in the middle of. */
		fwrite(&fr, sizeof(fr), 1, f);
		fwrite(r, sizeof(r[0]), 1, f);
	}
	fclose(f);
}

static void test_ingest(void)
{
	/* In a directory of its own: the build directory is not always build/. */
	char dir[] = "/tmp/mapprof-test-spool.XXXXXX", dbp[64], sp[64];
	struct ingest_result res;
	char *err = NULL;
	struct db *db;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(dbp, sizeof(dbp), "%s/spool.db", dir);
	snprintf(sp, sizeof(sp), "%s/spool.db-spool", dir);
	write_spool(sp, 1);
	db = check_db_create(dbp);
	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_INT(db_ingest_spool(db, sp, &res, &err), 0);
	CHECK_INT(res.pid, 4242);
	CHECK_INT(res.records, 3);
	CHECK_INT(res.truncated, 1);
	/* A second replay into the same database is refused whole. */
	CHECK_INT(db_ingest_spool(db, sp, &res, &err), -1);
	CHECK(err && strstr(err, "already holds a recorded run"));
	free(err);
	db_close(db);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM data_ops WHERE op = 'to_device' AND hash = '000000000000feed'"), 3);
	CHECK_INT(scalar(dbp, "SELECT SUM(end_ns - begin_ns) FROM data_ops"), 150);
	CHECK_INT(scalar(dbp, "SELECT pid FROM run"), 4242);
	CHECK_INT(scalar(dbp, "SELECT duration_ns FROM run"), 999);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM environment WHERE value = 'MANDATORY'"), 1);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM devices WHERE type = 'generic-64bit'"), 1);

	/* No spool: the collector never started. */
	unlink(sp);
	db = check_db_create(dbp);
	CHECK_INT(db_ingest_spool(db, sp, &res, &err), 1);
	db_close(db);

	/* Not a spool. */
	FILE *f = fopen(sp, "wb");
	fputs("this is not a spool, but it is long enough to have a header", f);
	fclose(f);
	db = check_db_create(dbp);
	err = NULL;
	CHECK_INT(db_ingest_spool(db, sp, &res, &err), -1);
	CHECK(err && strstr(err, "not a spool"));
	free(err);
	db_close(db);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM run_raw"), 0);

	/* By hand: the whole database from the spool, deletes paired. */
	write_spool(sp, 0);
	unlink(dbp);
	err = NULL;
	CHECK_INT(mapprof_ingest_file(sp, dbp, &err), 0);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM meta WHERE key = 'deletes_paired'"), 1);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM data_ops"), 3);
	/* It never replaces a database. */
	CHECK_INT(mapprof_ingest_file(sp, dbp, &err), -1);
	free(err);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM data_ops"), 3);
	unlink(sp);
	unlink(dbp);
	rmdir(dir);
}

/*
 * Two threads' chunks interleaved, each chunk's first record written last
 * (a construct's record after the 1023 events inside it: far back), more
 * records than the reorder window holds: every record reaches its table
 * once, whatever path it took (the window's runs, the stragglers' run, the
 * window full).
 */
static void test_ingest_interleaved(void)
{
	char dir[] = "/tmp/mapprof-test-spool.XXXXXX", dbp[64], sp[64];
	struct spool_header h = { SPOOL_MAGIC, SPOOL_VERSION, sizeof(struct rec), 4243 };
	enum { CHUNKS = 80, PER = 1024 };
	static struct rec r[PER];
	struct spool_frame fr = { SPOOL_RECORDS, sizeof(r) };
	struct ingest_result res;
	char *err = NULL;
	long long want_sum = 0;
	struct db *db;
	FILE *f;

	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		exit(1);
	}
	snprintf(dbp, sizeof(dbp), "%s/spool.db", dir);
	snprintf(sp, sizeof(sp), "%s/spool.db-spool", dir);
	if (!(f = fopen(sp, "wb"))) {
		perror(sp);
		exit(1);
	}
	fwrite(&h, sizeof(h), 1, f);
	put_frame(f, SPOOL_RUN, "[\"./app\"]", "/tmp", (int64_t)4243, "host", "2026-01-01T00:00:00Z",
		  (int64_t)1, "LLVM", "test");
	for (int k = 0; k < CHUNKS; k++) {
		for (int t = 0; t < 2; t++) {
			uint64_t base = (uint64_t)k * 2 * PER + 1 + (uint64_t)t;
			memset(r, 0, sizeof(r));
			for (int i = 0; i < PER; i++) {
				/* seqs base + 2i, the first one (i = 0) written last */
				int at = i ? i - 1 : PER - 1;
				r[at].type = REC_DATA_OP;
				r[at].kind = 2;
				r[at].thread = t;
				r[at].seq = base + 2 * (uint64_t)i;
				r[at].bytes = 64;
				r[at].map_index = -1;
				r[at].begin_ns = (int64_t)r[at].seq * 10;
				r[at].end_ns = r[at].begin_ns + 5;
				want_sum += (long long)r[at].seq;
			}
			fwrite(&fr, sizeof(fr), 1, f);
			fwrite(r, sizeof(r), 1, f);
		}
	}
	put_frame(f, SPOOL_END, (int64_t)999, (int64_t)0);
	fclose(f);
	db = check_db_create(dbp);
	CHECK(db != NULL);
	if (!db)
		return;
	CHECK_INT(db_ingest_spool(db, sp, &res, &err), 0);
	CHECK_INT(res.records, CHUNKS * 2 * PER);
	db_close(db);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM data_op_raw"), CHUNKS * 2 * PER);
	CHECK_INT(scalar(dbp, "SELECT COUNT(DISTINCT seq) FROM data_op_raw"), CHUNKS * 2 * PER);
	CHECK(scalar(dbp, "SELECT SUM(seq) FROM data_op_raw") == want_sum);
	CHECK_INT(scalar(dbp, "SELECT COUNT(*) FROM data_op_raw WHERE begin_ns != seq * 10"), 0);
	unlink(sp);
	unlink(dbp);
	rmdir(dir);
}

int main(void)
{
	RUN(test_pack_unpack);
	RUN(test_ingest_interleaved);
	RUN(test_acc_frame);
	RUN(test_ingest);
	return check_done();
}
