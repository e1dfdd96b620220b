/*
 * source_files.h - the size and content hash of each source file of the
 * program as 'mapprof record' found it (source_file_raw, schema.sql), for
 * 'mapprof report' to tell a file edited since the recording from the one
 * that was run.  Which files, and how they are hashed, is report/'s call
 * (report/attribute/attribute.h); db/ only stores the rows.
 */
#ifndef MAPPROF_DB_SOURCE_FILES_H
#define MAPPROF_DB_SOURCE_FILES_H

#include <stddef.h>
#include <stdint.h>

struct db;

struct source_file_row {
	char *path;           /* owned by the row */
	int64_t bytes;
	char hash[17];        /* XXH3-64, 16 lower-case hex digits */
};

/* Replace every row of source_file_raw by these, in one transaction.  0, or -1 with *err set. */
int source_files_store(struct db *db, const struct source_file_row *rows, size_t n, char **err);

/*
 * Every row of source_file_raw, malloc'ed (source_file_rows_free()); none
 * from a database recorded before the table existed.  0, or -1 with *err set.
 */
int source_files_read(struct db *db, struct source_file_row **rows, size_t *n, char **err);
void source_file_rows_free(struct source_file_row *rows, size_t n);

#endif
