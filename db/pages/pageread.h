/*
 * pageread.h - the rows of a rowid table read from the database file's
 * pages, in rowid order, without SQLite's virtual machine (fileformat2.html;
 * db/pages/pagewrite.h writes the same format).
 *
 * For the report's pass over the event tables: stepping a statement and
 * fetching fourteen columns cost about 400 ns a row in SQLite, most of the
 * reading thread's time; decoding the leaf pages costs a tenth of it.  The
 * reader only ever gives what SQLite would give or says it cannot:
 *   - it is used only on a rollback-journal database file (no WAL: pages
 *     in a WAL would be newer than the file's; not a temporary database,
 *     whose pages stay in memory) while the caller's connection holds a
 *     transaction on it (a statement stepped and not reset, or a write
 *     transaction: no other connection can then change the file), in
 *     which it has not changed the table (its changes could be in its
 *     cache only);
 *   - a row holding anything but integers and NULLs (a real, text, a blob:
 *     only an edited database has one) or too large for its page is
 *     PR_ODD: the caller reads that row with SQLite, by its rowid;
 *   - anything not as the format says (a page type, an offset out of its
 *     page, rowids out of order) ends the reader with -1: the caller reads
 *     the rest with SQLite (rowid > the last one returned), and SQLite says
 *     what is wrong with the file, as it would have.
 * Pages are read through SQLite's own file handle (its VFS), so that no
 * descriptor of ours opens or closes the file (closing one would drop the
 * connection's POSIX locks).
 */
#ifndef MAPPROF_DB_PAGEREAD_H
#define MAPPROF_DB_PAGEREAD_H

#include <stdint.h>
#include <sqlite3.h>

#define PR_MAX_COLS 32
#define PR_ODD 2

struct pageread;

/*
 * A reader of table 'table' of the main database of 'sql', whose columns
 * must be exactly cols[0..ncols) in order, column ipk its INTEGER PRIMARY
 * KEY (or -1), none with a default value.  NULL when the file or the table
 * does not qualify, or out of memory: *why says which (a constant string).
 */
struct pageread *pr_open(sqlite3 *sql, const char *table, const char *const *cols, int ncols, int ipk,
			 const char **why);

/*
 * The next row, in rowid order: 1 with *rowid, v[0..ncols) and *nulls (bit
 * i set: column i is NULL, v[i] 0; the ipk column holds the rowid); PR_ODD
 * with *rowid only (read that row with SQLite); 0 at the end; -1 when the
 * file is not as expected (*why): read the rest with SQLite.
 */
int pr_next(struct pageread *r, int64_t *rowid, int64_t *v, uint32_t *nulls, const char **why);

/* Accepts NULL. */
void pr_close(struct pageread *r);

#endif
