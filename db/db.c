/*
 * db.c - creating and opening mapprof databases.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db_internal.h"

extern const char mapprof_schema_sql[];
/* An empty database holding the schema, built by db/pages/mkimage.c. */
extern const unsigned char mapprof_empty_db[], mapprof_empty_db_end[];

const char *db_schema_sql(void)
{
	return mapprof_schema_sql;
}

int db_fail(char **err, const char *fmt, ...)
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

/*
 * Connections are opened with SQLITE_OPEN_NOMUTEX: each is used by one thread
 * at a time (the collector serialises its writer), and SQLite's own per-call
 * mutexes were a sixth of the collector's cost.
 */
struct db *db_wrap(sqlite3 *sql, const char *path)
{
	/*
	 * A recording is rewritten from scratch when lost, so it never pays for
	 * fsync: the rollback journal keeps the file consistent if mapprof is
	 * killed, and only a crash of the whole machine could lose the tail.
	 */
	sqlite3_exec(sql, "PRAGMA synchronous=OFF", NULL, NULL, NULL);
	sqlite3_limit(sql, SQLITE_LIMIT_LENGTH, DB_MAX_VALUE_BYTES);
	struct db *db = calloc(1, sizeof(*db));
	if (!db)
		return NULL;
	db->sql = sql;
	db->path = strdup(path);
	sqlite3_busy_timeout(sql, DB_BUSY_TIMEOUT_MS);
	return db;
}

static int write_image(const char *path, char **err)
{
	const unsigned char *p = mapprof_empty_db;
	size_t n = (size_t)(mapprof_empty_db_end - mapprof_empty_db);
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);

	if (fd < 0)
		return db_fail(err, "cannot create '%s': %s", path, strerror(errno));
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			db_fail(err, "cannot write '%s': %s", path, k < 0 ? strerror(errno) : "disk full");
			close(fd);
			unlink(path);
			return -1;
		}
		p += k;
		n -= (size_t)k;
	}
	if (close(fd) < 0) {
		db_fail(err, "cannot write '%s': %s", path, strerror(errno));
		unlink(path);
		return -1;
	}
	return 0;
}

int db_create_file(const char *path, int force, char **err)
{
	struct stat st;

	if (stat(path, &st) == 0) {
		/* Never unlink a device, a FIFO or a directory to put a database there. */
		if (!S_ISREG(st.st_mode)) {
			db_fail(err, "'%s' is not a regular file (%s): a database must be one", path,
				S_ISDIR(st.st_mode) ? "a directory" : S_ISCHR(st.st_mode) ? "a character device"
				: S_ISBLK(st.st_mode) ? "a block device" : S_ISFIFO(st.st_mode) ? "a FIFO"
				: S_ISSOCK(st.st_mode) ? "a socket" : "of another kind");
			return -1;
		}
		if (!force) {
			db_fail(err, "'%s' already exists (use --force to overwrite it)", path);
			return -1;
		}
		if (unlink(path) < 0) {
			db_fail(err, "cannot remove '%s': %s", path, strerror(errno));
			return -1;
		}
		/* Stale WAL/SHM files would be replayed into the new database. */
		char side[4096];
		snprintf(side, sizeof(side), "%s-wal", path);
		unlink(side);
		snprintf(side, sizeof(side), "%s-shm", path);
		unlink(side);
		snprintf(side, sizeof(side), "%s-journal", path);
		unlink(side);
	}
	/* A copy of the empty database built with the binary: no schema to execute. */
	return write_image(path, err);
}

struct db *db_open_created(const char *path, char **err)
{
	sqlite3 *sql = NULL;
	struct db *db;
	char *msg = NULL;

	if (sqlite3_open_v2(path, &sql, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK ||
	    sqlite3_exec(sql, "PRAGMA synchronous=OFF", NULL, NULL, &msg) != SQLITE_OK) {
		db_fail(err, "cannot create '%s': %s", path,
			msg ? msg : sql ? sqlite3_errmsg(sql) : "out of memory");
		sqlite3_free(msg);
		sqlite3_close(sql);
		unlink(path);
		return NULL;
	}
	db = db_wrap(sql, path);
	if (!db) {
		sqlite3_close(sql);
		db_fail(err, "out of memory");
	}
	return db;
}

struct db *db_create(const char *path, int force, char **err)
{
	return db_create_file(path, force, err) < 0 ? NULL : db_open_created(path, err);
}

void db_library_init(void)
{
	/* SQLITE_MISUSE once SQLite has started: then it keeps what it has. */
	(void)sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sqlite3_finalize(db->root_st);
	sqlite3_finalize(db->cols_st);
	sqlite3_close_v2(db->sql);
	free(db->path);
	free(db);
}

int db_exec(struct db *db, const char *sql, char **err)
{
	char *msg = NULL;
	if (sqlite3_exec(db->sql, sql, NULL, NULL, &msg) != SQLITE_OK) {
		db_fail(err, "database '%s': %s", db->path, msg ? msg : sqlite3_errmsg(db->sql));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int db_begin(struct db *db)
{
	const char *sql = "BEGIN IMMEDIATE";

	if (sqlite3_get_autocommit(db->sql))
		db->depth = 0;   /* SQLite rolled an outer transaction back itself */
	else if (db->depth)
		sql = "SAVEPOINT nested";
	if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
		return -1;
	db->depth++;
	return 0;
}

int db_commit(struct db *db)
{
	const char *sql = db->depth > 1 ? "RELEASE nested" : "COMMIT";

	if (sqlite3_exec(db->sql, sql, NULL, NULL, NULL) != SQLITE_OK)
		return -1;   /* still open: db_rollback() ends it */
	if (db->depth)
		db->depth--;
	return 0;
}

int64_t db_scalar(struct db *db, const char *sql)
{
	sqlite3_stmt *st = db_prepare(db, sql, NULL);
	int64_t v = 0;

	if (st && sqlite3_step(st) == SQLITE_ROW)
		v = sqlite3_column_int64(st, 0);
	sqlite3_finalize(st);
	return v;
}

int db_commit_early(struct db *db)
{
	if (db->depth != 2 || sqlite3_get_autocommit(db->sql))
		return 1;
	if (sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		if (!sqlite3_get_autocommit(db->sql))
			return 1;   /* refused (busy): the transaction and its savepoints are still open */
		db->depth = 0;  /* an I/O error made SQLite roll it all back */
		return -1;
	}
	db->depth = 0;
	if (db_begin(db) < 0 || db_begin(db) < 0) {
		db_rollback(db);
		return -1;
	}
	return 0;
}

void db_rollback(struct db *db)
{
	if (db->depth > 1 && !sqlite3_get_autocommit(db->sql)) {
		sqlite3_exec(db->sql, "ROLLBACK TO nested; RELEASE nested", NULL, NULL, NULL);
		db->depth--;
		return;
	}
	sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	db->depth = 0;
}

const char *db_path(const struct db *db)
{
	return db->path;
}

const char *db_errmsg(struct db *db)
{
	return sqlite3_errmsg(db->sql);
}

sqlite3_stmt *db_prepare(struct db *db, const char *sql, char **err)
{
	sqlite3_stmt *st = NULL;
	if (sqlite3_prepare_v2(db->sql, sql, -1, &st, NULL) != SQLITE_OK) {
		db_fail(err, "cannot prepare statement on '%s': %s", db->path, sqlite3_errmsg(db->sql));
		return NULL;
	}
	return st;
}

void db_bind_opt_int64(sqlite3_stmt *st, int idx, int present, int64_t v)
{
	if (present)
		sqlite3_bind_int64(st, idx, v);
	else
		sqlite3_bind_null(st, idx);
}

void db_fetch_values(sqlite3_stmt *st, struct dbval *v, int n)
{
	for (int i = 0; i < n; i++) {
		sqlite3_value *c = sqlite3_column_value(st, i);
		v[i].type = sqlite3_value_type(c);
		v[i].i = sqlite3_value_int64(c);
		v[i].r = v[i].type == SQLITE_FLOAT ? sqlite3_value_double(c) : 0;
	}
}

/*
 * The tables db_watch_tables() watches: bit i of db->changed.  SQLite's
 * update hook does not fire for a DELETE without WHERE (it truncates the
 * table): code that runs one on these calls db_table_written() itself.
 */
static const char *const watched[] = { "data_op_raw", "kernel_raw", "target_raw", "delete_pair_raw" };

void db_table_written(struct db *db, const char *table)
{
	for (unsigned i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
		if (!strcmp(table, watched[i]))
			db->changed |= 1u << i;
}

static void on_update(void *arg, int op, const char *schema, const char *table, sqlite3_int64 rowid)
{
	struct db *db = arg;

	(void)op;
	(void)rowid;
	if (!strcmp(schema, "main"))
		db_table_written(db, table);
}

void db_watch_tables(struct db *db)
{
	sqlite3_update_hook(db->sql, on_update, db);
}

int db_table_changed(const struct db *db, const char *table)
{
	for (unsigned i = 0; i < sizeof(watched) / sizeof(watched[0]); i++)
		if (!strcmp(table, watched[i]))
			return !!(db->changed & 1u << i);
	return 1;   /* not watched: perhaps changed */
}

/* The table's root page, when its columns are those given (in order) and it has no index or trigger. */
uint32_t db_table_root(struct db *db, const char *name, const char *columns)
{
	/* Prepared once per connection: a short run's expansion asks for four tables, twice. */
	sqlite3_stmt *st = db->root_st ? db->root_st :
		(db->root_st = db_prepare(db, "SELECT (SELECT rootpage FROM sqlite_schema WHERE type = 'table'"
					      " AND name = ?1), (SELECT COUNT(*) FROM sqlite_schema WHERE tbl_name = ?1"
					      " AND type IN ('index', 'trigger'))", NULL));
	sqlite3_stmt *cols = db->cols_st ? db->cols_st :
		(db->cols_st = db_prepare(db, "SELECT name FROM pragma_table_info(?) ORDER BY cid", NULL));
	char have[512] = "";
	size_t len = 0;
	uint32_t root = 0;

	if (st && cols) {
		sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_int64(st, 1) == 0)
			root = (uint32_t)sqlite3_column_int64(st, 0);
		sqlite3_bind_text(cols, 1, name, -1, SQLITE_STATIC);
		while (sqlite3_step(cols) == SQLITE_ROW && len < sizeof(have))
			len += (size_t)snprintf(have + len, sizeof(have) - len, "%s%s", len ? ", " : "",
						(const char *)sqlite3_column_text(cols, 0));
		if (strcmp(have, columns))
			root = 0;
	}
	/* Reset, not finalized: a statement left mid-step would hold the schema's read lock. */
	if (st)
		sqlite3_reset(st);
	if (cols)
		sqlite3_reset(cols);
	return root;
}

sqlite3_file *db_main_file(sqlite3 *sql)
{
	sqlite3_file *f = NULL;

	if (sqlite3_file_control(sql, "main", SQLITE_FCNTL_FILE_POINTER, &f) != SQLITE_OK || !f || !f->pMethods)
		return NULL;
	return f;
}
