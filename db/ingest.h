/*
 * ingest.h - expanding the collector's spool into the database.
 */
#ifndef MAPPROF_DB_INGEST_H
#define MAPPROF_DB_INGEST_H

#include <stdint.h>

#include "db/db.h"

struct ingest_result {
	int64_t pid;          /* the process that wrote the spool */
	uint64_t frames;      /* frames replayed */
	uint64_t records;     /* events (data ops, kernels, targets) */
	uint64_t data_ops, kernels, targets;
	int truncated;        /* the spool ended inside a frame (the program was killed) */
};

/*
 * Replay the spool at 'spool_path' into 'db', pairing deletes with
 * allocations on the way: the event tables written as pages while no
 * transaction is open on 'db' (it must have none), the rest in one
 * transaction; on failure the file is put back as it was.  The database must not hold a run yet.  Returns 1 when there was no spool (the
 * collector never started), 0 when replayed, -1 on error (*err set; nothing
 * written).  The spool file is left for the caller to remove.
 */
int db_ingest_spool(struct db *db, const char *spool_path, struct ingest_result *res, char **err);

/*
 * The same, every data operation's attribution keys added to 'keys' on the
 * way (db/locations.h: op_keys_rows() then gives what locations_read_keys()
 * reads), so that 'mapprof record' finds the run's source files without
 * reading data_op_raw again.  'keys' may be NULL.
 */
struct op_keys;
int db_ingest_spool_keys(struct db *db, const char *spool_path, struct ingest_result *res, struct op_keys *keys,
			 char **err);

/*
 * For a collector loaded by hand (no 'mapprof record'): create the database
 * at 'db_path' and replay the spool into it.  Exported by
 * libmapprof-ingest.so, which the collector opens at exit.  0 or -1 (*err).
 */
int mapprof_ingest_file(const char *spool_path, const char *db_path, char **err);

#endif
