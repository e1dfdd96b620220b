/*
 * source_path.c - a location's file joined to its compilation directory.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/store/source_path.h"

char *db_source_path(struct db *db, uint64_t codeptr)
{
	sqlite3_stmt *st = db_prepare(db, "SELECT file, comp_dir FROM location WHERE codeptr = ?", NULL);
	char *out = NULL;

	if (!st)
		return NULL;
	sqlite3_bind_int64(st, 1, (int64_t)codeptr);
	if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_text(st, 0)) {
		const char *file = (const char *)sqlite3_column_text(st, 0);
		const char *dir = (const char *)sqlite3_column_text(st, 1);
		if (!*file)
			out = NULL;
		else if (file[0] == '/' || !dir || !*dir)
			out = strdup(file);
		else if (asprintf(&out, "%s/%s", dir, file) < 0)
			out = NULL;
	}
	sqlite3_finalize(st);
	return out;
}
