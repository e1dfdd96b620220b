/*
 * attribute.h - the attribution stage of 'mapprof report': every recorded
 * code pointer symbolized (report/attribute/symbolize.h, report/attribute/dwarfline.h), the
 * variable of every data operation named, the source lines around them read
 * (report/attribute/snippet.h), and all of it stored as the rows of db/store/locations.h for
 * the outputs to read back (db/store/attribution.h).
 *
 * Run once per report: it replaces what a previous run stored, so running
 * report twice gives the same database (docs/attribution.md).
 */
#ifndef MAPPROF_REPORT_ATTRIBUTE_H
#define MAPPROF_REPORT_ATTRIBUTE_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct symbolizer;
struct op_keys;
struct call_sites;

/* What attribute_run() found, for a terminal summary. */
struct attribute_stats {
	size_t codeptrs;            /* distinct code pointers symbolized */
	size_t by_origin[4];        /* indexed by enum sym_origin */
	size_t need_debug;          /* locations flagged LOC_NEED_DEBUG */
	size_t build_id_differ;     /* locations in modules changed since the run */
	size_t variables;           /* distinct variables named */
	size_t snippets;            /* snippets stored */
	size_t sources_changed;     /* source files that differ from the recorded ones */
};

/*
 * Symbolize every distinct code pointer of the run (data operations and
 * target constructs; the pass that finds them hands them to the symbolizer,
 * which would otherwise read them again), name the variable of every key a
 * data operation resolves to (see data_op_sources in schema.sql), store
 * snippets of the source lines (relative paths resolved against run.cwd,
 * then the DWARF compilation directory), replacing what a previous call
 * stored.  A file is quoted only when 'snippets' is set and it is a source
 * file of the recorded program (symbolizer_is_source(): named by the DWARF
 * of a module whose build-id matches the recording), never because a string
 * in the database names it.  One transaction.  'keys': the data
 * operations' keys and code pointers as a pass over every row gathered them
 * (analysis_run()'s, struct analysis), or NULL to read them here.  'stats'
 * may be NULL.  Returns 0, or -1 with *err set (the database is then
 * unchanged).
 */
int attribute_run(struct db *db, struct symbolizer *s, int snippets, struct op_keys *keys,
		  struct attribute_stats *stats, struct call_sites *sites, char **err);

/*
 * The run's call sites that are one directive: code pointers whose
 * locations have the same module, file (a relative one joined to its
 * compilation directory), line, column and inline chain (a loop the
 * compiler unrolled, or a function it cloned, calls the runtime from
 * several places for one directive).  'pairs' holds {code pointer, the
 * first code pointer of its place} for each but the first of each place,
 * sorted by code pointer; n is 0 when every directive has one call site.
 * Only exact locations count: a line that DWARF left out (a statement next
 * to the directive stands in for it) or no line at all keeps its call site
 * apart.  attribute_run() fills one when 'sites' is not NULL;
 * call_sites_release() frees it.
 */
struct call_sites {
	uint64_t (*pairs)[2];
	size_t n;
};

void call_sites_release(struct call_sites *cs);

/*
 * The call sites of the run in 'db' alone, nothing stored (a symbolizer of
 * its own; 'keys' as for attribute_run()).  0, or -1 with *err set.
 */
int attribute_sites(struct db *db, struct op_keys *keys, struct call_sites *sites, char **err);

/*
 * At record time, once the run is in 'db': the source files a report would
 * quote, found as attribute_run() finds them (the same symbolizer, the same
 * rules: each location's file and each map clause's declaration file, a
 * source file of the program readable here), each with its size and
 * XXH3-64 stored in source_file_raw (db/store/source_files.h), replacing what was
 * there.  attribute_run() then compares every file it would quote with its
 * row: one that differs is neither quoted nor edited by a plan, and is named
 * in table source_changed (docs/attribution.md, "When the source changed").
 * 'keys': the run's attribution keys gathered as its spool was expanded
 * (db/ingest/ingest.h), or NULL to read them from data_op_raw.
 * Returns the number of files stored, or -1 with *err set.
 */
int attribute_record_sources(struct db *db, struct op_keys *keys, char **err);

#endif
