/*
 * open.c - opening a recorded database for reading: checked first, so that
 * 'mapprof report' names the real problem (damaged, truncated, empty,
 * unfinished, not mapprof's, newer) before it writes anything, and copied
 * into a temporary database when it cannot be written.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "db/db_internal.h"

/* The first query's result, kept with its SQLite code. */
struct probe {
	int rc;          /* SQLITE_ROW, SQLITE_DONE or an error */
	char *text;      /* first column of the first row (malloc'ed) or NULL */
};

static struct probe probe(sqlite3 *sql, const char *query)
{
	struct probe p = { SQLITE_ERROR, NULL };
	sqlite3_stmt *st = NULL;

	p.rc = sqlite3_prepare_v2(sql, query, -1, &st, NULL);
	if (p.rc == SQLITE_OK) {
		p.rc = sqlite3_step(st);
		if (p.rc == SQLITE_ROW && sqlite3_column_text(st, 0))
			p.text = strdup((const char *)sqlite3_column_text(st, 0));
	}
	if (p.rc != SQLITE_ROW && p.rc != SQLITE_DONE)
		p.rc = sqlite3_extended_errcode(sql);
	sqlite3_finalize(st);
	return p;
}

/*
 * What SQLite's PRAGMA quick_check says (its first lines joined by "; "),
 * or the error that stopped it; NULL when it says "ok".  Malloc'ed.
 */
static char *quick_check(sqlite3 *sql)
{
	sqlite3_stmt *st = NULL;
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);
	int rc, ok = 0;

	if (!f)
		return NULL;
	rc = sqlite3_prepare_v2(sql, "PRAGMA quick_check(5)", -1, &st, NULL);
	while (rc == SQLITE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *line = (const char *)sqlite3_column_text(st, 0);
		if (line && !strcmp(line, "ok"))
			ok = 1;
		else if (line)
			fprintf(f, "%s%s", ftell(f) ? "; " : "", line);
		rc = SQLITE_OK;
	}
	if (rc != SQLITE_OK && rc != SQLITE_DONE) {
		ok = 0;
		fprintf(f, "%s%s", ftell(f) ? "; " : "", sqlite3_errmsg(sql));
	}
	sqlite3_finalize(st);
	fclose(f);
	if (ok || !out || !*out) {
		free(out);
		return NULL;
	}
	/* quick_check's lines are "*** in database main ***\nPage 10: ...". */
	for (char *p = out; *p; p++)
		if (*p == '\n')
			*p = ' ';
	return out;
}

static int is_corrupt(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_CORRUPT || rc == SQLITE_NOTADB;
}

static int is_busy(int rc)
{
	rc &= 0xff;
	return rc == SQLITE_BUSY || rc == SQLITE_LOCKED;
}

enum db_problem db_diagnose(struct db *db, char **why)
{
	/* The failed statement is gone, and its error code with it: ask SQLite again. */
	char *words = quick_check(db->sql);

	if (!words)
		return DB_OK;
	db_fail(why, "the database is damaged: SQLite says: %s", words);
	free(words);
	return DB_DAMAGED;
}

/*
 * The file's first 100 bytes, SQLite's header: is it SQLite at all, and is
 * the file as long as the header says (a truncated copy is not)?
 * 0; 1 when truncated, -1 when it cannot be read as SQLite (*problem and
 * *err set either way).
 */
static int check_header(const char *path, off_t size, enum db_problem *problem, char **err)
{
	static const char magic[16] = "SQLite format 3";
	unsigned char h[100];
	ssize_t n = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		*problem = DB_CANNOT_OPEN;
		return db_fail(err, "%s", strerror(errno));
	}
	while (n < (ssize_t)sizeof(h)) {
		ssize_t k = read(fd, h + n, sizeof(h) - (size_t)n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += k;
	}
	close(fd);
	if (n < (ssize_t)sizeof(h) || memcmp(h, magic, sizeof(magic))) {
		*problem = DB_NOT_MAPPROF;
		return db_fail(err, "not a mapprof database: not an SQLite database");
	}
	uint32_t page = (uint32_t)h[16] << 8 | h[17];
	uint32_t pages = (uint32_t)h[28] << 24 | (uint32_t)h[29] << 16 | (uint32_t)h[30] << 8 | h[31];
	int pages_valid = !memcmp(h + 24, h + 92, 4) && pages > 0;   /* SQLite's own rule */
	if (page == 1)
		page = 65536;
	if (pages_valid && (uint64_t)page * pages > (uint64_t)size) {
		*problem = DB_DAMAGED;
		db_fail(err, "the file is truncated (%lld bytes, its header says %llu)", (long long)size,
			(unsigned long long)page * pages);
		return 1;
	}
	return 0;
}

/*
 * The next CREATE TABLE or CREATE VIEW statement of db/schema.sql from *p
 * on: its kind ("TABLE", "VIEW"), name (not NUL-terminated: *n bytes),
 * whether it says IF NOT EXISTS, and in *body where its text after the name
 * starts (" AS SELECT ...;" for a view, ending at *end, after the ';').
 * 0 at the end of the schema.
 */
struct schema_stmt {
	const char *kind, *name, *body, *end;
	size_t n;
	int if_not_exists;
};

static int schema_next(const char **p, struct schema_stmt *out)
{
	static const char *const kinds[] = { "TABLE", "VIEW" };

	while ((*p = strstr(*p, "\nCREATE "))) {
		const char *name = NULL;
		*p += strlen("\nCREATE ");
		for (size_t i = 0; i < 2; i++) {
			size_t k = strlen(kinds[i]);
			if (!strncmp(*p, kinds[i], k) && (*p)[k] == ' ') {
				name = *p + k + 1;
				out->kind = kinds[i];
			}
		}
		if (!name)
			continue;   /* an index */
		out->if_not_exists = !strncmp(name, "IF NOT EXISTS ", 14);
		if (out->if_not_exists)
			name += 14;
		out->name = name;
		out->n = strspn(name, "abcdefghijklmnopqrstuvwxyz_0123456789");
		out->body = name + out->n;
		/* The statement ends at the first ';' that completes it (none is inside a string). */
		out->end = out->body;
		for (;;) {
			const char *semi = strchr(out->end, ';');
			if (!semi) {
				out->end = out->body + strlen(out->body);
				break;
			}
			out->end = semi + 1;
			if (*out->end == '\n' || !*out->end)
				break;
		}
		*p = out->end;
		return 1;
	}
	return 0;
}

/*
 * Every table and view db/schema.sql creates for 'mapprof record' (those
 * written by 'report' say IF NOT EXISTS and are made again when missing).
 * Returns the first one missing from the database (malloc'ed), NULL when
 * all are there; *rc gets the failing SQLite code, if a query failed.
 */
static char *missing_object(sqlite3 *sql, const char **kind, int *rc)
{
	const char *p = db_schema_sql();
	struct schema_stmt s;
	sqlite3_stmt *st = NULL;
	char *missing = NULL;

	*rc = sqlite3_prepare_v2(sql, "SELECT 1 FROM sqlite_schema WHERE type = lower(?) AND name = ?",
				 -1, &st, NULL);
	while (*rc == SQLITE_OK && !missing && schema_next(&p, &s)) {
		if (s.if_not_exists)
			continue;
		*kind = s.kind;
		sqlite3_bind_text(st, 1, s.kind, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, s.name, (int)s.n, SQLITE_STATIC);
		*rc = sqlite3_step(st);
		if (*rc == SQLITE_DONE)
			missing = strndup(s.name, s.n);
		*rc = *rc == SQLITE_ROW || *rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(sql);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	return missing;
}

/*
 * The database is the user's input, and its schema is SQL that reading it
 * runs: no function with side effects may be called from it (trusted_schema
 * off), and no statement may write SQLite's own structures (defensive).
 * 0, or -1 when this SQLite cannot promise it (before 3.31).
 */
static int harden(sqlite3 *sql)
{
	int on = -1, off = -1;

	if (sqlite3_db_config(sql, SQLITE_DBCONFIG_TRUSTED_SCHEMA, 0, &off) != SQLITE_OK ||
	    sqlite3_db_config(sql, SQLITE_DBCONFIG_DEFENSIVE, 1, &on) != SQLITE_OK || off != 0 || on != 1)
		return -1;
	sqlite3_limit(sql, SQLITE_LIMIT_LENGTH, DB_MAX_VALUE_BYTES);
	return 0;
}

/*
 * A generated column in schema table 's' (schema.sql makes none): its
 * expression runs on every read of the row (VIRTUAL) or write (STORED),
 * and trusted_schema off still lets innocuous functions run there, such as
 * printf('%.*c', 1e9, 'x').  Other additions to a table (a column, a CHECK,
 * a DEFAULT) run nothing when mapprof reads; SQLITE_LIMIT_LENGTH (db.h)
 * bounds what they make on its writes.  NULL when none (or *rc set).
 */
static char *generated_column(sqlite3 *sql, const struct schema_stmt *s, int *rc)
{
	sqlite3_stmt *st = NULL;
	char *why = NULL;

	*rc = sqlite3_prepare_v2(sql, "SELECT name FROM pragma_table_xinfo(?) WHERE hidden IN (2, 3)",
				 -1, &st, NULL);
	if (*rc == SQLITE_OK) {
		sqlite3_bind_text(st, 1, s->name, (int)s->n, SQLITE_STATIC);
		*rc = sqlite3_step(st);
		if (*rc == SQLITE_ROW) {
			const unsigned char *col = sqlite3_column_text(st, 0);
			if (asprintf(&why, "'%.*s' has a generated column ('%s'), which mapprof never makes and "
				     "whose SQL would run on every read", (int)s->n, s->name,
				     col ? (const char *)col : "") < 0)
				why = NULL;
		}
		*rc = *rc == SQLITE_ROW || *rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(sql);
	}
	sqlite3_finalize(st);
	return why;
}

/*
 * What of the database's schema mapprof would run but never made (docs/
 * database.md, "What report trusts"): a trigger (schema.sql makes none; one
 * would run on report's writes), or a name of schema.sql's that is another
 * kind of object (a view where a table belongs, a virtual table), whose SQL
 * every read of that name would run.  Views of schema.sql's names are read
 * through shadow_views()'s copies, whatever the file's say.  NULL when
 * none (or *rc set when a query failed); else why, malloc'ed.
 */
static char *foreign_object(sqlite3 *sql, int *rc)
{
	const char *p = db_schema_sql();
	struct schema_stmt s;
	sqlite3_stmt *st = NULL;
	char *why = NULL;

	*rc = sqlite3_prepare_v2(sql, "SELECT name FROM sqlite_schema WHERE type = 'trigger' ORDER BY name",
				 -1, &st, NULL);
	if (*rc == SQLITE_OK && (*rc = sqlite3_step(st)) == SQLITE_ROW) {
		const unsigned char *name = sqlite3_column_text(st, 0);
		if (asprintf(&why, "it holds a trigger ('%s'), which mapprof never makes and which would "
			     "run on report's writes", name ? (const char *)name : "") < 0)
			why = NULL;
	}
	*rc = *rc == SQLITE_ROW || *rc == SQLITE_DONE || *rc == SQLITE_OK ? SQLITE_OK
	      : sqlite3_extended_errcode(sql);
	sqlite3_finalize(st);
	st = NULL;
	if (why || *rc != SQLITE_OK)
		return why;
	*rc = sqlite3_prepare_v2(sql, "SELECT type, substr(sql, 1, 13) = 'CREATE TABLE ' FROM sqlite_schema"
				 " WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view', 'index')",
				 -1, &st, NULL);
	while (*rc == SQLITE_OK && !why && schema_next(&p, &s)) {
		sqlite3_bind_text(st, 1, s.name, (int)s.n, SQLITE_STATIC);
		while ((*rc = sqlite3_step(st)) == SQLITE_ROW && !why) {
			const char *type = (const char *)sqlite3_column_text(st, 0);
			int plain = sqlite3_column_int(st, 1);
			int want_table = !strcmp(s.kind, "TABLE");
			if (!type || strcmp(type, want_table ? "table" : "view") || (want_table && !plain)) {
				if (asprintf(&why, "'%.*s' is %s, where mapprof makes a %s", (int)s.n, s.name,
					     !type ? "of no type" : !strcmp(type, "table") ?
					     (plain ? "a table" : "a virtual table") :
					     !strcmp(type, "view") ? "a view" : "an index",
					     want_table ? "table" : "view") < 0)
					why = NULL;
				break;
			}
		}
		*rc = *rc == SQLITE_ROW || *rc == SQLITE_DONE ? SQLITE_OK : sqlite3_extended_errcode(sql);
		sqlite3_reset(st);
		if (!why && *rc == SQLITE_OK && !strcmp(s.kind, "TABLE"))
			why = generated_column(sql, &s, rc);
	}
	sqlite3_finalize(st);
	return why;
}

/*
 * Every view of db/schema.sql made again in this connection's TEMP schema,
 * which name lookups search before the file's: mapprof then reads through
 * the views its schema says, never the SQL a file holds under their names
 * (a view rewritten as an endless recursive query would otherwise run).
 * 0, or -1 with *err set.
 */
static int shadow_views(sqlite3 *sql, char **err)
{
	const char *p = db_schema_sql();
	struct schema_stmt s;

	while (schema_next(&p, &s)) {
		char *stmt, *msg = NULL;
		int rc;
		if (strcmp(s.kind, "VIEW"))
			continue;
		if (asprintf(&stmt, "CREATE TEMP VIEW %.*s%.*s", (int)s.n, s.name,
			     (int)(s.end - s.body), s.body) < 0)
			return db_fail(err, "out of memory");
		rc = sqlite3_exec(sql, stmt, NULL, NULL, &msg);
		free(stmt);
		if (rc != SQLITE_OK) {
			db_fail(err, "cannot make view '%.*s': %s", (int)s.n, s.name,
				msg ? msg : sqlite3_errmsg(sql));
			sqlite3_free(msg);
			return -1;
		}
	}
	return 0;
}

/* A query failed with 'rc' while checking: say what that means. */
static int query_failed(sqlite3 *sql, int rc, enum db_problem *problem, char **err)
{
	if (is_busy(rc)) {
		*problem = DB_LOCKED;
		return db_fail(err, "it is locked by another process (waited %d s: %s)",
			       DB_BUSY_TIMEOUT_MS / 1000, sqlite3_errstr(rc));
	}
	if (is_corrupt(rc)) {
		char *words = quick_check(sql);
		*problem = DB_DAMAGED;
		db_fail(err, "the database is damaged: SQLite says: %s", words ? words : sqlite3_errstr(rc));
		free(words);
		return -1;
	}
	*problem = DB_CANNOT_OPEN;
	return db_fail(err, "cannot read it: %s", sqlite3_errmsg(sql));
}

/*
 * Is it mapprof's, of our schema version, undamaged and finished?
 * 0, or -1 with *problem and *err set.
 */
static int check_content(sqlite3 *sql, const char *path, int flags, enum db_problem *problem, char **err)
{
	struct probe p;
	const char *kind = NULL;
	char *missing, *words;
	int rc, version;

	/* The first read: a damaged first page, a lock, or not a database at all. */
	p = probe(sql, "SELECT COUNT(*) FROM sqlite_schema");
	free(p.text);
	if (p.rc != SQLITE_ROW)
		return query_failed(sql, p.rc, problem, err);
	if ((flags & DB_OPEN_CHECK) && (words = quick_check(sql))) {
		*problem = DB_DAMAGED;
		db_fail(err, "the database is damaged: SQLite says: %s", words);
		free(words);
		return -1;
	}
	/* Before the first read of a table of ours: its name might run a view's SQL. */
	words = foreign_object(sql, &rc);
	if (rc != SQLITE_OK)
		return query_failed(sql, rc, problem, err);
	if (words) {
		*problem = DB_ALTERED;
		db_fail(err, "the database was altered after mapprof wrote it: %s; mapprof does not run "
			"SQL it did not write", words);
		free(words);
		return -1;
	}
	p = probe(sql, "SELECT value FROM meta WHERE key = 'format'");
	if (p.rc != SQLITE_ROW || !p.text || strcmp(p.text, "mapprof")) {
		int no_table = p.rc != SQLITE_ROW && p.rc != SQLITE_DONE && (p.rc & 0xff) == SQLITE_ERROR;
		free(p.text);
		if (p.rc != SQLITE_ROW && p.rc != SQLITE_DONE && !no_table)
			return query_failed(sql, p.rc, problem, err);
		*problem = DB_NOT_MAPPROF;
		return db_fail(err, "not a mapprof database: %s", no_table ? "it has no table 'meta'"
			       : "its table 'meta' does not say format 'mapprof'");
	}
	free(p.text);
	p = probe(sql, "SELECT value FROM meta WHERE key = 'schema_version'");
	if (p.rc != SQLITE_ROW && p.rc != SQLITE_DONE)
		return query_failed(sql, p.rc, problem, err);
	version = p.text ? atoi(p.text) : -1;
	free(p.text);
	if (version != DB_SCHEMA_VERSION) {
		struct probe c = probe(sql, "SELECT collector FROM run_raw WHERE id = 1");
		*problem = version > DB_SCHEMA_VERSION ? DB_NEWER : DB_OLDER;
		db_fail(err, "written by %s mapprof%s%s (schema version %d; this mapprof %s reads version %d)",
			version > DB_SCHEMA_VERSION ? "a newer" : "an older", c.text ? " " : "",
			c.text ? c.text : "", version, MAPPROF_VERSION, DB_SCHEMA_VERSION);
		free(c.text);
		return -1;
	}
	missing = missing_object(sql, &kind, &rc);
	if (rc != SQLITE_OK)
		return query_failed(sql, rc, problem, err);
	if (missing) {
		*problem = DB_DAMAGED;
		db_fail(err, "the database is damaged: %s '%s' is missing",
			!strcmp(kind, "VIEW") ? "view" : "table", missing);
		free(missing);
		return -1;
	}
	p = probe(sql, "SELECT COALESCE(status, 'recording') FROM run_raw WHERE id = 1");
	if (p.rc != SQLITE_ROW && p.rc != SQLITE_DONE)
		return query_failed(sql, p.rc, problem, err);
	if (!(flags & DB_OPEN_UNFINISHED) && (p.rc == SQLITE_DONE || !strcmp(p.text, "recording"))) {
		char spool[4096];
		struct stat st;
		snprintf(spool, sizeof(spool), "%s-spool", path);
		*problem = DB_UNFINISHED;
		db_fail(err, "the recording is unfinished (%s): 'mapprof record' is still running, or was"
			" killed before it could finish%s%s%s", p.rc == SQLITE_DONE ? "it holds no run yet"
			: "run status 'recording'", stat(spool, &st) == 0 ? " (its spool '" : "",
			stat(spool, &st) == 0 ? spool : "", stat(spool, &st) == 0 ? "' is there)" : "");
		free(p.text);
		return -1;
	}
	free(p.text);
	return 0;
}

/*
 * Can this connection write the file?  A trial write, rolled back, inside
 * the write transaction it leaves open: it takes the write lock (waiting for
 * another writer up to the busy timeout) and opens the journal beside the
 * file (which a read-only directory refuses).  SQLITE_OK or the failure.
 */
static int begin_write(struct db *db)
{
	int rc;

	if (sqlite3_db_readonly(db->sql, "main"))
		return SQLITE_READONLY;
	rc = sqlite3_exec(db->sql, "BEGIN IMMEDIATE", NULL, NULL, NULL);
	if (rc != SQLITE_OK)
		return sqlite3_extended_errcode(db->sql);
	rc = sqlite3_exec(db->sql, "SAVEPOINT probe; INSERT OR REPLACE INTO meta (key, value)"
			  " VALUES ('report_probe', '1'); ROLLBACK TO probe; RELEASE probe",
			  NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		rc = sqlite3_extended_errcode(db->sql);
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
		return rc;
	}
	db->depth = 1;
	return SQLITE_OK;
}

/*
 * Replace the connection by one to a private temporary database (on disk in
 * SQLite's temporary directory, deleted when closed) holding a copy of it.
 */
static int copy_to_temp(struct db *db, char **err)
{
	sqlite3 *tmp = NULL;
	sqlite3_backup *b;
	int rc;

	/* A read transaction first: the busy timeout applies to taking it. */
	rc = sqlite3_exec(db->sql, "BEGIN; SELECT COUNT(*) FROM sqlite_schema", NULL, NULL, NULL);
	if (rc == SQLITE_OK &&
	    (rc = sqlite3_open_v2("", &tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
				  NULL)) == SQLITE_OK) {
		b = sqlite3_backup_init(tmp, "main", db->sql, "main");
		rc = b ? sqlite3_backup_step(b, -1) : sqlite3_errcode(tmp);
		if (rc == SQLITE_DONE)
			rc = SQLITE_OK;
		if (sqlite3_backup_finish(b) != SQLITE_OK && rc == SQLITE_OK)
			rc = sqlite3_errcode(tmp);
	}
	if (rc != SQLITE_OK) {
		db_fail(err, "cannot copy it into a temporary database: %s",
			tmp && sqlite3_errcode(tmp) != SQLITE_OK ? sqlite3_errmsg(tmp) : sqlite3_errmsg(db->sql));
		sqlite3_close(tmp);
		return -1;
	}
	sqlite3_finalize(db->root_st);
	sqlite3_finalize(db->cols_st);
	db->root_st = db->cols_st = NULL;
	sqlite3_close_v2(db->sql);
	db->sql = tmp;
	sqlite3_busy_timeout(tmp, DB_BUSY_TIMEOUT_MS);
	sqlite3_exec(tmp, "PRAGMA synchronous=OFF", NULL, NULL, NULL);
	/* The copy holds the same schema: read it as carefully. */
	if (harden(tmp) < 0)
		return db_fail(err, "cannot read its copy safely: SQLite %s cannot turn trusted_schema off",
			       sqlite3_libversion());
	return shadow_views(tmp, err);
}

struct db *db_open(const char *path, int flags, enum db_problem *problem, char **err)
{
	enum db_problem dummy;
	char *truncated = NULL;
	int can_write = 0, rc;
	sqlite3 *sql = NULL;
	struct stat st;
	struct db *db;

	if (!problem)
		problem = &dummy;
	*problem = DB_OK;
	if (stat(path, &st) < 0) {
		*problem = DB_CANNOT_OPEN;
		db_fail(err, "%s", strerror(errno));
		return NULL;
	}
	if (S_ISDIR(st.st_mode)) {
		*problem = DB_CANNOT_OPEN;
		db_fail(err, "it is a directory");
		return NULL;
	}
	if (st.st_size == 0) {
		*problem = DB_EMPTY;
		db_fail(err, "the file is empty (0 bytes): no recording was written to it");
		return NULL;
	}
	rc = check_header(path, st.st_size, problem, &truncated);
	if (rc < 0) {
		if (err)
			*err = truncated;
		else
			free(truncated);
		return NULL;
	}
	if ((flags & DB_OPEN_WRITE) && !truncated) {
		char *copy = strdup(path);
		can_write = copy && access(path, W_OK) == 0 && access(dirname(copy), W_OK) == 0;
		free(copy);
	}
	if (sqlite3_open_v2(path, &sql, (can_write ? SQLITE_OPEN_READWRITE : SQLITE_OPEN_READONLY) |
			    SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		*problem = DB_CANNOT_OPEN;
		db_fail(err, "%s", sql ? sqlite3_errmsg(sql) : "out of memory");
		sqlite3_close(sql);
		free(truncated);
		return NULL;
	}
	/* Before the first read: a lock held by another process is waited for. */
	sqlite3_busy_timeout(sql, DB_BUSY_TIMEOUT_MS);
	if (harden(sql) < 0) {
		*problem = DB_CANNOT_OPEN;
		db_fail(err, "cannot read it safely: SQLite %s cannot turn trusted_schema off (3.31 or "
			"newer can)", sqlite3_libversion());
		sqlite3_close(sql);
		free(truncated);
		return NULL;
	}
	if (truncated) {
		char *words = quick_check(sql);
		db_fail(err, "the database is damaged: %s%s%s", truncated,
			words ? "; SQLite says: " : "", words ? words : "");
		free(words);
		free(truncated);
		sqlite3_close(sql);
		return NULL;
	}
	/*
	 * The checks in one read transaction: each of their ~100 statements
	 * alone would take and drop the file's lock and look for a journal
	 * (six system calls each; most of a tiny database's report).  Closing
	 * the connection ends it on the way out.
	 */
	if (sqlite3_exec(sql, "BEGIN", NULL, NULL, NULL) != SQLITE_OK) {   /* only out of memory */
		*problem = DB_CANNOT_OPEN;
		db_fail(err, "%s", sqlite3_errmsg(sql));
		sqlite3_close(sql);
		return NULL;
	}
	if (check_content(sql, path, flags, problem, err) < 0) {
		sqlite3_close(sql);
		return NULL;
	}
	if (shadow_views(sql, err) < 0) {
		*problem = DB_CANNOT_OPEN;
		sqlite3_close(sql);
		return NULL;
	}
	if (sqlite3_exec(sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		*problem = DB_CANNOT_OPEN;
		db_fail(err, "cannot end its read: %s", sqlite3_errmsg(sql));
		sqlite3_close(sql);
		return NULL;
	}
	db = db_wrap(sql, path);
	if (!db) {
		sqlite3_close(sql);
		*problem = DB_CANNOT_OPEN;
		db_fail(err, "out of memory");
		return NULL;
	}
	db_watch_tables(db);
	if (!(flags & DB_OPEN_WRITE))
		return db;
	rc = can_write ? begin_write(db) : SQLITE_READONLY;
	if (rc == SQLITE_OK)
		return db;
	db->copy = is_busy(rc) ? "locked by another process" : "read-only";
	if (copy_to_temp(db, err) < 0) {
		*problem = is_busy(sqlite3_extended_errcode(db->sql)) ? DB_LOCKED : DB_CANNOT_OPEN;
		db_close(db);
		return NULL;
	}
	return db;
}

const char *db_copied(const struct db *db)
{
	return db->copy;
}

int db_moved(struct db *db)
{
	int moved = 0;

	if (db->copy || sqlite3_file_control(db->sql, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
		return 0;
	return moved != 0;
}
