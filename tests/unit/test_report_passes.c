/*
 * test_report_passes.c - how often 'mapprof report' (JSON and HTML) reads the
 * event tables: every statement's full-scan steps are counted (an SQLite
 * auto-extension traces each connection), per table.  A pass over
 * data_op_raw or kernel_raw costs about 0.3-0.5 us an event (issue 27: the
 * report's goal is 1 us an event in all), so the report makes one: the
 * analysis' stream (detectors, totals, costs, the kernels by place, the
 * timeline's span, and the page timeline's intervals, recorded as the rows
 * go by).  Before, the kernels by place were a query of their own, the
 * timeline read the tables twice, then once more.
 * MAPPROF_REPORT_SERIAL=1 is the way before: two passes.  The stream reads
 * data_op_raw, kernel_raw and delete_pair_raw from the file's pages
 * (db/pages/pageread.h), which SQLite does not count: by SQLite it makes no pass
 * over those tables then (and the tests say so, which proves the pages were
 * read), one with MAPPROF_PAGEREAD=0.  The pairs are read three times
 * (the stream's, and the timeline's count and walk of them), all from the
 * pages but for MAPPROF_PAGEREAD=0.  target_raw is read once, beside the
 * kernels (their code pointers, and the attribution's keys: no scan of its
 * own after the pass).
 */
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "tests/unit/check_db.h"
#include "db/db.h"
#include "report/report.h"

static char path[64], json_path[80], html_path[80];

/* Full-scan steps of statements reading each table. */
static int64_t ops_steps, kernel_steps, pair_steps, target_steps;

static int on_trace(unsigned type, void *ctx, void *p, void *x)
{
	sqlite3_stmt *st = p;
	const char *sql = sqlite3_sql(st);
	int64_t steps = sqlite3_stmt_status(st, SQLITE_STMTSTATUS_FULLSCAN_STEP, 1);

	(void)ctx;
	(void)x;
	if (type != SQLITE_TRACE_PROFILE || !sql)
		return 0;
	if (strstr(sql, "data_op_raw"))
		ops_steps += steps;
	if (strstr(sql, "kernel_raw"))
		kernel_steps += steps;
	if (strstr(sql, "delete_pair_raw"))
		pair_steps += steps;
	if (strstr(sql, "target_raw") && !strstr(sql, "kernel_raw"))
		target_steps += steps;
	return 0;
}

static int trace_init(sqlite3 *db, char **msg, const void *api)
{
	(void)msg;
	(void)api;
	sqlite3_trace_v2(db, SQLITE_TRACE_PROFILE, on_trace, NULL);
	return SQLITE_OK;
}

/* A loop of 'iters' iterations, nine events each (bench/gen_events.sql's model). */
static const char gen_sql[] =
	"INSERT INTO run_raw (id, command, start_ns, end_ns, runtime, host_device, status, exit_status)"
	"  VALUES (1, '[\"gen\"]', 0, 3001000, 'synthetic', 4, 'complete', 0);"
	"INSERT INTO device_raw (num, type) VALUES (0, 'synthetic'), (1, 'synthetic');"
	"INSERT INTO module_raw (id, path, base, low, high) VALUES (1, '/gen', 4194304, 4194304, 8388608);"
	"CREATE TEMP TABLE it AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < 3000)"
	" SELECT i, i * 9 + 1 AS s, i * 1000 AS t, i % 2 AS dev, 1 + i % 2 AS thr,"
	"  268435456 + (i % 8) * 1048576 AS ha, 4096 * (1 + i % 8) AS na,"
	"  140000000000000 + (i % 64) * 1048576 AS da, (i / 16) * 1000 + i % 8 AS content FROM n;"
	"INSERT INTO target_raw (id, seq, thread, kind, device, begin_ns, dur_ns, codeptr)"
	" SELECT i + 1, NULL, thr, 1, dev, t, 700, 4198400 FROM it;"
	"INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes, begin_ns,"
	"  dur_ns, hash, codeptr, target_id)"
	" SELECT s, thr, 1, 4, dev, ha, da, na, t, 20, NULL, 4198400, i + 1 FROM it UNION ALL"
	" SELECT s + 1, thr, 2, 4, dev, ha, da, na, t + 30, 50, content, 4198400, i + 1 FROM it UNION ALL"
	" SELECT s + 5, thr, 3, dev, 4, da, ha, na, t + 550, 50,"
	"  CASE WHEN i % 5 = 0 THEN content ELSE content * 31 + i END, 4198400, i + 1 FROM it UNION ALL"
	" SELECT s + 7, thr, 4, dev, -1, da, NULL, 0, t + 640, 10, NULL, 4198400, i + 1 FROM it UNION ALL"
	" SELECT s + 8, thr, 2, 4, dev, 805306368, 138000000000000, 64, t + 700, 10, i, 4202496, NULL FROM it;"
	"INSERT INTO kernel_raw (seq, thread, target_id, device, teams, begin_ns, dur_ns)"
	" SELECT s + 4, thr, i + 1, dev, 1, t + 200, 300 FROM it;"
	"INSERT INTO delete_pair_raw (delete_seq, alloc_seq) SELECT s + 7, s FROM it;"
	"INSERT OR REPLACE INTO meta (key, value) VALUES ('deletes_paired', '1');";

/*
 * sql_passes over data_op_raw and kernel_raw by SQLite's statements,
 * pair_passes over delete_pair_raw, target_passes over target_raw.
 */
static void run_report(int64_t sql_passes, int64_t pair_passes, int64_t target_passes)
{
	struct db *db;
	struct report_options opt = { 0 };
	struct report_result res;
	char *err = NULL;
	const int64_t ops = 3000 * 5, kernels = 3000, pairs = 3000, targets = 3000;

	snprintf(path, sizeof(path), "/tmp/mapprof-test-passes-%d.db", (int)getpid());
	snprintf(json_path, sizeof(json_path), "%s.json", path);
	snprintf(html_path, sizeof(html_path), "%s.html", path);
	db = check_db_create(path);
	CHECK(db != NULL);
	if (!db)
		return;
	check_exec(db, gen_sql);
	db_close(db);

	sqlite3_auto_extension((void (*)(void))trace_init);
	opt.db_path = path;
	opt.json_path = json_path;
	opt.html_path = html_path;
	opt.quiet = 1;
	CHECK_INT(report_run(&opt, &res, &err), 0);
	if (err)
		fprintf(stderr, "%s\n", err);
	CHECK(res.wrote[REPORT_OUT_JSON] && res.wrote[REPORT_OUT_HTML]);
	report_result_release(&res);
	free(err);
	sqlite3_cancel_auto_extension((void (*)(void))trace_init);

	printf("     full-scan steps: data_op_raw %lld (%lld rows), kernel_raw %lld (%lld rows),"
	       " delete_pair_raw %lld (%lld rows), target_raw %lld (%lld rows)\n", (long long)ops_steps,
	       (long long)ops, (long long)kernel_steps, (long long)kernels, (long long)pair_steps,
	       (long long)pairs, (long long)target_steps, (long long)targets);
	/* So many passes (a scan steps forward once less than its rows), and no more. */
	CHECK(ops_steps >= sql_passes * (ops - 1) && ops_steps <= sql_passes * ops + 16);
	CHECK(kernel_steps >= sql_passes * (kernels - 1) && kernel_steps <= sql_passes * kernels + 16);
	CHECK(pair_steps >= pair_passes * (pairs - 1) && pair_steps <= pair_passes * pairs + 16);
	CHECK(target_steps >= target_passes * (targets - 1) && target_steps <= target_passes * targets + 16);
	unlink(path);
	unlink(json_path);
	unlink(html_path);
}

static void test_one_pass(void)
{
	ops_steps = kernel_steps = pair_steps = target_steps = 0;
	unsetenv("MAPPROF_REPORT_SERIAL");
	run_report(0, 0, 0);
	ops_steps = kernel_steps = pair_steps = target_steps = 0;
	setenv("MAPPROF_PAGEREAD", "0", 1);
	run_report(1, 3, 1);
	unsetenv("MAPPROF_PAGEREAD");
}

/* The timeline's own pass reads the tables by SQLite (timeline_rows_each()). */
static void test_serial_two_passes(void)
{
	ops_steps = kernel_steps = pair_steps = target_steps = 0;
	setenv("MAPPROF_REPORT_SERIAL", "1", 1);
	run_report(1, 0, 0);
	ops_steps = kernel_steps = pair_steps = target_steps = 0;
	setenv("MAPPROF_PAGEREAD", "0", 1);
	run_report(2, 3, 1);
	unsetenv("MAPPROF_PAGEREAD");
	unsetenv("MAPPROF_REPORT_SERIAL");
}

int main(void)
{
	RUN(test_one_pass);
	RUN(test_serial_two_passes);
	return check_done();
}
