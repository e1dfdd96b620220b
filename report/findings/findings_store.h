/*
 * findings_store.h - the findings of 'mapprof report' written back into the
 * run's database, as the rows of db/findings.h: one per finding, one per
 * operation a fix would remove, one summary per kind and one for "all".
 */
#ifndef MAPPROF_REPORT_FINDINGS_STORE_H
#define MAPPROF_REPORT_FINDINGS_STORE_H

struct db;
struct findings;

/*
 * Replace the stored findings with 'f' (after findings_finish()), in one
 * transaction: running report twice leaves the same rows.  0, or -1 with
 * *err set and the database unchanged.
 */
int findings_store(struct db *db, const struct findings *f, char **err);

#endif
