/*
 * finding_pages.h - the report's finding events written as pages (db/ only).
 *
 * A long run's report stores tens of millions of finding_event_raw rows,
 * and SQLite's insert costs ~2,000 instructions a row: at 100 M events a
 * fifth of the report.  Here the rows become a table b-tree written page
 * by page (db/pages/pagewrite.h) into the pages the file's freelist holds (the
 * last report's rows, deleted), then after the file's end; the header and
 * the table's root are written last.
 *
 * Safe as SQLite's own transactions are: SQLite's locks are taken on the
 * file (an open file description's lock, which any connection's conflicts
 * with; the report's connection must hold none: no transaction, no
 * statement running), readers kept out until the end, and only when the
 * file locked is the one SQLite has open (SQLite sees the lock through its
 * own descriptor: a file put at the path since is never written).  The
 * freelist is walked whole before a page of it is taken; a damaged one is
 * refused.  A rollback journal in SQLite's format is written first (the
 * database's mode, as root its owner), holding every page whose old bytes
 * matter (page 1, the table's root, the freelist trunk pages reused) and
 * the file's old size, and synced with its directory before any page is
 * written.  A process that dies before the end leaves that journal hot: the
 * next connection rolls the file back to what it was, as it does for
 * SQLite's own.  The pages are synced, then removing the journal is the
 * commit: a power cut leaves the old file or the new one.
 */
#ifndef MAPPROF_DB_FINDING_PAGES_H
#define MAPPROF_DB_FINDING_PAGES_H

#include <stdint.h>

#include "db/db_internal.h"

struct finding_pages;

/*
 * Begin writing about nrows rows of finding_event_raw (empty now; its
 * 'role' one of roles[0..nroles-1]), the connection idle.  NULL with *why
 * when the file does not allow it (WAL, auto-vacuum, UTF-16, a journal
 * there, another connection's lock, the table not as expected, a damaged
 * freelist, the file at the path not SQLite's, no open file description
 * locks): the database as it was (pages past its header's count, no
 * one's, may be cut off, as SQLite ignores them).
 */
struct finding_pages *finding_pages_begin(struct db *db, uint64_t nrows, const char *const *roles,
					  int nroles, const char **why);

/*
 * Whether the freelist of the file SQLite has open is sound (as
 * finding_pages_begin() checks it before taking a page), read through
 * SQLite's own descriptor: inside a transaction, the file as it was before
 * it (but pages SQLite spilled).  1 sound; 0 with *why, and the store then
 * stays in SQLite's path, in the report's one transaction.
 */
int finding_pages_freelist_sound(struct db *db, const char **why);

/* The next row (rowids 1, 2, ...).  0, or -1 (errno). */
int finding_pages_row(struct finding_pages *p, int64_t finding, int64_t occurrence, int role,
		      int64_t seq);

/*
 * Commit the rows (ok) or give them up, and free p.  0 when committed;
 * -1 otherwise, the file then as before: rolled back by its journal, which
 * the next connection to the file plays back if it was written.
 */
int finding_pages_end(struct finding_pages *p, int ok);

#endif
