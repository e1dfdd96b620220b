/*
 * db.h - the mapprof database: one SQLite file per recorded run.
 *
 * db/schema.sql is the single source of truth for its layout; it is embedded
 * into the binaries at build time.  Only files in db/ include <sqlite3.h>:
 * everything else talks to the database through the functions declared in
 * the headers in db/.
 *
 * Errors: functions return NULL or -1 and, where they take 'char **err', set
 * *err to a malloc'ed message the caller frees (lower case, subject quoted).
 */
#ifndef MAPPROF_DB_H
#define MAPPROF_DB_H

#include <stdint.h>

#define DB_SCHEMA_VERSION 2

struct db;

/*
 * Create a new database at 'path' holding the schema.  Refuses an existing
 * file unless 'force' (then it is replaced), and always refuses a path that
 * is not a regular file (a device, a FIFO, a directory: never unlinked).
 * Returns the open database.
 */
struct db *db_create(const char *path, int force, char **err);

/* Open an existing mapprof database; checks it is one and of a known version. */
struct db *db_open(const char *path, int writable, char **err);

/* Close; accepts NULL. */
void db_close(struct db *db);

/* Run SQL with no result rows.  Returns 0 or -1 (with *err set when err). */
int db_exec(struct db *db, const char *sql, char **err);

/* BEGIN / COMMIT / ROLLBACK. */
int db_begin(struct db *db);
int db_commit(struct db *db);
void db_rollback(struct db *db);

/* The path the database was opened with (borrowed, lives as long as db). */
const char *db_path(const struct db *db);

/* The embedded schema text (NUL-terminated). */
const char *db_schema_sql(void);

/* The last SQLite error message of this connection (borrowed). */
const char *db_errmsg(struct db *db);

#endif
