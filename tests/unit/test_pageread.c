/*
 * test_pageread.c - a table's rows read from its pages (db/pages/pageread.c)
 * against SQLite's own reading of the same file: the same rows in the same
 * order, every value SQLite reads as an integer or NULL the same, every
 * other row handed back as PR_ODD; files and tables it must not read are
 * refused; a damaged page ends the reader (-1), never a crash.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "db/pages/pageread.h"

#define NCOLS 7

static const char *const cols[NCOLS] = { "id", "a", "b", "c", "d", "e", "f" };

static char path[64];

static sqlite3 *open_db(int page_size)
{
	sqlite3 *db = NULL;
	char sql[128];

	unlink(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA page_size = %d", page_size);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	return db;
}

static void exec(sqlite3 *db, const char *sql)
{
	char *msg = NULL;

	if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
		fprintf(stderr, "%s: %s\n", sql, msg);
		CHECK(0);
	}
	sqlite3_free(msg);
}

/*
 * Table t of n rows: every integer width and sign, 0 and 1, NULLs, rowids
 * with gaps and negative ones; every 97th row a real, every 101st text,
 * every 103rd a blob, every 499th a blob larger than a page (overflow);
 * rows deleted (freeblocks in the leaves); column f added after half the
 * rows (the first half's records hold six values).
 */
static void fill(sqlite3 *db, int n)
{
	static const int64_t vals[] = { 0, 1, -1, 2, 127, 128, -129, 32767, 32768, 8388607, 8388608,
					-8388609, 2147483647, 2147483648LL, 140737488355327LL,
					140737488355328LL, INT64_MAX, INT64_MIN, -140737488355329LL };
	size_t nv = sizeof(vals) / sizeof(vals[0]);
	sqlite3_stmt *st;
	char *big = calloc(1, 70000);

	exec(db, "CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER)");
	exec(db, "CREATE TABLE other (k INTEGER PRIMARY KEY, v)");
	exec(db, "BEGIN");
	for (int half = 0; half < 2; half++) {
		if (half)
			exec(db, "ALTER TABLE t ADD COLUMN f INTEGER");
		sqlite3_prepare_v2(db, half ? "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)"
					    : "INSERT INTO t VALUES (?1, ?2, ?3, ?4, ?5, ?6)", -1, &st, NULL);
		for (int i = half * n / 2; i < (half + 1) * n / 2; i++) {
			sqlite3_bind_int64(st, 1, (int64_t)i * 3 - n);
			for (int c = 2; c <= (half ? 7 : 6); c++) {
				int64_t v = vals[((size_t)i * (size_t)c + (size_t)c) % nv];
				if ((i + c) % 11 == 0)
					sqlite3_bind_null(st, c);
				else
					sqlite3_bind_int64(st, c, v);
			}
			if (i % 97 == 0)
				sqlite3_bind_double(st, 3, 1.5 + i);
			if (i % 101 == 0)
				sqlite3_bind_text(st, 4, "not a number", -1, SQLITE_STATIC);
			if (i % 103 == 0)
				sqlite3_bind_blob(st, 5, "\x01\x02", 2, SQLITE_STATIC);
			if (i % 499 == 0)
				sqlite3_bind_blob(st, 6, big, 70000, SQLITE_STATIC);
			CHECK(sqlite3_step(st) == SQLITE_DONE);
			sqlite3_reset(st);
			if (i % 13 == 0)
				exec(db, "INSERT INTO other (v) VALUES (randomblob(200))");
		}
		sqlite3_finalize(st);
	}
	exec(db, "DELETE FROM t WHERE id % 7 = 3");
	exec(db, "COMMIT");
	free(big);
}

/* Whether column i of st's row is what SQLite calls an integer or NULL. */
static int plain(sqlite3_stmt *st, int i)
{
	int t = sqlite3_column_type(st, i);
	return t == SQLITE_INTEGER || t == SQLITE_NULL;
}

/* Scan t with the reader beside SELECT * FROM t: the same rows.  The rows read (1), odd (PR_ODD). */
static void compare(sqlite3 *db, int *nread, int *nodd)
{
	sqlite3_stmt *hold, *st;
	struct pageread *r;
	const char *why = NULL;
	int rc;

	*nread = *nodd = 0;
	CHECK(sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master", -1, &hold, NULL) == SQLITE_OK);
	CHECK(sqlite3_step(hold) == SQLITE_ROW);
	r = pr_open(db, "t", cols, NCOLS, 0, &why);
	if (!r) {
		fprintf(stderr, "pr_open: %s\n", why);
		CHECK(0);
		sqlite3_finalize(hold);
		return;
	}
	CHECK(sqlite3_prepare_v2(db, "SELECT * FROM t ORDER BY id", -1, &st, NULL) == SQLITE_OK);
	for (;;) {
		int64_t id = 0, v[NCOLS];
		uint32_t nulls = 0;
		int want = sqlite3_step(st);
		rc = pr_next(r, &id, v, &nulls, &why);
		if (want != SQLITE_ROW) {
			CHECK_INT(rc, 0);
			break;
		}
		CHECK(rc == 1 || rc == PR_ODD);
		if (rc != 1 && rc != PR_ODD)
			break;
		CHECK_INT(id, sqlite3_column_int64(st, 0));
		if (rc == PR_ODD) {
			int any = 0;
			for (int i = 0; i < NCOLS; i++)
				any |= !plain(st, i) || sqlite3_column_bytes(st, i) > 1000;
			CHECK(any);
			(*nodd)++;
			continue;
		}
		(*nread)++;
		for (int i = 0; i < NCOLS; i++) {
			CHECK(plain(st, i));
			CHECK_INT(nulls >> i & 1, sqlite3_column_type(st, i) == SQLITE_NULL);
			CHECK_INT(v[i], sqlite3_column_int64(st, i));
		}
	}
	sqlite3_finalize(st);
	pr_close(r);
	sqlite3_finalize(hold);
}

static void test_same_rows(void)
{
	static const int sizes[] = { 512, 4096, 65536 };

	for (size_t k = 0; k < sizeof(sizes) / sizeof(sizes[0]); k++) {
		sqlite3 *db = open_db(sizes[k]);
		int nread, nodd;
		fill(db, 20000);
		/* As the report reads: inside its write transaction (another table written). */
		if (k == 1)
			exec(db, "BEGIN IMMEDIATE; INSERT INTO other (v) VALUES (1)");
		compare(db, &nread, &nodd);
		if (k == 1)
			exec(db, "ROLLBACK");
		/* 20000 less the deleted seventh; the odd: reals, text, blobs, overflow. */
		CHECK(nread > 16000);
		CHECK(nodd > 400 && nodd < 1000);
		sqlite3_close(db);
	}
	unlink(path);
}

/* pr_open() on table 'name' of db, under a read transaction: NULL when refused. */
static struct pageread *try_open(sqlite3 *db, const char *name, const char *const *c, int n, const char **why)
{
	sqlite3_stmt *hold;
	struct pageread *r;

	sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master", -1, &hold, NULL);
	CHECK(sqlite3_step(hold) == SQLITE_ROW);
	r = pr_open(db, name, c, n, 0, why);
	sqlite3_finalize(hold);
	return r;
}

static void test_refuses(void)
{
	static const char *const two[] = { "k", "v" };
	static const char *const wrong[] = { "k", "w" };
	sqlite3 *db = open_db(4096);
	const char *why = NULL;

	fill(db, 200);
	exec(db, "CREATE TABLE dflt (k INTEGER PRIMARY KEY, v INTEGER DEFAULT 5)");
	exec(db, "CREATE TABLE noipk (k INT PRIMARY KEY, v INTEGER)");
	exec(db, "CREATE TABLE wr (k INTEGER PRIMARY KEY, v INTEGER) WITHOUT ROWID");
	/* Not a rowid alias (SQLite makes an index for it); a REAL column reads integers back as reals. */
	exec(db, "CREATE TABLE pkdesc (k INTEGER PRIMARY KEY DESC, v INTEGER)");
	exec(db, "CREATE TABLE real (k INTEGER PRIMARY KEY, v REAL)");
	exec(db, "INSERT INTO wr VALUES (1, 2), (3, 4)");
	/* No read transaction. */
	CHECK(pr_open(db, "t", cols, NCOLS, 0, &why) == NULL);
	CHECK(why != NULL);
	/* A temporary database (its pages may be in memory only). */
	{
		sqlite3 *tmp = NULL;
		CHECK(sqlite3_open("", &tmp) == SQLITE_OK);
		exec(tmp, "CREATE TABLE t (id INTEGER PRIMARY KEY, a, b, c, d, e, f); BEGIN IMMEDIATE;"
			  " INSERT INTO t (a) VALUES (1)");
		why = NULL;
		CHECK(pr_open(tmp, "t", cols, NCOLS, 0, &why) == NULL);
		CHECK(why != NULL);
		sqlite3_close(tmp);
	}
	/* Columns other than the expected ones. */
	CHECK(try_open(db, "t", cols, NCOLS - 1, &why) == NULL);
	CHECK(try_open(db, "other", wrong, 2, &why) == NULL);
	CHECK(try_open(db, "dflt", two, 2, &why) == NULL);
	CHECK(try_open(db, "noipk", two, 2, &why) == NULL);
	CHECK(try_open(db, "missing", two, 2, &why) == NULL);
	CHECK(try_open(db, "pkdesc", two, 2, &why) == NULL);
	CHECK(try_open(db, "real", two, 2, &why) == NULL);
	CHECK(try_open(db, "wr", two, 2, &why) == NULL);
	/* A temporary table of the same name: what SQL without a schema reads. */
	exec(db, "CREATE TEMP TABLE small2 (k INTEGER PRIMARY KEY, v INTEGER)");
	exec(db, "CREATE TABLE small2 (k INTEGER PRIMARY KEY, v INTEGER)");
	CHECK(try_open(db, "small2", two, 2, &why) == NULL);
	exec(db, "DROP TABLE temp.small2");
	{
		struct pageread *r = try_open(db, "small2", two, 2, &why);
		CHECK(r != NULL);
		pr_close(r);
	}
	/* A WAL database: its newest pages may be in the WAL. */
	exec(db, "PRAGMA journal_mode = WAL");
	CHECK(try_open(db, "t", cols, NCOLS, &why) == NULL);
	sqlite3_close(db);
	unlink(path);
}

/*
 * Damaged pages: bytes of the file overwritten at random, 300 times; the
 * reader never reads out of its pages (ASan builds check), gives rowids in
 * order, and ends (0 or -1).
 */
static void test_damaged(void)
{
	sqlite3 *db = open_db(1024);
	unsigned seed = 12345;
	long size;
	int fd;
	unsigned char *orig;
	int gave_up = 0;

	fill(db, 3000);
	sqlite3_close(db);
	fd = open(path, O_RDWR);
	size = lseek(fd, 0, SEEK_END);
	orig = malloc((size_t)size);
	CHECK(pread(fd, orig, (size_t)size, 0) == size);
	for (int round = 0; round < 300; round++) {
		sqlite3_stmt *hold;
		struct pageread *r;
		const char *why;
		int64_t id, last = INT64_MIN, v[NCOLS];
		uint32_t nulls;
		int rc, n = 0;
		CHECK(pwrite(fd, orig, (size_t)size, 0) == size);
		for (int k = 0; k < 1 + round % 8; k++) {
			long at = 1024 + (long)(rand_r(&seed) % (unsigned)(size - 1024));
			unsigned char b = (unsigned char)rand_r(&seed);
			CHECK(pwrite(fd, &b, 1, at) == 1);
		}
		if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK) {
			sqlite3_close(db);
			continue;
		}
		if (sqlite3_prepare_v2(db, "SELECT 1 FROM sqlite_master", -1, &hold, NULL) == SQLITE_OK &&
		    sqlite3_step(hold) == SQLITE_ROW && (r = pr_open(db, "t", cols, NCOLS, 0, &why))) {
			while ((rc = pr_next(r, &id, v, &nulls, &why)) > 0 && n++ < 100000) {
				CHECK(id > last);
				last = id;
			}
			CHECK(rc == 0 || rc == -1);
			gave_up += rc == -1;
			pr_close(r);
		}
		sqlite3_finalize(hold);
		sqlite3_close(db);
	}
	/* Some of the damage was in the table's pages, and seen. */
	CHECK(gave_up > 10);
	free(orig);
	close(fd);
	unlink(path);
}

int main(void)
{
	snprintf(path, sizeof(path), "/tmp/mapprof-test-pageread-%d.db", (int)getpid());
	RUN(test_same_rows);
	RUN(test_refuses);
	RUN(test_damaged);
	return check_done();
}
