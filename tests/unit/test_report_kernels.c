/*
 * test_report_kernels.c - what the analysis' one pass gathers for the
 * outputs equals what the queries it replaced gave: the kernels by launching
 * place (report/findings/kernels.h against db/read/kernel_sites.h's query) and the
 * page timeline's span (timeline_build_span() against timeline_build()'s own
 * first pass, and timeline_job_start()/finish() on a thread with other
 * candidate marks than the final ones, or none), on a hand-made run with the odd cases and on a long loop whose
 * constructs evict one another from the kernels' cache; with the default
 * buffers and with MAPPROF_REPORT_BUFFER=1 (every record through the file).
 */
#include <stdlib.h>
#include <unistd.h>

#include "tests/unit/check.h"
#include "tests/unit/check_db.h"
#include "db/db.h"
#include "db/read/kernel_sites.h"
#include "db/read/timeline.h"
#include "report/findings/analysis.h"

static char path[64];

/*
 * Constructs: 1 one kernel, transfers both ways; 2 kernels on devices 0, 1,
 * 0 (again) and 2 (more places than a cache slot holds), transfers; 3
 * transfers and no kernel; 99 a kernel and transfers but no target_raw row
 * (code pointer 0); 10 and 4106 share a cache slot and interleave; a kernel
 * and transfers without a construct; a damaged kernel (negative duration)
 * and a damaged transfer (negative size) of construct 1; an allocation, a
 * delete and an association (the span leaves the association out).
 */
static const char odd_sql[] =
	"INSERT INTO run_raw (id, command, end_ns, runtime, host_device, status, exit_status)"
	"  VALUES (1, '[\"app\"]', 100000, 'test', 4, 'complete', 0);"
	"INSERT INTO device_raw (num, type) VALUES (0, 'a'), (1, 'b'), (2, 'c');"
	"INSERT INTO target_raw (id, seq, kind, device, begin_ns, dur_ns, codeptr) VALUES"
	"  (1, NULL, 1, 0, 0, 900, 4096), (2, NULL, 1, 0, 1000, 5000, 8192), (3, NULL, 1, 0, 6000, 100, 4096),"
	"  (10, NULL, 1, 0, 7000, 2000, 12288), (4106, NULL, 1, 1, 7100, 2000, 16384);"
	"INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes,"
	"  begin_ns, dur_ns, hash, codeptr, target_id) VALUES"
	"  (1, 1, 1, 4, 0, 9000, 70000, 64, 10, 5, NULL, 4096, 1),"
	"  (2, 1, 2, 4, 0, 9000, 70000, 64, 20, 10, 11, 4096, 1),"
	"  (3, 1, 2, 4, 0, 9000, 70000, -5, 25, 10, 11, 4096, 1),"
	"  (5, 1, 3, 0, 4, 70000, 9000, 64, 200, 15, 12, 4096, 1),"
	"  (6, 1, 4, 0, -1, 70000, NULL, 0, 250, 5, NULL, 4096, 1),"
	"  (7, 2, 5, 4, 0, 9100, 71000, 32, 40000, 5, NULL, 4096, NULL),"
	"  (10, 1, 2, 4, 0, 9000, 70000, 128, 1010, 20, 13, 8192, 2),"
	"  (11, 1, 18, 4, 1, 9000, 70000, 256, 1020, 20, 14, 8192, 2),"
	"  (15, 1, 19, 1, 4, 70000, 9000, 512, 3000, 40, 15, 8192, 2),"
	"  (20, 1, 2, 4, 0, 9000, 70000, 1000, 6010, 30, 16, 4096, 3),"
	"  (30, 1, 2, 4, 0, 9000, 70000, 10, 7010, 1, 17, 12288, 10),"
	"  (31, 2, 2, 4, 1, 9000, 70000, 20, 7110, 2, 18, 16384, 4106),"
	"  (32, 1, 3, 0, 4, 70000, 9000, 30, 7500, 3, 19, 12288, 10),"
	"  (34, 2, 3, 1, 4, 70000, 9000, 40, 7600, 4, 20, 16384, 4106),"
	"  (40, 3, 2, 4, 0, 9000, 70000, 77, 20000, 7, 21, 4096, NULL),"
	"  (41, 3, 2, 4, 0, 9000, 70000, 88, 20100, 8, 22, 4096, 99);"
	"INSERT INTO kernel_raw (seq, thread, target_id, device, begin_ns, dur_ns) VALUES"
	"  (4, 1, 1, 0, 100, 50), (8, 1, 1, 0, 150, -3),"
	"  (12, 1, 2, 0, 1100, 100), (13, 1, 2, 1, 1300, 200), (14, 1, 2, 0, 1600, 300), (16, 1, 2, 2, 3100, 400),"
	"  (33, 1, 10, 0, 7400, 60), (35, 2, 4106, 1, 7700, 70), (36, 1, 10, 0, 8000, 80),"
	"  (42, 3, NULL, 0, 21000, 90), (43, 3, 99, 0, 22000, 95);"
	"INSERT INTO delete_pair_raw VALUES (6, 1);";

/* 9,000 constructs of one kernel and three transfers each, ids up to twice the cache. */
static const char loop_sql[] =
	"INSERT INTO run_raw (id, command, end_ns, runtime, host_device, status, exit_status)"
	"  VALUES (1, '[\"loop\"]', 9001000, 'test', 4, 'complete', 0);"
	"INSERT INTO device_raw (num, type) VALUES (0, 'a'), (1, 'b');"
	"CREATE TEMP TABLE it AS WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < 9000)"
	" SELECT i, i * 5 + 1 AS s, i * 1000 AS t, i % 2 AS dev FROM n;"
	"INSERT INTO target_raw (id, seq, kind, device, begin_ns, dur_ns, codeptr)"
	" SELECT i + 1, NULL, 1, dev, t, 900, 4096 + (i % 3) * 4096 FROM it;"
	"INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes, begin_ns,"
	"  dur_ns, hash, codeptr, target_id)"
	" SELECT s, 1, 2, 4, dev, 9000, 70000, 64 + i % 7, t, 20, i, 4096, i + 1 FROM it UNION ALL"
	" SELECT s + 1, 1, 2, 4, dev, 9000, 70000, 32, t + 30, 20 + i % 3, i + 1, 4096, i + 1 FROM it UNION ALL"
	" SELECT s + 3, 1, 3, dev, 4, 70000, 9000, 64, t + 500, 30, i + 2, 4096, i + 1 FROM it;"
	"INSERT INTO kernel_raw (seq, thread, target_id, device, begin_ns, dur_ns)"
	" SELECT s + 2, 1, i + 1, dev, t + 100, 300 + i % 11 FROM it;";

static void check_same(const char *sql)
{
	struct db *db;
	struct analysis a;
	struct kernel_sites want = { 0 };
	char *err = NULL;
	json_t *two_pass, *one_pass;

	snprintf(path, sizeof(path), "/tmp/mapprof-test-kernels-%d.db", (int)getpid());
	db = check_db_create(path);
	CHECK(db != NULL);
	if (!db)
		return;
	check_exec(db, sql);
	CHECK_INT(analysis_run(db, &a, &err), 0);
	CHECK_INT(kernel_sites_read(db, &want, &err), 0);
	CHECK_INT(a.kernel_sites.n, want.n);
	for (size_t i = 0; i < want.n && i < a.kernel_sites.n; i++) {
		const struct kernel_site *g = &a.kernel_sites.v[i], *w = &want.v[i];
		CHECK_INT(g->codeptr, w->codeptr);
		CHECK_INT(g->device, w->device);
		CHECK_INT(g->launches, w->launches);
		CHECK_INT(g->total_ns, w->total_ns);
		CHECK_INT(g->min_ns, w->min_ns);
		CHECK_INT(g->max_ns, w->max_ns);
		CHECK_INT(g->bytes_to, w->bytes_to);
		CHECK_INT(g->bytes_from, w->bytes_from);
		CHECK_INT(g->transfers, w->transfers);
		CHECK_INT(g->transfer_ns, w->transfer_ns);
	}
	{
		int64_t marks[] = { 1, 4, 6, 13, 34 };
		two_pass = timeline_build(db, marks, 5, &err);
		one_pass = timeline_build_span(db, marks, 5, &a.span, &err);
		CHECK(two_pass && one_pass && json_equal(two_pass, one_pass));
		json_decref(one_pass);
		/*
		 * The timeline binned on a thread of its own from the page's pass:
		 * more candidates than marks (those left out are not marked), fewer
		 * (binned again with the marks), and a job never finished.
		 */
		struct analysis b;
		int64_t more[] = { 34, 2, 1, 3, 13, 6, 4, 5 }, fewer[] = { 4, 1 };
		CHECK_INT(analysis_run_page(db, &b, &err), 0);
		CHECK(b.span.rec != NULL);
		struct timeline_job *j = timeline_job_start(db, more, 8, &b.span, &err);
		CHECK(j != NULL);
		one_pass = j ? timeline_job_finish(j, marks, 5, &err) : NULL;
		CHECK(two_pass && one_pass && json_equal(two_pass, one_pass));
		json_decref(one_pass);
		j = timeline_job_start(db, fewer, 2, &b.span, &err);
		CHECK(j != NULL);
		one_pass = j ? timeline_job_finish(j, marks, 5, &err) : NULL;
		CHECK(two_pass && one_pass && json_equal(two_pass, one_pass));
		json_decref(one_pass);
		/* No marks at all (a page whose findings list no events): none kept. */
		json_t *unmarked = timeline_build(db, NULL, 0, &err);
		j = timeline_job_start(db, more, 8, &b.span, &err);
		CHECK(j != NULL);
		one_pass = j ? timeline_job_finish(j, NULL, 0, &err) : NULL;
		CHECK(unmarked && one_pass && json_equal(unmarked, one_pass));
		json_decref(one_pass);
		json_decref(unmarked);
		timeline_job_free(timeline_job_start(db, more, 8, &b.span, &err));
		analysis_release(&b);
		json_decref(two_pass);
	}
	free(err);
	kernel_sites_release(&want);
	analysis_release(&a);
	db_close(db);
	unlink(path);
}

static void test_odd_cases(void)
{
	check_same(odd_sql);
}

static void test_long_loop(void)
{
	check_same(loop_sql);
}

static void test_through_the_file(void)
{
	setenv("MAPPROF_REPORT_BUFFER", "1", 1);
	check_same(odd_sql);
	check_same(loop_sql);
	unsetenv("MAPPROF_REPORT_BUFFER");
}

int main(void)
{
	RUN(test_odd_cases);
	RUN(test_long_loop);
	RUN(test_through_the_file);
	return check_done();
}
