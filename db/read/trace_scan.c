/*
 * trace_scan.c - stored finding operations in time order, for the trace.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/store/finding_rows.h"
#include "db/read/trace_scan.h"

/* As finding_rows.h's struct finding_row_op.kind: 31 bytes and a NUL. */
#define KIND_SIZE 32

struct finding_scan {
	struct db *db;
	enum finding_scan_mode mode;
	sqlite3_stmt *st;
	char (*kinds)[KIND_SIZE];   /* by finding id - 1 */
	int nkinds;
	/* STORED: the rows of one operation, sorted, handed out from 'next' */
	struct finding_scan_row *group;
	size_t ngroup, capgroup, next;
	struct finding_scan_row ahead;  /* the first row of the next group */
	int have_ahead, done;
};

static const char rows_stored_sql[] =
	"SELECT d.begin_ns, e.seq, e.finding, e.occurrence"
	" FROM finding_event_raw e JOIN data_op_raw d ON d.seq = e.seq"
	" WHERE e.finding BETWEEN 1 AND ?1";
static const char rows_sorted_sql[] =
	"SELECT d.begin_ns, e.seq, e.finding, e.occurrence"
	" FROM finding_event_raw e JOIN data_op_raw d ON d.seq = e.seq"
	" WHERE e.finding BETWEEN 1 AND ?1"
	" ORDER BY d.begin_ns, e.seq, e.finding, e.occurrence";

static int read_kinds(struct finding_scan *s, char **err)
{
	sqlite3_stmt *st = db_prepare(s->db, "SELECT id, kind FROM finding_raw WHERE id BETWEEN 1 AND ?1", err);
	int rc;

	if (!st)
		return -1;
	sqlite3_bind_int(st, 1, s->nkinds);
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		int id = sqlite3_column_int(st, 0);
		const unsigned char *kind = sqlite3_column_text(st, 1);
		if (kind)   /* the rest of the entry is zeroes (calloc) */
			memcpy(s->kinds[id - 1], kind, strnlen((const char *)kind, KIND_SIZE - 1));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read the stored findings: %s", db_errmsg(s->db));
	return 0;
}

struct finding_scan *finding_scan_open(struct db *db, enum finding_scan_mode mode, int *max_finding,
				       char **err)
{
	/* finding_rows_open() says whether there are stored findings and how many (its statement is not run). */
	struct finding_rows *probe = finding_rows_open(db, max_finding, err);
	struct finding_scan *s;

	if (!probe)
		return NULL;
	finding_rows_close(probe);
	s = calloc(1, sizeof(*s));
	if (!s || !(s->kinds = calloc((size_t)*max_finding, sizeof(*s->kinds)))) {
		free(s);
		db_fail(err, "out of memory");
		return NULL;
	}
	s->db = db;
	s->mode = mode;
	s->nkinds = *max_finding;
	if (read_kinds(s, err) < 0 ||
	    !(s->st = db_prepare(db, mode == FINDING_SCAN_STORED ? rows_stored_sql : rows_sorted_sql, err))) {
		finding_scan_close(s);
		return NULL;
	}
	sqlite3_bind_int(s->st, 1, *max_finding);
	return s;
}

/* One row of the statement into *r: 1, 0 at the end, -1 with *err. */
static int step(struct finding_scan *s, struct finding_scan_row *r, char **err)
{
	int rc = sqlite3_step(s->st);

	if (rc == SQLITE_DONE)
		return 0;
	if (rc != SQLITE_ROW)
		return db_fail(err, "cannot read the stored findings: %s", db_errmsg(s->db));
	r->begin_ns = sqlite3_column_int64(s->st, 0);
	r->seq = sqlite3_column_int64(s->st, 1);
	r->finding = sqlite3_column_int(s->st, 2);
	r->occurrence = sqlite3_column_int64(s->st, 3);
	return 1;
}

static int row_before(const struct finding_scan_row *a, const struct finding_scan_row *b)
{
	if (a->finding != b->finding)
		return a->finding < b->finding;
	return a->occurrence < b->occurrence;
}

/*
 * The next operation's rows into s->group, sorted by (finding, occurrence):
 * 1, 0 at the end, -1, FINDING_SCAN_RESTART.
 */
static int read_group(struct finding_scan *s, char **err)
{
	struct finding_scan_row r;
	int rc;

	s->ngroup = s->next = 0;
	if (!s->have_ahead) {
		if (s->done)
			return 0;
		rc = step(s, &s->ahead, err);
		if (rc <= 0) {
			s->done = 1;
			return rc;
		}
	}
	for (r = s->ahead;;) {
		size_t i;
		if (s->ngroup == s->capgroup) {
			size_t cap = s->capgroup ? 2 * s->capgroup : 16;
			struct finding_scan_row *g = realloc(s->group, cap * sizeof(*g));
			if (!g)
				return db_fail(err, "out of memory");
			s->group = g;
			s->capgroup = cap;
		}
		/* Insertion from the back: an operation belongs to a few findings. */
		for (i = s->ngroup; i > 0 && row_before(&r, &s->group[i - 1]); i--)
			s->group[i] = s->group[i - 1];
		s->group[i] = r;
		s->ngroup++;
		rc = step(s, &r, err);
		if (rc < 0)
			return -1;
		if (rc == 0) {
			s->have_ahead = 0;
			s->done = 1;
			return 1;
		}
		if (r.begin_ns != s->group[0].begin_ns || r.seq != s->group[0].seq)
			break;
	}
	s->ahead = r;
	s->have_ahead = 1;
	if (r.begin_ns < s->group[0].begin_ns || (r.begin_ns == s->group[0].begin_ns && r.seq < s->group[0].seq))
		return FINDING_SCAN_RESTART;
	return 1;
}

int finding_scan_next(struct finding_scan *s, struct finding_scan_row *row, char **err)
{
	int rc;

	if (s->mode == FINDING_SCAN_SORTED)
		return step(s, row, err);
	if (s->next == s->ngroup && (rc = read_group(s, err)) <= 0)
		return rc;
	*row = s->group[s->next++];
	return 1;
}

int finding_scan_finish(struct finding_scan *s, char **err)
{
	int rc;

	if (s->mode == FINDING_SCAN_SORTED)
		return 0;
	while ((rc = read_group(s, err)) == 1)
		;
	return rc;
}

const char *finding_scan_kind(const struct finding_scan *s, int finding)
{
	return finding >= 1 && finding <= s->nkinds ? s->kinds[finding - 1] : "";
}

void finding_scan_close(struct finding_scan *s)
{
	if (!s)
		return;
	sqlite3_finalize(s->st);
	free(s->kinds);
	free(s->group);
	free(s);
}
