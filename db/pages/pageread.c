/*
 * pageread.c - a rowid table's rows from its b-tree pages (see pageread.h).
 *
 * The tree is walked depth first: an interior page (type 5) is kept on a
 * stack with the index of its next child (its cells' 4-byte child page
 * numbers, then the rightmost one in its header); a leaf (type 13) is
 * decoded cell by cell.  A cell is the payload's size and the rowid as
 * varints, then the record: a header (its size, one serial type a column)
 * and the values.  Leaves are read a run of pages at a time, since a table
 * filled in rowid order has them one after the other; the run grows while
 * the next leaf is the next page and shrinks when it is not.
 */
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/pages/pageformat.h"
#include "db/pages/pageread.h"
#include "db/pages/pagewrite.h"

/* Pages from the root to a leaf: SQLite's own cursors stop at 20 (19 interior levels). */
#define MAX_DEPTH 20
/* The longest run of pages read at once (256 KiB of 4 KiB pages). */
#define RUN_MAX 64u

struct pr_level {
	unsigned char *page;   /* a copy of the interior page */
	uint32_t hdr;          /* its b-tree header's offset (100 on page 1) */
	uint32_t ncells, next; /* children: ncells + 1; the next one to visit */
};

struct pageread {
	sqlite3_file *f;
	uint32_t page_size, usable, pages, root;
	int ncols, ipk;
	/* The run of pages read last: pages first .. first + n - 1. */
	unsigned char *run;
	uint32_t first, n, want;
	/* The leaf being decoded. */
	const unsigned char *leaf;
	uint32_t leaf_hdr, leaf_ncells, leaf_next;
	/* The interior pages above it. */
	struct pr_level lv[MAX_DEPTH];
	int depth;          /* levels on the stack; -1 before the root was read */
	int64_t last;       /* the last rowid given */
	int any, failed;
};

/*
 * A varint at p, not reading at or past end: its length (1-9), 0 when it
 * does not end before 'end'.
 */
static unsigned get_varint(const unsigned char *p, const unsigned char *end, uint64_t *v)
{
	uint64_t x = 0;

	for (unsigned i = 0; i < 8; i++) {
		if (p + i >= end)
			return 0;
		x = x << 7 | (p[i] & 0x7f);
		if (!(p[i] & 0x80)) {
			*v = x;
			return i + 1;
		}
	}
	if (p + 8 >= end)
		return 0;
	*v = x << 8 | p[8];
	return 9;
}

/* Read n pages from page pgno on into buf: 0, or -1. */
static int read_pages(struct pageread *r, unsigned char *buf, uint32_t pgno, uint32_t n)
{
	int rc = r->f->pMethods->xRead(r->f, buf, (int)(n * r->page_size),
				       (sqlite3_int64)(pgno - 1) * r->page_size);

	/* A short read zero-fills: a page of zeros has no valid type. */
	return rc == SQLITE_OK || rc == SQLITE_IOERR_SHORT_READ ? 0 : -1;
}

/* Page pgno, from the run or a new run read from it: NULL on a read error. */
static const unsigned char *get_page(struct pageread *r, uint32_t pgno)
{
	uint32_t n;

	if (pgno >= r->first && pgno - r->first < r->n) {
		/* The run's last page reached: the next run may be longer. */
		if (pgno - r->first == r->n - 1 && r->want < RUN_MAX)
			r->want *= 2;
		return r->run + (size_t)(pgno - r->first) * r->page_size;
	}
	/* A page outside the run: the leaves do not follow each other here. */
	if (r->n && r->want > 1)
		r->want /= 2;
	n = r->want;
	if (n > r->pages - pgno + 1)
		n = r->pages - pgno + 1;
	if (read_pages(r, r->run, pgno, n) < 0) {
		r->n = 0;
		return NULL;
	}
	r->first = pgno;
	r->n = n;
	return r->run;
}

static int fail(struct pageread *r, const char **why, const char *what)
{
	r->failed = 1;
	*why = what;
	return -1;
}

/* Child i (0 .. ncells; ncells: the rightmost) of interior level l: 0, or -1 (*why). */
static int child_at(struct pageread *r, const struct pr_level *l, uint32_t i, uint32_t *child,
		    const char **why)
{
	uint32_t off;

	if (i == l->ncells) {
		*child = get32(l->page + l->hdr + 8);
		return 0;
	}
	off = get16(l->page + l->hdr + 12 + 2 * i);
	if (off < l->hdr + 12 + 2 * l->ncells || off + 4 > r->usable)
		return fail(r, why, "a cell outside its page");
	*child = get32(l->page + off);
	return 0;
}

/*
 * Descend from page pgno to its leftmost leaf, pushing interior pages: 0,
 * or -1 (*why).
 */
static int descend(struct pageread *r, uint32_t pgno, const char **why)
{
	for (;;) {
		const unsigned char *p;
		struct pr_level *l;
		uint32_t hdr = pgno == 1 ? 100 : 0, ncells;
		if (pgno < 1 || pgno > r->pages)
			return fail(r, why, "a page number past the file's end");
		if (pgno == PENDING_BYTE / r->page_size + 1)
			return fail(r, why, "the lock-byte page in the tree");
		if (!(p = get_page(r, pgno)))
			return fail(r, why, "a read error");
		ncells = get16(p + hdr + 3);
		/* SQLite's own limits: a page other than the root is never empty. */
		if (ncells > (r->page_size - 8) / 6)
			return fail(r, why, "a page with more cells than fit");
		if (!ncells && (pgno != r->root || p[hdr] != 13))
			return fail(r, why, "an empty page inside the tree");
		if (p[hdr] == 13) {
			if (hdr + 8 + 2 * ncells > r->usable)
				return fail(r, why, "a leaf with more cells than fit");
			r->leaf = p;
			r->leaf_hdr = hdr;
			r->leaf_ncells = ncells;
			r->leaf_next = 0;
			return 0;
		}
		if (p[hdr] != 5)
			return fail(r, why, "a page of another type in the table's tree");
		if (hdr + 12 + 2 * ncells > r->usable)
			return fail(r, why, "an interior page with more cells than fit");
		if (r->depth == MAX_DEPTH - 1)
			return fail(r, why, "a tree deeper than SQLite's");
		l = &r->lv[r->depth++];
		memcpy(l->page, p, r->page_size);
		l->hdr = hdr;
		l->ncells = ncells;
		l->next = 1;
		if (child_at(r, l, 0, &pgno, why) < 0)
			return -1;
	}
}

/* The next leaf after the current one: 1, 0 at the end of the tree, -1. */
static int next_leaf(struct pageread *r, const char **why)
{
	while (r->depth > 0) {
		struct pr_level *l = &r->lv[r->depth - 1];
		uint32_t child;
		if (l->next > l->ncells) {
			r->depth--;
			continue;
		}
		if (child_at(r, l, l->next++, &child, why) < 0)
			return -1;
		return descend(r, child, why) < 0 ? -1 : 1;
	}
	return 0;
}

struct pageread *pr_open(sqlite3 *sql, const char *table, const char *const *cols, int ncols, int ipk,
			 const char **why)
{
	/*
	 * Every column declared INTEGER (another affinity reads an integer back
	 * as something else), without a default, not hidden or generated; the
	 * primary key a rowid alias (no index made for it: not DESC, not WITHOUT
	 * ROWID).
	 */
	static const char info_sql[] =
		"SELECT name, pk, dflt_value IS NULL, hidden, upper(type) = 'INTEGER'"
		" FROM pragma_table_xinfo(?1, 'main') ORDER BY cid";
	static const char root_sql[] =
		"SELECT rootpage, (SELECT COUNT(*) FROM pragma_index_list(?1, 'main') WHERE origin = 'pk')"
		" + (SELECT COUNT(*) FROM temp.sqlite_master WHERE name = ?1),"
		" (SELECT journal_mode FROM pragma_journal_mode)"
		" FROM main.sqlite_master WHERE type = 'table' AND name = ?1";
	unsigned char hdr[100];
	struct pw_header h;
	struct pageread *r;
	sqlite3_stmt *st = NULL;
	sqlite3_file *f = NULL;
	int64_t root = 0;
	int n = 0, ok = 1, rc;

	*why = NULL;
	if (ncols < 1 || ncols > PR_MAX_COLS) {
		*why = "too many columns";
		return NULL;
	}
	if (sqlite3_txn_state(sql, "main") == SQLITE_TXN_NONE) {
		*why = "no transaction open on the database";
		return NULL;
	}
	/* A temporary database keeps its pages in memory until it spills them. */
	if (!sqlite3_db_filename(sql, "main") || !*sqlite3_db_filename(sql, "main")) {
		*why = "a temporary database";
		return NULL;
	}
	if (sqlite3_prepare_v2(sql, info_sql, -1, &st, NULL) != SQLITE_OK) {
		sqlite3_finalize(st);
		*why = "cannot ask SQLite for the table's columns";
		return NULL;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW && ok) {
		const char *name = (const char *)sqlite3_column_text(st, 0);
		ok = n < ncols && name && !strcmp(name, cols[n]) && sqlite3_column_int(st, 2) &&
		     !sqlite3_column_int(st, 3) && (sqlite3_column_int(st, 1) != 0) == (n == ipk) &&
		     sqlite3_column_int(st, 4);
		n++;
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE || !ok || n != ncols) {
		*why = "the table's columns are not the expected ones";
		return NULL;
	}
	st = NULL;
	if (sqlite3_prepare_v2(sql, root_sql, -1, &st, NULL) == SQLITE_OK) {
		sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
		if (sqlite3_step(st) == SQLITE_ROW) {
			const char *mode = (const char *)sqlite3_column_text(st, 2);
			root = sqlite3_column_int64(st, 0);
			/* (A temporary table of that name is what SQL without a schema reads.) */
			if (sqlite3_column_int(st, 1))
				*why = "its primary key is not the rowid, or a temporary table hides it";
			/* A WAL file beside the database is read whatever its header says. */
			else if (!mode || !strcmp(mode, "wal"))
				*why = "in WAL mode";
		}
	}
	sqlite3_finalize(st);
	if (*why)
		return NULL;
	if (root < 2 || root > UINT32_MAX) {
		*why = "no root page for the table";
		return NULL;
	}
	if (!(f = db_main_file(sql)) || !f->pMethods->xRead) {
		*why = "no file behind the database";
		return NULL;
	}
	if (f->pMethods->xRead(f, hdr, sizeof(hdr), 0) != SQLITE_OK ||
	    pw_check_header(hdr, &h, why) < 0) {
		if (!*why)
			*why = "cannot read the database's header";
		return NULL;
	}
	if ((uint32_t)root > h.pages) {
		*why = "a root page past the file's end";
		return NULL;
	}
	r = calloc(1, sizeof(*r));
	if (r)
		r->run = malloc((size_t)RUN_MAX * h.page_size);
	for (int i = 0; r && r->run && i < MAX_DEPTH; i++)
		if (!(r->lv[i].page = malloc(h.page_size))) {
			pr_close(r);
			r = NULL;
		}
	if (!r || !r->run) {
		pr_close(r);
		*why = "out of memory";
		return NULL;
	}
	r->f = f;
	r->page_size = h.page_size;
	r->usable = h.usable;
	r->pages = h.pages;
	r->root = (uint32_t)root;
	r->ncols = ncols;
	r->ipk = ipk;
	r->want = 8;
	r->depth = -1;
	return r;
}

/*
 * Decode the record of n bytes at p (a cell of the current leaf) into v
 * and *nulls: 1, or PR_ODD when it holds a value that is not an integer
 * or NULL, more columns than the table, or is not well formed (SQLite will
 * say what it makes of it).
 */
static int decode(const struct pageread *r, const unsigned char *p, uint64_t n, int64_t *v, uint32_t *nulls)
{
	/* The bytes of an integer's serial type (1-6); 8 and 9 are 0 and 1 in none. */
	static const unsigned char len[7] = { 0, 1, 2, 3, 4, 6, 8 };
	const unsigned char *end = p + n, *h, *body;
	uint64_t hsize;
	uint32_t nul = 0;
	unsigned k = get_varint(p, end, &hsize);
	int i;

	if (!k || hsize < k || hsize > n)
		return PR_ODD;
	h = p + k;
	body = p + hsize;
	for (i = 0; h < p + hsize; i++) {
		uint64_t t;
		if (i == r->ncols || !(k = get_varint(h, p + hsize, &t)))
			return PR_ODD;
		h += k;
		if (t == 0) {
			nul |= 1u << i;
			v[i] = 0;
		} else if (t <= 6) {
			unsigned m = len[t];
			uint64_t x;
			if (body + m > end)
				return PR_ODD;
			/* Big-endian, sign-extended from its first byte. */
			x = (uint64_t)(int64_t)(signed char)body[0];
			for (unsigned b = 1; b < m; b++)
				x = x << 8 | body[b];
			v[i] = (int64_t)x;
			body += m;
		} else if (t == 8 || t == 9) {
			v[i] = (int64_t)t - 8;
		} else {
			return PR_ODD;
		}
	}
	/* The values fill the payload exactly, or SQLite calls the record corrupt. */
	if (body != end)
		return PR_ODD;
	/* Columns the record does not hold (added later) are NULL: none has a default. */
	for (; i < r->ncols; i++) {
		nul |= 1u << i;
		v[i] = 0;
	}
	*nulls = nul;
	return 1;
}

int pr_next(struct pageread *r, int64_t *rowid, int64_t *v, uint32_t *nulls, const char **why)
{
	*why = NULL;
	if (r->failed)
		return fail(r, why, "read after a failure");
	if (r->depth < 0) {
		r->depth = 0;
		if (descend(r, r->root, why) < 0)
			return -1;
	}
	for (;;) {
		const unsigned char *p, *end;
		uint64_t n, id;
		uint32_t off;
		unsigned k1, k2;
		int rc;
		if (r->leaf_next == r->leaf_ncells) {
			if ((rc = next_leaf(r, why)) <= 0)
				return rc;
			continue;
		}
		off = get16(r->leaf + r->leaf_hdr + 8 + 2 * r->leaf_next++);
		if (off < r->leaf_hdr + 8 + 2 * r->leaf_ncells || off >= r->usable)
			return fail(r, why, "a cell outside its page");
		p = r->leaf + off;
		end = r->leaf + r->usable;
		if (!(k1 = get_varint(p, end, &n)) || !(k2 = get_varint(p + k1, end, &id)))
			return fail(r, why, "a cell past its page's end");
		if (r->any && (int64_t)id <= r->last)
			return fail(r, why, "rowids out of order");
		r->any = 1;
		r->last = (int64_t)id;
		*rowid = (int64_t)id;
		p += k1 + k2;
		/*
		 * A payload larger than a page holds locally goes on overflow pages;
		 * SQLite reads a size of more than 4 bytes its own way (32 bits).
		 */
		if (k1 > 4 || n > r->usable - 35)
			return PR_ODD;
		if (n > (uint64_t)(end - p))
			return fail(r, why, "a cell past its page's end");
		if ((rc = decode(r, p, n, v, nulls)) != 1)
			return rc;
		if (r->ipk >= 0) {
			v[r->ipk] = (int64_t)id;
			*nulls &= ~(1u << r->ipk);
		}
		return 1;
	}
}

void pr_close(struct pageread *r)
{
	if (!r)
		return;
	for (int i = 0; i < MAX_DEPTH; i++)
		free(r->lv[i].page);
	free(r->run);
	free(r);
}
