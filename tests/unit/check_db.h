/*
 * check_db.h - database helpers for unit tests (after check.h).
 */
#ifndef MAPPROF_TESTS_CHECK_DB_H
#define MAPPROF_TESTS_CHECK_DB_H

#include <stdio.h>
#include <stdlib.h>

#include "db/db.h"

/* A new database at path (replacing one there), or NULL after saying why. */
static inline struct db *check_db_create(const char *path)
{
	char *err = NULL;
	struct db *db = db_create(path, 1, &err);
	if (!db)
		fprintf(stderr, "%s\n", err);
	free(err);
	return db;
}

/* Run SQL; a failure is a test failure. */
static inline void check_exec(struct db *db, const char *sql)
{
	char *err = NULL;
	if (db_exec(db, sql, &err) < 0) {
		fprintf(stderr, "%s\n", err);
		check_failures++;
	}
	free(err);
}

#endif
