/*
 * test_html.c - report.html: escaping, CSP, inlined assets, the timeline.
 *
 * Builds report documents by hand (one shaped like the round_trip sample's,
 * one full of hostile strings, one with 10 000 findings over 100 000 events),
 * renders each with html_write and checks the page.  When MAPPROF_BUILD is
 * set the pages are kept in $MAPPROF_BUILD/test-output/ as fixture-report.html,
 * xss-report.html and big-report.html: tests/browser/ opens them in Chromium.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "check_db.h"
#include "db/db.h"
#include "db/read/timeline.h"
#include "report/output/html.h"

extern const char asset_report_css[];
extern const char asset_report_js[];

static char tmpdir[] = "/tmp/mapprof-test-html.XXXXXX";
static char outdir[4096];

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t n = 0;
	if (!f)
		return NULL;
	FILE *m = open_memstream(&buf, &n);
	char chunk[65536];
	size_t k;
	while ((k = fread(chunk, 1, sizeof(chunk), f)) > 0)
		fwrite(chunk, 1, k, m);
	fclose(f);
	fclose(m);
	return buf;
}

static int count(const char *hay, const char *needle)
{
	int n = 0;
	for (const char *p = hay; (p = strcasestr(p, needle)); p++)
		n++;
	return n;
}

/* The text of the data block (malloc'ed), or NULL. */
static char *data_block(const char *page)
{
	const char *open = "<script type=\"application/json\" id=\"mapprof-data\">";
	const char *b = strstr(page, open), *e;
	if (!b)
		return NULL;
	b += strlen(open);
	e = strstr(b, "</script>");
	return e ? strndup(b, e - b) : NULL;
}

static struct db *new_db(const char *name)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s", tmpdir, name);
	return check_db_create(path);
}

/* Render to outdir/name and return the page (malloc'ed). */
static char *render(const char *name, json_t *report, struct db *db)
{
	char path[4200], *err = NULL;
	snprintf(path, sizeof(path), "%s/%s", outdir, name);
	if (html_write(path, 0, report, db, &err) < 0) {
		fprintf(stderr, "html_write: %s\n", err);
		check_failures++;
		free(err);
		return NULL;
	}
	return slurp(path);
}

/* Checks every page must pass. */
static void check_page(const char *page)
{
	CHECK(page != NULL);
	if (!page)
		return;
	CHECK(!strncmp(page, "<!DOCTYPE html>", 15));
	CHECK(strstr(page, "http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'sha256-"));
	CHECK(!strstr(page, "unsafe-inline"));
	CHECK(!strstr(page, "{{"));
	CHECK(strstr(page, asset_report_css) != NULL);
	CHECK(strstr(page, asset_report_js) != NULL);
	/* Only the data block and the script end a script element. */
	CHECK_INT(count(page, "</script"), 2);
	CHECK_INT(count(page, "<script"), 2);
	CHECK(!strstr(page, "http://") && !strstr(page, "https://"));

	char *data = data_block(page);
	CHECK(data != NULL);
	if (!data)
		return;
	CHECK(!strpbrk(data, "<>&"));
	CHECK(!strstr(data, "\xe2\x80\xa8") && !strstr(data, "\xe2\x80\xa9"));
	json_error_t jerr;
	json_t *back = json_loads(data, 0, &jerr);
	CHECK(back != NULL);
	if (!back)
		fprintf(stderr, "data block: %s at %d\n", jerr.text, jerr.position);
	json_decref(back);
	free(data);
}

/* --- the sample-shaped report -------------------------------------------- */

/*
 * Models samples/round_trip.c: 4 calls of a target region at line 35 that maps
 * a (2048 B) implicitly tofrom on device 0 (host device 4), then one region at
 * line 43 mapping b tofrom.  seq = 10*call + {0 alloc, 1 to, 2 kernel, 3 from,
 * 4 delete}; b is call 4.  Times: call k starts at k ms.
 */
static struct db *sample_db(void)
{
	struct db *db = new_db("sample.db");
	char sql[1024];
	if (!db)
		return NULL;
	check_exec(db, "INSERT INTO run_raw (id, command, start_time, host_device, end_ns, status)"
		 " VALUES (1, '[\"./round_trip\"]', '2026-11-21T05:00:00Z', 4, 6000000, 'complete');"
		 "INSERT INTO device_raw (num, type) VALUES (0, 'generic-64bit');");
	for (int k = 0; k < 5; k++) {
		long t = k * 1000000L, s = 10 * k;
		long codeptr = k < 4 ? 0x401234 : 0x401400;
		snprintf(sql, sizeof(sql),
			 "INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes,"
			 " begin_ns, dur_ns, hash, codeptr, target_id) VALUES"
			 " (%ld, 1, 1, 4, 0, %d, 90000, 2048, %ld, 20000, NULL, %ld, %d),"
			 " (%ld, 1, 2, 4, 0, %d, 90000, 2048, %ld, 150000, %ld, %ld, %d),"
			 " (%ld, 1, 3, 0, 4, 90000, %d, 2048, %ld, 150000, %ld, %ld, %d),"
			 " (%ld, 1, 4, 0, -1, 90000, 0, 0, %ld, 15000, NULL, %ld, %d);"
			 "INSERT INTO kernel_raw VALUES (%ld, 1, %d, 0, 1, %ld, 300000);"
			 "INSERT INTO delete_pair_raw VALUES (%ld, %ld);",
			 s, k < 4 ? 4096 : 8192, t + 10000, codeptr, k,
			 s + 1, k < 4 ? 4096 : 8192, t + 40000, 1000L + k, codeptr, k,
			 s + 3, k < 4 ? 4096 : 8192, t + 500000, 1001L + k, codeptr, k,
			 s + 4, t + 660000, codeptr, k,
			 s + 2, k, t + 190000,
			 s + 4, s);
		check_exec(db, sql);
	}
	return db;
}

static json_t *sample_event(long seq, const char *op, long t, long dur)
{
	int to = !strcmp(op, "to_device") || !strcmp(op, "alloc");
	return json_pack("{sIsssIsIsIsisi}", "seq", (json_int_t)seq, "op", op, "begin_ns", (json_int_t)t,
			 "end_ns", (json_int_t)(t + dur), "bytes", (json_int_t)2048,
			 "src_device", to ? 4 : 0, "dest_device", to ? 0 : 4);
}

static json_t *sample_location(int line, int column)
{
	static const char *const src[] = {   /* lines 32-46 of samples/round_trip.c */
		"",
		"\tfor (int i = 0; i < CALLS; i++) {",
		"\t\t/* Implicit map(tofrom: a): in and out on every call. */",
		"#pragma omp target parallel for",
		"\t\tfor (int j = 0; j < N; j++)",
		"\t\t\ta[j] += j;",
		"\t}",
		"",
		"\tfor (int j = 0; j < N; j++)",
		"\t\tb[j] = 3 * j + 1;",
		"\t/* b goes out and comes back, but scale is 1: nothing changed. */",
		"#pragma omp target parallel for map(tofrom: b)",
		"\t\tfor (int j = 0; j < N; j++)",
		"\t\t\tif (scale != 1)",
		"\t\t\t\tb[j] *= scale;",
	};
	json_t *lines = json_array();
	int first = line - 3;
	for (int l = first; l <= line + 3; l++)
		json_array_append_new(lines, json_string(src[l - 32]));
	return json_pack("{ss ss ss ss ss si si ss s{si so}}", "codeptr", line == 35 ? "0x401234" : "0x401400",
			 "module", "round_trip", "offset", line == 35 ? "0x1234" : "0x1400",
			 "function", "main", "file", "samples/round_trip.c", "line", line, "column", column,
			 "origin", "ompt-ident", "snippet", "first_line", first, "lines", lines);
}

static json_t *sample_report(void)
{
	json_t *f1_events = json_array(), *f2_events = json_array(), *f3_events = json_array();
	for (int k = 0; k < 3; k++) {
		json_array_append_new(f1_events, sample_event(10 * k + 3, "from_device", k * 1000000L + 500000, 150000));
		json_array_append_new(f3_events, sample_event(10 * (k + 1), "alloc", (k + 1) * 1000000L + 10000, 20000));
		json_array_append_new(f3_events, sample_event(10 * (k + 1) + 4, "delete", (k + 1) * 1000000L + 660000, 15000));
	}
	json_array_append_new(f2_events, sample_event(43, "from_device", 4500000, 150000));

	json_t *findings = json_pack(
		"[{ss ss ss ss si si si s[i] s[o] s{ss ss si ss} so ss},"
		" {ss ss ss ss si si si s[i] s[o] s{ss ss si ss} so ss},"
		" {ss ss sn ss si si si s[i] s[o] s{ss ss si ss} so ss}]",
		"id", "F1", "kind", "round_trip", "flavour", "identical_content", "fingerprint", "a1b2c3d4",
		"occurrences", 3, "bytes", 6144, "savings_ns", 450000, "devices", 0,
		"locations", sample_location(35, 1),
		"variable", "name", "a", "decl_file", "samples/round_trip.c", "decl_line", 29, "origin", "map-name",
		"events", f1_events,
		"advice", "Wrap the loop at samples/round_trip.c:33 in '#pragma omp target data map(tofrom: a)' so a stays on device 0 between calls.",
		"id", "F2", "kind", "round_trip", "flavour", "same_host_data", "fingerprint", "e5f60718",
		"occurrences", 1, "bytes", 2048, "savings_ns", 150000, "devices", 0,
		"locations", sample_location(43, 1),
		"variable", "name", "b", "decl_file", "samples/round_trip.c", "decl_line", 29, "origin", "map-name",
		"events", f2_events,
		"advice", "At samples/round_trip.c:43 the kernel does not change b: map it with map(to: b).",
		"id", "F3", "kind", "repeated_alloc", "flavour", "fingerprint", "99aa00bb",
		"occurrences", 3, "bytes", 6144, "savings_ns", 105000, "devices", 0,
		"locations", sample_location(35, 1),
		"variable", "name", "a", "decl_file", "samples/round_trip.c", "decl_line", 29, "origin", "map-name",
		"events", f3_events,
		"advice", "Allocate a once around the loop at samples/round_trip.c:33 with 'target enter data map(alloc: a)'.");
	return json_pack(
		"{ss si s{s[s] si sI ss s[{sssi}] ss ss}"
		" s{sI sI sI sI sf s{s{sisisIsI} s{sisisIsI}}} so}",
		"format", "mapprof-report", "version", 1,
		"run", "command", "./round_trip", "exit_status", 0, "duration_ns", (json_int_t)6000000,
		"runtime", "LLVM OMP version: 5.0.20140926",
		"devices", "type", "generic-64bit", "device", 0,
		"start_time", "2026-11-21T05:00:00Z", "host", "buildhost",
		"summary", "duration_ns", (json_int_t)6000000, "transfer_ns", (json_int_t)1500000,
		"alloc_ns", (json_int_t)175000, "savings_ns", (json_int_t)705000, "predicted_speedup", 6.0 / 5.295,
		"kinds", "round_trip", "findings", 2, "occurrences", 4, "bytes", (json_int_t)8192,
		"savings_ns", (json_int_t)600000,
		"repeated_alloc", "findings", 1, "occurrences", 3, "bytes", (json_int_t)6144,
		"savings_ns", (json_int_t)105000,
		"findings", findings);
}

static void test_sample(void)
{
	struct db *db = sample_db();
	json_t *report = sample_report();
	CHECK(db && report);
	if (!db || !report)
		return;
	char *page = render("fixture-report.html", report, db);
	check_page(page);
	if (page) {
		CHECK(strstr(page, "samples/round_trip.c") != NULL);
		CHECK(strstr(page, "\"timeline\":{") != NULL);
		CHECK(strstr(page, "\"generator\":{") != NULL);
	}
	/* The report itself is not modified. */
	CHECK(json_object_get(report, "timeline") == NULL);
	free(page);
	json_decref(report);
	db_close(db);
}

/* --- hostile strings ----------------------------------------------------- */

#define XSS_TAG "</script><img src=x onerror=\"window.__xss=1;alert(1)\">"
#define XSS_SCRIPT "<script>window.__xss=1</script>"

static void test_xss(void)
{
	struct db *db = new_db("xss.db");
	json_t *report, *f, *loc;
	if (!db)
		return;
	check_exec(db, "INSERT INTO device_raw (num, type) VALUES (0, '<img src=x onerror=\"window.__xss=1\">');"
		 "INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes,"
		 " begin_ns, dur_ns) VALUES (1, 1, 2, 4, 0, 1, 2, 64, 100, 50), (2, 1, 2, 4, 0, 1, 2, 64, 300, 50);"
		 "INSERT INTO kernel_raw VALUES (3, 1, 1, 0, 1, 400, 100);");
	loc = json_pack("{ss ss ss ss ss si si ss s{si s[sss]}}", "codeptr", "0x1\"><b>x</b>",
			"module", "/tmp/" XSS_TAG "/app", "offset", "0x10", "function", XSS_SCRIPT,
			"file", "src/<img src=x onerror=window.__xss=1>.c", "line", 2, "column", 1,
			"origin", "ompt-ident", "snippet", "first_line", 1,
			"lines", "int x; // " XSS_TAG, "#pragma omp target map(to: v) /* <!-- " XSS_SCRIPT " */",
			"\xe2\x80\xa8 \xe2\x80\xa9 & &amp; &lt; \"quoted\" 'single' \\ `back`");
	f = json_pack("{ss ss ss si si si s[i] s[o] s{ss ss si ss} s[{sIsssIsIsIsisi}] ss}",
		      "id", "F1", "kind", "duplicate_transfer", "fingerprint", "<b>fp</b>",
		      "occurrences", 1, "bytes", 64, "savings_ns", 50, "devices", 0,
		      "locations", loc,
		      "variable", "name", XSS_TAG XSS_SCRIPT "\"v\"", "decl_file", XSS_SCRIPT,
		      "decl_line", 1, "origin", "map-name",
		      "events", "seq", (json_int_t)2, "op", "to_device", "begin_ns", (json_int_t)300,
		      "end_ns", (json_int_t)350, "bytes", (json_int_t)64, "src_device", 4,
		      "dest_device", 0,
		      "advice", "Drop " XSS_TAG " from the map clause & <i>see</i> \"docs\".");
	CHECK(f != NULL);
	report = json_pack("{ss si s{s[sss] si ss ss ss s[{siss}]} s{sisisisi} s[o ]}",
			   "format", "mapprof-report", "version", 1,
			   "run", "command", "./" XSS_TAG, XSS_SCRIPT, "\"quoted\" & 'single' \xe2\x80\xa8",
			   "exit_status", 0, "runtime", "<svg onload=window.__xss=1>", "host", XSS_SCRIPT,
			   "start_time", "<b>now</b>", "devices", "device", 0, "type", XSS_TAG,
			   "summary", "duration_ns", 1000, "transfer_ns", 100, "alloc_ns", 0, "savings_ns", 50,
			   "findings", f);
	/* A second finding whose kind and id are hostile too. */
	json_array_append_new(json_object_get(report, "findings"),
			      json_pack("{ss ss si si si}", "id", "F2\"><img src=x onerror=window.__xss=1>",
					"kind", XSS_SCRIPT, "occurrences", 2, "bytes", 1, "savings_ns", 10));
	char *page = render("xss-report.html", report, db);
	check_page(page);
	if (page) {
		CHECK(!strstr(page, "<img"));
		CHECK(!strstr(page, "<svg"));
		CHECK(!strstr(page, "onerror=\""));
		/* The strings survive the round trip through the escaping. */
		char *data = data_block(page);
		json_t *back = data ? json_loads(data, 0, NULL) : NULL;
		json_t *cmd = json_object_get(json_object_get(back, "run"), "command");
		CHECK_STR(json_string_value(json_array_get(cmd, 0)), "./" XSS_TAG);
		CHECK_STR(json_string_value(json_array_get(cmd, 2)), "\"quoted\" & 'single' \xe2\x80\xa8");
		json_t *tl_dev = json_array_get(json_object_get(json_object_get(back, "timeline"), "devices"), 0);
		CHECK_STR(json_string_value(json_object_get(tl_dev, "type")), "<img src=x onerror=\"window.__xss=1\">");
		json_decref(back);
		free(data);
	}
	free(page);
	json_decref(report);
	db_close(db);
}

/* --- 10 000 findings over 100 000 events --------------------------------- */

/*
 * 20 000 groups on devices 0 and 1, each: alloc, to_device, kernel,
 * from_device, delete (seq 10 + 5g + 0..4), group g at g * 10 us.
 */
static struct db *big_db(void)
{
	struct db *db = new_db("big.db");
	if (!db)
		return NULL;
	check_exec(db, "BEGIN;"
		 "INSERT INTO device_raw (num, type) VALUES (0, 'generic-64bit'), (1, 'generic-64bit');"
		 "WITH RECURSIVE g(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM g WHERE x < 19999)"
		 " INSERT INTO data_op_raw (seq, thread, kind, src_dev, dst_dev, src_addr, dst_addr, bytes,"
		 "  begin_ns, dur_ns, hash, codeptr, target_id)"
		 " SELECT 10 + 5 * x, 1, 1, 4, x % 2, 4096 * (x % 64), 1048576 * (1 + x % 8), 65536, 10000 * x, 300, NULL, 4198400 + 16 * (x % 97), x FROM g"
		 " UNION ALL SELECT 11 + 5 * x, 1, 2, 4, x % 2, 4096 * (x % 64), 1048576 * (1 + x % 8), 65536, 10000 * x + 400, 2000 + (x % 7) * 300, x % 50, 4198400 + 16 * (x % 97), x FROM g"
		 " UNION ALL SELECT 13 + 5 * x, 1, 3, x % 2, 4, 1048576 * (1 + x % 8), 4096 * (x % 64), 65536, 10000 * x + 6000, 1800, x % 40, 4198400 + 16 * (x % 97), x FROM g"
		 " UNION ALL SELECT 14 + 5 * x, 1, 4, x % 2, -1, 1048576 * (1 + x % 8), 0, 0, 10000 * x + 8000, 200, NULL, 4198400 + 16 * (x % 97), x FROM g;"
		 "WITH RECURSIVE g(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM g WHERE x < 19999)"
		 " INSERT INTO kernel_raw SELECT 12 + 5 * x, 1, x, x % 2, 1, 10000 * x + 2600 + (x % 7) * 300, 3000 FROM g;"
		 "WITH RECURSIVE g(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM g WHERE x < 19999)"
		 " INSERT INTO delete_pair_raw SELECT 14 + 5 * x, 10 + 5 * x FROM g;"
		 "COMMIT;");
	return db;
}

static json_t *big_report(void)
{
	static const char *const kinds[] = { "duplicate_transfer", "round_trip", "repeated_alloc",
					     "unused_alloc", "unused_transfer" };
	json_t *findings = json_array();
	long total = 0;
	for (int i = 0; i < 10000; i++) {
		char id[16], file[64], var[32], fp[20];
		int g = (i * 7919) % 20000, line = 10 + i % 400;
		int op = i % 5 == 2 || i % 5 == 3 ? 0 : i % 5 == 1 ? 3 : 1;
		static const char *const ops[] = { "alloc", "to_device", "kernel", "from_device" };
		long savings = 1000 + (long)((i * 2654435761UL) % 500000);
		json_t *events = json_array(), *lines = json_array();
		snprintf(id, sizeof(id), "F%d", i + 1);
		snprintf(file, sizeof(file), "src/module%02d/kernel_%03d.c", i % 37, i % 211);
		snprintf(var, sizeof(var), "buf%d[0:%d]", i % 53, 1024 + i % 977);
		snprintf(fp, sizeof(fp), "%016x", i * 2654435761U);
		for (int e = 0; e < 1 + i % 3; e++) {
			int gg = (g + e * 13) % 20000;
			json_array_append_new(events, json_pack("{sIsssIsIsIsisi}",
				"seq", (json_int_t)(10 + 5 * gg + op), "op", ops[op],
				"begin_ns", (json_int_t)(10000L * gg + (op == 1 ? 400 : op == 3 ? 6000 : 0)),
				"end_ns", (json_int_t)(10000L * gg + (op == 1 ? 2400 : op == 3 ? 7800 : 300)),
				"bytes", (json_int_t)65536, "src_device", op == 3 ? gg % 2 : 4,
				"dest_device", op == 3 ? 4 : gg % 2));
		}
		for (int l = line - 2; l <= line + 2; l++) {
			char text[96];
			if (l == line)
				snprintf(text, sizeof(text), "#pragma omp target teams distribute map(tofrom: %s)", var);
			else
				snprintf(text, sizeof(text), "\tstep_%d(state, %d);", l, i);
			json_array_append_new(lines, json_string(text));
		}
		total += savings;
		json_array_append_new(findings, json_pack(
			"{ss ss ss si sI sI s[i] s[{ss ss ss ss ss si si ss s{si so}}] s{ss ss} so ss}",
			"id", id, "kind", kinds[i % 5], "fingerprint", fp, "occurrences", 1 + i % 3,
			"bytes", (json_int_t)65536 * (1 + i % 3), "savings_ns", (json_int_t)savings,
			"devices", g % 2,
			"locations", "codeptr", "0x401000", "module", "bigapp", "offset", "0x1000",
			"function", "solve", "file", file, "line", line, "column", 1, "origin", "ompt-ident",
			"snippet", "first_line", line - 2, "lines", lines,
			"variable", "name", var, "origin", "map-name",
			"events", events, "advice", "Keep the data on the device across the loop."));
	}
	return json_pack("{ss si s{s[ss] si sI ss s[{sisi}] ss ss} s{sIsIsIsIsf} so}",
			 "format", "mapprof-report", "version", 1,
			 "run", "command", "./bigapp", "--steps=20000", "exit_status", 0,
			 "duration_ns", (json_int_t)200000000, "runtime", "LLVM OMP version: 5.0.20140926",
			 "devices", "device", 0, "device", 1, "start_time", "2026-11-21T05:00:00Z",
			 "host", "buildhost",
			 "summary", "duration_ns", (json_int_t)200000000, "transfer_ns", (json_int_t)80000000,
			 "alloc_ns", (json_int_t)10000000, "savings_ns", (json_int_t)(total / 100),
			 "predicted_speedup", 200000000.0 / (200000000.0 - total / 100.0),
			 "findings", findings);
}

static void test_big(void)
{
	struct db *db = big_db();
	json_t *report = big_report();
	struct timespec a, b;
	CHECK(db && report);
	if (!db || !report)
		return;
	clock_gettime(CLOCK_MONOTONIC, &a);
	char *page = render("big-report.html", report, db);
	clock_gettime(CLOCK_MONOTONIC, &b);
	check_page(page);
	/* Rendering 100 000 events and 10 000 findings takes well under a second here. */
	double s = (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
	CHECK(s < 10.0);
	if (page)
		CHECK(strlen(page) < 30u << 20);
	free(page);
	json_decref(report);
	db_close(db);
}

/* --- the timeline on its own ---------------------------------------------- */

static void test_timeline(void)
{
	struct db *db = sample_db();
	char *err = NULL;
	int64_t marks[] = { 13, 3, 10, 13 };
	json_t *tl, *dev, *lanes, *k, *mapped, *mk;
	if (!db)
		return;
	tl = timeline_build(db, marks, 4, &err);
	CHECK(tl != NULL);
	if (!tl) {
		fprintf(stderr, "%s\n", err);
		free(err);
		db_close(db);
		return;
	}
	/* First event: the alloc at 10 us; last: the final delete ending at 4.675 ms. */
	CHECK_INT(json_integer_value(json_object_get(tl, "start_ns")), 10000);
	CHECK_INT(json_integer_value(json_object_get(tl, "end_ns")), 4675000);
	CHECK_INT(json_integer_value(json_object_get(tl, "bins")), 2000);
	CHECK_INT(json_array_size(json_object_get(tl, "devices")), 1);
	dev = json_array_get(json_object_get(tl, "devices"), 0);
	CHECK_INT(json_integer_value(json_object_get(dev, "device")), 0);
	CHECK_STR(json_string_value(json_object_get(dev, "type")), "generic-64bit");
	lanes = json_object_get(dev, "lanes");
	k = json_object_get(lanes, "kernels");
	CHECK_INT(json_integer_value(json_object_get(k, "count")), 5);
	CHECK_INT(json_integer_value(json_object_get(k, "busy_ns")), 5 * 300000);
	CHECK_INT(json_array_size(json_object_get(k, "intervals")), 5);
	/* Busy time is conserved by the binning. */
	json_int_t busy = 0;
	size_t i;
	json_t *bin;
	json_array_foreach(json_object_get(k, "bins"), i, bin)
		busy += json_integer_value(json_array_get(bin, 1));
	CHECK_INT(busy, 5 * 300000);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(lanes, "to_device"), "count")), 5);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(lanes, "from_device"), "count")), 5);
	CHECK_INT(json_integer_value(json_object_get(json_object_get(lanes, "alloc_ops"), "count")), 10);
	mapped = json_object_get(lanes, "mapped");
	CHECK_INT(json_integer_value(json_object_get(mapped, "count")), 5);
	CHECK_INT(json_integer_value(json_object_get(mapped, "peak_bytes")), 2048);
	/* Marks: seq 3 (from_device), 13 (from_device), 10 (alloc op + lifetime). */
	mk = json_object_get(tl, "marks");
	CHECK_INT(json_array_size(mk), 4);
	json_array_foreach(mk, i, bin) {
		json_int_t seq = json_integer_value(json_array_get(bin, 0));
		const char *lane = json_string_value(json_array_get(bin, 2));
		CHECK(seq == 3 || seq == 13 || seq == 10);
		if (seq == 13) {
			CHECK_STR(lane, "from_device");
			CHECK_INT(json_integer_value(json_array_get(bin, 3)), 1500000);
			CHECK_INT(json_integer_value(json_array_get(bin, 4)), 1650000);
		}
		if (seq == 10)
			CHECK(!strcmp(lane, "alloc_ops") || !strcmp(lane, "mapped"));
	}
	json_decref(tl);
	db_close(db);
}

/* The intervals of lane 'name' of the timeline's first device, as "[b,e,bytes,seq]..." text. */
static char *lane_intervals(json_t *tl, const char *name)
{
	json_t *dev = json_array_get(json_object_get(tl, "devices"), 0);
	json_t *lane = json_object_get(json_object_get(dev, "lanes"), name);
	return json_dumps(json_object_get(lane, "intervals"), JSON_COMPACT);
}

/*
 * Damaged rows and odd pairs: what the views kernels, data_ops and
 * allocations give over sound rows.  A delete whose allocation is damaged
 * keeps its own bytes; a lifetime whose delete is damaged never ends (it
 * runs to the timeline's end); a pair naming a transfer as its delete ends
 * the lifetime there (an allocation freed twice has two); a sound row
 * holding a real reads as SQLite truncates it.
 */
static void test_timeline_damaged(void)
{
	struct db *db = sample_db();
	char *err = NULL, *s;
	json_t *tl;
	if (!db)
		return;
	check_exec(db, "UPDATE data_op_raw SET bytes = -1 WHERE seq = 10;"
		 "UPDATE data_op_raw SET dur_ns = NULL WHERE seq = 24;"
		 "UPDATE data_op_raw SET begin_ns = 3010000.5 WHERE seq = 30;"
		 "INSERT INTO delete_pair_raw VALUES (41, 40);"
		 "UPDATE kernel_raw SET dur_ns = 300000.75 WHERE seq = 2;"
		 "UPDATE kernel_raw SET device = 'x' WHERE seq = 12;");
	tl = timeline_build(db, NULL, 0, &err);
	CHECK(tl != NULL);
	if (!tl) {
		fprintf(stderr, "%s\n", err);
		free(err);
		db_close(db);
		return;
	}
	CHECK_INT(json_integer_value(json_object_get(tl, "end_ns")), 4675000);
	s = lane_intervals(tl, "mapped");
	CHECK_STR(s, "[[10000,675000,2048,0],[2010000,4675000,2048,20],[3010000,3675000,2048,30],"
		  "[4010000,4190000,2048,40],[4010000,4675000,2048,40]]");
	free(s);
	s = lane_intervals(tl, "alloc_ops");
	CHECK_STR(s, "[[10000,30000,2048,0],[660000,675000,2048,4],[1660000,1675000,0,14],"
		  "[2010000,2030000,2048,20],[3010000,3030000,2048,30],[3660000,3675000,2048,34],"
		  "[4010000,4030000,2048,40],[4660000,4675000,2048,44]]");
	free(s);
	s = lane_intervals(tl, "kernels");
	CHECK_STR(s, "[[190000,490000,0,2],[2190000,2490000,0,22],[3190000,3490000,0,32],"
		  "[4190000,4490000,0,42]]");
	free(s);
	json_decref(tl);
	db_close(db);
}

static void test_errors(void)
{
	char *err = NULL;
	json_t *r = json_object();
	CHECK_INT(html_write("/nonexistent-dir/report.html", 0, r, NULL, &err), -1);
	CHECK(err && strstr(err, "cannot write '/nonexistent-dir/report.html'"));
	free(err);
	err = NULL;
	json_t *a = json_array();
	CHECK_INT(html_write("/tmp/x.html", 0, a, NULL, &err), -1);
	CHECK(err != NULL);
	free(err);
	json_decref(a);
	/* Without a database the page still renders, with "timeline": null. */
	char *page = render("no-db-report.html", r, NULL);
	check_page(page);
	if (page)
		CHECK(strstr(page, "\"timeline\":null") != NULL);
	free(page);
	json_decref(r);
}

int main(void)
{
	const char *b = getenv("MAPPROF_BUILD");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	if (b && *b) {
		snprintf(outdir, sizeof(outdir), "%s/test-output", b);
		if (mkdir(outdir, 0777) < 0 && errno != EEXIST) {
			perror(outdir);
			return 1;
		}
	} else {
		snprintf(outdir, sizeof(outdir), "%s", tmpdir);
	}
	RUN(test_timeline);
	RUN(test_timeline_damaged);
	RUN(test_sample);
	RUN(test_xss);
	RUN(test_big);
	RUN(test_errors);
	char cmd[4200];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s\n", tmpdir);
	return check_done();
}
