/*
 * pagewrite.h - appending whole table b-trees to a SQLite database file,
 * page by page, without SQLite (its file format, fileformat2.html).
 *
 * For the big append-only event tables of a recording: rows come in rowid
 * order, so the leaves are filled one after the other and the interior pages
 * built above them once, where SQLite's own insert (a record built per row,
 * a seek, a cell put into a page) cost ~4,500 instructions a row.
 *
 * The caller owns the file and its safety: no SQLite connection may hold a
 * lock or a transaction on it while pages are written (db/ingest/ingest.c takes
 * SQLite's locks itself), the tables must be empty rowid tables without
 * indexes or triggers, and the file a rollback-journal database without
 * auto-vacuum.  New pages go after the file's last page (skipping the
 * lock-byte page); pw_finish() updates the header's page count and change
 * counter and hooks each table's tree into its existing root page, so that
 * a connection opened later (or one left open, idle: the changed counter
 * drops its cache) reads the new tables.
 */
#ifndef MAPPROF_DB_PAGEWRITE_H
#define MAPPROF_DB_PAGEWRITE_H

#include <stdint.h>

struct pagewriter;
struct pw_table;

/* The parts of a database header (its first 100 bytes) the writer needs. */
struct pw_header {
	uint32_t page_size;
	uint32_t usable;       /* page_size minus the reserved bytes at each page's end */
	uint32_t pages;        /* the database's size in pages */
	uint32_t encoding;     /* its text encoding: 1 UTF-8, 2 UTF-16le, 3 UTF-16be */
};

/*
 * Check a header for a file pages can be appended to: 0 and *h filled, or
 * -1 and *why says what does not fit (WAL, auto-vacuum, an old format...).
 */
int pw_check_header(const unsigned char hdr[100], struct pw_header *h, const char **why);

/*
 * The header of the database open at fd (read-write, SQLite's locks held
 * by the caller) read into hdr and checked as above, the file at least as
 * long as its page count says, and pages past that count cut off.  0, or
 * -1 with *why.
 */
int pw_file_header(int fd, unsigned char hdr[100], struct pw_header *h, const char **why);

/* A writer appending after h->pages of the file open at fd (read-write; stays the caller's). */
struct pagewriter *pw_new(int fd, const struct pw_header *h);

/* Its buffer's pages faulted in now (lib/huge.h: huge_populate()), not as its first pages are written. */
void pw_populate(struct pagewriter *w);

/*
 * A table whose root page is 'root' (an empty leaf now), of ncols columns
 * (at most 32); column ipk is its INTEGER PRIMARY KEY (stored as NULL, as
 * SQLite does: the rowid holds it), or -1.  NULL when out of memory.
 */
struct pw_table *pw_table_new(struct pagewriter *w, uint32_t root, int ncols, int ipk);

/*
 * Append a row: v[i] is column i's integer when bit i of 'present' is set,
 * NULL otherwise.  0; 1 when rowid is not above the table's last one (not
 * appended: the caller inserts it another way); -1 on a write error (errno).
 */
int pw_append(struct pw_table *t, int64_t rowid, const int64_t *v, uint32_t present);

/*
 * Columns col and col + 1 (integers, never NULL) hold values known only
 * later, when the rows are already written: each is stored in 8 bytes
 * (serial type 6, which SQLite reads as it reads the smallest), and
 * pw_finish() passes them through the function pw_set_times() gave, in
 * place.  Before the table's first row.
 */
void pw_table_times(struct pw_table *t, int col);
/*
 * The function pw_finish() gives those two columns of every row of every
 * such table: *a and *b as written in, as they are to be stored out.
 */
void pw_set_times(struct pagewriter *w, void (*fn)(void *ctx, int64_t *a, int64_t *b), void *ctx);

/*
 * The threads pw_finish() converts the times on (each a share of the
 * pages, fn called on all of them at once): n, at most 4, or 0 (the
 * default) for one per core up to 4 when there are thousands of pages.
 */
void pw_set_threads(struct pagewriter *w, int n);

/*
 * Column col holds text: v[col] is an index into names[0..n-1] (n <= 256,
 * each at most 8 bytes of UTF-8; the array must outlive the table), stored
 * as that name.  0, or -1 when col cannot be one (a database whose text is
 * not UTF-8, a table with pw_table_times(): one or the other).
 */
int pw_table_text(struct pw_table *t, int col, const char *const *names, int n);

/*
 * Pages the file already has, free (its freelist's), to fill first, in
 * this order, before any after its end (the array must outlive the
 * writer); not for tables with pw_table_times().  pw_free_used() says
 * how many were taken.  The caller owns the freelist: pw_set_freelist()
 * gives the header's first trunk page and free page count that
 * pw_finish() writes.
 */
void pw_set_free_pages(struct pagewriter *w, const uint32_t *pgno, size_t n);
size_t pw_free_used(const struct pagewriter *w);
void pw_set_freelist(struct pagewriter *w, uint32_t first_trunk, uint32_t count);

/* Rows appended to the table so far. */
uint64_t pw_rows(const struct pw_table *t);

/*
 * Write the last leaves and the interior pages (and pw_set_times()'
 * conversion): every page but the header and the roots, which pw_finish()
 * writes next.  0, or -1 on a write error (errno).
 */
int pw_finish_trees(struct pagewriter *w);

/*
 * Write the last leaves, the interior pages (pw_set_times(): the time
 * columns then converted), then the header (the new page
 * count, the change counter bumped: a connection's cache of the file is
 * dropped), then each table's root.  The database's new size in pages in
 * *pages.  0, or -1 on a write error (errno).
 */
int pw_finish(struct pagewriter *w, uint32_t *pages);

/* Release the writer and its tables; accepts NULL. */
void pw_free(struct pagewriter *w);

#endif
