/*
 * attribution.h - reading back what report/attribute/attribute.c stored, as JSON for
 * the report: where a code pointer is in the source (with its snippet), which
 * variable a data operation moved, and the details of events by seq.
 *
 * One struct attribution holds the prepared statements; values returned are
 * new references the caller owns (json_decref), or NULL when nothing is
 * known.
 */
#ifndef MAPPROF_DB_ATTRIBUTION_H
#define MAPPROF_DB_ATTRIBUTION_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

struct db;
struct attribution;

/* NULL when the database has no attribution tables (never reported). */
struct attribution *attribution_open(struct db *db);
void attribution_close(struct attribution *at);

/*
 * {"function", "file", "line", "column", "origin", "note",
 *  "snippet": {"first_line", "lines": [...]}}  (absent keys: unknown).
 * When the report found the location's source file changed since the
 * recording (table source_changed): "source_changed": true and
 * "source_note" (what differs, in words) instead of "snippet".
 */
/*
 * n bytes of s as a JSON string (new reference, NULL when out of memory);
 * bytes that are not UTF-8 (a Latin-1 file name, source line or map clause),
 * which Jansson refuses, are read as their characters (lib/utf8.h) rather
 * than lose the whole string.
 */
json_t *attribution_text(const char *s, size_t n);

json_t *attribution_location(struct attribution *at, uint64_t codeptr);

/*
 * The source files the report found changed since the recording:
 * [{"path", "note"}] ordered by path; empty when none (or not known).
 */
json_t *attribution_changed_sources(struct attribution *at);

/* {"name", "decl_file", "decl_line", "origin": "map-name"|"symbol"|"address"}. */
json_t *attribution_variable(struct attribution *at, int64_t seq);

/*
 * [{"seq", "op", "begin_ns", "end_ns", "bytes", "src_device", "dest_device"}]
 * for the given array of seqs (data operations and kernels), in its order.
 */
json_t *attribution_events(struct attribution *at, json_t *seqs);

/*
 * Where the report found the source file of codeptr's location on this
 * machine (location.source_path: a file the program's DWARF names),
 * malloc'ed; NULL when unknown.  Whether to read it is the caller's call
 * (--no-source).
 */
char *attribution_source_path(struct attribution *at, uint64_t codeptr);

/*
 * The callers codeptr's code was inlined into, innermost first:
 * [{"function", "file", "line", "column"}], a relative file joined to the
 * compilation directory; NULL when not inlined (or not known).
 */
json_t *attribution_inline_chain(struct attribution *at, uint64_t codeptr);

/*
 * The named map entries of the construct at codeptr that moved data, in map
 * order: [{"index", "name" (as written, macros expanded), "alloc",
 * "to_device", "from_device" (operations recorded)}]; NULL when unknown.
 */
json_t *attribution_map_entries(struct attribution *at, uint64_t codeptr);

/*
 * An allocation or transfer that touched host data a construct maps
 * (attribution_host_ops()): what a fix plan needs to know to keep results.
 */
struct host_op {
	int64_t seq;
	int op;               /* OMPT's kind, async folded in: 1 alloc, 2 to_device, 3 from_device */
	int device;           /* its device end: the destination of an alloc or to_device,
				 the source of a from_device */
	uint64_t host_addr, bytes;
	uint64_t hash;        /* the content moved (data_ops.hash), when has_hash */
	int has_hash;
	uint64_t codeptr;
	int64_t target_id;
	int target_kind;      /* its construct's ompt_target_t, nowait folded in: 1 target,
				 2 enter data, 3 exit data, 4 update; 0 unknown */
	int map_index;        /* its map entry, -1 when none */
};

/*
 * Every allocation and transfer, by any construct, whose host range meets
 * a range that one of codeptr's allocations or transfers moved, in seq
 * order, into *out (malloc'ed, the caller's) and *n.  0 (none when the
 * database cannot say), or -1 when out of memory or on a read error.
 */
int attribution_host_ops(struct attribution *at, uint64_t codeptr, struct host_op **out, size_t *n);

#endif
