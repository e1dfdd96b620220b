/*
 * db_internal.h - for files inside db/ only: the SQLite handle behind a
 * struct db, and small statement helpers.
 */
#ifndef MAPPROF_DB_INTERNAL_H
#define MAPPROF_DB_INTERNAL_H

#include <sqlite3.h>
#include "db/db.h"

struct db {
	sqlite3 *sql;
	char *path;
	int depth;          /* open db_begin()s: 1 = a transaction, more = savepoints */
	const char *copy;   /* why this is a temporary copy (db_copied()), or NULL */
	unsigned changed;   /* event tables written through this connection (db_watch_tables()) */
	sqlite3_stmt *root_st, *cols_st;   /* db_table_root()'s, prepared once */
};

/*
 * Note any row of data_op_raw (the one table read from the file's pages,
 * db/pages/rowsrc.h) this connection inserts, updates or deletes (SQLite's update
 * hook: not a DELETE without WHERE, which nothing here runs): its changes
 * may then be in its cache only, and the table is read by SQLite instead.
 */
void db_watch_tables(struct db *db);

/* Whether 'table' was written through db since db_watch_tables() (1 for a table not watched). */
int db_table_changed(const struct db *db, const char *table);
/* Say that 'table' was written (a DELETE without WHERE, which the update hook does not see). */
void db_table_written(struct db *db, const char *table);

/* Prepare or set *err ("cannot prepare ...: <sqlite message>"); NULL on error. */
sqlite3_stmt *db_prepare(struct db *db, const char *sql, char **err);

/* The first column of sql's first row as an integer; 0 when none or on error. */
int64_t db_scalar(struct db *db, const char *sql);

/*
 * The root page of table 'name' when its columns are 'columns' (their
 * names, in order, joined by ", ") and it has no index or trigger; 0 if not.
 */
uint32_t db_table_root(struct db *db, const char *name, const char *columns);

/*
 * SQLite's own file of the connection's main database (its VFS's, with
 * the methods SQLite reads and locks it through); NULL when there is none.
 * Borrowed: it lives as long as the connection.
 */
sqlite3_file *db_main_file(sqlite3 *sql);

/* Bind an int64 or NULL (when !present). */
void db_bind_opt_int64(sqlite3_stmt *st, int idx, int present, int64_t v);

/*
 * A column's value as the event readers use it (db/read/sound.h, db/read/events.c,
 * db/read/timeline_rows.c): what sqlite3_value_int64() reads from it, its type
 * (SQLITE_INTEGER, SQLITE_NULL, ...) and, for a real, the real.  Filled from
 * a statement's row by db_fetch_values(), or from a page (db/pages/pageread.h).
 */
struct dbval {
	int64_t i;
	double r;
	int type;
};

/* Columns 0 .. n - 1 of st's current row into v. */
void db_fetch_values(sqlite3_stmt *st, struct dbval *v, int n);

/* A struct db around an open connection (busy timeout, synchronous=OFF); NULL when out of memory. */
struct db *db_wrap(sqlite3 *sql, const char *path);

/* asprintf into *err (when err is not NULL); always returns -1. */
int db_fail(char **err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
