/*
 * locations.h - the attribution tables: where each recorded code pointer is
 * in the source, which variable each data operation moved, and the source
 * snippets around those lines (so a report is readable on another machine).
 *
 * 'mapprof report' calls locations_update() once per run of it: it replaces
 * the tables 'location', 'snippet' and 'variable' (schema.sql, section
 * "report: attribution tables"), so running it twice gives the same
 * database.  Variables are stored once per key (a call site's map entry, or
 * a host address), never per operation: the view 'data_op_sources' picks
 * each operation's when it is read.  It and 'target_sources' are the SQL
 * face of it (docs/attribution.md).
 *
 * Also here: the readers the symbolizer needs (report/ does not include
 * <sqlite3.h>).
 */
#ifndef MAPPROF_DB_LOCATIONS_H
#define MAPPROF_DB_LOCATIONS_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct symbolizer;

/* A row of module_raw.  Strings are owned by the row. */
struct module_row {
	char *path;
	uint64_t base;      /* load bias */
	uint64_t low;       /* mapped range [low, high) */
	uint64_t high;
	char *build_id;     /* lower-case hex, or NULL */
};

/* A row of source_raw.  Strings are owned by the row; NULL when absent. */
struct source_row {
	uint64_t codeptr;
	char *entry;
	char *psource;
	char *map_names;    /* JSON array text */
};

/*
 * Read every module_raw row (ordered by id) / source_raw row (ordered by
 * codeptr) into a malloc'ed array the caller frees with the matching _free.
 * Return 0, or -1 with *err set.
 */
int locations_read_modules(struct db *db, struct module_row **rows, size_t *n, char **err);
void module_rows_free(struct module_row *rows, size_t n);
int locations_read_sources(struct db *db, struct source_row **rows, size_t *n, char **err);
void source_rows_free(struct source_row *rows, size_t n);

/* A distinct code pointer of the run and what construct it belongs to. */
struct codeptr_row {
	uint64_t codeptr;
	int target_kind;    /* ompt_target_t of target_raw rows there, 0 when none */
};

/* Every distinct non-NULL code pointer of data_op_raw and target_raw, sorted. */
int locations_read_codeptrs(struct db *db, struct codeptr_row **rows, size_t *n, char **err);

/* run.cwd of the recording (malloc'ed), or NULL when not recorded. */
char *locations_run_cwd(struct db *db);

/* Create the attribution tables and views if the database lacks them. */
int locations_ensure_tables(struct db *db, char **err);

/* What locations_update() found, for a terminal summary. */
struct locations_stats {
	size_t codeptrs;            /* distinct code pointers symbolized */
	size_t by_origin[4];        /* indexed by enum sym_origin */
	size_t need_debug;          /* locations flagged LOC_NEED_DEBUG */
	size_t build_id_differ;     /* locations in modules changed since the run */
	size_t variables;           /* distinct variables named */
	size_t snippets;            /* snippets stored */
};

/*
 * Symbolize every distinct code pointer of the run (data operations and
 * target constructs; the pass that finds them hands them to the symbolizer,
 * which would otherwise read them again), name the variable of every key a
 * data operation resolves to (see data_op_sources in schema.sql), store
 * snippets of the source lines found readable (relative paths resolved
 * against run.cwd, then the DWARF compilation directory), replacing what a
 * previous call stored.  One transaction.  'stats' may be NULL.
 * Returns 0, or -1 with *err set (the database is then unchanged).
 */
int locations_update(struct db *db, struct symbolizer *s, struct locations_stats *stats,
		     char **err);

#endif
