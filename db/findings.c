/*
 * findings.c - store findings (see findings.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/findings.h"
#include "report/findings.h"

static const char block_begin[] = "-- BEGIN report: findings tables\n";
static const char block_end[] = "-- END report: findings tables";

int db_findings_ensure(struct db *db, char **err)
{
	const char *schema = db_schema_sql();
	const char *b = strstr(schema, block_begin), *e = b ? strstr(b, block_end) : NULL;
	char *sql;
	int rc;

	if (!e)
		return db_fail(err, "the embedded schema has no findings block");
	b += sizeof(block_begin) - 1;
	sql = strndup(b, (size_t)(e - b));
	if (!sql)
		return db_fail(err, "out of memory");
	rc = db_exec(db, sql, err);
	free(sql);
	return rc;
}

/* A JSON array of integers (malloc'ed). */
static char *int_array(const int64_t *v, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		return NULL;
	fputc('[', f);
	for (int i = 0; i < n; i++)
		fprintf(f, "%s%lld", i ? "," : "", (long long)v[i]);
	fputc(']', f);
	if (fclose(f))
		return NULL;
	return buf;
}

static char *u64_array(const uint64_t *v, int n)
{
	int64_t w[FINDING_MAX_LOCATIONS];
	for (int i = 0; i < n && i < FINDING_MAX_LOCATIONS; i++)
		w[i] = (int64_t)v[i];
	return int_array(w, n < FINDING_MAX_LOCATIONS ? n : FINDING_MAX_LOCATIONS);
}

static int insert_finding(sqlite3_stmt *st, const struct finding *g)
{
	int64_t devs[2] = { g->devices[0], g->devices[1] };
	char *devices = int_array(devs, g->ndevices);
	char *locations = u64_array(g->locations, g->nlocations);
	char *origins = g->kind == FINDING_DUPLICATE_TRANSFER ? u64_array(g->origins, g->norigins) : NULL;
	const char *flavour = flavour_name(g->flavour);
	int rc = -1;

	if (!devices || !locations || (g->kind == FINDING_DUPLICATE_TRANSFER && !origins))
		goto out;
	sqlite3_reset(st);
	sqlite3_bind_int(st, 1, g->id);
	sqlite3_bind_text(st, 2, finding_kind_name(g->kind), -1, SQLITE_STATIC);
	if (*flavour)
		sqlite3_bind_text(st, 3, flavour, -1, SQLITE_STATIC);
	else
		sqlite3_bind_null(st, 3);
	sqlite3_bind_text(st, 4, g->fingerprint, -1, SQLITE_TRANSIENT);
	sqlite3_bind_int64(st, 5, (int64_t)g->occurrences);
	sqlite3_bind_int64(st, 6, (int64_t)g->bytes);
	sqlite3_bind_int64(st, 7, g->savings_ns);
	sqlite3_bind_text(st, 8, devices, -1, SQLITE_TRANSIENT);
	sqlite3_bind_text(st, 9, locations, -1, SQLITE_TRANSIENT);
	if (origins)
		sqlite3_bind_text(st, 10, origins, -1, SQLITE_TRANSIENT);
	else
		sqlite3_bind_null(st, 10);
	db_bind_opt_int64(st, 11, g->data_addr != 0, (int64_t)g->data_addr);
	sqlite3_bind_int64(st, 12, (int64_t)g->data_bytes);
	sqlite3_bind_int64(st, 13, g->first_seq);
	rc = sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
out:
	free(devices);
	free(locations);
	free(origins);
	return rc;
}

static int insert_summary(sqlite3_stmt *st, const char *kind, const struct kind_summary *k,
			  const struct findings *f)
{
	sqlite3_reset(st);
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)k->findings);
	sqlite3_bind_int64(st, 3, (int64_t)k->occurrences);
	sqlite3_bind_int64(st, 4, (int64_t)k->bytes);
	sqlite3_bind_int64(st, 5, k->savings_ns);
	if (f) {
		sqlite3_bind_int64(st, 6, f->duration_ns);
		if (f->predicted_speedup > 0)
			sqlite3_bind_double(st, 7, f->predicted_speedup);
		else
			sqlite3_bind_null(st, 7);
	} else {
		sqlite3_bind_null(st, 6);
		sqlite3_bind_null(st, 7);
	}
	return sqlite3_step(st) == SQLITE_DONE ? 0 : -1;
}

/*
 * finding_event_raw gets millions of rows on a long run, and one INSERT per
 * row cost more in statement overhead (reset, bind, step) than SQLite spends
 * in its b-tree: rows are written EVENT_BATCH at a time through one
 * multi-row VALUES, the last few one by one.  Same rows, same order.
 */
enum { EVENT_BATCH = 64 };

struct event_row {
	int finding;
	const struct finding_op *op;
};

struct event_writer {
	sqlite3_stmt *one, *batch;
	struct event_row rows[EVENT_BATCH];
	int n;
};

static int event_writer_init(struct event_writer *w, struct db *db, char **err)
{
	static const char head[] = "INSERT INTO finding_event_raw (finding, occurrence, role, seq) VALUES ";
	char sql[sizeof(head) + EVENT_BATCH * sizeof(",(?,?,?,?)")];
	size_t len = sizeof(head) - 1;

	memcpy(sql, head, len + 1);
	for (int i = 0; i < EVENT_BATCH; i++)
		len += (size_t)snprintf(sql + len, sizeof(sql) - len, "%s(?,?,?,?)", i ? "," : "");
	w->n = 0;
	w->one = db_prepare(db, "INSERT INTO finding_event_raw (finding, occurrence, role, seq)"
			    " VALUES (?,?,?,?)", err);
	w->batch = w->one ? db_prepare(db, sql, err) : NULL;
	return w->batch ? 0 : -1;
}

static void event_writer_release(struct event_writer *w)
{
	sqlite3_finalize(w->one);
	sqlite3_finalize(w->batch);
}

/* Bind row r at parameters first..first+3 of st. */
static void bind_event(sqlite3_stmt *st, int first, const struct event_row *r)
{
	sqlite3_bind_int(st, first, r->finding);
	sqlite3_bind_int64(st, first + 1, r->op->occurrence);
	sqlite3_bind_text(st, first + 2, op_role_name(r->op->role), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, first + 3, r->op->seq);
}

static int event_write(struct event_writer *w, int finding, const struct finding_op *op)
{
	w->rows[w->n++] = (struct event_row){ finding, op };
	if (w->n < EVENT_BATCH)
		return 0;
	w->n = 0;
	sqlite3_reset(w->batch);
	for (int i = 0; i < EVENT_BATCH; i++)
		bind_event(w->batch, 4 * i + 1, &w->rows[i]);
	return sqlite3_step(w->batch) == SQLITE_DONE ? 0 : -1;
}

/* Write the rows still waiting for a full batch. */
static int event_flush(struct event_writer *w)
{
	for (int i = 0; i < w->n; i++) {
		sqlite3_reset(w->one);
		bind_event(w->one, 1, &w->rows[i]);
		if (sqlite3_step(w->one) != SQLITE_DONE)
			return -1;
	}
	w->n = 0;
	return 0;
}

int db_findings_store(struct db *db, const struct findings *f, char **err)
{
	sqlite3_stmt *fst = NULL, *sst = NULL;
	struct event_writer ew = { 0 };
	struct kind_summary all = { 0 };
	int rc = -1;

	if (db_findings_ensure(db, err) < 0)
		return -1;
	if (db_begin(db) < 0)
		return db_fail(err, "cannot write findings to '%s': %s", db->path, sqlite3_errmsg(db->sql));
	if (db_exec(db, "DELETE FROM finding_raw; DELETE FROM finding_event_raw;"
			" DELETE FROM finding_summary_raw;", err) < 0)
		goto out;
	fst = db_prepare(db, "INSERT INTO finding_raw (id, kind, flavour, fingerprint, occurrences,"
			     " bytes, savings_ns, devices, locations, origins, data_addr, data_bytes,"
			     " first_seq) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", err);
	sst = fst && event_writer_init(&ew, db, err) == 0 ? db_prepare(db, "INSERT INTO finding_summary_raw (kind, findings, occurrences,"
				   " bytes, savings_ns, duration_ns, predicted_speedup)"
				   " VALUES (?,?,?,?,?,?,?)", err) : NULL;
	if (!sst)
		goto out;
	for (size_t i = 0; i < f->n; i++) {
		const struct finding *g = &f->v[i];
		if (insert_finding(fst, g) < 0)
			goto fail;
		for (size_t j = 0; j < g->nops; j++)
			if (event_write(&ew, g->id, &g->ops[j]) < 0)
				goto fail;
	}
	if (event_flush(&ew) < 0)
		goto fail;
	for (int k = 0; k < FINDING_KIND_COUNT; k++) {
		all.findings += f->kinds[k].findings;
		all.occurrences += f->kinds[k].occurrences;
		all.bytes += f->kinds[k].bytes;
		if (insert_summary(sst, finding_kind_name(k), &f->kinds[k], NULL) < 0)
			goto fail;
	}
	all.savings_ns = f->savings_ns;
	if (insert_summary(sst, "all", &all, f) < 0)
		goto fail;
	if (db_commit(db) < 0)
		goto fail;
	rc = 0;
	goto done;
fail:
	db_fail(err, "cannot write findings to '%s': %s", db->path, sqlite3_errmsg(db->sql));
out:
	db_rollback(db);
done:
	sqlite3_finalize(fst);
	event_writer_release(&ew);
	sqlite3_finalize(sst);
	return rc;
}
