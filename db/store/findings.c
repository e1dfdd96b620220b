/*
 * findings.c - write the rows of the findings tables (see findings.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/pages/finding_pages.h"
#include "db/store/findings.h"

static const char block_begin[] = "-- BEGIN report: findings tables\n";
static const char block_end[] = "-- END report: findings tables";

int db_findings_ensure(struct db *db, char **err)
{
	const char *schema = db_schema_sql();
	const char *b = strstr(schema, block_begin), *e = b ? strstr(b, block_end) : NULL;
	char *sql;
	int rc;

	if (!e)
		return db_fail(err, "the embedded schema has no findings block");
	b += sizeof(block_begin) - 1;
	sql = strndup(b, (size_t)(e - b));
	if (!sql)
		return db_fail(err, "out of memory");
	rc = db_exec(db, sql, err);
	free(sql);
	return rc;
}

/* A JSON array of n integers (malloc'ed): ints, or 64-bit values written
 * as signed (as SQLite keeps them) when 'wide'. */
static char *json_ints(const void *v, int n, int wide)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? "," : "",
			wide ? (long long)((const int64_t *)v)[i] : (long long)((const int *)v)[i]);
	fputc(']', f);
	if (fclose(f))
		return NULL;
	return buf;
}

/*
 * finding_event_raw gets millions of rows on a long run, and one INSERT per
 * row cost more in statement overhead (reset, bind, step) than SQLite spends
 * in its b-tree: rows are written EVENT_BATCH at a time through one
 * multi-row VALUES, the last few one by one.  Same rows, same order.
 */
enum { EVENT_BATCH = 64 };

struct event_row {
	int finding;
	int64_t occurrence;
	const char *role;
	int64_t seq;
};

/* The roles finding_event_raw holds (op_role_name()'s), for the pages' text column. */
static const char *const roles[] = { "transfer", "send", "return", "alloc", "delete", "unknown" };

struct findings_writer {
	struct db *db;
	struct finding_pages *pages;    /* findings_writer_pages(): the event rows go there */
	const char *role_seen[sizeof(roles) / sizeof(roles[0])];   /* the address each name came with */
	int refused;                    /* the early commit was refused */
	sqlite3_stmt *finding, *summary;
	sqlite3_stmt *one, *batch;      /* finding_event_raw */
	struct event_row rows[EVENT_BATCH];
	int n;
	int done;                       /* committed */
};

/* The message of every failed write. */
static int write_fail(struct findings_writer *w, char **err)
{
	return db_fail(err, "cannot write findings to '%s': %s", w->db->path,
		       sqlite3_errmsg(w->db->sql));
}

static int prepare_events(struct findings_writer *w, char **err)
{
	static const char head[] = "INSERT INTO finding_event_raw (finding, occurrence, role, seq) VALUES ";
	char sql[sizeof(head) + EVENT_BATCH * sizeof(",(?,?,?,?)")];
	size_t len = sizeof(head) - 1;

	memcpy(sql, head, len + 1);
	for (int i = 0; i < EVENT_BATCH; i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s(?,?,?,?)", i ? "," : "");
	w->n = 0;
	w->one = db_prepare(w->db, "INSERT INTO finding_event_raw (finding, occurrence, role, seq)"
			    " VALUES (?,?,?,?)", err);
	w->batch = w->one ? db_prepare(w->db, sql, err) : NULL;
	return w->batch ? 0 : -1;
}

/* More old finding events than this (by the largest rowid: no scan): deleted in a commit of their own. */
enum { SPLIT_EVENTS = 1 << 16 };

struct findings_writer *findings_writer_open(struct db *db, char **err)
{
	static const char delete_sql[] =
		"DELETE FROM finding_raw; DELETE FROM finding_event_raw; DELETE FROM finding_summary_raw;";
	struct findings_writer *w;
	int split;

	if (db_findings_ensure(db, err) < 0)
		return NULL;
	w = calloc(1, sizeof(*w));
	if (!w) {
		db_fail(err, "out of memory");
		return NULL;
	}
	w->db = db;
	/*
	 * The last report's findings go first.  Debian builds SQLite with
	 * secure_delete on, which zeroes every freed page; these are this
	 * program's own rows, derived from the events the file still holds:
	 * nothing to hide.
	 *
	 * Inside the report's transaction (db_open()'s), many old rows are
	 * deleted in a commit of their own before the new rows are written:
	 * the new rows then take pages that are free in the file, which SQLite
	 * need not copy into the rollback journal first (every page of the old
	 * finding_event_raw: 168 MB written, and as much read, at 10 M events;
	 * a 30 M report took 0.83 of the time without).  A report that stops
	 * before its end then leaves the database without findings (its events
	 * intact, what it wrote before them, the source attribution, stored):
	 * the next report stores them.  A few old rows are replaced all at
	 * once, in one transaction (a commit more is a dozen more locks, which
	 * thousands of tiny rank databases feel); so are many when the early
	 * commit is refused (another process reading past the busy timeout).
	 */
	db_exec(db, "PRAGMA secure_delete = OFF", NULL);
	split = db->depth == 1 && !sqlite3_get_autocommit(db->sql) &&
		db_scalar(db, "SELECT MAX(rowid) FROM finding_event_raw") > SPLIT_EVENTS;
	if (db_begin(db) < 0) {
		db_fail(err, "cannot write findings to '%s': %s", db->path, sqlite3_errmsg(db->sql));
		free(w);
		return NULL;
	}
	if (db_exec(db, delete_sql, err) < 0)
		goto fail;
	/*
	 * Refused (a reader's lock): on in the one transaction, the old rows
	 * kept if the store fails (unless the new events go as pages:
	 * findings_writer_pages() commits the deletion too).
	 */
	if (split && (split = db_commit_early(db)) < 0) {
		db_fail(err, "cannot write findings to '%s': %s", db->path, sqlite3_errmsg(db->sql));
		free(w);   /* no transaction left to roll back */
		return NULL;
	}
	w->refused = split == 1;   /* another process reads: no second try at a commit (findings_writer_pages()) */
	w->finding = db_prepare(db, "INSERT INTO finding_raw (id, kind, flavour, fingerprint, occurrences,"
				" bytes, savings_ns, devices, locations, origins, data_addr, data_bytes,"
				" first_seq) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", err);
	w->summary = w->finding && prepare_events(w, err) == 0 ?
		db_prepare(db, "INSERT INTO finding_summary_raw (kind, findings, occurrences,"
			   " bytes, savings_ns, duration_ns, predicted_speedup)"
			   " VALUES (?,?,?,?,?,?,?)", err) : NULL;
	if (!w->summary)
		goto fail;
	return w;
fail:
	findings_writer_free(w);
	return NULL;
}

void findings_writer_free(struct findings_writer *w)
{
	if (!w)
		return;
	if (!w->done)
		db_rollback(w->db);
	sqlite3_finalize(w->finding);
	sqlite3_finalize(w->one);
	sqlite3_finalize(w->batch);
	sqlite3_finalize(w->summary);
	free(w);
}

int findings_writer_finding(struct findings_writer *w, const struct finding_row *r, char **err)
{
	sqlite3_stmt *st = w->finding;
	char *devices = json_ints(r->devices, r->ndevices, 0);
	char *locations = json_ints(r->locations, r->nlocations, 1);
	char *origins = r->has_origins ? json_ints(r->origins, r->norigins, 1) : NULL;
	int rc = -1;

	if (!devices || !locations || (r->has_origins && !origins))
		goto out;
	sqlite3_reset(st);
	sqlite3_bind_int(st, 1, r->id);
	sqlite3_bind_text(st, 2, r->kind, -1, SQLITE_STATIC);
	if (r->flavour && *r->flavour)
		sqlite3_bind_text(st, 3, r->flavour, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_text(st, 4, r->fingerprint, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, (int64_t)r->occurrences);
	sqlite3_bind_int64(st, 6, (int64_t)r->bytes);
	sqlite3_bind_int64(st, 7, r->savings_ns);
	sqlite3_bind_text(st, 8, devices, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, locations, -1, SQLITE_TRANSIENT);
	if (origins)
		sqlite3_bind_text(st, 10, origins, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 10);
	db_bind_opt_int64(st, 11, r->data_addr != 0, (int64_t)r->data_addr);
	sqlite3_bind_int64(st, 12, (int64_t)r->data_bytes);
	sqlite3_bind_int64(st, 13, r->first_seq);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
out:
	free(devices);
	free(locations);
	free(origins);
	return rc < 0 ? write_fail(w, err) : 0;
}

/* Bind row r at parameters first..first+3 of st. */
static void bind_event(sqlite3_stmt *st, int first, const struct event_row *r)
{
	sqlite3_bind_int(st, first, r->finding);
	sqlite3_bind_int64(st, first + 1, r->occurrence);
	sqlite3_bind_text(st, first + 2, r->role, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, first + 3, r->seq);
}

/* The index of a role in roles[]: the caller's static names, learned by their address. */
static int role_index(struct findings_writer *w, const char *role)
{
	enum { NROLES = sizeof(roles) / sizeof(roles[0]) };

	for (int i = 0; i < NROLES; i++)
		if (role == w->role_seen[i])
			return i;
	for (int i = 0; i < NROLES; i++)
		if (!strcmp(role, roles[i])) {
			w->role_seen[i] = role;
			return i;
		}
	return -1;
}

int findings_writer_event(struct findings_writer *w, int finding, int64_t occurrence,
			  const char *role, int64_t seq, char **err)
{
	if (w->pages) {
		int r = role_index(w, role);
		if (r < 0)
			return db_fail(err, "cannot write findings to '%s': a finding event's role '%s' is unknown",
				       w->db->path, role);
		if (finding_pages_row(w->pages, finding, occurrence, r, seq) < 0)
			return db_fail(err, "cannot write findings to '%s': %s", w->db->path, strerror(errno));
		return 0;
	}
	w->rows[w->n++] = (struct event_row){ finding, occurrence, role, seq };
	if (w->n < EVENT_BATCH)
		return 0;
	w->n = 0;
	sqlite3_reset(w->batch);
	for (int i = 0; i < EVENT_BATCH; i++)
		bind_event(w->batch, 4 * i + 1, &w->rows[i]);
	return sqlite3_step(w->batch) == SQLITE_DONE ? 0 : write_fail(w, err);
}

/* Write the rows still waiting for a full batch. */
static int event_flush(struct findings_writer *w)
{
	for (int i = 0; i < w->n; i++) {
		sqlite3_reset(w->one);
		bind_event(w->one, 1, &w->rows[i]);
		if (sqlite3_step(w->one) != SQLITE_DONE)
			return -1;
	}
	w->n = 0;
	return 0;
}

int findings_writer_summary(struct findings_writer *w, const struct finding_summary_row *r,
			    char **err)
{
	sqlite3_stmt *st = w->summary;

	if (event_flush(w) < 0)
		return write_fail(w, err);
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, r->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)r->findings);
	sqlite3_bind_int64(st, 3, (int64_t)r->occurrences);
	sqlite3_bind_int64(st, 4, (int64_t)r->bytes);
	sqlite3_bind_int64(st, 5, r->savings_ns);
	if (r->has_run) {
		sqlite3_bind_int64(st, 6, r->duration_ns);
		if (r->predicted_speedup > 0)
			sqlite3_bind_double(st, 7, r->predicted_speedup);
		else
			sqlite3_bind_null(st, 7);
	} else {
		sqlite3_bind_null(st, 6);
		sqlite3_bind_null(st, 7);
	}
	return sqlite3_step(st) == SQLITE_DONE ? 0 : write_fail(w, err);
}

/* Finding events below this many go through SQLite (tiny rank databases need no pages). */
enum { PAGES_MIN_ROWS = 1 << 16 };

/* Whether a statement of the connection is running (its read lock then outlives a COMMIT). */
static int any_busy(sqlite3 *sql)
{
	for (sqlite3_stmt *st = sqlite3_next_stmt(sql, NULL); st; st = sqlite3_next_stmt(sql, st))
		if (sqlite3_stmt_busy(st))
			return 1;
	return 0;
}

int findings_writer_pages(struct findings_writer *w, uint64_t nrows, int (*each)(void *arg), void *arg,
			  char **err)
{
	const char *env = getenv("MAPPROF_PAGEWRITE"), *why = NULL;
	struct db *db = w->db;
	int rc = 1;

	if (nrows < PAGES_MIN_ROWS || (env && !strcmp(env, "0")) || w->n || w->refused || db->depth != 2 ||
	    sqlite3_get_autocommit(db->sql))
		return 1;
	/*
	 * A damaged freelist is left to SQLite, in the one transaction, as
	 * without the pages: nothing committed before SQLite says what it
	 * makes of the file.
	 */
	if (!finding_pages_freelist_sound(db, &why))
		return 1;
	/*
	 * What the transaction holds (the old findings deleted, what the report
	 * stored before) is committed first: the pages are written with the
	 * connection idle.  Refused (another process reading): on in it.
	 */
	if (sqlite3_exec(db->sql, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
		if (!sqlite3_get_autocommit(db->sql))
			return 1;
		db->depth = 0;
		return write_fail(w, err);
	}
	db->depth = 0;
	if (!any_busy(db->sql) && (w->pages = finding_pages_begin(db, nrows, roles, (int)(sizeof(roles) / sizeof(roles[0])), &why))) {
		int r = each(arg);
		rc = finding_pages_end(w->pages, r == 0) == 0 && r == 0 ? 0 : -1;
		w->pages = NULL;
		if (rc < 0 && err && !*err)
			db_fail(err, "cannot write findings to '%s': %s", db->path, strerror(errno));
	} else if (db_moved(db)) {
		/* Not SQLite's inserts either: the rows would go to a file no longer at the path. */
		return db_fail(err, "'%s' was replaced while the report ran: its findings were not stored", db->path);
	}
	/* Again in a transaction (a journal left by a failure is played back here). */
	if (db_begin(db) < 0 || db_begin(db) < 0) {
		if (rc >= 0 || (err && !*err))
			write_fail(w, err);
		db_rollback(db);
		return -1;
	}
	return rc;
}

int findings_writer_commit(struct findings_writer *w, char **err)
{
	if (event_flush(w) < 0 || db_commit(w->db) < 0)
		return write_fail(w, err);
	w->done = 1;
	return 0;
}
