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

/*
 * db_create() in two steps: the file with the empty schema written (the
 * refusals above; 0 or -1), then opened (NULL with *err set, the file
 * removed).  'mapprof record' starts the program between the two.
 */
int db_create_file(const char *path, int force, char **err);
struct db *db_open_created(const char *path, char **err);

/* What is wrong with a database db_open() refused. */
enum db_problem {
	DB_OK,
	DB_CANNOT_OPEN,   /* missing, a directory, unreadable, an I/O error */
	DB_EMPTY,         /* a file of 0 bytes */
	DB_NOT_MAPPROF,   /* not SQLite, or SQLite without mapprof's tables */
	DB_DAMAGED,       /* SQLite finds it malformed, it is truncated, or a
			     table or view of the schema is missing */
	DB_NEWER,         /* written by a newer mapprof (a higher schema version) */
	DB_OLDER,         /* written by an older one this mapprof cannot read */
	DB_UNFINISHED,    /* no run yet, or run.status 'recording': 'mapprof
			     record' is still running or was killed */
	DB_LOCKED,        /* another process held a lock for DB_BUSY_TIMEOUT_MS */
	DB_ALTERED,       /* it holds SQL mapprof would run but never wrote: a
			     trigger, or a name of the schema's tables and
			     views that is another kind of object (open.c) */
};

/* How long a locked database is waited for. */
#define DB_BUSY_TIMEOUT_MS 5000
/*
 * The longest string, blob or row any connection of mapprof's makes or
 * reads (SQLITE_LIMIT_LENGTH; SQLite's default is 1 GB).  mapprof's own
 * largest value is the run's command as JSON: at most 6 MiB of arguments
 * and environment (Linux's limit), 6 bytes each when escaped as \u00XX.
 * A database whose SQL makes more (a CHECK or index expression of an
 * altered file, printf('%.*c', 1e9, 'x')) fails with "string or blob too
 * big" before it takes a gigabyte.
 */
#define DB_MAX_VALUE_BYTES (64 * 1024 * 1024)

/* db_open() flags. */
enum {
	/*
	 * The caller will write (mapprof report's derived tables).  When the
	 * file or its directory cannot be written, or another process holds
	 * its write lock for DB_BUSY_TIMEOUT_MS, the database is copied into
	 * a private temporary database (deleted on close) and that is what
	 * the connection reads and writes: db_copied() says why.  Otherwise
	 * the connection holds a write transaction from the start, committed
	 * by db_commit() (the caller's last) or rolled back by db_close().
	 */
	DB_OPEN_WRITE = 1,
	DB_OPEN_CHECK = 2,   /* run PRAGMA quick_check before anything else */
	/* Take an unfinished recording too (no run yet, or status 'recording'):
	 * 'mapprof recover' finishes it.  The others refuse it (DB_UNFINISHED). */
	DB_OPEN_UNFINISHED = 4,
};

/*
 * Open an existing mapprof database, checking first that it can be read:
 * a non-empty SQLite file, undamaged (its size agrees with its header; the
 * tables and views of db/schema.sql are there; PRAGMA quick_check when a
 * query fails, or always with DB_OPEN_CHECK), mapprof's, of this schema
 * version, and holding a run that 'mapprof record' finished.  Returns NULL
 * with *problem set (when problem is not NULL) and *err set to what is
 * wrong, without the path ("the database is damaged: SQLite says: ...").
 */
struct db *db_open(const char *path, int flags, enum db_problem *problem, char **err);

/*
 * After a query failed on 'db': DB_DAMAGED with *why set to SQLite's words
 * (PRAGMA quick_check) when the database is damaged, else DB_OK.
 */
enum db_problem db_diagnose(struct db *db, char **why);

/*
 * NULL when 'db' is the file itself; else why db_open(DB_OPEN_WRITE) works
 * on a temporary copy ("read-only", "locked by another process"; static).
 */
const char *db_copied(const struct db *db);

/*
 * 1 when the file SQLite has open is no longer at the path the database
 * was opened with (renamed, unlinked, another file put there: 'record -f'
 * while a report runs); 0 when it is, or SQLite cannot say.
 */
int db_moved(struct db *db);

/* Close; accepts NULL. */
void db_close(struct db *db);

/*
 * Once, before any database is opened: SQLite's process-wide settings
 * (no memory statistics: no lock and no counters around each of its
 * allocations).  Later calls change nothing.
 */
void db_library_init(void);

/* Run SQL with no result rows.  Returns 0 or -1 (with *err set when err). */
int db_exec(struct db *db, const char *sql, char **err);

/*
 * BEGIN IMMEDIATE / COMMIT / ROLLBACK.  They nest: inside a transaction they
 * are a savepoint, its release and a rollback to it.  0 or -1.
 */
int db_begin(struct db *db);
int db_commit(struct db *db);
void db_rollback(struct db *db);

/*
 * Inside a savepoint of the outermost transaction (db_begin() twice):
 * commit both now and go on in a new transaction and savepoint (BEGIN
 * IMMEDIATE, SAVEPOINT).  0 when done; 1 when the commit was refused (a
 * reader kept its lock past the busy timeout, say): nothing changed, still
 * in the savepoint; -1 when committed but the new transaction could not
 * begin (another writer took the lock in between), or when the commit
 * failed and SQLite rolled the transaction back (an I/O error): none left
 * (depth 0).
 */
int db_commit_early(struct db *db);

/* The path the database was opened with (borrowed, lives as long as db). */
const char *db_path(const struct db *db);

/* The embedded schema text (NUL-terminated). */
const char *db_schema_sql(void);

/* The last SQLite error message of this connection (borrowed). */
const char *db_errmsg(struct db *db);

#endif
