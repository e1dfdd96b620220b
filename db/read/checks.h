/*
 * checks.h - the rows of check_raw ('record --check', docs/checks.md), with
 * the data operation each names: what the report groups into check
 * findings (report/findings/checks.h).
 */
#ifndef MAPPROF_DB_CHECKS_H
#define MAPPROF_DB_CHECKS_H

#include <stddef.h>
#include <stdint.h>

struct db;

/* One row of check_raw and its operation's columns (0 / -1 when it has none). */
struct check_row {
	char *kind;          /* 'never_written', 'lost_host_write', 'race', 'skipped' */
	int64_t seq;
	int device;
	uint64_t host_addr;
	uint64_t first, end, bytes;
	char *note;          /* NULL when none */
	uint64_t codeptr;    /* the operation's */
	int map_index;       /* -1: none */
	int op_kind;         /* OMPT's data op kind (async forms as recorded); 0: no operation */
	uint64_t op_bytes;
	int target_kind;     /* its construct's ompt_target_t; 0: unknown */
};

/*
 * Every row of check_raw in the order written, into *rows (malloc'ed; free
 * with check_rows_free()) and *n, and into *ran whether the run was
 * recorded with the checks on (stats_raw 'check').  A database without the
 * table gives none.  0, or -1 with *err set.
 */
int checks_read(struct db *db, struct check_row **rows, size_t *n, int *ran, char **err);
void check_rows_free(struct check_row *rows, size_t n);

#endif
