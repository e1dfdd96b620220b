/*
 * sound.c - db/read/sound.h's rules in C, and SQLite's verdict where C cannot
 * give it (see sound.h).
 */
#include <stddef.h>

#include "db/db_internal.h"
#include "db/read/sound.h"

/* A row C cannot judge, by seq: sound, then each reason as 0 or 1. */
static const char judge_op_sql[] =
	"SELECT " OP_SOUND("d") ", " OP_BAD_NULL("d") " IS 1, " OP_BAD_KIND("d") " IS 1,"
	" " OP_BAD_DEVICE("d") " IS 1, " OP_BAD_BYTES("d") " IS 1, " BAD_TIME("d") " IS 1"
	" FROM data_op_raw d WHERE d.seq = ?";
static const char judge_kernel_sql[] =
	"SELECT " KERNEL_SOUND("k") ", " KERNEL_BAD_NULL("k") " IS 1, 0,"
	" " KERNEL_BAD_DEVICE("k") " IS 1, 0, " BAD_TIME("k") " IS 1"
	" FROM kernel_raw k WHERE k.seq = ?";

/* What the BETWEENs and the IN of the expressions answer for integers. */
static int kind_ok(int64_t v)
{
	return (v >= 1 && v <= 6) || (v >= 17 && v <= 20);   /* SOUND_KINDS_SQL */
}

static int device_ok(int64_t v)
{
	return v >= DB_DEVICE_MIN && v <= DB_DEVICE_MAX;
}

static int value_ok(int64_t v)
{
	return v >= 0 && v <= DB_VALUE_MAX;
}

/* begin_ns in range, then dur_ns in [0, DB_VALUE_MAX - begin_ns] (no overflow). */
static int times_ok(int64_t begin_ns, int64_t dur_ns)
{
	return value_ok(begin_ns) && dur_ns >= 0 && dur_ns <= DB_VALUE_MAX - begin_ns;
}

static int is_int(const struct dbval *v)
{
	return v->type == SQLITE_INTEGER;
}

static int is_number(const struct dbval *v)
{
	return v->type == SQLITE_INTEGER || v->type == SQLITE_FLOAT;
}

/* Bind a number as fetched. */
static void bind_number(sqlite3_stmt *st, int i, const struct dbval *v)
{
	if (v->type == SQLITE_FLOAT)
		sqlite3_bind_double(st, i, v->r);
	else
		sqlite3_bind_int64(st, i, v->i);
}

static int reject(unsigned *why, unsigned reasons)
{
	if (why)
		*why = reasons;
	return 0;
}

/*
 * Ask SQLite about row 'seq' with 'sql' (judge_op_sql, judge_kernel_sql),
 * prepared once into *st: 1 sound, 0 damaged (its reasons into *why), -1 on
 * error.
 */
static int ask(struct sound_judge *j, sqlite3_stmt **st, const char *sql, int64_t seq,
	       unsigned *why, char **err)
{
	static const unsigned reason[] = {
		SOUND_BAD_NULL, SOUND_BAD_KIND, SOUND_BAD_DEVICE, SOUND_BAD_BYTES, SOUND_BAD_TIME
	};
	unsigned reasons = 0;
	int rc, sound;

	if (!*st && !(*st = db_prepare(j->db, sql, err)))
		return -1;
	sqlite3_bind_int64(*st, 1, seq);
	rc = sqlite3_step(*st);
	if (rc != SQLITE_ROW) {
		sqlite3_reset(*st);
		return db_fail(err, "cannot read events from '%s': %s", j->db->path,
			       sqlite3_errmsg(j->db->sql));
	}
	sound = sqlite3_column_int(*st, 0);
	for (int i = 0; !sound && i < 5; i++)
		if (sqlite3_column_int(*st, 1 + i))
			reasons |= reason[i];
	sqlite3_reset(*st);
	return sound ? 1 : reject(why, reasons);
}

void sound_judge_init(struct sound_judge *j, struct db *db)
{
	j->db = db;
	j->op = j->kernel = j->sum = j->sum_row[0] = j->sum_row[1] = NULL;
}

void sound_judge_release(struct sound_judge *j)
{
	sqlite3_finalize(j->op);
	sqlite3_finalize(j->kernel);
	sqlite3_finalize(j->sum);
	sqlite3_finalize(j->sum_row[0]);
	sqlite3_finalize(j->sum_row[1]);
	j->op = j->kernel = j->sum = j->sum_row[0] = j->sum_row[1] = NULL;
}

int sound_end_ns(struct sound_judge *j, int kernel, int64_t seq, const struct dbval *begin_ns,
		 const struct dbval *dur_ns, int64_t *end, char **err)
{
	static const char *const row_sql[2] = {
		"SELECT begin_ns + dur_ns FROM data_op_raw WHERE seq = ?1",
		"SELECT begin_ns + dur_ns FROM kernel_raw WHERE seq = ?1",
	};
	sqlite3_stmt **st;
	int rc;

	if (is_int(begin_ns) && is_int(dur_ns)) {
		*end = begin_ns->i + dur_ns->i;
		return 0;
	}
	if (is_number(begin_ns) && is_number(dur_ns)) {
		st = &j->sum;
		if (!*st && !(*st = db_prepare(j->db, "SELECT ?1 + ?2", err)))
			return -1;
		bind_number(*st, 1, begin_ns);
		bind_number(*st, 2, dur_ns);
	} else {
		st = &j->sum_row[!!kernel];
		if (!*st && !(*st = db_prepare(j->db, row_sql[!!kernel], err)))
			return -1;
		sqlite3_bind_int64(*st, 1, seq);
	}
	rc = sqlite3_step(*st);
	*end = sqlite3_column_int64(*st, 0);
	sqlite3_reset(*st);
	if (rc != SQLITE_ROW)
		return db_fail(err, "cannot read events from '%s': %s", j->db->path,
			       rc == SQLITE_DONE ? "a row vanished" : sqlite3_errmsg(j->db->sql));
	return 0;
}

int sound_op(struct sound_judge *j, const struct sound_op_row *r, unsigned *why, char **err)
{
	unsigned reasons = 0;

	if (!is_int(r->kind) || !is_int(r->src_dev) || !is_int(r->dst_dev) ||
	    !is_int(r->bytes) || !is_int(r->begin_ns) || !is_int(r->dur_ns))
		return ask(j, &j->op, judge_op_sql, r->seq, why, err);
	if (!kind_ok(r->kind->i))
		reasons |= SOUND_BAD_KIND;
	if (!device_ok(r->src_dev->i) || !device_ok(r->dst_dev->i))
		reasons |= SOUND_BAD_DEVICE;
	if (!value_ok(r->bytes->i))
		reasons |= SOUND_BAD_BYTES;
	if (!times_ok(r->begin_ns->i, r->dur_ns->i))
		reasons |= SOUND_BAD_TIME;
	return reasons ? reject(why, reasons) : 1;
}

int sound_kernel(struct sound_judge *j, const struct sound_kernel_row *r, unsigned *why,
		 char **err)
{
	unsigned reasons = 0;

	if (!is_int(r->device) || !is_int(r->begin_ns) || !is_int(r->dur_ns))
		return ask(j, &j->kernel, judge_kernel_sql, r->seq, why, err);
	if (!device_ok(r->device->i))
		reasons |= SOUND_BAD_DEVICE;
	if (!times_ok(r->begin_ns->i, r->dur_ns->i))
		reasons |= SOUND_BAD_TIME;
	return reasons ? reject(why, reasons) : 1;
}
