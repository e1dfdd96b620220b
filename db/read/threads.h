/*
 * threads.h - the run's threads as the database knows them: the
 * collector's small number, the kernel's thread id, and whether it was the
 * process's initial thread (its thread id is the process id).  Workers of a
 * parallel region and the runtime's hidden helper threads (which run
 * 'target nowait' regions) are not told apart by the recording: both are
 * "OpenMP threads".
 */
#ifndef MAPPROF_DB_THREADS_H
#define MAPPROF_DB_THREADS_H

#include <stddef.h>
#include <stdint.h>

struct db;

struct thread_row {
	int thread;       /* thread_raw.id, as data_op_raw.thread and kernel_raw.thread */
	int64_t tid;      /* the kernel's thread id; 0 when unknown */
	int initial;      /* tid is the process id */
};

struct thread_rows {
	struct thread_row *v;   /* by thread */
	size_t n;
};

/* Read every thread into *out.  0, or -1 with *err set (malloc'ed); release out either way. */
int thread_rows_read(struct db *db, struct thread_rows *out, char **err);

/* The row of 'thread', or NULL. */
const struct thread_row *thread_rows_find(const struct thread_rows *t, int thread);

/* Its role in words: "initial thread" or "OpenMP thread" (static). */
const char *thread_role(const struct thread_row *r);

/* Accepts a zeroed struct. */
void thread_rows_release(struct thread_rows *t);

#endif
