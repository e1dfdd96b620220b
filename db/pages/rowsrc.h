/*
 * rowsrc.h - the rows of a rowid table in rowid order, exactly as the
 * statement "SELECT <every column> FROM <table> ORDER BY <its rowid>" gives
 * them (db/ only).
 *
 * The rows are decoded from the file's pages (db/pages/pageread.h) where the file
 * allows it, under a read transaction the source keeps open (a statement
 * stepped once, finalized at the end); a row the pages cannot give is read
 * by SQLite by its rowid; a page the reader does not accept hands the rest
 * to SQLite's own scan, past the rows already given; a file or table the
 * reader must not read (db/pages/pageread.h), or one changed through this
 * connection (db_watch_tables()), is read by SQLite from the start.
 *
 * MAPPROF_PAGEREAD=0: always SQLite (tests compare the two ways); =tell: say
 * on stderr when and why the pages are not read; =stop:N: give the pages
 * up after N rows, as on a damaged page (tests).
 */
#ifndef MAPPROF_DB_ROWSRC_H
#define MAPPROF_DB_ROWSRC_H

#include "db/db_internal.h"

struct rowsrc;

/*
 * A source of table's rows: cols[0..ncols) are all its columns, in order,
 * column ipk its INTEGER PRIMARY KEY.  NULL with *err on an error.
 */
struct rowsrc *rowsrc_open(struct db *db, const char *table, const char *const *cols, int ncols, int ipk,
			   char **err);

/* The next row into c[0..ncols): 1, 0 at the end, -1 with *err. */
int rowsrc_next(struct rowsrc *r, struct dbval *c, char **err);

/* Accepts NULL. */
void rowsrc_close(struct rowsrc *r);

#endif
