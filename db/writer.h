/*
 * writer.h - the collector's side of the database: appending records.
 *
 * Linked into the collector library.  Used from one thread at a time (the
 * collector's writer thread, or the thread finishing the run); none of these
 * functions is called from an OMPT callback.
 */
#ifndef MAPPROF_DB_WRITER_H
#define MAPPROF_DB_WRITER_H

#include <stddef.h>
#include <stdint.h>

enum rec_type {
	REC_DATA_OP = 1,
	REC_KERNEL,
	REC_TARGET,
};

/* One recorded event, as the collector buffers it.  Times are relative to run start. */
struct rec {
	uint8_t type;        /* enum rec_type */
	uint8_t kind;        /* data op: ompt_target_data_op_t; target: ompt_target_t */
	uint8_t has_hash;
	int8_t map_index;    /* -1: none */
	int32_t thread;
	int32_t src_dev;     /* data op: source device; target/kernel: device */
	int32_t dst_dev;
	uint32_t teams;      /* kernel: requested teams */
	uint64_t seq;
	uint64_t src_addr;
	uint64_t dst_addr;
	uint64_t bytes;
	int64_t begin_ns;
	int64_t end_ns;
	uint64_t hash;
	uint64_t codeptr;
	uint64_t target_id;
};

struct db_writer;

struct run_info {
	const char *command_json;  /* JSON array of argv */
	const char *cwd;
	long pid;
	const char *host;
	const char *start_time;    /* ISO 8601 UTC */
	int64_t start_ns;          /* CLOCK_MONOTONIC origin */
	const char *runtime;
	const char *collector;     /* collector version */
};

/*
 * Open the database at 'path' for recording: an existing empty mapprof
 * database (created by 'mapprof record'), or a new one.  NULL on error, with
 * a malloc'ed *err.
 */
struct db_writer *dbw_open(const char *path, char **err);
void dbw_close(struct db_writer *w);

/* Claim the run: -1 when another process already recorded into this database. */
int dbw_run_info(struct db_writer *w, const struct run_info *ri);
/* The pid that claimed the run, or -1. */
long dbw_run_pid(struct db_writer *w);
int dbw_env(struct db_writer *w, const char *name, const char *value);
int dbw_status(struct db_writer *w, const char *status, const char *detail);
int dbw_end(struct db_writer *w, int64_t end_ns, uint64_t events_lost);
int dbw_device(struct db_writer *w, int num, const char *type, int64_t init_ns, int64_t fini_ns);
int dbw_module(struct db_writer *w, const char *path, uint64_t base, uint64_t low, uint64_t high,
	       const char *build_id, int64_t seen_ns);
int dbw_thread(struct db_writer *w, int id, long tid);
int dbw_image(struct db_writer *w, int device, const char *file, uint64_t host_addr,
	      uint64_t bytes, int64_t ns);
int dbw_source(struct db_writer *w, uint64_t codeptr, const char *entry, const char *psource,
	       const char *map_names_json);

/* Transactions around a batch of calls. */
int dbw_begin(struct db_writer *w);
int dbw_commit(struct db_writer *w);

/* Append records (inside a transaction).  Returns 0 or -1. */
int dbw_records(struct db_writer *w, const struct rec *recs, size_t n);

/* The last error message (borrowed). */
const char *dbw_errmsg(struct db_writer *w);

#endif
