/*
 * source_files.c - rows of source_file_raw (source_files.h).
 */
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/store/source_files.h"

int source_files_store(struct db *db, const struct source_file_row *rows, size_t n, char **err)
{
	sqlite3_stmt *st = NULL;
	int rc = SQLITE_DONE;

	if (db_begin(db) < 0)
		return db_fail(err, "cannot write '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (db_exec(db, "DELETE FROM source_file_raw", err) < 0 ||
	    !(st = db_prepare(db, "INSERT OR REPLACE INTO source_file_raw (path, bytes, hash) VALUES (?, ?, ?)",
			      err))) {
		db_rollback(db);
		return -1;
	}
	for (size_t i = 0; i < n && rc == SQLITE_DONE; i++) {
		sqlite3_bind_text(st, 1, rows[i].path, -1, SQLITE_STATIC);
		sqlite3_bind_int64(st, 2, rows[i].bytes);
		sqlite3_bind_text(st, 3, rows[i].hash, -1, SQLITE_STATIC);
		rc = sqlite3_step(st);
		sqlite3_reset(st);
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || db_commit(db) < 0) {
		db_fail(err, "cannot store the source files' hashes in '%s': %s", db->path,
			sqlite3_errmsg(db->sql));
		db_rollback(db);
		return -1;
	}
	return 0;
}

void source_file_rows_free(struct source_file_row *rows, size_t n)
{
	for (size_t i = 0; rows && i < n; i++)
		free(rows[i].path);
	free(rows);
}

int source_files_read(struct db *db, struct source_file_row **rows, size_t *n, char **err)
{
	sqlite3_stmt *st = NULL;
	struct source_file_row *r = NULL;
	size_t count = 0, cap = 0;
	int rc;

	*rows = NULL;
	*n = 0;
	/* A database recorded before the table existed has none: nothing to compare. */
	if (sqlite3_prepare_v2(db->sql, "SELECT path, bytes, hash FROM source_file_raw"
			       " WHERE path IS NOT NULL AND typeof(bytes) = 'integer' AND length(hash) = 16",
			       -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		return 0;
	}
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *path = (const char *)sqlite3_column_text(st, 0);
		const char *hash = (const char *)sqlite3_column_text(st, 2);
		if (count == cap) {
			size_t want = cap ? 2 * cap : 16;
			struct source_file_row *p = realloc(r, want * sizeof(*r));
			if (!p)
				break;
			r = p;
			cap = want;
		}
		if (!path || !hash || !(r[count].path = strdup(path)))
			continue;
		r[count].bytes = sqlite3_column_int64(st, 1);
		memcpy(r[count].hash, hash, 16);
		r[count].hash[16] = '\0';
		count++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE) {
		source_file_rows_free(r, count);
		if (rc == SQLITE_ROW)
			return db_fail(err, "out of memory");
		return db_fail(err, "cannot read the source files' hashes of '%s': %s", db->path,
			       sqlite3_errmsg(db->sql));
	}
	*rows = r;
	*n = count;
	return 0;
}
