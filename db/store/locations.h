/*
 * locations.h - the rows of the attribution tables: where each recorded code
 * pointer is in the source, which variable each data operation moved, and the
 * source snippets around those lines (so a report is readable on another
 * machine); and the rows of the recording that finding them needs.
 *
 * Plain readers and writers of rows: what goes into the rows is decided by
 * report/ (report/attribute/attribute.c drives the symbolizer and the snippets).  A
 * struct locations_writer holds one transaction that replaces the tables
 * 'location', 'snippet' and 'variable' (schema.sql, section "report:
 * attribution tables"), so reporting twice gives the same database.
 * Variables are stored once per key (a call site's map entry, or a host
 * address), never per operation: the view 'data_op_sources' picks each
 * operation's when it is read.  It and 'target_sources' are the SQL face of
 * it (docs/attribution.md).
 *
 * report/ does not include <sqlite3.h>: the symbolizer reads through here.
 */
#ifndef MAPPROF_DB_LOCATIONS_H
#define MAPPROF_DB_LOCATIONS_H

#include <stddef.h>
#include <stdint.h>

struct db;
struct locations_writer;

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

/*
 * A distinct variable key of the run's data operations, as the view
 * data_op_sources resolves an operation to one.
 */
struct op_key_row {
	int64_t codeptr;    /* 0: none */
	int64_t map_index;  /* -1: none */
	int64_t host_addr;  /* 0: none */
};

/*
 * One pass over data_op_raw (and one over target_raw): every distinct
 * variable key of a data operation (malloc'ed, in no particular order) and
 * every distinct code pointer of the run (malloc'ed, as
 * locations_read_codeptrs() reads them).  A delete without a map index has
 * its allocation's key, which that allocation's row gives; a delete with one
 * has its own map entry and its allocation's host address.  0, or -1 with
 * *err set.
 */
int locations_read_keys(struct db *db, struct op_key_row **keys, size_t *nkeys,
			struct codeptr_row **codeptrs, size_t *ncodeptrs, char **err);

/*
 * The same keys gathered by a pass that reads data_op_raw anyway (the event
 * stream's, db/read/events.h) or writes it (the spool's expansion, db/ingest/ingest.h),
 * so that the table is not read again: every row, in any order, handed to
 * op_keys_add(), then op_keys_rows(), once the deletes are paired, gives
 * what locations_read_keys() would.  Each row's columns as sqlite3_column_int64()
 * reads them (sqlite3_column_int() for kind), NULLs flagged.
 */
struct op_key_cols {
	int64_t seq;
	int kind;
	int64_t codeptr;
	int has_codeptr;
	int64_t map_index;
	int has_map_index;
	int64_t src_addr, dst_addr;
};

struct op_keys;

/* NULL with *err set when out of memory.  op_keys_free() accepts NULL. */
struct op_keys *op_keys_new(struct db *db, char **err);
void op_keys_free(struct op_keys *k);

/* Add one row of data_op_raw.  0, or -1 with *err set. */
int op_keys_add(struct op_keys *k, const struct op_key_cols *row, char **err);

/*
 * Add one row of target_raw (its code pointer and kind): once any is
 * added, op_keys_rows() takes them for the whole table and does not read
 * it, so the caller adds every row (the spool's expansion does).  0, or -1
 * with *err set.
 */
int op_keys_add_target(struct op_keys *k, int64_t codeptr, int kind, char **err);
/*
 * The same in two steps, for a reader that learns only at its end that it
 * added every row: op_keys_target() adds one, op_keys_targets_done() says
 * they were all added (until then op_keys_rows() reads the table).
 */
int op_keys_target(struct op_keys *k, int64_t codeptr, int kind, char **err);
void op_keys_targets_done(struct op_keys *k);

/* The rows of locations_read_keys() (and reads target_raw unless fed).  0, or -1 with *err set. */
int op_keys_rows(struct op_keys *k, struct op_key_row **keys, size_t *nkeys,
		 struct codeptr_row **codeptrs, size_t *ncodeptrs, char **err);

/* A row of 'location'.  Strings borrowed for the call; NULL: NULL. */
struct location_row {
	uint64_t codeptr;
	const char *module;       /* NULL: offset is NULL too */
	uint64_t offset;
	const char *function;
	const char *file;
	int line;
	int column;
	const char *origin;
	const char *inline_chain; /* JSON array text */
	const char *comp_dir;
	const char *source_path;
	const char *note;
};

/* A row of 'variable'.  Strings borrowed for the call; NULL: NULL. */
struct variable_row {
	int64_t codeptr;          /* 0: NULL */
	int64_t map_index;        /* < 0: NULL */
	int64_t host_addr;        /* 0: NULL */
	const char *name;
	const char *decl_file;
	int decl_line;            /* <= 0: line and column are NULL */
	int decl_column;
	const char *origin;
};

/*
 * Start replacing the attribution tables: creates them when missing, begins
 * a transaction and deletes what a previous report stored.  NULL with *err
 * set (the database unchanged).
 */
struct locations_writer *locations_writer_open(struct db *db, char **err);

/* Add a row.  0, or -1 with *err set: then only locations_writer_free() is left. */
int locations_writer_location(struct locations_writer *w, const struct location_row *r,
			      char **err);
int locations_writer_variable(struct locations_writer *w, const struct variable_row *r,
			      char **err);

/*
 * Add the snippet of file:line (lines from first_line on, joined by '\n')
 * unless one is stored already.  1 when added, 0 when it was there, -1 with
 * *err set.
 */
int locations_writer_snippet(struct locations_writer *w, const char *file, int line,
			     int first_line, const char *text, char **err);

/*
 * Say that the source file at 'path' (location.source_path) changed since
 * the recording, 'note' saying how (table source_changed).  0, or -1 with
 * *err set.
 */
int locations_writer_source_changed(struct locations_writer *w, const char *path, const char *note,
				    char **err);

/* comp_dir of the location row of 'codeptr' added before (malloc'ed), or NULL. */
char *locations_writer_comp_dir(struct locations_writer *w, int64_t codeptr);

/* Commit.  0, or -1 with *err set (nothing stored). */
int locations_writer_commit(struct locations_writer *w, char **err);

/* Roll back what was not committed and free.  Accepts NULL. */
void locations_writer_free(struct locations_writer *w);

#endif
