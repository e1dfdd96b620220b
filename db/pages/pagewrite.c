/*
 * pagewrite.c - table b-trees written page by page (see pagewrite.h).
 *
 * The format, from SQLite's file format document: a table leaf page
 * (type 13) is an 8-byte header, an array of 2-byte cell offsets in key
 * order, free space, then the cells packed against the page's usable end;
 * a cell is the payload's size and the rowid as varints, then the record.
 * A record is a header (its own size, one serial type per column) and the
 * values: integers big-endian in the fewest of 1, 2, 3, 4, 6 or 8 bytes,
 * 0 and 1 as serial types 8 and 9 (schema format 4), NULL as type 0.  An
 * interior page (type 5) has a 12-byte header ending with its rightmost
 * child, and cells of a 4-byte child page number and the largest rowid
 * under that child.  Records here are a few integers: they always fit a
 * leaf (no overflow pages).  Bytes are written as SQLite writes them for
 * the same rows, so that its integrity check finds nothing to say.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "db/pages/pageformat.h"
#include "db/pages/pagewrite.h"
#include "lib/huge.h"
#include "lib/tempfile.h"

/* Pages gathered before one write: consecutive page numbers, 1 MiB at 4 KiB. */
#define OUT_PAGES 256u
/* Tree levels above the leaves: a fan-out of 16 at least makes 8 enough for 2^32 pages. */
#define MAX_LEVELS 8
#define MAX_COLS 32
/* Tables of one writer, at most (a page's owner is a byte). */
#define MAX_TABLES 16

/* The children of pages being built at one level: up to 2 * fanout + 1 of them. */
struct pw_level {
	uint32_t n;
	uint32_t emitted;   /* pages of this level already written */
	uint32_t *pgno;
	int64_t *key;       /* the largest rowid under each child */
};

struct pw_table {
	struct pagewriter *w;
	struct pw_table *next;
	uint32_t root;
	int ncols, ipk;
	int idx;                    /* its place in the writer's by_idx[] */
	int tcol;                   /* pw_table_times(): the first time column, or -1 */
	int xcol;                   /* pw_table_text(): the text column, or -1 */
	const char *const *names;   /* its values */
	unsigned char name_len[256];
	int nnames;
	unsigned char *leaf;        /* the leaf being filled */
	uint32_t ncells, content;   /* its cells, where its cell content starts */
	uint32_t leaves_emitted;
	int any;
	int64_t last;               /* the last rowid appended */
	uint64_t rows;
	unsigned char *root_img;    /* the root page, written last */
	struct pw_level lv[MAX_LEVELS + 1];   /* lv[1..]: the levels above the leaves */
};

struct pagewriter {
	int fd;
	struct pw_header h;
	uint32_t next;         /* the next page number to allocate */
	uint32_t lock_page;
	uint32_t fanout;       /* children of an interior page, at most */
	unsigned char *buf;    /* OUT_PAGES pages from buf_first on */
	uint32_t buf_first, nbuf;
	struct pw_table *tables;
	struct pw_table *by_idx[MAX_TABLES];
	int ntables;
	/* pw_set_times(): per page after h.pages, the table whose leaf it is (its idx + 1; 0: none). */
	unsigned char *owner;
	size_t owner_cap;
	void (*times)(void *ctx, int64_t *a, int64_t *b);
	void *times_ctx;
	int threads;           /* pw_set_threads(); 0: times_threads() decides */
	/* pw_set_free_pages(): pages to fill before any after the end. */
	const uint32_t *free_pg;
	size_t nfree, free_used;
	int fl_set;            /* pw_set_freelist(): the header's freelist fields */
	uint32_t fl_trunk, fl_count;
	int trees_done;        /* pw_finish_trees() */
};

static void put16(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)(v >> 8);
	p[1] = (unsigned char)v;
}

/* SQLite's varint: 7 bits a byte, high bit set on all but the last; a ninth byte holds 8. */
static int put_varint(unsigned char *p, uint64_t v)
{
	unsigned char tmp[10];
	int n = 0;

	if (v <= 0x7f) {
		p[0] = (unsigned char)v;
		return 1;
	}
	if (v & ((uint64_t)0xff000000 << 32)) {
		p[8] = (unsigned char)v;
		v >>= 8;
		for (int i = 7; i >= 0; i--) {
			p[i] = (unsigned char)((v & 0x7f) | 0x80);
			v >>= 7;
		}
		return 9;
	}
	do {
		tmp[n++] = (unsigned char)((v & 0x7f) | 0x80);
		v >>= 7;
	} while (v);
	tmp[0] &= 0x7f;
	for (int i = 0; i < n; i++)
		p[i] = tmp[n - 1 - i];
	return n;
}

/* The serial type SQLite gives an integer (format 4), and its size in *len. */
static unsigned serial_type(int64_t i, unsigned *len)
{
	uint64_t u = i < 0 ? ~(uint64_t)i : (uint64_t)i;

	if (u <= 127) {
		if ((i & 1) == i) {
			*len = 0;
			return 8 + (unsigned)u;
		}
		*len = 1;
		return 1;
	}
	if (u <= 32767) {
		*len = 2;
		return 2;
	}
	if (u <= 8388607) {
		*len = 3;
		return 3;
	}
	if (u <= 2147483647) {
		*len = 4;
		return 4;
	}
	if (u <= (((uint64_t)0x8000) << 32) - 1) {
		*len = 6;
		return 5;
	}
	*len = 8;
	return 6;
}

int pw_check_header(const unsigned char hdr[100], struct pw_header *h, const char **why)
{
	uint32_t ps = (uint32_t)hdr[16] << 8 | hdr[17];

	if (ps == 1)
		ps = 65536;
	*why = NULL;
	if (memcmp(hdr, "SQLite format 3", 16))
		*why = "not a SQLite database";
	else if (ps < 512 || ps > 65536 || (ps & (ps - 1)))
		*why = "a page size SQLite does not write";
	else if (hdr[18] != 1 || hdr[19] != 1)
		*why = "not in rollback-journal mode";
	else if (hdr[21] != 64 || hdr[22] != 32 || hdr[23] != 32)
		*why = "payload fractions other than SQLite's";
	else if (!get32(hdr + 28) || memcmp(hdr + 24, hdr + 92, 4))
		*why = "no valid page count in its header";
	else if (get32(hdr + 44) != 4)
		*why = "a schema format other than 4";
	else if (get32(hdr + 52) || get32(hdr + 64))
		*why = "auto-vacuum";
	else if (ps - hdr[20] < 480)
		*why = "too many reserved bytes a page";
	if (*why)
		return -1;
	h->page_size = ps;
	h->usable = ps - hdr[20];
	h->pages = get32(hdr + 28);
	h->encoding = get32(hdr + 56);
	return 0;
}

int pw_file_header(int fd, unsigned char hdr[100], struct pw_header *h, const char **why)
{
	struct stat st;
	off_t size;

	*why = NULL;
	if (fstat(fd, &st) < 0 || tempfile_io(fd, hdr, 100, 0, 0) < 0) {
		*why = "cannot read it";
		return -1;
	}
	if (pw_check_header(hdr, h, why) < 0)
		return -1;
	size = (off_t)h->pages * h->page_size;
	if (st.st_size < size) {
		*why = "shorter than its header says";
		return -1;
	}
	/* Pages past the header's count are no one's (a write stopped before its end): SQLite ignores them. */
	if (st.st_size > size && ftruncate(fd, size) < 0) {
		*why = "cannot cut off the pages past its header's count";
		return -1;
	}
	return 0;
}

static int flush(struct pagewriter *w)
{
	int rc = 0;

	if (w->nbuf)
		rc = tempfile_io(w->fd, w->buf, (size_t)w->nbuf * w->h.page_size,
			       (off_t)(w->buf_first - 1) * w->h.page_size, 1);
	w->nbuf = 0;
	return rc;
}

/*
 * A new page: the next of pw_set_free_pages()'s, else one after the
 * others; its number in *pgno, its bytes (zeroed) to fill.  The buffer
 * holds consecutive pages only.  NULL: write error.
 */
static unsigned char *new_page(struct pagewriter *w, uint32_t *pgno)
{
	unsigned char *p;
	uint32_t pg;

	if (w->free_used < w->nfree) {
		pg = w->free_pg[w->free_used++];
	} else {
		if (w->next == w->lock_page)
			w->next++;
		pg = w->next++;
	}
	if (w->nbuf && (w->nbuf == OUT_PAGES || pg != w->buf_first + w->nbuf) && flush(w) < 0)
		return NULL;
	if (!w->nbuf)
		w->buf_first = pg;
	*pgno = pg;
	p = w->buf + (size_t)w->nbuf++ * w->h.page_size;
	memset(p, 0, w->h.page_size);
	return p;
}

void pw_set_free_pages(struct pagewriter *w, const uint32_t *pgno, size_t n)
{
	w->free_pg = pgno;
	w->nfree = n;
	w->free_used = 0;
}

size_t pw_free_used(const struct pagewriter *w)
{
	return w->free_used;
}

void pw_set_freelist(struct pagewriter *w, uint32_t first_trunk, uint32_t count)
{
	w->fl_set = 1;
	w->fl_trunk = first_trunk;
	w->fl_count = count;
}

struct pagewriter *pw_new(int fd, const struct pw_header *h)
{
	struct pagewriter *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->fd = fd;
	w->h = *h;
	w->next = h->pages + 1;
	w->lock_page = PENDING_BYTE / h->page_size + 1;
	/* A cell at most: its pointer, a child page number and a 9-byte rowid. */
	w->fanout = (h->usable - 12) / (2 + 4 + 9) + 1;
	/* Filled page by page: huge pages where the kernel gives them (lib/huge.h). */
	w->buf = huge_malloc((size_t)OUT_PAGES * h->page_size);
	if (!w->buf) {
		free(w);
		return NULL;
	}
	return w;
}

void pw_populate(struct pagewriter *w)
{
	huge_populate(w->buf, (size_t)OUT_PAGES * w->h.page_size);
}

struct pw_table *pw_table_new(struct pagewriter *w, uint32_t root, int ncols, int ipk)
{
	struct pw_table *t;

	if (ncols < 1 || ncols > MAX_COLS || root < 2 || root > w->h.pages || w->ntables == MAX_TABLES)
		return NULL;
	t = calloc(1, sizeof(*t));
	if (!t)
		return NULL;
	t->leaf = calloc(1, w->h.page_size);
	for (int l = 1; t->leaf && l <= MAX_LEVELS; l++) {
		t->lv[l].pgno = malloc((2 * (size_t)w->fanout + 1) * sizeof(uint32_t));
		t->lv[l].key = malloc((2 * (size_t)w->fanout + 1) * sizeof(int64_t));
		if (!t->lv[l].pgno || !t->lv[l].key) {
			free(t->leaf);
			t->leaf = NULL;
		}
	}
	if (!t->leaf) {
		for (int l = 1; l <= MAX_LEVELS; l++) {
			free(t->lv[l].pgno);
			free(t->lv[l].key);
		}
		free(t);
		return NULL;
	}
	t->w = w;
	t->root = root;
	t->ncols = ncols;
	t->ipk = ipk;
	t->tcol = -1;
	t->xcol = -1;
	t->idx = w->ntables;
	w->by_idx[w->ntables++] = t;
	t->content = w->h.usable;
	t->next = w->tables;
	w->tables = t;
	return t;
}

uint64_t pw_rows(const struct pw_table *t)
{
	return t->rows;
}

/* Fill the 8-byte header of the leaf being built (its cells are in place). */
static void leaf_header(struct pw_table *t)
{
	t->leaf[0] = 13;
	put16(t->leaf + 3, t->ncells);
	put16(t->leaf + 5, t->content == 65536 ? 0 : t->content);
}

/*
 * An interior page holding children e[0..m-1] (m >= 2): the first m - 1 as
 * cells, the last as the rightmost child.
 */
static void interior_page(const struct pagewriter *w, unsigned char *p, const uint32_t *pgno,
			  const int64_t *key, uint32_t m)
{
	uint32_t content = w->h.usable;

	p[0] = 5;
	put16(p + 3, m - 1);
	put32(p + 8, pgno[m - 1]);
	for (uint32_t j = 0; j + 1 < m; j++) {
		unsigned char cell[13];
		int n;
		put32(cell, pgno[j]);
		n = 4 + put_varint(cell + 4, (uint64_t)key[j]);
		content -= (uint32_t)n;
		memcpy(p + content, cell, (size_t)n);
		put16(p + 12 + 2 * j, content);
	}
	put16(p + 5, content == 65536 ? 0 : content);
}

static int level_push(struct pw_table *t, int l, uint32_t pgno, int64_t key);

/* Write children [0, m) of level l as one new page and push it up. 0 or -1. */
static int level_emit(struct pw_table *t, int l, uint32_t from, uint32_t m)
{
	struct pw_level *lv = &t->lv[l];
	uint32_t pg;
	unsigned char *p = new_page(t->w, &pg);

	if (!p)
		return -1;
	interior_page(t->w, p, lv->pgno + from, lv->key + from, m);
	lv->emitted++;
	return level_push(t, l + 1, pg, lv->key[from + m - 1]);
}

/*
 * A child for level l.  Pages are written a full fanout at a time once more
 * than two pages' worth wait: what is left at the end (fanout + 1 to
 * 2 * fanout children) then makes two pages of two children or more.
 */
static int level_push(struct pw_table *t, int l, uint32_t pgno, int64_t key)
{
	struct pw_level *lv;
	uint32_t f = t->w->fanout;

	if (l > MAX_LEVELS) {
		errno = EFBIG;
		return -1;
	}
	lv = &t->lv[l];
	lv->pgno[lv->n] = pgno;
	lv->key[lv->n] = key;
	if (++lv->n < 2 * f + 1)
		return 0;
	if (level_emit(t, l, 0, f) < 0)
		return -1;
	memmove(lv->pgno, lv->pgno + f, (lv->n - f) * sizeof(*lv->pgno));
	memmove(lv->key, lv->key + f, (lv->n - f) * sizeof(*lv->key));
	lv->n -= f;
	return 0;
}

/* Page pg is a leaf of t whose times pw_finish() converts. */
static int note_owner(struct pw_table *t, uint32_t pg)
{
	struct pagewriter *w = t->w;
	size_t i = pg - w->h.pages - 1;

	if (pg <= w->h.pages) {
		errno = EINVAL;   /* a reused page: pw_set_free_pages() is not for tables with times */
		return -1;
	}

	if (i >= w->owner_cap) {
		size_t c = w->owner_cap ? 2 * w->owner_cap : 4096;
		unsigned char *o;
		while (c <= i)
			c *= 2;
		if (!(o = realloc(w->owner, c))) {
			errno = ENOMEM;
			return -1;
		}
		memset(o + w->owner_cap, 0, c - w->owner_cap);
		w->owner = o;
		w->owner_cap = c;
	}
	w->owner[i] = (unsigned char)(t->idx + 1);
	return 0;
}

/* The leaf being filled out as a new page, pushed up; a fresh leaf begun. */
static int leaf_emit(struct pw_table *t)
{
	uint32_t pg;
	unsigned char *p = new_page(t->w, &pg);

	if (!p)
		return -1;
	leaf_header(t);
	memcpy(p, t->leaf, t->w->h.page_size);
	if (t->tcol >= 0 && note_owner(t, pg) < 0)
		return -1;
	t->leaves_emitted++;
	memset(t->leaf, 0, t->w->h.page_size);
	t->ncells = 0;
	t->content = t->w->h.usable;
	return level_push(t, 1, pg, t->last);
}

int pw_append(struct pw_table *t, int64_t rowid, const int64_t *v, uint32_t present)
{
	unsigned char cell[9 + 9 + 1 + MAX_COLS + 8 * MAX_COLS + 8];
	unsigned char *rec, *type, *body, pre[18];
	uint32_t hdr = 1 + (uint32_t)t->ncols, payload, size;
	int n;

	if (t->any && rowid <= t->last)
		return 1;
	/*
	 * One pass writes each column's type into the record's header and its
	 * value into the body behind it, in a scratch record that starts 18
	 * bytes in (room for the two varints in front, placed after).
	 */
	rec = cell + 18;
	rec[0] = (unsigned char)hdr;   /* < 128 (32 columns of types < 128): a one-byte varint */
	type = rec + 1;
	body = rec + hdr;
	for (int i = 0; i < t->ncols; i++) {
		unsigned len;
		if (i == t->ipk || !(present >> i & 1)) {
			type[i] = 0;
			continue;
		}
		if (i == t->xcol) {
			if (v[i] < 0 || v[i] >= t->nnames) {
				errno = EINVAL;
				return -1;
			}
			len = t->name_len[v[i]];
			type[i] = (unsigned char)(13 + 2 * len);
			memcpy(body, t->names[v[i]], len);
			body += len;
			continue;
		}
		if (t->tcol >= 0 && (i == t->tcol || i == t->tcol + 1)) {
			type[i] = 6;   /* 8 bytes whatever the value: pw_finish() rewrites it in place */
			len = 8;
		} else {
			type[i] = (unsigned char)serial_type(v[i], &len);
		}
		/*
		 * The value's low len bytes, big-endian: one 8-byte store, of
		 * which the next column's overwrites what is past them (the cell
		 * has room for 8 bytes a column).  A byte at a time was a third
		 * of pw_append().
		 */
		if (len) {
			uint64_t be = __builtin_bswap64((uint64_t)v[i] << (8 * (8 - len)));
			memcpy(body, &be, sizeof(be));
			body += len;
		}
	}
	payload = (uint32_t)(body - rec);
	/* The cell: the payload's size and the rowid as varints, then the record. */
	n = put_varint(pre, payload);
	n += put_varint(pre + n, (uint64_t)rowid);
	rec -= n;
	memcpy(rec, pre, (size_t)n);
	size = (uint32_t)(body - rec);
	if (size < 4)
		size = 4;   /* SQLite's smallest cell (a freeblock's size) */
	if (t->content < size + 8 + 2 * (t->ncells + 1)) {
		if (leaf_emit(t) < 0)
			return -1;
	}
	t->content -= size;
	memcpy(t->leaf + t->content, rec, (size_t)(body - rec));
	put16(t->leaf + 8 + 2 * t->ncells, t->content);
	t->ncells++;
	t->any = 1;
	t->last = rowid;
	t->rows++;
	return 0;
}

/* A table's last leaf and interior pages written, its root page's bytes in root_img. */
static int table_finish(struct pw_table *t)
{
	struct pagewriter *w = t->w;
	uint32_t f = w->fanout;

	t->root_img = calloc(1, w->h.page_size);
	if (!t->root_img)
		return -1;
	if (!t->leaves_emitted) {
		leaf_header(t);
		memcpy(t->root_img, t->leaf, w->h.page_size);
		return 0;
	}
	if (t->ncells && leaf_emit(t) < 0)
		return -1;
	for (int l = 1; l <= MAX_LEVELS; l++) {
		struct pw_level *lv = &t->lv[l];
		if (!lv->emitted && lv->n <= f) {
			interior_page(w, t->root_img, lv->pgno, lv->key, lv->n);
			return 0;
		}
		if (lv->n <= f) {
			if (level_emit(t, l, 0, lv->n) < 0)
				return -1;
		} else if (level_emit(t, l, 0, lv->n / 2) < 0 ||
			   level_emit(t, l, lv->n / 2, lv->n - lv->n / 2) < 0) {
			return -1;
		}
		lv->n = 0;
	}
	errno = EFBIG;
	return -1;
}

static int set_page_count(const struct pagewriter *w, int fd, uint32_t pages)
{
	unsigned char h[100];
	uint32_t counter;

	if (tempfile_io(fd, h, sizeof(h), 0, 0) < 0)
		return -1;
	counter = get32(h + 24) + 1;
	put32(h + 24, counter);
	put32(h + 28, pages);
	if (w->fl_set) {
		put32(h + 32, w->fl_trunk);
		put32(h + 36, w->fl_count);
	}
	put32(h + 92, counter);
	put32(h + 96, (uint32_t)sqlite3_libversion_number());
	return tempfile_io(fd, h, sizeof(h), 0, 1);
}

void pw_table_times(struct pw_table *t, int col)
{
	/* Not with a text column: times_leaf() knows the integers' sizes only. */
	if (col >= 0 && col + 1 < t->ncols && col != t->ipk && col + 1 != t->ipk && t->xcol < 0)
		t->tcol = col;
}

int pw_table_text(struct pw_table *t, int col, const char *const *names, int n)
{
	if (col < 0 || col >= t->ncols || col == t->ipk || n < 1 || n > 256 || t->tcol >= 0 ||
	    t->w->h.encoding != 1)
		return -1;
	for (int i = 0; i < n; i++) {
		if (strlen(names[i]) > 8)
			return -1;
		t->name_len[i] = (unsigned char)strlen(names[i]);
	}
	t->xcol = col;
	t->names = names;
	t->nnames = n;
	return 0;
}

void pw_set_times(struct pagewriter *w, void (*fn)(void *ctx, int64_t *a, int64_t *b), void *ctx)
{
	w->times = fn;
	w->times_ctx = ctx;
}

void pw_set_threads(struct pagewriter *w, int n)
{
	w->threads = n > 0 ? n : 0;
}

static int64_t get64(const unsigned char *p)
{
	return (int64_t)((uint64_t)get32(p) << 32 | get32(p + 4));
}

static void put64(unsigned char *p, int64_t v)
{
	put32(p, (uint32_t)((uint64_t)v >> 32));
	put32(p + 4, (uint32_t)v);
}

/* A varint's length in bytes. */
static unsigned varint_len(const unsigned char *p)
{
	unsigned k = 0;

	while (k < 8 && p[k] & 0x80)
		k++;
	return k + 1;
}

/* The bytes of a value of serial type 0..9 (the types pw_append() writes). */
static const unsigned char serial_len[10] = { 0, 1, 2, 3, 4, 6, 8, 8, 0, 0 };

/* Every cell of leaf page p of t: its two time fields through w->times, in place. */
static void times_leaf(const struct pagewriter *w, const struct pw_table *t, unsigned char *p)
{
	uint32_t n = get16(p + 3), col = (uint32_t)t->tcol;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t c = get16(p + 8 + 2 * i), off;
		unsigned char *rec;
		int64_t a, b;

		if (c < 8 || c + 20 > w->h.usable)
			continue;   /* not a cell pw_append() wrote: cannot happen */
		rec = p + c;
		rec += varint_len(rec);
		rec += varint_len(rec);
		/* A header of < 128 bytes (pw_append()): its size is its first byte. */
		off = rec[0];
		for (uint32_t j = 0; j < col; j++)
			off += rec[1 + j] < 10 ? serial_len[rec[1 + j]] : 0;
		if (rec[1 + col] != 6 || rec[2 + col] != 6 || rec + off + 16 > p + w->h.usable)
			continue;
		a = get64(rec + off);
		b = get64(rec + off + 8);
		w->times(w->times_ctx, &a, &b);
		put64(rec + off, a);
		put64(rec + off + 8, b);
	}
}

/*
 * Pages lo..hi of the times pass (below), OUT_PAGES at a time through buf:
 * 0, or -1 with errno.
 */
static int times_range(const struct pagewriter *w, uint32_t lo, uint32_t hi, unsigned char *buf)
{
	uint32_t first = w->h.pages + 1, ps = w->h.page_size;

	for (uint32_t pg = lo; pg <= hi;) {
		uint32_t n = hi - pg + 1 < OUT_PAGES ? hi - pg + 1 : OUT_PAGES, any = 0;
		for (uint32_t k = 0; k < n && !any; k++)
			any = pg + k - first < w->owner_cap && w->owner[pg + k - first];
		if (any) {
			if (tempfile_io(w->fd, buf, (size_t)n * ps, (off_t)(pg - 1) * ps, 0) < 0)
				return -1;
			for (uint32_t k = 0; k < n; k++) {
				size_t i = pg + k - first;
				if (i < w->owner_cap && w->owner[i])
					times_leaf(w, w->by_idx[w->owner[i] - 1], buf + (size_t)k * ps);
			}
			if (tempfile_io(w->fd, buf, (size_t)n * ps, (off_t)(pg - 1) * ps, 1) < 0)
				return -1;
		}
		pg += n;
	}
	return 0;
}

/* One thread's share of the times pass. */
struct times_job {
	const struct pagewriter *w;
	uint32_t lo, hi;
	unsigned char *buf;
	int rc, err;
	pthread_t th;
	int started;
};

static void *times_job_run(void *arg)
{
	struct times_job *j = arg;

	j->rc = times_range(j->w, j->lo, j->hi, j->buf);
	j->err = j->rc < 0 ? errno : 0;
	return NULL;
}

/*
 * How many threads the times pass takes: the cores this process may run
 * on, at most TIMES_THREADS, one per TIMES_PAGES_MIN pages at least.
 * It runs after the program has ended, the cores otherwise idle: on the
 * 2-core VM a 1.8 M-event run's 25,000 pages took 100 ms on one.
 */
enum { TIMES_THREADS = 4, TIMES_PAGES_MIN = 2048 };

static int times_threads(const struct pagewriter *w, uint32_t pages)
{
	cpu_set_t set;
	int cores = sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
	int n = (int)(pages / TIMES_PAGES_MIN);

	if (w->threads > 0)
		n = cores = w->threads;
	if (n > cores)
		n = cores;
	if (n > TIMES_THREADS)
		n = TIMES_THREADS;
	if ((uint32_t)n > pages)
		n = (int)pages;
	return n < 1 ? 1 : n;
}

/*
 * pw_set_times(): the leaves of the tables with time columns, read back,
 * converted and written again, OUT_PAGES pages at a time (the file's
 * order: the tables' leaves interleave), the range split among a few
 * threads (each page is its own: no two threads touch one); a table of
 * one leaf is its root.
 */
static int times_pass(struct pagewriter *w)
{
	uint32_t first = w->h.pages + 1, last = w->next - 1;
	struct times_job job[TIMES_THREADS] = { 0 };
	int n = last >= first ? times_threads(w, last - first + 1) : 1, rc = 0, err = 0;
	uint32_t share = last >= first ? (last - first + 1) / (uint32_t)n : 0;

	for (int i = 0; i < n; i++) {
		job[i].w = w;
		job[i].lo = first + (uint32_t)i * share;
		job[i].hi = i == n - 1 ? last : job[i].lo + share - 1;
		/* Thousands of pages each (below): its 1 MiB refilled over and over, in huge pages. */
		job[i].buf = i ? huge_malloc((size_t)OUT_PAGES * w->h.page_size) : w->buf;
		if (i && job[i].buf && pthread_create(&job[i].th, NULL, times_job_run, &job[i]) == 0)
			job[i].started = 1;
	}
	times_job_run(&job[0]);
	for (int i = 1; i < n; i++) {
		if (job[i].started) {
			pthread_join(job[i].th, NULL);
		} else {
			/* No thread (or no buffer) to be had: its share done here. */
			free(job[i].buf);
			job[i].buf = NULL;
			job[i].rc = times_range(w, job[i].lo, job[i].hi, w->buf);
			job[i].err = errno;
		}
		free(job[i].buf);
	}
	for (int i = 0; i < n && !rc; i++) {
		if (job[i].rc < 0) {
			rc = -1;
			err = job[i].err;
		}
	}
	for (struct pw_table *t = w->tables; t; t = t->next)
		if (t->tcol >= 0 && !t->leaves_emitted)
			times_leaf(w, t, t->root_img);
	errno = err;
	return rc;
}

/*
 * Order matters if the process dies on the way: the new pages first (past
 * the header's page count they are not read), then the header (the pages
 * are then the file's, unused while the roots are still empty leaves),
 * then the roots.
 */
int pw_finish_trees(struct pagewriter *w)
{
	if (w->trees_done)
		return 0;
	for (struct pw_table *t = w->tables; t; t = t->next)
		if (table_finish(t) < 0)
			return -1;
	if (flush(w) < 0)
		return -1;
	if (w->times && times_pass(w) < 0)
		return -1;
	w->trees_done = 1;
	return 0;
}

int pw_finish(struct pagewriter *w, uint32_t *pages)
{
	if (pw_finish_trees(w) < 0)
		return -1;
	*pages = w->next - 1;
	if (set_page_count(w, w->fd, *pages) < 0)
		return -1;
	for (struct pw_table *t = w->tables; t; t = t->next)
		if (tempfile_io(w->fd, t->root_img, w->h.page_size, (off_t)(t->root - 1) * w->h.page_size, 1) < 0)
			return -1;
	return 0;
}

void pw_free(struct pagewriter *w)
{
	struct pw_table *t, *next;

	if (!w)
		return;
	for (t = w->tables; t; t = next) {
		next = t->next;
		for (int l = 1; l <= MAX_LEVELS; l++) {
			free(t->lv[l].pgno);
			free(t->lv[l].key);
		}
		free(t->leaf);
		free(t->root_img);
		free(t);
	}
	free(w->owner);
	free(w->buf);
	free(w);
}
