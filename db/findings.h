/*
 * findings.h - the findings of 'mapprof report', written back into the run's
 * database so that SQL users see them (tables finding_raw,
 * finding_event_raw, finding_summary_raw; views findings, finding_events,
 * finding_summary: docs/database-findings.md).
 */
#ifndef MAPPROF_DB_FINDINGS_H
#define MAPPROF_DB_FINDINGS_H

struct db;
struct findings;

/*
 * Create the findings tables and views when the database lacks them (it was
 * recorded by an older mapprof): runs the "report: findings tables" block of
 * db/schema.sql.  0, or -1 with *err set.
 */
int db_findings_ensure(struct db *db, char **err);

/*
 * Replace the stored findings with 'f' (after findings_finish()), in one
 * transaction: running report twice leaves the same rows.  0, or -1 with
 * *err set and the database unchanged.
 */
int db_findings_store(struct db *db, const struct findings *f, char **err);

#endif
