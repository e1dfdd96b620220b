/*
 * test_pagewrite.c - table b-trees written page by page (db/pages/pagewrite.c)
 * read back by SQLite: the same rows as SQLite's own inserts, and its
 * integrity check finds nothing, whatever the depth of the tree.
 */
#include <fcntl.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "db/pages/pagewrite.h"

#define NCOLS 6

static const char schema[] =
	"CREATE TABLE t (id INTEGER PRIMARY KEY, a INTEGER, b INTEGER, c INTEGER, d INTEGER, e INTEGER);"
	"CREATE TABLE u (k INTEGER PRIMARY KEY, v INTEGER);"
	"CREATE TABLE empty (k INTEGER PRIMARY KEY, v INTEGER);"
	"CREATE TABLE small (k INTEGER PRIMARY KEY, v INTEGER);";

/* Row i of t: every integer width, signs, 0 and 1, NULLs; rowids with gaps. */
static void row(uint64_t i, int64_t *rowid, int64_t v[NCOLS], uint32_t *present)
{
	static const int64_t vals[] = { 0, 1, -1, 2, 127, 128, -129, 32767, 32768, 8388607, 8388608,
					2147483647, 2147483648LL, 140737488355327LL, 140737488355328LL,
					INT64_MAX, INT64_MIN, -140737488355329LL };
	size_t nv = sizeof(vals) / sizeof(vals[0]);

	*rowid = (int64_t)(i * 3 + (i & 1)) - 1000;   /* negative rowids first */
	v[0] = *rowid;
	for (int c = 1; c < NCOLS; c++)
		v[c] = vals[(i * (uint64_t)c + (uint64_t)c) % nv] ^ (int64_t)(c == 3 ? i : 0);
	*present = 0x3f & ~(i % 5 == 0 ? 1u << 4 : 0) & ~(i % 7 == 0 ? 1u << 5 : 0);
}

static sqlite3 *open_db(const char *path, int page_size)
{
	sqlite3 *db = NULL;
	char sql[128];

	unlink(path);
	CHECK(sqlite3_open(path, &db) == SQLITE_OK);
	snprintf(sql, sizeof(sql), "PRAGMA page_size = %d", page_size);
	CHECK(sqlite3_exec(db, sql, NULL, NULL, NULL) == SQLITE_OK);
	CHECK(sqlite3_exec(db, schema, NULL, NULL, NULL) == SQLITE_OK);
	return db;
}

static int64_t root_of(sqlite3 *db, const char *name)
{
	sqlite3_stmt *st;
	int64_t r = 0;

	sqlite3_prepare_v2(db, "SELECT rootpage FROM sqlite_schema WHERE name = ?", -1, &st, NULL);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	if (sqlite3_step(st) == SQLITE_ROW)
		r = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return r;
}

/* One text of every row of every table, to compare two databases. */
static char *dump(sqlite3 *db)
{
	static const char *const q[] = {
		"SELECT id, a, b, c, d, e, typeof(d), typeof(e) FROM t ORDER BY rowid",
		"SELECT k, v FROM u ORDER BY rowid", "SELECT k, v FROM empty", "SELECT k, v FROM small",
	};
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	for (size_t i = 0; i < sizeof(q) / sizeof(q[0]); i++) {
		sqlite3_stmt *st;
		sqlite3_prepare_v2(db, q[i], -1, &st, NULL);
		while (sqlite3_step(st) == SQLITE_ROW) {
			for (int c = 0; c < sqlite3_column_count(st); c++)
				fprintf(f, "%s|", (const char *)sqlite3_column_text(st, c) ?
					(const char *)sqlite3_column_text(st, c) : "NULL");
			fputc('\n', f);
		}
		sqlite3_finalize(st);
		fputc('#', f);
	}
	fclose(f);
	return out;
}

static char *scalar_text(sqlite3 *db, const char *sql)
{
	sqlite3_stmt *st;
	char *s = NULL;

	sqlite3_prepare_v2(db, sql, -1, &st, NULL);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0))
		s = strdup((const char *)sqlite3_column_text(st, 0));
	sqlite3_finalize(st);
	return s;
}

/* n rows into t (and 2n into u) by SQLite and by the writer, at this page size. */
static void same_rows(int page_size, uint64_t n)
{
	const char *ref = "pw_ref.db", *out = "pw_out.db";
	sqlite3 *a = open_db(ref, page_size), *b = open_db(out, page_size);
	uint32_t roots[4] = { (uint32_t)root_of(b, "t"), (uint32_t)root_of(b, "u"), (uint32_t)root_of(b, "empty"),
			      (uint32_t)root_of(b, "small") };
	sqlite3_stmt *ins, *ins_u;
	unsigned char hdr[100];
	struct pw_header h;
	const char *why = NULL;
	struct pagewriter *w;
	struct pw_table *t, *u, *e, *s;
	uint32_t pages = 0;
	int fd;

	sqlite3_exec(a, "BEGIN", NULL, NULL, NULL);
	sqlite3_prepare_v2(a, "INSERT INTO t VALUES (?,?,?,?,?,?)", -1, &ins, NULL);
	sqlite3_prepare_v2(a, "INSERT INTO u VALUES (?,?)", -1, &ins_u, NULL);
	for (uint64_t i = 0; i < n; i++) {
		int64_t rowid, v[NCOLS];
		uint32_t present;
		row(i, &rowid, v, &present);
		for (int c = 0; c < NCOLS; c++) {
			if (present >> c & 1)
				sqlite3_bind_int64(ins, c + 1, v[c]);
			else
				sqlite3_bind_null(ins, c + 1);
		}
		CHECK(sqlite3_step(ins) == SQLITE_DONE);
		sqlite3_reset(ins);
		for (int k = 0; k < 2; k++) {
			sqlite3_bind_int64(ins_u, 1, (int64_t)(2 * i + (uint64_t)k));
			sqlite3_bind_int64(ins_u, 2, (int64_t)i);
			CHECK(sqlite3_step(ins_u) == SQLITE_DONE);
			sqlite3_reset(ins_u);
		}
	}
	sqlite3_exec(a, "INSERT INTO small VALUES (7, 1)", NULL, NULL, NULL);
	sqlite3_finalize(ins);
	sqlite3_finalize(ins_u);
	CHECK(sqlite3_exec(a, "COMMIT", NULL, NULL, NULL) == SQLITE_OK);

	/* The writer on b's file, b left open and idle: its cache must be dropped by the new counter. */
	CHECK(sqlite3_exec(b, "SELECT COUNT(*) FROM t", NULL, NULL, NULL) == SQLITE_OK);
	fd = open(out, O_RDWR);
	CHECK(fd >= 0);
	CHECK(pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr));
	CHECK_INT(pw_check_header(hdr, &h, &why), 0);
	CHECK_INT(h.page_size, page_size);
	w = pw_new(fd, &h);
	CHECK(w != NULL);
	t = pw_table_new(w, roots[0], NCOLS, 0);
	u = pw_table_new(w, roots[1], 2, 0);
	e = pw_table_new(w, roots[2], 2, 0);
	s = pw_table_new(w, roots[3], 2, 0);
	CHECK(t && u && e && s);
	CHECK(pw_table_new(w, 1, 2, 0) == NULL);   /* page 1 is never a table's to rewrite */
	for (uint64_t i = 0; i < n; i++) {
		int64_t rowid, v[NCOLS], uv[2];
		uint32_t present;
		row(i, &rowid, v, &present);
		CHECK_INT(pw_append(t, rowid, v, present), 0);
		for (int k = 0; k < 2; k++) {
			uv[0] = (int64_t)(2 * i + (uint64_t)k);
			uv[1] = (int64_t)i;
			CHECK_INT(pw_append(u, uv[0], uv, 3), 0);
		}
		/* Not above the last rowid: refused, left to the caller. */
		if (i == n / 2)
			CHECK_INT(pw_append(t, rowid, v, present), 1);
	}
	{
		int64_t sv[2] = { 7, 1 };
		CHECK_INT(pw_append(s, 7, sv, 3), 0);
	}
	CHECK_INT(pw_rows(t), n);
	CHECK_INT(pw_finish(w, &pages), 0);
	pw_free(w);
	close(fd);
	CHECK((int64_t)pages >= root_of(b, "small"));

	char *da = dump(a), *db_ = dump(b), *ok = scalar_text(b, "PRAGMA integrity_check");
	CHECK(da && db_ && strcmp(da, db_) == 0);
	CHECK_STR(ok, "ok");
	free(ok);
	ok = scalar_text(b, "PRAGMA quick_check");
	CHECK_STR(ok, "ok");
	free(ok);
	/* SQLite writes on after it: rows in the middle, a new table. */
	CHECK(sqlite3_exec(b, "INSERT INTO u VALUES (-5, 0); DELETE FROM t WHERE rowid % 3 = 0;"
			   " CREATE TABLE later (x); INSERT INTO later VALUES (zeroblob(10000))",
			   NULL, NULL, NULL) == SQLITE_OK);
	ok = scalar_text(b, "PRAGMA integrity_check");
	CHECK_STR(ok, "ok");
	free(ok);
	free(da);
	free(db_);
	sqlite3_close(a);
	sqlite3_close(b);
	unlink(ref);
	unlink(out);
}

static void test_one_leaf(void) { same_rows(4096, 10); }
static void test_two_levels(void) { same_rows(4096, 3000); }
static void test_deep_tree(void) { same_rows(512, 40000); }

/* pw_table_times(): b and c written as they come, turned into a*3+1 and b-a at pw_finish(). */
static void times_fn(void *ctx, int64_t *a, int64_t *b)
{
	int64_t x = *a, y = *b;

	__atomic_fetch_add((int *)ctx, 1, __ATOMIC_RELAXED);   /* pw_set_threads(): from several threads */
	*a = x * 3 + 1;
	*b = (int64_t)((uint64_t)y - (uint64_t)x);
}

static void times_rows(int page_size, uint64_t n, int threads)
{
	const char *out = "pw_times.db";
	sqlite3 *b = open_db(out, page_size);
	uint32_t rt = (uint32_t)root_of(b, "t"), ru = (uint32_t)root_of(b, "u");
	unsigned char hdr[100];
	struct pw_header h;
	const char *why = NULL;
	struct pagewriter *w;
	struct pw_table *t, *u;
	uint32_t pages = 0;
	int calls = 0, fd = open(out, O_RDWR);
	sqlite3_stmt *st;
	uint64_t seen = 0;

	CHECK(fd >= 0);
	CHECK(pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr));
	CHECK_INT(pw_check_header(hdr, &h, &why), 0);
	w = pw_new(fd, &h);
	CHECK(w != NULL);
	t = pw_table_new(w, rt, NCOLS, 0);
	u = pw_table_new(w, ru, 2, 0);
	CHECK(t && u);
	pw_table_times(t, 2);
	pw_set_times(w, times_fn, &calls);
	pw_set_threads(w, threads);
	for (uint64_t i = 0; i < n; i++) {
		/* b and c of every width (small values too: the 8-byte fields hold them). */
		int64_t v[NCOLS] = { 0, (int64_t)i, (int64_t)(i * 7) - 50, (int64_t)(i * 7 + (i % 5) * 1000003) - 50,
				     -(int64_t)i, INT64_MIN + (int64_t)i };
		int64_t uv[2] = { (int64_t)i, (int64_t)i * 2 };
		CHECK_INT(pw_append(t, (int64_t)i + 1, v, 0x3f), 0);
		CHECK_INT(pw_append(u, (int64_t)i + 1, uv, 3), 0);   /* leaves of a table without times, between */
	}
	CHECK_INT(pw_finish(w, &pages), 0);
	pw_free(w);
	close(fd);
	CHECK_INT(calls, n);
	CHECK(sqlite3_prepare_v2(b, "SELECT id, a, b, c, d, e FROM t ORDER BY id", -1, &st, NULL) == SQLITE_OK);
	while (sqlite3_step(st) == SQLITE_ROW) {
		int64_t i = sqlite3_column_int64(st, 1), x = i * 7 - 50, y = i * 7 + (i % 5) * 1000003 - 50;
		CHECK_INT(sqlite3_column_int64(st, 0), i + 1);
		CHECK_INT(sqlite3_column_int64(st, 2), x * 3 + 1);
		CHECK_INT(sqlite3_column_int64(st, 3), y - x);
		CHECK_INT(sqlite3_column_int64(st, 4), -i);
		CHECK_INT(sqlite3_column_int64(st, 5), INT64_MIN + i);
		seen++;
	}
	sqlite3_finalize(st);
	CHECK_INT(seen, n);
	char *ok = scalar_text(b, "PRAGMA integrity_check");
	CHECK_STR(ok, "ok");
	free(ok);
	ok = scalar_text(b, "SELECT SUM(v) = (SUM(k) - COUNT(*)) * 2 FROM u");
	CHECK_STR(ok, "1");
	free(ok);
	sqlite3_close(b);
	unlink(out);
}

static void test_times_one_leaf(void) { times_rows(4096, 20, 0); }
static void test_times_many_leaves(void) { times_rows(1024, 20000, 0); }
/* Shares of ~3,700 pages on 3 threads (not a multiple of 3); 4 on one leaf, its root: one does it all. */
static void test_times_threads(void) { times_rows(512, 100000, 3); times_rows(4096, 20, 4); }

static void test_header_refused(void)
{
	sqlite3 *db = open_db("pw_wal.db", 4096);
	unsigned char hdr[100];
	struct pw_header h;
	const char *why = NULL;
	int fd;

	sqlite3_exec(db, "PRAGMA journal_mode = WAL; INSERT INTO u VALUES (1, 1)", NULL, NULL, NULL);
	fd = open("pw_wal.db", O_RDONLY);
	CHECK(pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr));
	close(fd);
	CHECK_INT(pw_check_header(hdr, &h, &why), -1);
	CHECK_STR(why, "not in rollback-journal mode");
	sqlite3_close(db);
	unlink("pw_wal.db");
}

static uint32_t be32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/*
 * A text column (no INTEGER PRIMARY KEY: column 0 an ordinary integer)
 * written into the pages of the file's first freelist trunk, then after
 * the end: the same rows and the same record bytes as SQLite's, the
 * freelist as pw_set_freelist() gave it, nothing for the integrity check.
 */
static void test_text_into_free_pages(void)
{
	static const char *const names[] = { "transfer", "send", "return", "alloc", "delete" };
	static const char sch[] = "CREATE TABLE r (a INTEGER, role TEXT, b INTEGER); CREATE TABLE junk (x);"
				  "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100)"
				  " INSERT INTO junk SELECT zeroblob(900) FROM n; DELETE FROM junk;";
	const char *paths[2] = { "pw_text_ref.db", "pw_text.db" };
	sqlite3 *d[2];
	unsigned char hdr[100], *trunk = malloc(4096);
	uint32_t free_pg[1100], nfree = 0, count, next, pages;
	struct pw_header h;
	struct pw_table *t;
	struct pagewriter *w;
	const char *why;
	sqlite3_stmt *ins;
	char *a, *b;
	int fd;
	enum { N = 20000 };

	for (int k = 0; k < 2; k++) {
		unlink(paths[k]);
		CHECK(sqlite3_open(paths[k], &d[k]) == SQLITE_OK);
		CHECK(sqlite3_exec(d[k], sch, NULL, NULL, NULL) == SQLITE_OK);
	}
	sqlite3_exec(d[0], "BEGIN", NULL, NULL, NULL);
	sqlite3_prepare_v2(d[0], "INSERT INTO r VALUES (?, ?, ?)", -1, &ins, NULL);
	for (int i = 0; i < N; i++) {
		sqlite3_bind_int64(ins, 1, i % 300);
		sqlite3_bind_text(ins, 2, names[i % 5], -1, SQLITE_STATIC);
		sqlite3_bind_int64(ins, 3, (int64_t)i * 977);
		CHECK(sqlite3_step(ins) == SQLITE_DONE);
		sqlite3_reset(ins);
	}
	sqlite3_finalize(ins);
	CHECK(sqlite3_exec(d[0], "COMMIT", NULL, NULL, NULL) == SQLITE_OK);

	fd = open(paths[1], O_RDWR);
	CHECK(fd >= 0 && trunk);
	CHECK(pread(fd, hdr, sizeof(hdr), 0) == (ssize_t)sizeof(hdr));
	CHECK_INT(pw_check_header(hdr, &h, &why), 0);
	count = be32(hdr + 36);
	CHECK(be32(hdr + 32) != 0 && count > 10);
	CHECK(pread(fd, trunk, 4096, (off_t)(be32(hdr + 32) - 1) * 4096) == 4096);
	for (uint32_t i = 0; i < be32(trunk + 4) && nfree < 1000; i++)
		free_pg[nfree++] = be32(trunk + 8 + 4 * i);
	free_pg[nfree++] = be32(hdr + 32);
	next = be32(trunk);
	w = pw_new(fd, &h);
	t = w ? pw_table_new(w, (uint32_t)root_of(d[1], "r"), 3, -1) : NULL;
	CHECK(t != NULL);
	CHECK_INT(pw_table_text(t, 1, names, 5), 0);
	CHECK_INT(pw_table_text(t, 5, names, 5), -1);
	pw_set_free_pages(w, free_pg, nfree);
	for (int i = 0; i < N; i++) {
		int64_t v[3] = { i % 300, i % 5, (int64_t)i * 977 };
		CHECK_INT(pw_append(t, i + 1, v, 7), 0);
	}
	CHECK_INT(pw_finish_trees(w), 0);
	/* More rows than one trunk's pages: all of them filled, the rest after the end. */
	CHECK_INT(pw_free_used(w), nfree);
	pw_set_freelist(w, next, count - nfree);
	CHECK_INT(pw_finish(w, &pages), 0);
	CHECK((uint64_t)pages > h.pages);
	pw_free(w);
	close(fd);

	static const char q[] = "SELECT group_concat(a || typeof(a) || role || typeof(role) || b, ',') FROM r;";
	a = scalar_text(d[0], q);
	b = scalar_text(d[1], q);
	CHECK(a && b && strcmp(a, b) == 0);
	free(a);
	free(b);
	a = scalar_text(d[0], "SELECT SUM(payload) FROM dbstat WHERE name = 'r'");
	b = scalar_text(d[1], "SELECT SUM(payload) FROM dbstat WHERE name = 'r'");
	CHECK(a && b && strcmp(a, b) == 0);   /* each record as SQLite writes it */
	free(a);
	free(b);
	b = scalar_text(d[1], "PRAGMA integrity_check");
	CHECK_STR(b, "ok");
	free(b);
	CHECK_INT(atoi(b = scalar_text(d[1], "PRAGMA freelist_count")), count - nfree);
	free(b);
	free(trunk);
	for (int k = 0; k < 2; k++) {
		sqlite3_close(d[k]);
		unlink(paths[k]);
	}
}

int main(void)
{
	char dir[] = "/tmp/test_pagewrite.XXXXXX";

	if (!mkdtemp(dir) || chdir(dir) < 0)
		return 1;
	RUN(test_one_leaf);
	RUN(test_two_levels);
	RUN(test_deep_tree);
	RUN(test_times_one_leaf);
	RUN(test_times_many_leaves);
	RUN(test_times_threads);
	RUN(test_header_refused);
	RUN(test_text_into_free_pages);
	if (chdir("/") == 0)
		rmdir(dir);
	return check_done();
}
