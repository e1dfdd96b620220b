/*
 * finding_pages.c - the report's finding events written as pages (see
 * finding_pages.h).
 *
 * SQLite's formats used here (fileformat2.html): the header's freelist
 * fields (offset 32: the first trunk page, 36: the free page count); a
 * trunk page is the next trunk's number, a count K and K leaf page
 * numbers.  The rollback journal: a header of one 512-byte sector (the
 * magic, the record count, a checksum seed, the database's old size in
 * pages, the sector and page sizes), then per page its number, its old
 * bytes and a checksum (the seed plus every 200th byte from the end).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "db/pages/finding_pages.h"
#include "db/pages/pageformat.h"
#include "db/pages/pagewrite.h"
#include "lib/grow.h"
#include "lib/tempfile.h"

enum { SECTOR = 512 };

struct finding_pages {
	int fd;
	char *journal;
	int journal_made;         /* created: removed when begin gives up */
	dev_t journal_dev;        /* the journal made: only that file is ever removed */
	ino_t journal_ino;
	struct pw_header h;
	unsigned char *page1, *rootpg;
	uint32_t root;
	unsigned char *trunks;    /* the freelist trunk pages taken, their old bytes */
	uint32_t *trunk_pg;
	size_t ntrunks;
	uint32_t *freepg;         /* their leaves and themselves, in the order given out */
	size_t nfree, free_cap;
	uint32_t next_trunk;      /* the first trunk not taken (0: none) */
	uint32_t free_count;      /* the header's free page count */
	struct pagewriter *pw;
	struct pw_table *t;
	int64_t rowid;
};

/*
 * SQLite's lock bytes, as an EXCLUSIVE lock holds them, on this open file
 * description (F_OFD_SETLK): such a lock conflicts with any connection's,
 * this process's too, no other descriptor's close drops it, and SQLite's
 * own descriptor sees it (sqlite_sees_lock()).  -1 (errno) where the kernel has
 * no such locks (EINVAL) or another holds one.
 */
static int lock_file(int fd)
{
#ifdef F_OFD_SETLK
	struct flock l = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = PENDING_BYTE, .l_len = LOCK_BYTES };
	return fcntl(fd, F_OFD_SETLK, &l);
#else
	(void)fd;
	errno = EINVAL;
	return -1;
#endif
}

/*
 * Whether SQLite sees a RESERVED lock on the file it has open for the
 * connection, through its own descriptor (xCheckReservedLock): 1 or 0, -1
 * when it cannot say.  An open file description's lock is seen by every
 * other descriptor of the same file, this process's too.
 */
static int sqlite_sees_lock(sqlite3 *sql)
{
	sqlite3_file *f = db_main_file(sql);
	int reserved = 0;

	if (!f || !f->pMethods->xCheckReservedLock || f->pMethods->xCheckReservedLock(f, &reserved) != SQLITE_OK)
		return -1;
	return reserved != 0;
}

/*
 * Whether the path still names the file locked through fd, and SQLite's
 * file is still at its path: 1, or 0 with *why.
 */
static int still_there(sqlite3 *sql, const char *path, int fd, const char **why)
{
	struct stat a, b;
	int moved = 1;

	if (fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino &&
	    sqlite3_file_control(sql, "main", SQLITE_FCNTL_HAS_MOVED, &moved) == SQLITE_OK && !moved)
		return 1;
	*why = "it was replaced since the report opened it";
	return 0;
}

static int read_page(const struct finding_pages *p, uint32_t pg, unsigned char *buf)
{
	return tempfile_io(p->fd, buf, p->h.page_size, (off_t)(pg - 1) * p->h.page_size, 0);
}

static void pages_free(struct finding_pages *p)
{
	pw_free(p->pw);
	if (p->fd >= 0)
		close(p->fd);   /* the locks go with it (the connection holds none) */
	free(p->journal);
	free(p->page1);
	free(p->rootpg);
	free(p->trunks);
	free(p->trunk_pg);
	free(p->freepg);
	free(p);
}

static int add_free(struct finding_pages *p, uint32_t pg)
{
	if (grow_one((void **)&p->freepg, &p->free_cap, p->nfree, sizeof(*p->freepg)) < 0)
		return -1;
	p->freepg[p->nfree++] = pg;
	return 0;
}

/* Reads page pg of a file into buf: 0 or -1. */
typedef int (*page_reader)(void *ctx, uint32_t pg, unsigned char *buf, uint32_t page_size);

/*
 * The whole freelist of the file whose header is hdr checked, as SQLite's
 * integrity_check reads it: every trunk and leaf a page of the file
 * (2..pages, not the lock-byte page), each listed once (no loop, no page
 * twice), no trunk listing more leaves than a page holds, and the header's
 * count the number of pages listed.  0, or -1 with *why: the store then
 * goes through SQLite, which says what it makes of such a file.
 */
static int check_freelist(const unsigned char *hdr, const struct pw_header *h, page_reader read, void *ctx,
			  const char **why)
{
	uint32_t per = h->usable / 4 - 2, trunk = get32(hdr + 32), count = get32(hdr + 36);
	uint32_t lock_pg = (uint32_t)(PENDING_BYTE / h->page_size) + 1;
	uint64_t listed = 0;
	unsigned char *seen = calloc(h->pages / 8 + 1, 1), *img = malloc(h->page_size);
	int rc = -1;

	*why = "out of memory";
	if (!seen || !img)
		goto out;
	*why = "its freelist is damaged";
#define TAKE(pg) ((pg) < 2 || (pg) > h->pages || (pg) == lock_pg || (seen[(pg) / 8] & (1u << ((pg) % 8))) || \
		  (seen[(pg) / 8] |= (unsigned char)(1u << ((pg) % 8)), 0))
	while (trunk) {
		uint32_t k;
		if (TAKE(trunk) || ++listed > count)
			goto out;
		if (read(ctx, trunk, img, h->page_size) < 0) {
			*why = "cannot read its freelist";
			goto out;
		}
		k = get32(img + 4);
		if (k > per || listed + k > count)
			goto out;
		for (uint32_t i = 0; i < k; i++)
			if (TAKE(get32(img + 8 + 4 * i)))
				goto out;
		listed += k;
		trunk = get32(img);
	}
#undef TAKE
	if (listed == count) {
		*why = NULL;
		rc = 0;
	}
out:
	free(seen);
	free(img);
	return rc;
}

static int read_fd_page(void *ctx, uint32_t pg, unsigned char *buf, uint32_t page_size)
{
	return tempfile_io(*(int *)ctx, buf, page_size, (off_t)(pg - 1) * page_size, 0);
}

static int read_sqlite_page(void *ctx, uint32_t pg, unsigned char *buf, uint32_t page_size)
{
	sqlite3_file *f = ctx;
	return f->pMethods->xRead(f, buf, (int)page_size, (sqlite3_int64)(pg - 1) * page_size) == SQLITE_OK ? 0 : -1;
}

int finding_pages_freelist_sound(struct db *db, const char **why)
{
	unsigned char hdr[100];
	struct pw_header h;
	sqlite3_file *f = db_main_file(db->sql);

	if (!f || !f->pMethods->xRead) {
		*why = "no file behind the database";
		return 0;
	}
	if (f->pMethods->xRead(f, hdr, sizeof(hdr), 0) != SQLITE_OK || pw_check_header(hdr, &h, why) < 0) {
		if (!*why)
			*why = "cannot read the database's header";
		return 0;
	}
	return check_freelist(hdr, &h, read_sqlite_page, f, why) == 0;
}

/*
 * Take whole freelist trunks (their leaves, then the trunk page) until
 * 'want' pages are in hand or the list ends: a list check_freelist() found
 * sound.  0, or -1 with *why.
 */
static int take_freelist(struct finding_pages *p, uint64_t want, const char **why)
{
	uint32_t trunk = get32(p->page1 + 32);
	size_t cap = 0, pg_cap = 0;

	p->free_count = get32(p->page1 + 36);
	while (trunk && p->nfree < want) {
		unsigned char *img;
		uint32_t k;

		if (grow_one((void **)&p->trunks, &cap, p->ntrunks, p->h.page_size) < 0 ||
		    grow_one((void **)&p->trunk_pg, &pg_cap, p->ntrunks, sizeof(*p->trunk_pg)) < 0) {
			*why = "out of memory";
			return -1;
		}
		img = p->trunks + p->ntrunks * p->h.page_size;
		if (read_page(p, trunk, img) < 0) {
			*why = "cannot read its freelist";
			return -1;
		}
		k = get32(img + 4);
		p->trunk_pg[p->ntrunks++] = trunk;
		for (uint32_t i = 0; i < k; i++)
			if (add_free(p, get32(img + 8 + 4 * i)) < 0) {
				*why = "out of memory";
				return -1;
			}
		if (add_free(p, trunk) < 0) {
			*why = "out of memory";
			return -1;
		}
		trunk = get32(img);
	}
	p->next_trunk = trunk;
	return 0;
}

/*
 * Make what was written to fd durable: the data and the size, as SQLite's
 * unix VFS does (fdatasync).  0, or -1 (errno).
 */
static int sync_fd(int fd)
{
	while (fdatasync(fd) < 0)
		if (errno != EINTR)
			return -1;
	return 0;
}

/* The journal's name in its directory, durable: SQLite's first sync of a new journal does this too. */
static int sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
	int fd = dir ? open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC) : -1, rc;

	free(dir);
	if (fd < 0)
		return -1;
	rc = fsync(fd);
	/* Some file systems cannot sync a directory (EINVAL): SQLite goes on there too. */
	if (rc < 0 && errno == EINVAL)
		rc = 0;
	close(fd);
	return rc;
}

/* One journal record: page pg's old bytes. */
static int journal_record(int fd, off_t *off, uint32_t pg, unsigned char *data, uint32_t page_size,
			  uint32_t seed)
{
	unsigned char num[4], sum[4];
	uint32_t cksum = seed;

	for (int i = (int)page_size - 200; i > 0; i -= 200)
		cksum += data[i];
	put32(num, pg);
	put32(sum, cksum);
	if (tempfile_io(fd, num, 4, *off, 1) < 0 || tempfile_io(fd, data, page_size, *off + 4, 1) < 0 ||
	    tempfile_io(fd, sum, 4, *off + 4 + page_size, 1) < 0)
		return -1;
	*off += 8 + page_size;
	return 0;
}

/* The journal, whole, before any page of the database is written.  0 or -1. */
static int write_journal(struct finding_pages *p, const struct stat *db)
{
	static const unsigned char magic[8] = { 0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7 };
	unsigned char hdr[SECTOR] = { 0 };
	uint32_t seed = (uint32_t)getpid() * 2654435761u ^ (uint32_t)time(NULL);
	off_t off = SECTOR;
	int fd, rc = 0;

	fd = open(p->journal, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, db->st_mode & 0777);
	if (fd < 0)
		return -1;
	{
		struct stat js;
		if (fstat(fd, &js) < 0) {
			close(fd);
			unlink(p->journal);
			return -1;
		}
		p->journal_made = 1;
		p->journal_dev = js.st_dev;
		p->journal_ino = js.st_ino;
	}
	/*
	 * The database's mode whatever the umask, and as root its owner and
	 * group, as SQLite gives its journals: whoever may write the database
	 * can roll it back.
	 */
	if (fchmod(fd, db->st_mode & 0777) < 0 || (geteuid() == 0 && fchown(fd, db->st_uid, db->st_gid) < 0)) {
		close(fd);
		return -1;
	}
	memcpy(hdr, magic, sizeof(magic));
	put32(hdr + 8, (uint32_t)(2 + p->ntrunks));
	put32(hdr + 12, seed);
	put32(hdr + 16, p->h.pages);
	put32(hdr + 20, SECTOR);
	put32(hdr + 24, p->h.page_size);
	rc = tempfile_io(fd, hdr, sizeof(hdr), 0, 1);
	if (!rc)
		rc = journal_record(fd, &off, 1, p->page1, p->h.page_size, seed);
	if (!rc)
		rc = journal_record(fd, &off, p->root, p->rootpg, p->h.page_size, seed);
	for (size_t i = 0; !rc && i < p->ntrunks; i++)
		rc = journal_record(fd, &off, p->trunk_pg[i], p->trunks + i * p->h.page_size, p->h.page_size, seed);
	/*
	 * At least one sector of the largest size SQLite assumes (64 KiB):
	 * before it reads a header, SQLite checks that a sector of its own
	 * size fits in the file, and a journal shorter than that is deleted
	 * unplayed.  Zeros after the records end the playback.
	 */
	if (!rc && off < 65536)
		rc = ftruncate(fd, 65536);
	/* Durable, its name too, before any page it protects is written (SQLite's order). */
	if (!rc)
		rc = sync_fd(fd);
	if (close(fd) < 0)
		rc = -1;
	if (!rc)
		rc = sync_dir(p->journal);
	return rc;
}

/*
 * Remove the journal this writer made, and no other file: one at its path
 * since (the database replaced, and a journal of the new file's writer
 * there) stays.  0 when ours was removed; -1 when it is gone or not ours.
 */
static int remove_journal(struct finding_pages *p)
{
	struct stat js;

	if (lstat(p->journal, &js) < 0 || js.st_dev != p->journal_dev || js.st_ino != p->journal_ino)
		return -1;
	return unlinkat(AT_FDCWD, p->journal, 0);
}

struct finding_pages *finding_pages_begin(struct db *db, uint64_t nrows, const char *const *roles,
					  int nroles, const char **why)
{
	const char *file = sqlite3_db_filename(db->sql, "main");
	struct finding_pages *p;
	struct stat st, jst;
	uint64_t per_leaf, leaves;
	int64_t schema;

	*why = NULL;
	if (!file || !*file) {
		*why = "not a file";
		return NULL;
	}
	p = calloc(1, sizeof(*p));
	if (!p || !(p->journal = malloc(strlen(file) + sizeof("-journal")))) {
		free(p);
		*why = "out of memory";
		return NULL;
	}
	p->fd = -1;
	strcpy(stpcpy(p->journal, file), "-journal");
	/* The schema's version first: the root found next is the file's still when the locked header has it. */
	schema = db_scalar(db, "PRAGMA schema_version");
	if (!(p->root = db_table_root(db, "finding_event_raw", "finding, occurrence, role, seq"))) {
		*why = "finding_event_raw is not the table expected";
		goto no;
	}
	/*
	 * The file SQLite has open, not one put at its path since: no process
	 * holds a RESERVED lock on SQLite's file before our lock (a writer, or
	 * a report of an older file at this path), and SQLite sees ours after
	 * it, through its own descriptor.  The path is checked again once the
	 * journal is made (a file put there since would get our journal).
	 */
	if (sqlite_sees_lock(db->sql) != 0) {
		*why = "another connection writes it";
		goto no;
	}
	p->fd = open(file, O_RDWR | O_CLOEXEC);
	if (p->fd < 0 || lock_file(p->fd) < 0 || fstat(p->fd, &st) < 0) {
		*why = p->fd < 0 ? "cannot open it" : errno == EINVAL ? "no open file description locks here"
								 : "another connection uses it";
		goto no;
	}
	if (sqlite_sees_lock(db->sql) != 1 || !still_there(db->sql, file, p->fd, why)) {
		if (!*why)
			*why = "the file at its path is not the one SQLite has open";
		goto no;
	}
	/* Under the lock, as SQLite looks: a journal there is one to roll back first. */
	if (lstat(p->journal, &jst) == 0) {
		*why = "a journal is there";
		goto no;
	}
	if (!(p->page1 = malloc(65536)) || pw_file_header(p->fd, p->page1, &p->h, why) < 0)
		goto no;
	if (get32(p->page1 + 40) != (uint32_t)schema) {
		*why = "its schema changed";
		goto no;
	}
	if (p->h.encoding != 1) {
		*why = "its text is not UTF-8";
		goto no;
	}
	if (!(p->rootpg = malloc(p->h.page_size)) || read_page(p, 1, p->page1) < 0 || p->root > p->h.pages ||
	    read_page(p, p->root, p->rootpg) < 0) {
		*why = "cannot read it";
		goto no;
	}
	if (p->rootpg[0] != 13 || get16(p->rootpg + 3)) {
		*why = "finding_event_raw is not empty";
		goto no;
	}
	/*
	 * As many free pages as the rows could need: a row is a cell of 46
	 * bytes at most (a record of four integers and a role of 8 bytes, two
	 * varints) and its 2-byte pointer; the interior pages are a few percent
	 * of the leaves.  The pages not filled go back to the freelist.
	 */
	per_leaf = (p->h.usable - 8) / 48;
	leaves = nrows / per_leaf + 1;
	if (check_freelist(p->page1, &p->h, read_fd_page, &p->fd, why) < 0 ||
	    take_freelist(p, leaves + leaves / 32 + 16, why) < 0)
		goto no;
	if (write_journal(p, &st) < 0) {
		*why = "cannot write its journal";
		goto no;
	}
	/* Replaced while the journal was made: it would be hot beside the new file. */
	if (!still_there(db->sql, file, p->fd, why))
		goto no;
	if (!(p->pw = pw_new(p->fd, &p->h)) || !(p->t = pw_table_new(p->pw, p->root, 4, -1)) ||
	    pw_table_text(p->t, 2, roles, nroles) < 0) {
		*why = "out of memory";
		goto no;
	}
	pw_set_free_pages(p->pw, p->freepg, p->nfree);
	return p;
no:
	if (p->journal_made)
		remove_journal(p);
	pages_free(p);
	return NULL;
}

int finding_pages_row(struct finding_pages *p, int64_t finding, int64_t occurrence, int role, int64_t seq)
{
	int64_t v[4] = { finding, occurrence, role, seq };

	return pw_append(p->t, ++p->rowid, v, 0xf) == 0 ? 0 : -1;
}

/*
 * The pages taken and not filled, put back: as new trunk pages, each
 * listing the ones after it, the last one leading to the trunks not taken.
 * Their first page in *first (next_trunk when there is none).
 */
static int give_back(struct finding_pages *p, size_t used, uint32_t *first)
{
	uint32_t per = p->h.usable / 4 - 8, next = p->next_trunk;
	size_t left = p->nfree - used, groups = (left + per) / (per + 1);
	unsigned char *pg = calloc(1, p->h.page_size);

	if (!pg)
		return -1;
	/* Built from the last group back, so that each knows the next. */
	for (size_t g = groups; g-- > 0;) {
		size_t from = used + g * (per + 1), n = p->nfree - from < per + 1 ? p->nfree - from : per + 1;
		memset(pg, 0, p->h.page_size);
		put32(pg, next);
		put32(pg + 4, (uint32_t)(n - 1));
		for (size_t i = 1; i < n; i++)
			put32(pg + 4 + 4 * i, p->freepg[from + i]);
		if (tempfile_io(p->fd, pg, p->h.page_size, (off_t)(p->freepg[from] - 1) * p->h.page_size, 1) < 0) {
			free(pg);
			return -1;
		}
		next = p->freepg[from];
	}
	free(pg);
	*first = next;
	return 0;
}

int finding_pages_end(struct finding_pages *p, int ok)
{
	uint32_t pages, first;
	size_t used;
	int rc = -1;

	if (ok && pw_finish_trees(p->pw) == 0) {
		used = pw_free_used(p->pw);
		if (give_back(p, used, &first) == 0) {
			pw_set_freelist(p->pw, first, p->free_count - (uint32_t)used);
			/*
			 * The header and the root, the pages durable, then the
			 * journal removed: the commit.
			 */
			if (pw_finish(p->pw, &pages) == 0 && sync_fd(p->fd) == 0 && remove_journal(p) == 0)
				rc = 0;
		}
	}
	/*
	 * Given up: the journal stays, hot once the locks go, and the next
	 * connection rolls the file back (the report's own, at its next BEGIN).
	 */
	pages_free(p);
	return rc;
}
