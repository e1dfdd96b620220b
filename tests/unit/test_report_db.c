/*
 * test_report_db.c - the report stage on databases built row by row: the
 * event stream's order (seq mode, and the fall-back to SQLite's sort when
 * threads reorder more than the window), findings stored idempotently, and
 * the JSON document's shape; nested transactions and db_open refusing an unfinished run.
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "tests/unit/check_db.h"
#include "db/db.h"
#include "db/read/events.h"
#include "db/store/locations.h"
#include "db/read/timeline_rows.h"
#include "report/findings/findings_store.h"
#include "report/output/json.h"
#include "report/report.h"

static char path[64];

static struct db *fresh(void)
{
	snprintf(path, sizeof(path), "/tmp/mapprof-test-report-%d.db", (int)getpid());
	return check_db_create(path);
}

/* The round_trip sample's first two loop iterations plus b's tofrom. */
static const char run_sql[] =
	"INSERT INTO run_raw (id, command, end_ns, runtime, host_device, status, exit_status)"
	"  VALUES (1, '[\"./app\",\"-n\",\"2\"]', 1000, 'test runtime', 4, 'complete', 0);"
	"INSERT INTO device_raw (num, type) VALUES (0, 'x86_64');"
	"INSERT INTO module_raw (id, path, base, low, high) VALUES (1, '/src/app', 4096, 4096, 65536);"
	"INSERT INTO target_raw (id, seq, kind, device, begin_ns, dur_ns, codeptr) VALUES"
	"  (1, 1, 1, 0, 0, 300, 4660), (2, 20, 1, 0, 400, 300, 4660);"
	/* seq kind src dst src_addr dst_addr bytes begin dur hash codeptr */
	"INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes,"
	"  begin_ns, dur_ns, hash, codeptr, target_id) VALUES"
	"  (2, 1, 1, 4, 0, 9000, 70000, 64, 10, 5, NULL, 4660, 1),"     /* alloc a */
	"  (3, 1, 2, 4, 0, 9000, 70000, 64, 20, 10, 11, 4660, 1),"      /* to a: v11 */
	"  (5, 1, 3, 0, 4, 70000, 9000, 64, 200, 10, 12, 4660, 1),"     /* from a: v12 */
	"  (6, 1, 4, 0, -1, 70000, NULL, 0, 250, 5, NULL, 4660, 1),"    /* delete a */
	"  (21, 1, 1, 4, 0, 9000, 80000, 64, 410, 5, NULL, 4660, 2),"   /* alloc a again */
	"  (22, 1, 2, 4, 0, 9000, 80000, 64, 420, 10, 12, 4660, 2),"    /* to a: v12 back */
	"  (24, 1, 3, 0, 4, 80000, 9000, 64, 600, 10, 13, 4660, 2),"
	"  (25, 1, 4, 0, -1, 80000, NULL, 0, 650, 5, NULL, 4660, 2);"
	"INSERT INTO kernel_raw (seq, thread, target_id, device, begin_ns, dur_ns) VALUES"
	"  (4, 1, 1, 0, 100, 50), (23, 1, 2, 0, 500, 50);"
	"INSERT INTO delete_pair_raw VALUES (6, 2), (25, 21);";

static void test_stream_order_and_pairs(void)
{
	struct db *db = fresh();
	struct event_stream *s;
	struct event ev;
	char *err = NULL;
	int64_t seqs[16];
	int n = 0;

	check_exec(db, run_sql);
	s = event_stream_open(db, EVENTS_BY_SEQ, NULL, &err);
	CHECK(s != NULL);
	while (s && n < 16 && event_stream_next(s, &ev, &err) == 1) {
		if (ev.kind == EV_DELETE && ev.seq == 25) {
			CHECK_INT(ev.alloc_seq, 21);
			CHECK_INT(ev.bytes, 64);
			CHECK_INT(ev.host_addr, 9000);
		}
		if (ev.kind == EV_KERNEL)
			CHECK_INT(ev.codeptr, 4660);
		if (ev.seq == 3) {
			CHECK(ev.has_hash);
			CHECK_INT(ev.hash, 11);
		}
		seqs[n++] = ev.seq;
	}
	event_stream_close(s);
	CHECK_INT(n, 10);
	CHECK_INT(seqs[0], 2);
	CHECK_INT(seqs[3], 5);
	CHECK_INT(seqs[9], 25);
	db_close(db);
	unlink(path);
}

static void test_analysis_store_idempotent(void)
{
	struct db *db = fresh();
	struct analysis a;
	char *err = NULL;
	json_t *doc;

	check_exec(db, run_sql);
	CHECK_INT(analysis_run(db, &a, &err), 0);
	CHECK_INT(a.sorted, 0);
	CHECK_INT(a.duration_ns, 1000);
	CHECK_INT(a.findings.kinds[FINDING_ROUND_TRIP].occurrences, 1);
	CHECK_INT(a.findings.kinds[FINDING_REPEATED_ALLOC].occurrences, 1);
	CHECK_INT(a.findings.kinds[FINDING_DUPLICATE_TRANSFER].occurrences, 0);
	CHECK_INT(findings_store(db, &a.findings, NULL, NULL, &err), 0);
	CHECK_INT(findings_store(db, &a.findings, NULL, NULL, &err), 0);   /* again: replaced */

	doc = report_json(&a);
	json_t *run = json_object_get(doc, "run");
	json_t *kinds = json_object_get(json_object_get(doc, "summary"), "kinds");
	json_t *first = json_array_get(json_object_get(doc, "findings"), 0);
	json_t *loc = json_array_get(json_object_get(first, "locations"), 0);
	CHECK_STR(json_string_value(json_object_get(doc, "format")), "mapprof-report");
	CHECK_INT(json_integer_value(json_object_get(doc, "version")), 1);
	CHECK_STR(json_string_value(json_array_get(json_object_get(run, "command"), 1)), "-n");
	CHECK_INT(json_array_size(json_object_get(doc, "findings")), 2);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(kinds, "round_trip"),
						     "occurrences")), 1);
	CHECK_STR(json_string_value(json_object_get(loc, "module")), "app");
	CHECK_STR(json_string_value(json_object_get(loc, "offset")), "0x234");
	json_decref(doc);
	analysis_release(&a);

	/* What SQL users see (the CASE fails the statement, by overflow, if not). */
	check_exec(db, "CREATE TEMP TABLE c AS SELECT (SELECT COUNT(*) FROM findings) AS f,"
		 " (SELECT COUNT(*) FROM finding_events) AS e,"
		 " (SELECT COUNT(*) FROM finding_summary) AS s,"
		 " (SELECT role FROM finding_events WHERE seq = 5) AS r;"
		 "SELECT CASE WHEN (SELECT f = 2 AND e = 4 AND s = 6 AND r = 'send' FROM c)"
		 " THEN 1 ELSE abs(-9223372036854775807 - 1) END;");
	db_close(db);
	unlink(path);
}

/*
 * 20000 data operations in seq order, then one with a higher seq that began
 * before all of them (a thread that stamped its time late): more than the
 * window can reorder, so the analysis falls back to the sorted query, and
 * still sees the late one first.
 */
static void test_fallback_to_sorted(void)
{
	struct db *db = fresh();
	struct analysis a;
	char *err = NULL;

	check_exec(db, "INSERT INTO run_raw (id, end_ns, host_device) VALUES (1, 1000000, 4);"
		 "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)"
		 " INSERT INTO data_op_raw (seq, kind, src_dev, dst_dev, src_addr, dst_addr, bytes,"
		 "  begin_ns, dur_ns, hash) SELECT i, 2, 4, 0, 4096, 8192, 8, 10 + i * 10, 5, 7 FROM n;"
		 "INSERT INTO data_op_raw (seq, kind, src_dev, dst_dev, src_addr, dst_addr, bytes,"
		 "  begin_ns, dur_ns, hash) VALUES (30000, 2, 4, 0, 4096, 8192, 8, 1, 5, 7);");
	CHECK_INT(analysis_run(db, &a, &err), 0);
	CHECK_INT(a.sorted, 1);
	CHECK_INT(a.totals.events, 20001);
	CHECK_INT(a.findings.kinds[FINDING_DUPLICATE_TRANSFER].occurrences, 20000);
	CHECK_INT(a.findings.n > 0 ? a.findings.v[0].first_seq : 0, 1);
	/* All but the last transfer are overwritten before a kernel; the last after none. */
	CHECK_INT(a.findings.kinds[FINDING_UNUSED_TRANSFER].occurrences, 20001);
	/*
	 * 40001 finding events, stored in one pass over the operations in
	 * time order (findings_store: the bounded report, issue 27): rows in
	 * begin order, every finding's operations once, the last row the
	 * transfer after the last kernel (seq 20000).
	 */
	CHECK_INT(findings_store(db, &a.findings, NULL, NULL, &err), 0);
	check_exec(db, "CREATE TEMP TABLE e AS SELECT r.rowid AS id, r.finding, r.seq, d.begin_ns"
		 " FROM finding_event_raw r JOIN data_op_raw d ON d.seq = r.seq;"
		 "SELECT CASE WHEN (SELECT COUNT(*) FROM e) = 40001"
		 " AND (SELECT COUNT(*) FROM (SELECT DISTINCT finding, seq FROM e)) = 40001"
		 " AND (SELECT COUNT(*) FROM e x JOIN e y ON y.id = x.id + 1 WHERE y.begin_ns < x.begin_ns) = 0"
		 " AND (SELECT seq = 20000 FROM e ORDER BY id DESC LIMIT 1)"
		 " THEN 1 ELSE abs(-9223372036854775807 - 1) END;");
	analysis_release(&a);
	db_close(db);
	unlink(path);
}

static void test_empty_run(void)
{
	struct db *db = fresh();
	struct analysis a;
	char *err = NULL;

	CHECK_INT(analysis_run(db, &a, &err), 0);
	CHECK_INT(a.totals.events, 0);
	CHECK_INT(a.findings.n, 0);
	CHECK_INT(a.duration_ns, 0);
	CHECK_INT(findings_store(db, &a.findings, NULL, NULL, &err), 0);
	analysis_release(&a);
	db_close(db);
	unlink(path);
}

/* Fails the test unless the SQL condition holds (abs() of the least integer is an error). */
static void check_sql_true(struct db *db, const char *cond)
{
	char sql[512];
	snprintf(sql, sizeof(sql), "SELECT CASE WHEN %s THEN 1 ELSE abs(-9223372036854775807 - 1) END", cond);
	check_exec(db, sql);
}

/*
 * db_begin/db_commit nest as savepoints inside the write transaction
 * db_open(DB_OPEN_WRITE) holds: an inner rollback undoes only its part, the
 * outer commit keeps the rest; db_open refuses a run still 'recording'.
 */
static void test_nested_transactions(void)
{
	struct db *db = fresh();
	enum db_problem problem;
	char *err = NULL;

	check_exec(db, run_sql);
	db_close(db);
	db = db_open(path, DB_OPEN_WRITE, &problem, &err);
	CHECK(db != NULL);
	CHECK_INT(problem, DB_OK);
	if (!db) {
		fprintf(stderr, "%s\n", err);
		free(err);
		return;
	}
	CHECK(db_copied(db) == NULL);
	check_exec(db, "INSERT INTO env_raw VALUES ('outer', '1')");
	CHECK_INT(db_begin(db), 0);
	check_exec(db, "INSERT INTO env_raw VALUES ('inner', '1')");
	db_rollback(db);
	CHECK_INT(db_begin(db), 0);
	check_exec(db, "INSERT INTO env_raw VALUES ('kept', '1')");
	CHECK_INT(db_commit(db), 0);
	CHECK_INT(db_commit(db), 0);
	db_close(db);
	db = db_open(path, 0, &problem, &err);
	CHECK(db != NULL);
	if (db) {
		check_sql_true(db, "(SELECT group_concat(name) FROM env_raw) = 'outer,kept'");
		db_close(db);
	}
	db = db_open(path, DB_OPEN_WRITE, &problem, &err);
	CHECK(db != NULL);
	if (db) {
		check_exec(db, "UPDATE run_raw SET status = 'recording'");
		CHECK_INT(db_commit(db), 0);
		db_close(db);
	}

	/* Refused: still 'recording'. */
	CHECK(db_open(path, 0, &problem, &err) == NULL);
	CHECK_INT(problem, DB_UNFINISHED);
	free(err);
	err = NULL;

	unlink(path);
}

/* The end of the interval of 'want_seq' (a kernel or a data operation), from timeline_rows_each(). */
struct end_of {
	int64_t seq, end_ns;
	enum lane lane;
};

static int keep_end(void *arg, const struct iv *x)
{
	struct end_of *e = arg;
	if (x->seq == e->seq && x->lane == e->lane)
		e->end_ns = x->end_ns;
	return 0;
}

/* What SQLite answers 'sql' (one integer) on the test's database, through a connection of its own. */
static int64_t view_end(const char *sql)
{
	sqlite3 *c = NULL;
	sqlite3_stmt *st = NULL;
	int64_t v = -1;

	if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
	    sqlite3_prepare_v2(c, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	sqlite3_close(c);
	return v;
}

/*
 * A kernel's code pointer is its construct's, as the LEFT JOIN of
 * target_raw on target_id gives it, whatever order the target ids come in
 * (the stream reads target_raw beside kernel_raw and asks SQLite for the
 * ones behind it): rising, falling, missing, NULL, and the values
 * target_id's affinity leaves as text or reals, from the pages and from
 * SQLite (MAPPROF_PAGEREAD=0).
 */
static void test_kernel_code_pointers(void)
{
	struct db *db = fresh();
	int64_t want[400], got[400];
	int nwant = 0;

	check_exec(db, run_sql);
	check_exec(db, "CREATE TEMP TABLE n AS WITH RECURSIVE n(i) AS (SELECT 3 UNION ALL SELECT i + 1 FROM n"
		       " WHERE i < 60) SELECT i FROM n;"
		       "INSERT INTO target_raw (id, seq, kind, device, begin_ns, dur_ns, codeptr)"
		       " SELECT i, NULL, 1, 0, 700, 1, CASE WHEN i % 11 = 0 THEN NULL ELSE 8192 + i END FROM n"
		       " WHERE i % 13 <> 0;"
		       "INSERT INTO kernel_raw (seq, thread, target_id, device, begin_ns, dur_ns)"
		       " SELECT 100 + i, 1, (i * 7) % 70, 0, 800 + i, 1 FROM n UNION ALL"
		       " SELECT 200 + i, 1, 70 - i, 0, 900 + i, 1 FROM n;"
		       "INSERT INTO kernel_raw (seq, thread, target_id, device, begin_ns, dur_ns) VALUES"
		       " (300, 1, NULL, 0, 1000, 1), (301, 1, '5', 0, 1001, 1), (302, 1, 'x', 0, 1002, 1),"
		       " (303, 1, 6.0, 0, 1003, 1), (304, 1, 6.5, 0, 1004, 1), (305, 1, 2, 0, 1005, 1);");
	db_close(db);
	{
		sqlite3 *c = NULL;
		sqlite3_stmt *st = NULL;
		if (sqlite3_open_v2(path, &c, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
		    sqlite3_prepare_v2(c, "SELECT t.codeptr FROM kernel_raw k LEFT JOIN target_raw t"
				       " ON t.id = k.target_id ORDER BY k.seq", -1, &st, NULL) == SQLITE_OK)
			while (nwant < 400 && sqlite3_step(st) == SQLITE_ROW)
				want[nwant++] = sqlite3_column_int64(st, 0);
		sqlite3_finalize(st);
		sqlite3_close(c);
	}
	CHECK(nwant > 100);
	for (int pass = 0; pass < 2; pass++) {
		enum db_problem problem;
		struct event_stream *s;
		struct event ev;
		char *err = NULL;
		int n = 0;

		if (pass)
			setenv("MAPPROF_PAGEREAD", "0", 1);
		db = db_open(path, 0, &problem, &err);
		CHECK(db != NULL);
		if (!db)
			break;
		s = event_stream_open(db, EVENTS_BY_SEQ, NULL, &err);
		CHECK(s != NULL);
		while (s && event_stream_next(s, &ev, &err) == 1)
			if (ev.kind == EV_KERNEL && n < 400)
				got[n++] = (int64_t)ev.codeptr;
		CHECK(err == NULL);
		event_stream_close(s);
		db_close(db);
		free(err);
		CHECK_INT(n, nwant);
		for (int i = 0; i < n && i < nwant; i++)
			if (got[i] != want[i]) {
				fprintf(stderr, "kernel %d: code pointer %lld, the join's %lld (pass %d)\n", i,
					(long long)got[i], (long long)want[i], pass);
				CHECK(got[i] == want[i]);
				break;
			}
	}
	unsetenv("MAPPROF_PAGEREAD");
	unlink(path);
}

/*
 * The attribution's code pointers (db/store/locations.h): target_raw's rows are
 * given to the keys by the stream, which reads them beside the kernels,
 * every row once however the kernels jump (so op_keys_rows() reads no
 * table): the same code pointers and kinds as SQLite's reading of both
 * tables, with NULL, text and real values and targets no kernel names.
 */
static void test_target_keys(void)
{
	struct db *db = fresh();
	struct op_keys *keys;
	struct event_stream *s;
	struct event ev;
	struct op_key_row *rows = NULL;
	struct codeptr_row *fed = NULL, *want = NULL;
	size_t nrows = 0, nfed = 0, nwant = 0;
	char *err = NULL;

	check_exec(db, run_sql);
	check_exec(db, "INSERT INTO target_raw (id, seq, kind, device, begin_ns, dur_ns, codeptr) VALUES"
		       " (3, NULL, 2, 0, 0, 1, 4660), (4, NULL, 1, 0, 0, 1, NULL), (5, NULL, '3', 0, 0, 1, 8000),"
		       " (6, NULL, 2.5, 0, 0, 1, 8001.0), (7, NULL, NULL, 0, 0, 1, 'abc'),"
		       " (8, NULL, 9, 0, 0, 1, 8001), (100, NULL, 4, 0, 0, 1, 9000);"
		       "INSERT INTO kernel_raw (seq, thread, target_id, device, begin_ns, dur_ns) VALUES"
		       " (30, 1, 6, 0, 700, 1), (31, 1, 3, 0, 701, 1), (32, 1, 50, 0, 702, 1);");
	keys = op_keys_new(db, &err);
	s = keys ? event_stream_open(db, EVENTS_BY_SEQ, keys, &err) : NULL;
	CHECK(s != NULL);
	while (s && event_stream_next(s, &ev, &err) == 1)
		;
	event_stream_close(s);
	CHECK(err == NULL);
	CHECK_INT(op_keys_rows(keys, &rows, &nrows, &fed, &nfed, &err), 0);
	CHECK_INT(locations_read_codeptrs(db, &want, &nwant, &err), 0);
	CHECK_INT(nfed, nwant);
	CHECK(nwant >= 5);
	for (size_t i = 0; i < nfed && i < nwant; i++) {
		CHECK_INT(fed[i].codeptr, want[i].codeptr);
		CHECK_INT(fed[i].target_kind, want[i].target_kind);
	}
	free(rows);
	free(fed);
	free(want);
	free(err);
	op_keys_free(keys);
	db_close(db);
	unlink(path);
}

/*
 * Sound rows holding reals (an edited database): the event's end and the
 * timeline interval's are begin_ns + dur_ns as SQLite sums them, the views'
 * end_ns (20.5 + 10.5 is 31, where the integers read would give 30).
 */
static void test_real_times(void)
{
	struct db *db = fresh();
	struct event_stream *s;
	struct event ev;
	char *err = NULL;
	int64_t op_end = -1, kernel_end = -1;
	struct end_of op = { 3, -1, LANE_TO }, kernel = { 4, -1, LANE_KERNELS };

	check_exec(db, run_sql);
	check_exec(db, "UPDATE data_op_raw SET begin_ns = 20.5, dur_ns = 10.5 WHERE seq = 3;"
		       "UPDATE kernel_raw SET begin_ns = 100.5, dur_ns = 50.5 WHERE seq = 4;");
	CHECK_INT(view_end("SELECT end_ns FROM data_ops WHERE seq = 3"), 31);
	CHECK_INT(view_end("SELECT end_ns FROM kernels WHERE seq = 4"), 151);
	s = event_stream_open(db, EVENTS_BY_SEQ, NULL, &err);
	CHECK(s != NULL);
	while (s && event_stream_next(s, &ev, &err) == 1) {
		if (ev.seq == 3)
			op_end = ev.end_ns;
		if (ev.seq == 4)
			kernel_end = ev.end_ns;
	}
	event_stream_close(s);
	CHECK_INT(op_end, 31);
	CHECK_INT(kernel_end, 151);
	CHECK(timeline_rows_each(db, keep_end, &op, &err) == 0);
	CHECK(timeline_rows_each(db, keep_end, &kernel, &err) == 0);
	CHECK_INT(op.end_ns, 31);
	CHECK_INT(kernel.end_ns, 151);
	free(err);
	db_close(db);
	unlink(path);
}

/*
 * The stream reads data_op_raw, kernel_raw, target_raw and delete_pair_raw
 * from the file's pages (db/pages/pageread.h) only
 * where the file holds what SQLite would give: a row changed in the report's
 * open write transaction (in SQLite's cache, not yet in the file) reads as
 * changed, and every value as SQLite gives it, the pages used or not.
 */
static void test_pages_see_changes(void)
{
	struct db *db = fresh();
	struct event_stream *s;
	struct event ev;
	enum db_problem problem;
	char *err = NULL;
	int64_t hash_pages = -1, hash_sql = -1, code_pages = -1, code_sql = -1, alloc_pages = -1, alloc_sql = -1;

	check_exec(db, run_sql);
	db_close(db);
	for (int pass = 0; pass < 2; pass++) {
		if (pass)
			setenv("MAPPROF_PAGEREAD", "0", 1);
		db = db_open(path, DB_OPEN_WRITE, &problem, &err);
		CHECK(db != NULL);
		if (!db)
			break;
		check_exec(db, "UPDATE data_op_raw SET hash = 99 WHERE seq = 3;"
			       "UPDATE target_raw SET codeptr = 77 WHERE id = 1;"
			       "UPDATE delete_pair_raw SET alloc_seq = 2 WHERE delete_seq = 25;");
		s = event_stream_open(db, EVENTS_BY_SEQ, NULL, &err);
		CHECK(s != NULL);
		while (s && event_stream_next(s, &ev, &err) == 1) {
			if (ev.seq == 3)
				*(pass ? &hash_sql : &hash_pages) = (int64_t)ev.hash;
			if (ev.seq == 4)
				*(pass ? &code_sql : &code_pages) = (int64_t)ev.codeptr;
			if (ev.seq == 25)
				*(pass ? &alloc_sql : &alloc_pages) = ev.alloc_seq;
		}
		event_stream_close(s);
		db_rollback(db);
		db_close(db);
	}
	unsetenv("MAPPROF_PAGEREAD");
	CHECK_INT(hash_pages, 99);
	CHECK_INT(hash_sql, 99);
	CHECK_INT(code_pages, 77);
	CHECK_INT(code_sql, 77);
	CHECK_INT(alloc_pages, 2);
	CHECK_INT(alloc_sql, 2);
	unlink(path);
}

int main(void)
{
	RUN(test_stream_order_and_pairs);
	RUN(test_analysis_store_idempotent);
	RUN(test_fallback_to_sorted);
	RUN(test_empty_run);
	RUN(test_nested_transactions);
	RUN(test_kernel_code_pointers);
	RUN(test_target_keys);
	RUN(test_real_times);
	RUN(test_pages_see_changes);
	return check_done();
}
