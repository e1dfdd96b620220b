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
 * way (db/store/locations.h: op_keys_rows() then gives what locations_read_keys()
 * reads), so that 'mapprof record' finds the run's source files without
 * reading data_op_raw again.  'keys' may be NULL.
 */
struct op_keys;
int db_ingest_spool_keys(struct db *db, const char *spool_path, struct ingest_result *res, struct op_keys *keys,
			 char **err);

/*
 * The live expansion: the spool expanded while the program runs, on a
 * thread of 'mapprof record' (cli/record.c), the rest after it.
 * ingest_live_new() starts one on the database (no transaction open) for
 * the spool at 'spool_path', which must outlive it: NULL when it is off
 * (MAPPROF_LIVE_EXPAND=0) or cannot be (db_ingest_spool_keys()'s path
 * through SQLite's inserts, out of memory).  Until db_ingest_spool_live(),
 * nothing else may use 'db'.  A frame is expanded once 'lag' frames of
 * events came after it (those that may still overtake it, as the ring's
 * chunks do: db/spool/ring.h); the rest after the program.  'ticks': the
 * collector times events with the timestamp counter (their ns known only
 * at the end: converted in place then); 0: in plain ns.
 */
struct ingest_live;
struct ingest_live *ingest_live_new(struct db *db, const char *spool_path, unsigned lag, int ticks);
/*
 * Expand the frames appended since the last step: how many (0: none new),
 * or -1 once it gave up (db_ingest_spool_live() then does it all).
 */
int ingest_live_step(struct ingest_live *l);
/*
 * From another thread, as the program ends: a step under way returns
 * before its next frame (what it did not expand, db_ingest_spool_live()
 * expands at the caller's priority, not the step's nice 19).
 */
void ingest_live_cut(struct ingest_live *l);
/*
 * After the program (no step running): db_ingest_spool_keys() that goes on
 * from the live expansion 'l' (freed here; NULL: none) where it can give
 * the very same rows, and starts over otherwise, 'usable' 0 among them (the
 * spool stopped early, so was cut back).  *keys may be replaced by the
 * keys the live expansion gathered (the old ones freed).
 */
int db_ingest_spool_live(struct db *db, const char *spool_path, struct ingest_result *res, struct op_keys **keys,
			 struct ingest_live *l, int usable, char **err);
/* Drop a live expansion without using it (its pages truncated away); accepts NULL. */
void ingest_live_free(struct ingest_live *l);

/*
 * For a collector loaded by hand (no 'mapprof record'): create the database
 * at 'db_path' and replay the spool into it.  Exported by
 * libmapprof-ingest.so, which the collector opens at exit.  0 or -1 (*err).
 */
int mapprof_ingest_file(const char *spool_path, const char *db_path, char **err);

#endif
