/*
 * html.c - render report.html from the template and the report's data.
 *
 * The template holds {{NAME}} placeholders: CSP, CSS, JS, DATA and VERSION.
 * CSS and JS are the embedded assets, inlined verbatim so that their SHA-256
 * hashes, computed here, match what the browser hashes for the CSP.  DATA is
 * the report (plus its timeline) as compact JSON, escaped for a <script>
 * element as html.h explains.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "db/store/attribution.h"
#include "db/read/timeline.h"
#include "lib/outfile.h"
#include "report/output/html.h"

#ifndef MAPPROF_VERSION
#define MAPPROF_VERSION "unknown"
#endif

extern const char asset_report_html[];
extern const char asset_report_css[];
extern const char asset_report_js[];

static int fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int fail(char **err, const char *fmt, ...)
{
	if (err) {
		va_list ap;
		va_start(ap, fmt);
		if (vasprintf(err, fmt, ap) < 0)
			*err = NULL;
		va_end(ap);
	}
	return -1;
}

/* --- SHA-256 (FIPS 180-4), only for the CSP hashes of the inlined assets --- */

static const uint32_t sha_k[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha256_block(uint32_t h[8], const unsigned char *p)
{
	uint32_t w[64], a, b, c, d, e, f, g, k;
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
		       (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], k = h[7];
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = k + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) +
			      sha_k[i] + w[i];
		uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
		k = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
	}
	h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += k;
}

static void sha256(const void *data, size_t n, unsigned char out[32])
{
	uint32_t h[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
			  0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	const unsigned char *p = data;
	unsigned char tail[128] = { 0 };
	size_t full = n / 64 * 64, rest = n - full, tn;
	uint64_t bits = (uint64_t)n * 8;

	for (size_t i = 0; i < full; i += 64)
		sha256_block(h, p + i);
	memcpy(tail, p + full, rest);
	tail[rest] = 0x80;
	tn = rest + 9 <= 64 ? 64 : 128;
	for (int i = 0; i < 8; i++)
		tail[tn - 1 - i] = (unsigned char)(bits >> (8 * i));
	for (size_t i = 0; i < tn; i += 64)
		sha256_block(h, tail + i);
	for (int i = 0; i < 8; i++) {
		out[4 * i] = (unsigned char)(h[i] >> 24);
		out[4 * i + 1] = (unsigned char)(h[i] >> 16);
		out[4 * i + 2] = (unsigned char)(h[i] >> 8);
		out[4 * i + 3] = (unsigned char)h[i];
	}
}

/* 'sha256-<base64>' of text, as CSP source expressions spell it (out: 52+ bytes). */
static void csp_hash(const char *text, char out[64])
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	unsigned char d[33] = { 0 };
	char *o = out + sprintf(out, "'sha256-");

	sha256(text, strlen(text), d);
	for (int i = 0; i < 33; i += 3) {
		uint32_t v = (uint32_t)d[i] << 16 | (uint32_t)d[i + 1] << 8 | d[i + 2];
		*o++ = b64[v >> 18 & 63];
		*o++ = b64[v >> 12 & 63];
		*o++ = i + 1 < 32 ? b64[v >> 6 & 63] : '=';
		*o++ = i + 2 < 32 ? b64[v & 63] : '=';
	}
	strcpy(o, "'");
}

/* --- the data block ------------------------------------------------------- */

struct data_out {
	FILE *f;
	int pend;   /* bytes of a possible U+2028/U+2029 (E2 80 ..) held back: 0-2 */
};

/*
 * Jansson's dump callback.  '<', '>' and '&' (which JSON only has inside
 * strings) become \u escapes; so do U+2028/U+2029, held back across calls in
 * case a chunk ends inside one.
 */
static int data_chunk(const char *buf, size_t n, void *arg)
{
	struct data_out *o = arg;
	size_t run = 0;   /* bytes from buf + run_start written as they are, pending */
	size_t run_start = 0;

	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)buf[i];
		if (!o->pend && c != '<' && c != '>' && c != '&' && c != 0xe2) {
			/* Most bytes: written in runs, not one putc each. */
			if (!run)
				run_start = i;
			run++;
			continue;
		}
		if (run) {
			fwrite(buf + run_start, 1, run, o->f);
			run = 0;
		}
		if (o->pend == 1 && c == 0x80) {
			o->pend = 2;
			continue;
		}
		if (o->pend == 2 && (c == 0xa8 || c == 0xa9)) {
			fputs(c == 0xa8 ? "\\u2028" : "\\u2029", o->f);
			o->pend = 0;
			continue;
		}
		if (o->pend)
			fputs(o->pend == 1 ? "\xe2" : "\xe2\x80", o->f);
		o->pend = 0;
		switch (c) {
		case '<': fputs("\\u003c", o->f); break;
		case '>': fputs("\\u003e", o->f); break;
		case '&': fputs("\\u0026", o->f); break;
		case 0xe2: o->pend = 1; break;
		default: putc(c, o->f);
		}
	}
	if (run)
		fwrite(buf + run_start, 1, run, o->f);
	return 0;
}

/* The sequence numbers of every finding's events, for the timeline marks. */
static int64_t *finding_seqs(json_t *report, size_t *n)
{
	json_t *findings = json_object_get(report, "findings"), *f, *ev;
	size_t i, j, cap = 0, k = 0;
	int64_t *seqs = NULL;

	json_array_foreach(findings, i, f)
		cap += json_array_size(json_object_get(f, "events"));
	seqs = malloc((cap ? cap : 1) * sizeof(*seqs));
	if (!seqs)
		return NULL;
	json_array_foreach(findings, i, f) {
		json_array_foreach(json_object_get(f, "events"), j, ev) {
			json_t *s = json_object_get(ev, "seq");
			if (json_is_integer(s))
				seqs[k++] = json_integer_value(s);
		}
	}
	*n = k;
	return seqs;
}

/*
 * report.json lists each finding's events by seq; the page shows their
 * times, directions, sizes and devices.  Replaces data's findings with a copy
 * whose events are those objects (report's own findings stay untouched).
 */
static void expand_events(json_t *data, struct db *db)
{
	struct attribution *at = attribution_open(db);
	json_t *findings, *f;
	size_t i;

	if (!at)
		return;
	findings = json_deep_copy(json_object_get(data, "findings"));
	json_array_foreach(findings, i, f) {
		json_t *ev = json_object_get(f, "events");
		if (json_array_size(ev) && json_is_integer(json_array_get(ev, 0)))
			json_object_set_new(f, "events", attribution_events(at, ev));
	}
	if (findings)
		json_object_set_new(data, "findings", findings);
	attribution_close(at);
}

/* The report plus what the page adds; a new object sharing report's members. */
static json_t *page_data(json_t *report, struct db *db, const struct timeline_span *span,
			 struct timeline_job *job, char **err)
{
	json_t *data = json_object(), *timeline = json_null();

	json_object_update(data, report);
	if (db) {
		size_t n = 0;
		int64_t *seqs;
		expand_events(data, db);
		seqs = finding_seqs(data, &n);
		if (!seqs) {
			timeline_job_free(job);
			json_decref(data);
			fail(err, "out of memory");
			return NULL;
		}
		timeline = job ? timeline_job_finish(job, seqs, n, err) : timeline_build_span(db, seqs, n, span, err);
		free(seqs);
		if (!timeline) {
			json_decref(data);
			return NULL;
		}
	} else {
		timeline_job_free(job);
	}
	json_object_set_new(data, "timeline", timeline);
	json_object_set_new(data, "generator", json_pack("{ssss}", "name", "mapprof",
							  "version", MAPPROF_VERSION));
	return data;
}

/*
 * An asset must not end its own element early: the HTML parser ends a
 * <script> at '</script' and treats '<!--' and '<script' in it specially.
 */
static int asset_ok(const char *text, const char *const *bad)
{
	for (; *bad; bad++)
		if (strcasestr(text, *bad))
			return 0;
	return 1;
}

static int write_page(FILE *f, json_t *data, char **err)
{
	static const char *const bad_js[] = { "</script", "<!--", "<script", NULL };
	static const char *const bad_css[] = { "</style", "<!--", NULL };
	char js_hash[64], css_hash[64];
	const char *p = asset_report_html;

	if (!asset_ok(asset_report_js, bad_js) || !asset_ok(asset_report_css, bad_css))
		return fail(err, "the embedded report assets cannot be inlined (an asset contains "
			    "'</script', '</style' or '<!--')");
	csp_hash(asset_report_js, js_hash);
	csp_hash(asset_report_css, css_hash);

	while (*p) {
		const char *open = strstr(p, "{{"), *close;
		size_t len;
		if (!open) {
			fputs(p, f);
			break;
		}
		fwrite(p, 1, open - p, f);
		close = strstr(open, "}}");
		if (!close)
			return fail(err, "report template: unterminated placeholder");
		len = close - open - 2;
		if (len == 3 && !strncmp(open + 2, "CSP", 3)) {
			fprintf(f, "default-src 'none'; script-src %s; style-src %s; img-src data:; "
				"base-uri 'none'; form-action 'none'", js_hash, css_hash);
		} else if (len == 3 && !strncmp(open + 2, "CSS", 3)) {
			fputs(asset_report_css, f);
		} else if (len == 2 && !strncmp(open + 2, "JS", 2)) {
			fputs(asset_report_js, f);
		} else if (len == 7 && !strncmp(open + 2, "VERSION", 7)) {
			fputs(MAPPROF_VERSION, f);
		} else if (len == 4 && !strncmp(open + 2, "DATA", 4)) {
			struct data_out o = { f, 0 };
			if (json_dump_callback(data, data_chunk, &o, JSON_COMPACT) < 0)
				return fail(err, "cannot encode the report data as JSON");
			if (o.pend)
				fputs(o.pend == 1 ? "\xe2" : "\xe2\x80", f);
		} else {
			return fail(err, "report template: unknown placeholder '%.*s'", (int)len, open + 2);
		}
		p = close + 2;
	}
	return 0;
}

int html_write(const char *path, unsigned oflags, json_t *report, struct db *db, char **err)
{
	return html_write_job(path, oflags, report, db, NULL, NULL, err);
}

int html_write_job(const char *path, unsigned oflags, json_t *report, struct db *db,
		   const struct timeline_span *span, struct timeline_job *job, char **err)
{
	struct outfile o;
	json_t *data;
	int rc;

	if (!json_is_object(report)) {
		timeline_job_free(job);
		return fail(err, "cannot write '%s': the report is not a JSON object", path);
	}
	data = page_data(report, db, span, job, err);
	if (!data)
		return -1;
	if (outfile_open(&o, path, oflags) < 0) {
		rc = -1;
		goto cannot;
	}
	rc = write_page(o.f, data, err);
	if (rc < 0 && !o.err) {
		outfile_discard(&o);  /* *err says why */
		goto out;
	}
	if (rc < 0) {
		/* A write failed (o.err): that, not what write_page made of it. */
		if (err) {
			free(*err);
			*err = NULL;
		}
	}
	rc = outfile_commit(&o);
cannot:
	if (rc < 0) {
		const char *why = strerror(errno);
		if (outfile_is_stdout(path))
			fail(err, "cannot write the report to standard output: %s", why);
		else
			fail(err, "cannot write '%s': %s", path, why);
	}
out:
	json_decref(data);
	return rc;
}
