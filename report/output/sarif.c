/*
 * sarif.c - report.json's findings as a SARIF 2.1.0 log.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/store/source_path.h"
#include "report/output/json.h"
#include "report/detect/occurrence.h"
#include "report/findings/checks.h"
#include "report/output/sarif.h"
#include "lib/units.h"

#define SARIF_SCHEMA "https://json.schemastore.org/sarif-2.1.0.json"
#define FINGERPRINT_KEY "mapprof/v1"

/* What each pattern's rule says (docs/report-json.md, "The patterns"). */
static const struct rule_text {
	const char *name;        /* SARIF rule name: PascalCase */
	const char *title;       /* for messages */
	const char *brief;       /* shortDescription */
	const char *full;        /* fullDescription */
	const char *help;        /* what to do */
} rules[FINDING_KIND_COUNT] = {
	[FINDING_DUPLICATE_TRANSFER] = {
		"DuplicateTransfer", "Duplicate transfer",
		"Data sent to a device that already had it",
		"A transfer whose content (hash and size) its destination device had already "
		"received: every receipt after the first is wasted time.",
		"Map the data once around the constructs that use it (an enclosing 'target data' "
		"region, or 'target enter data'/'exit data') instead of on each construct. When only "
		"other data with identical content was there before (often zero-initialised "
		"buffers), allocate and initialise such buffers on the device instead.",
	},
	[FINDING_ROUND_TRIP] = {
		"RoundTrip", "Round trip",
		"Data that comes back unchanged from where it was sent",
		"A pair of transfers: data sent to a device (or the host) and returned unchanged "
		"to where it came from. Both legs are wasted time.",
		"When the device copy came back unchanged, map it 'to' instead of 'tofrom' (or drop "
		"the 'from' update). When the host sends back what the device just gave it, keep the "
		"data on the device across the constructs with an enclosing 'target data' region.",
	},
	[FINDING_REPEATED_ALLOC] = {
		"RepeatedAllocation", "Repeated allocation",
		"The same data allocated and freed on a device again and again",
		"An allocation of the same host data, device and size as an earlier one: each "
		"allocation after the first, and its delete, is wasted time.",
		"Map the data once with 'target enter data' before the loop and 'target exit data' "
		"after it.",
	},
	[FINDING_UNUSED_ALLOC] = {
		"UnusedAllocation", "Unused allocation",
		"A device allocation that no kernel could use",
		"An allocation whose lifetime overlaps no kernel of its device: the allocation and "
		"its delete are wasted time.",
		"Remove the mapping, or move it to where a kernel uses the data.",
	},
	[FINDING_UNUSED_TRANSFER] = {
		"UnusedTransfer", "Unused transfer",
		"Data sent to a device that no kernel read",
		"A transfer to a device that a later transfer to the same place overwrote before "
		"any kernel of that device began, or after which no kernel of that device began.",
		"Drop the earlier update or merge the two; a transfer after the last kernel is "
		"often a 'to' where 'from' or nothing was meant.",
	},
};

static int kind_index(const char *kind)
{
	for (int k = 0; k < FINDING_KIND_COUNT; k++)
		if (kind && !strcmp(kind, finding_kind_name(k)))
			return k;
	return -1;
}

static json_t *text(const char *s)
{
	return json_pack("{ss}", "text", s);
}

static json_t *rule_json(int k)
{
	const struct rule_text *r = &rules[k];
	json_t *o = json_object(), *help = json_object(), *props = json_object();
	char *md = NULL;

	json_object_set_new(o, "id", json_string(finding_kind_name(k)));
	json_object_set_new(o, "name", json_string(r->name));
	json_object_set_new(o, "shortDescription", text(r->brief));
	json_object_set_new(o, "fullDescription", text(r->full));
	json_object_set_new(help, "text", json_string(r->help));
	if (asprintf(&md, "**%s.** %s\n\n%s\n\nLevel: `error` when fixing the finding would save "
		     "at least %g%% of the run, `warning` at least %g%%, else `note`.",
		     r->title, r->full, r->help, SARIF_ERROR_PERCENT, SARIF_WARNING_PERCENT) >= 0) {
		json_object_set_new(help, "markdown", json_string(md));
		free(md);
	}
	json_object_set_new(o, "help", help);
	json_object_set_new(o, "defaultConfiguration", json_pack("{ss}", "level", "warning"));
	json_object_set_new(props, "tags", json_pack("[sss]", "performance", "openmp", "data-mapping"));
	json_object_set_new(o, "properties", props);
	return o;
}

/* '/'-separated, without '.', '..' (lexically) or repeated '/'.  In place. */
static void normalize(char *path)
{
	int abs = *path == '/';
	char *start = path + abs, *out = start, *p = start;

	while (*p) {
		char *seg = p;
		size_t n;
		while (*p && *p != '/')
			p++;
		n = (size_t)(p - seg);
		while (*p == '/')
			p++;
		if (n == 0 || (n == 1 && seg[0] == '.'))
			continue;
		if (n == 2 && seg[0] == '.' && seg[1] == '.') {
			int last_up = out - start >= 2 && out[-1] == '.' && out[-2] == '.' &&
				      (out - start == 2 || out[-3] == '/');
			if (out > start && !last_up) {
				/* Drop the last segment written (and its '/'). */
				out--;
				while (out > start && out[-1] != '/')
					out--;
				if (out > start)
					out[-1] = 0, out--;
				continue;
			}
			if (abs)
				continue;
		}
		if (out > start)
			*out++ = '/';
		memmove(out, seg, n);
		out += n;
	}
	*out = 0;
}

/* Percent-encode all but unreserved characters and '/'; malloc'ed. */
static char *uri_escape(const char *prefix, const char *path)
{
	size_t np = strlen(prefix), n = strlen(path);
	char *out = malloc(np + 3 * n + 1), *q;

	if (!out)
		return NULL;
	memcpy(out, prefix, np);
	q = out + np;
	for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("-._~/", *p))
			*q++ = (char)*p;
		else
			q += sprintf(q, "%%%02X", *p);
	}
	*q = 0;
	return out;
}

struct sarif_ctx {
	struct db *db;
	char *root;        /* the source root, real and normalized; NULL: none */
};

/*
 * {"uri", "uriBaseId"?} for the file of 'codeptr' (else for 'module', the
 * binary), or NULL when neither is known.
 */
static json_t *artifact(struct sarif_ctx *c, uint64_t codeptr, const char *module)
{
	char *path = codeptr ? db_source_path(c->db, codeptr) : NULL, *uri = NULL, *real;
	json_t *o;

	if (!path)
		return module ? json_pack("{ss}", "uri", module) : NULL;
	real = path[0] == '/' ? realpath(path, NULL) : NULL;
	if (real) {
		free(path);
		path = real;
	}
	normalize(path);
	o = json_object();
	if (path[0] == '/' && c->root) {
		size_t n = strlen(c->root);
		const char *rel = NULL;
		if (n == 1)
			rel = path + 1;
		else if (!strncmp(path, c->root, n) && path[n] == '/')
			rel = path + n + 1;
		if (rel && *rel) {
			uri = uri_escape("", rel);
			json_object_set_new(o, "uriBaseId", json_string(SARIF_BASE_ID));
		}
	}
	if (!uri)
		uri = uri_escape(path[0] == '/' ? "file://" : "", path);
	json_object_set_new(o, "uri", uri ? json_string(uri) : json_string(""));
	free(uri);
	free(path);
	return o;
}

static uint64_t address_of(json_t *place)
{
	const char *s = json_string_value(json_object_get(place, "address"));
	return s ? strtoull(s, NULL, 16) : 0;
}

/* A SARIF location for a report.json place; NULL when it names no artifact. */
static json_t *location(struct sarif_ctx *c, json_t *place, int id, const char *msg)
{
	const char *module = json_string_value(json_object_get(place, "module"));
	json_int_t line = json_integer_value(json_object_get(place, "line"));
	json_int_t column = json_integer_value(json_object_get(place, "column"));
	json_t *art = artifact(c, address_of(place), module), *phys, *loc;

	if (!art)
		return NULL;
	phys = json_object();
	json_object_set_new(phys, "artifactLocation", art);
	if (line > 0 && json_object_get(art, "uri") && json_string_value(json_object_get(place, "file"))) {
		json_t *region = json_object();
		json_object_set_new(region, "startLine", json_integer(line));
		if (column > 0)
			json_object_set_new(region, "startColumn", json_integer(column));
		json_object_set_new(phys, "region", region);
	}
	loc = json_object();
	if (id >= 0)
		json_object_set_new(loc, "id", json_integer(id));
	json_object_set_new(loc, "physicalLocation", phys);
	if (msg)
		json_object_set_new(loc, "message", text(msg));
	return loc;
}

static const char *level_for(double percent)
{
	if (percent >= SARIF_ERROR_PERCENT)
		return "error";
	if (percent >= SARIF_WARNING_PERCENT)
		return "warning";
	return "note";
}

/* What the first location of a finding of kind k is, and what the others are. */
static const char *role_first(int k)
{
	switch (k) {
	case FINDING_ROUND_TRIP:
		return "the send of the round trip";
	case FINDING_REPEATED_ALLOC:
	case FINDING_UNUSED_ALLOC:
		return "the allocation";
	default:
		return "the transfer";
	}
}

static const char *role_other(int k, int i)
{
	switch (k) {
	case FINDING_ROUND_TRIP:
		return i == 1 ? "the return of the round trip" : "another leg of the round trip";
	case FINDING_REPEATED_ALLOC:
	case FINDING_UNUSED_ALLOC:
		return "the delete that frees it";
	default:
		return "another transfer of this finding";
	}
}

static json_t *result_json(struct sarif_ctx *c, json_t *f, double duration_ns)
{
	int k = kind_index(json_string_value(json_object_get(f, "kind")));
	const char *flavour = json_string_value(json_object_get(f, "flavour"));
	const char *var = json_string_value(json_object_get(json_object_get(f, "variable"), "name"));
	const char *advice = json_string_value(json_object_get(f, "advice"));
	json_int_t occ = json_integer_value(json_object_get(f, "occurrences"));
	json_int_t bytes = json_integer_value(json_object_get(f, "bytes"));
	json_int_t savings = json_integer_value(json_object_get(f, "savings_ns"));
	json_t *locs = json_object_get(f, "locations"), *origins = json_object_get(f, "origins");
	double pct = duration_ns > 0 ? 100.0 * (double)savings / duration_ns : 0;
	json_t *r, *arr, *related, *props, *loc;
	char t[32], *msg = NULL;
	size_t i;
	int id = 1;

	if (k < 0)
		return NULL;
	format_ns(t, sizeof(t), savings);
	if (asprintf(&msg, "%s%s%s%s%s%s%s: %lld occurrence%s, %lld bytes %s; fixing it would save %s "
		     "(%.2f%% of the run). %s",
		     rules[k].title, var ? " of '" : "", var ? var : "", var ? "'" : "",
		     flavour ? " (" : "", flavour ? flavour : "", flavour ? ")" : "",
		     (long long)occ, occ == 1 ? "" : "s",
		     (long long)bytes,
		     k == FINDING_REPEATED_ALLOC || k == FINDING_UNUSED_ALLOC ? "allocated needlessly"
									       : "moved needlessly",
		     t, pct, advice ? advice : "") < 0)
		return NULL;
	r = json_object();
	json_object_set_new(r, "ruleId", json_string(finding_kind_name(k)));
	json_object_set_new(r, "ruleIndex", json_integer(k));
	json_object_set_new(r, "level", json_string(level_for(pct)));
	json_object_set_new(r, "message", text(msg));
	free(msg);

	arr = json_array();
	related = json_array();
	for (i = 0; i < json_array_size(locs); i++) {
		if (i == 0) {
			loc = location(c, json_array_get(locs, 0), -1, NULL);
			if (loc)
				json_array_append_new(arr, loc);
		} else if ((loc = location(c, json_array_get(locs, i), id, role_other(k, (int)i)))) {
			json_array_append_new(related, loc);
			id++;
		}
	}
	if (json_array_size(locs) > 0 && k == FINDING_ROUND_TRIP && json_array_size(locs) == 1 &&
	    json_array_size(arr) == 1) {
		/* Both legs at one directive (a 'tofrom' in a loop): say so there. */
		json_object_set_new(json_array_get(arr, 0), "message",
				    text("the send and the return of the round trip"));
	} else if (json_array_size(arr) == 1) {
		json_object_set_new(json_array_get(arr, 0), "message", text(role_first(k)));
	}
	for (i = 0; i < json_array_size(origins); i++)
		if ((loc = location(c, json_array_get(origins, i), id,
				    "where the destination first received this content"))) {
			json_array_append_new(related, loc);
			id++;
		}
	json_object_set_new(r, "locations", arr);
	if (json_array_size(related))
		json_object_set_new(r, "relatedLocations", related);
	else
		json_decref(related);

	json_object_set_new(r, "partialFingerprints",
			    json_pack("{sO}", FINGERPRINT_KEY, json_object_get(f, "fingerprint")));
	props = json_object();
	json_object_set_new(props, "id", json_deep_copy(json_object_get(f, "id")));
	json_object_set_new(props, "kind", json_string(finding_kind_name(k)));
	json_object_set_new(props, "flavour", flavour ? json_string(flavour) : json_null());
	json_object_set_new(props, "occurrences", json_integer(occ));
	json_object_set_new(props, "bytes", json_integer(bytes));
	json_object_set_new(props, "savings_ns", json_integer(savings));
	json_object_set_new(props, "savings_percent", json_real(pct));
	json_object_set_new(props, "devices", json_deep_copy(json_object_get(f, "devices")));
	json_object_set_new(r, "properties", props);
	return r;
}

/* A check's rule (report/findings/checks.h): always level error, its own id. */
static json_t *check_rule_json(int k)
{
	static const char *const full[CHECK_KIND_COUNT] = {
		("A copy from the device to the host brought back bytes that nothing wrote on the device "
		 "since its buffer was allocated (no kernel, no transfer): uninitialised device memory "
		 "overwrote the host's data."),
		("A copy from the device overwrote host bytes that the host changed after they were last "
		 "sent to or received from that device: the device never saw the change, and the copy "
		 "silently undid it."),
		("The host wrote the source of a nowait copy to a device, or the destination of a nowait "
		 "copy back, between the copy's start and its task's completion."),
	};
	json_t *o = json_object(), *props = json_object();

	json_object_set_new(o, "id", json_string(check_rule_id(k)));
	json_object_set_new(o, "name", json_string(check_kind_name(k)));
	json_object_set_new(o, "shortDescription", text(check_title(k)));
	json_object_set_new(o, "fullDescription", text(full[k]));
	json_object_set_new(o, "help", json_pack("{ss}", "text", "found by 'mapprof record --check': "
						 "docs/checks.md says how, and what it cannot see"));
	json_object_set_new(o, "defaultConfiguration", json_pack("{ss}", "level", "error"));
	json_object_set_new(props, "tags", json_pack("[sss]", "correctness", "openmp", "data-mapping"));
	json_object_set_new(o, "properties", props);
	return o;
}

static int check_kind_index(const char *kind)
{
	for (int k = 0; kind && k < CHECK_KIND_COUNT; k++)
		if (!strcmp(kind, check_kind_name(k)))
			return k;
	return -1;
}

/* A stable id across runs: the kind, the module-relative place and the variable (FNV-1a, hex). */
static json_t *check_fingerprint(json_t *f)
{
	json_t *place = json_object_get(f, "location");
	const char *parts[4] = {
		json_string_value(json_object_get(f, "rule")),
		json_string_value(json_object_get(place, "module")),
		json_string_value(json_object_get(place, "offset")),
		json_string_value(json_object_get(json_object_get(f, "variable"), "name")),
	};
	uint64_t h = 1469598103934665603ull;
	char buf[24];

	for (int i = 0; i < 4; i++) {
		for (const char *p = parts[i] ? parts[i] : ""; *p; p++)
			h = (h ^ (unsigned char)*p) * 1099511628211ull;
		h = (h ^ 0xff) * 1099511628211ull;
	}
	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)h);
	return json_string(buf);
}

static json_t *check_result_json(struct sarif_ctx *c, json_t *f)
{
	int k = check_kind_index(json_string_value(json_object_get(f, "kind")));
	const char *msg = json_string_value(json_object_get(f, "message"));
	const char *fix = json_string_value(json_object_get(f, "fix"));
	json_t *r, *arr, *loc, *props;
	char *all = NULL;

	if (k < 0 || asprintf(&all, "%s: %s. Fix: %s.", check_title(k), msg ? msg : "", fix ? fix : "") < 0)
		return NULL;
	r = json_object();
	json_object_set_new(r, "ruleId", json_string(check_rule_id(k)));
	json_object_set_new(r, "ruleIndex", json_integer(FINDING_KIND_COUNT + k));
	json_object_set_new(r, "level", json_string("error"));
	json_object_set_new(r, "message", text(all));
	free(all);
	arr = json_array();
	if ((loc = location(c, json_object_get(f, "location"), -1, NULL)))
		json_array_append_new(arr, loc);
	json_object_set_new(r, "locations", arr);
	json_object_set_new(r, "partialFingerprints", json_pack("{so}", FINGERPRINT_KEY, check_fingerprint(f)));
	props = json_object();
	json_object_set_new(props, "id", json_deep_copy(json_object_get(f, "id")));
	json_object_set_new(props, "kind", json_string(check_kind_name(k)));
	json_object_set_new(props, "occurrences", json_deep_copy(json_object_get(f, "occurrences")));
	json_object_set_new(props, "bytes", json_deep_copy(json_object_get(f, "bytes")));
	json_object_set_new(props, "range", json_deep_copy(json_object_get(f, "range")));
	json_object_set_new(props, "device", json_deep_copy(json_object_get(f, "device")));
	json_object_set_new(r, "properties", props);
	return r;
}

json_t *report_sarif(json_t *doc, struct db *db, const char *source_root, char **err)
{
	struct sarif_ctx c = { db, NULL };
	json_t *log, *run, *driver, *rules_arr, *results, *findings = json_object_get(doc, "findings");
	json_t *summary = json_object_get(doc, "summary"), *checks = json_object_get(doc, "checks");
	double duration = (double)json_integer_value(json_object_get(summary, "duration_ns"));

	if (source_root) {
		c.root = realpath(source_root, NULL);
		if (!c.root) {
			if (err && asprintf(err, "cannot use the source root '%s': %s", source_root,
					    strerror(errno)) < 0)
				*err = NULL;
			return NULL;
		}
		normalize(c.root);
	}
	log = json_object();
	run = json_object();
	driver = json_object();
	rules_arr = json_array();
	results = json_array();
	json_object_set_new(log, "$schema", json_string(SARIF_SCHEMA));
	json_object_set_new(log, "version", json_string("2.1.0"));

	json_object_set_new(driver, "name", json_string("mapprof"));
	json_object_set_new(driver, "semanticVersion", json_string(MAPPROF_VERSION));
	json_object_set_new(driver, "version", json_string(MAPPROF_VERSION));
	for (int k = 0; k < FINDING_KIND_COUNT; k++)
		json_array_append_new(rules_arr, rule_json(k));
	/* The checks' rules after the waste kinds', in a run recorded with --check only. */
	if (checks)
		for (int k = 0; k < CHECK_KIND_COUNT; k++)
			json_array_append_new(rules_arr, check_rule_json(k));
	json_object_set_new(driver, "rules", rules_arr);
	json_object_set_new(run, "tool", json_pack("{so}", "driver", driver));
	if (c.root) {
		char *dir = NULL, *uri;
		if (asprintf(&dir, "%s%s", c.root, strcmp(c.root, "/") ? "/" : "") >= 0 &&
		    (uri = uri_escape("file://", dir))) {
			json_object_set_new(run, "originalUriBaseIds",
					    json_pack("{s{sss{ss}}}", SARIF_BASE_ID, "uri", uri,
						      "description", "text",
						      "the source root (--source-root)"));
			free(uri);
		}
		free(dir);
	}
	for (size_t i = 0; i < json_array_size(json_object_get(checks, "findings")); i++) {
		json_t *r = check_result_json(&c, json_array_get(json_object_get(checks, "findings"), i));
		if (r)
			json_array_append_new(results, r);
	}
	for (size_t i = 0; i < json_array_size(findings); i++) {
		json_t *r = result_json(&c, json_array_get(findings, i), duration);
		if (r)
			json_array_append_new(results, r);
	}
	json_object_set_new(run, "results", results);
	json_object_set_new(run, "columnKind", json_string("utf16CodeUnits"));
	json_object_set_new(log, "runs", json_pack("[o]", run));
	free(c.root);
	return log;
}

int report_sarif_write(json_t *log, const char *path, char **err)
{
	return report_json_dump(log, path, 0, JSON_INDENT(2) | JSON_REAL_PRECISION(6), "SARIF log", err);
}

/* The results array of a log's single run, or NULL. */
static json_t *log_results(json_t *log)
{
	return json_object_get(json_array_get(json_object_get(log, "runs"), 0), "results");
}

json_t *report_sarif_merge(json_t *const *logs, const char *const *labels, int n)
{
	json_t *out, *results, *seen, *base = NULL;

	for (int i = 0; i < n && !base; i++)
		if (logs[i])
			base = logs[i];
	if (!base || !(out = json_deep_copy(base)))
		return NULL;
	results = json_array();
	seen = json_object();  /* fingerprint -> the merged result */
	if (!results || !seen ||
	    json_object_set(json_array_get(json_object_get(out, "runs"), 0), "results", results) < 0)
		goto oom;
	for (int i = 0; i < n; i++) {
		json_t *rs = logs[i] ? log_results(logs[i]) : NULL;
		for (size_t j = 0; j < json_array_size(rs); j++) {
			json_t *r = json_array_get(rs, j), *m, *props, *procs;
			const char *fp = json_string_value(
				json_object_get(json_object_get(r, "partialFingerprints"), FINGERPRINT_KEY));
			if (!fp)
				continue;
			m = json_object_get(seen, fp);
			if (!m) {
				if (!(m = json_deep_copy(r)) || json_array_append_new(results, m) < 0 ||
				    json_object_set(seen, fp, m) < 0)
					goto oom;
				props = json_object_get(m, "properties");
				if (!props)
					json_object_set_new(m, "properties", props = json_object());
				json_object_set_new(props, "processes", json_array());
			}
			procs = json_object_get(json_object_get(m, "properties"), "processes");
			json_array_append_new(procs, json_string(labels[i]));
		}
	}
	/* Each message says where: "(rank 0, rank 2: 2 of 4 processes)". */
	for (size_t j = 0; j < json_array_size(results); j++) {
		json_t *m = json_array_get(results, j), *msg = json_object_get(m, "message");
		json_t *procs = json_object_get(json_object_get(m, "properties"), "processes");
		const char *text = json_string_value(json_object_get(msg, "text"));
		char where[512];
		size_t len = 0;
		char *joined = NULL;
		if (!text)
			continue;
		where[0] = '\0';
		for (size_t k = 0; k < json_array_size(procs) && k < 8 && len < sizeof(where); k++)
			len += (size_t)snprintf(where + len, sizeof(where) - len, "%s%s", k ? ", " : "",
						json_string_value(json_array_get(procs, k)));
		if (asprintf(&joined, "%s (%s%s: %zu of %d processes)", text, where,
			     json_array_size(procs) > 8 ? ", ..." : "", json_array_size(procs), n) < 0 ||
		    json_object_set_new(msg, "text", json_string(joined)) < 0) {
			free(joined);
			goto oom;
		}
		free(joined);
	}
	json_decref(results);
	json_decref(seen);
	return out;
oom:
	json_decref(results);
	json_decref(seen);
	json_decref(out);
	return NULL;
}
