/*
 * findings_store.h - the findings of 'mapprof report' written back into the
 * run's database, as the rows of db/store/findings.h: one per finding, one per
 * operation a fix would remove, one summary per kind and one for "all".
 */
#ifndef MAPPROF_REPORT_FINDINGS_STORE_H
#define MAPPROF_REPORT_FINDINGS_STORE_H

#include <stddef.h>

struct db;
struct findings;
struct finding_op;

/* Called with every operation the store writes (a findings_each_op() callback: 0 to go on). */
typedef int (*findings_tap_fn)(void *arg, size_t pos, const struct finding_op *op);

/*
 * Replace the stored findings with 'f' (after findings_finish(), or
 * between findings_finish_begin() and _end(): the store's pass over the
 * operations then feeds the finish, and ends it before the findings' rows
 * are written): running report twice leaves the same rows.  tap, when not
 * NULL, sees each of the findings' operations once, in findings_each_op()'s
 * order, as they are handed to the writer (another pass over them saved).
 * 0 (tap has seen them all, f is finished), or -1 with *err set: the
 * database then as before, or, on a long run whose old findings were
 * deleted in a commit of their own (db/store/findings.h), without findings; f's
 * finish then perhaps not ended (findings_finish_end(f, 0) ends it).
 */
int findings_store(struct db *db, struct findings *f, findings_tap_fn tap, void *tap_arg, char **err);

#endif
