/*
 * kernel_sites.c - kernels grouped by the place that launched them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "db/db_internal.h"
#include "db/read/kernel_sites.h"
#include "db/read/sound.h"

/*
 * TOTAL() and not SUM(): a sum of sound values may still pass 64 bits (a
 * damaged or hostile database), and SUM() then fails the whole query; the
 * double is clamped below, exact up to 2^53 (104 days, 8 PiB).
 */
static const char sites_sql[] =
	"WITH k AS ("
	" SELECT COALESCE(t.codeptr, 0) AS codeptr, k.device AS device, k.dur_ns AS dur_ns,"
	"        k.target_id AS target_id"
	"   FROM kernel_raw k LEFT JOIN target_raw t ON t.id = k.target_id"
	"  WHERE " KERNEL_SOUND("k") "),"
	" moved_t AS ("
	" SELECT d.target_id AS target_id,"
	"        TOTAL(CASE WHEN d.kind IN (2, 18) THEN d.bytes END) AS bytes_to,"
	"        TOTAL(CASE WHEN d.kind IN (3, 19) THEN d.bytes END) AS bytes_from,"
	"        COUNT(*) AS transfers, TOTAL(d.dur_ns) AS transfer_ns"
	"   FROM data_op_raw d"
	"  WHERE d.kind IN (2, 3, 18, 19) AND " OP_SOUND("d")
	"    AND d.target_id IN (SELECT target_id FROM k WHERE target_id IS NOT NULL)"
	"  GROUP BY d.target_id),"
	" moved AS ("
	" SELECT c.codeptr AS codeptr, c.device AS device, TOTAL(m.bytes_to) AS bytes_to,"
	"        TOTAL(m.bytes_from) AS bytes_from, TOTAL(m.transfers) AS transfers,"
	"        TOTAL(m.transfer_ns) AS transfer_ns"
	"   FROM (SELECT DISTINCT codeptr, device, target_id FROM k) c"
	"   JOIN moved_t m ON m.target_id = c.target_id"
	"  GROUP BY c.codeptr, c.device)"
	" SELECT s.codeptr, s.device, s.launches, s.total_ns, s.min_ns, s.max_ns,"
	"        COALESCE(m.bytes_to, 0), COALESCE(m.bytes_from, 0), COALESCE(m.transfers, 0),"
	"        COALESCE(m.transfer_ns, 0)"
	"   FROM (SELECT codeptr, device, COUNT(*) AS launches, TOTAL(dur_ns) AS total_ns,"
	"                MIN(dur_ns) AS min_ns, MAX(dur_ns) AS max_ns"
	"           FROM k GROUP BY codeptr, device) s"
	"   LEFT JOIN moved m ON m.codeptr = s.codeptr AND m.device = s.device"
	"  ORDER BY s.total_ns DESC, s.codeptr, s.device";

/* A TOTAL() as an int64, clamped to [0, INT64_MAX]. */
static int64_t clamp(double v)
{
	if (!(v > 0))
		return 0;
	if (v >= 9223372036854775807.0)
		return INT64_MAX;
	return (int64_t)llround(v);
}

int kernel_sites_read(struct db *db, struct kernel_sites *out, char **err)
{
	sqlite3_stmt *st = db_prepare(db, sites_sql, err);
	size_t cap = 0;
	int rc;

	memset(out, 0, sizeof(*out));
	if (!st)
		return -1;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct kernel_site *s;
		if (out->n == cap) {
			size_t ncap = cap ? 2 * cap : 16;
			struct kernel_site *v = realloc(out->v, ncap * sizeof(*v));
			if (!v) {
				sqlite3_finalize(st);
				return db_fail(err, "out of memory");
			}
			out->v = v;
			cap = ncap;
		}
		s = &out->v[out->n++];
		s->codeptr = (uint64_t)sqlite3_column_int64(st, 0);
		s->device = sqlite3_column_int(st, 1);
		s->launches = sqlite3_column_int64(st, 2);
		s->total_ns = clamp(sqlite3_column_double(st, 3));
		s->min_ns = sqlite3_column_int64(st, 4);
		s->max_ns = sqlite3_column_int64(st, 5);
		s->bytes_to = clamp(sqlite3_column_double(st, 6));
		s->bytes_from = clamp(sqlite3_column_double(st, 7));
		s->transfers = clamp(sqlite3_column_double(st, 8));
		s->transfer_ns = clamp(sqlite3_column_double(st, 9));
	}
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return db_fail(err, "cannot read the kernels: %s", db_errmsg(db));
	return 0;
}

void kernel_sites_release(struct kernel_sites *s)
{
	free(s->v);
	s->v = NULL;
	s->n = 0;
}
