/*
 * acc.h - what an OpenACC recording holds (acc_event_raw, schema.sql), in
 * counts: enough for the report to say what the runtime reported and what
 * it did not (docs/openacc.md).
 */
#ifndef MAPPROF_DB_READ_ACC_H
#define MAPPROF_DB_READ_ACC_H

#include <stdint.h>

struct db;

struct acc_summary {
	int64_t events;        /* rows of acc_event_raw (a start/end pair is one); 0: not an OpenACC run */
	int64_t constructs;    /* compute_construct, enter_data, exit_data, update */
	int64_t launches;      /* enqueue_launch */
	int64_t data_events;   /* alloc, free, create, delete, enqueue_upload, enqueue_download */
	int64_t transfers;     /* enqueue_upload, enqueue_download */
	int64_t data_bytes;    /* data events whose bytes the runtime filled (data_op_raw.bytes > 0) */
	int64_t short_info;    /* events whose event info stopped at 24 bytes (no bytes, no pointers) */
	int64_t src_given;     /* events with a source file or line from the runtime */
	int64_t var_given;     /* events with a variable name from the runtime */
	char *runtime_lib;     /* the runtime library the collector registered with ("libgomp.so.1"), or NULL */
};

/*
 * Read the counts of 'db' into *s (zeros when it has no acc_event_raw: a
 * database recorded before it existed, or an OMPT run).  0, or -1 with
 * *err set (malloc'ed).  Release with acc_summary_release() either way.
 */
int db_read_acc(struct db *db, struct acc_summary *s, char **err);
void acc_summary_release(struct acc_summary *s);

#endif
