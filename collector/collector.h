/*
 * collector.h - what the collector's files share.
 *
 * The collector is the OMPT tool library (libmapprof-collector.so) that the
 * OpenMP runtime loads into the profiled program.  It records raw events into
 * per-thread buffers; a writer thread appends full buffers to the database.
 * It never exits, aborts or prints to stdout inside the user's program: on
 * trouble it says so once on stderr ("mapprof-collector: ...") and stops
 * recording.
 */
#ifndef MAPPROF_COLLECTOR_H
#define MAPPROF_COLLECTOR_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "collector/hash.h"
#include "db/writer.h"

#define COLLECTOR_HIDDEN __attribute__((visibility("hidden")))

/* Monotonic clock in ns (vDSO: no system call). */
static inline int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* "mapprof-collector: ..." on stderr. */
void clog_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Origin of all recorded times (CLOCK_MONOTONIC at tool start). */
extern int64_t collector_start_ns;

/* --- buffer.c: per-thread buffers and the writer thread --------------------- */

/* Start buffering into the database 'w' (owned from now on).  0 or -1. */
int buffer_start(struct db_writer *w);
/*
 * A record slot in this thread's buffer, to fill and then commit with
 * buffer_commit().  NULL when recording has stopped (the event is counted lost).
 */
struct rec *buffer_slot(void);
void buffer_commit(void);
/* Nonzero while events are recorded (cheap: callbacks test it first). */
int buffer_recording(void);
/* This thread's small id (assigned on its first event). */
int buffer_thread_id(void);
/*
 * Run fn(w, arg) on the database from whichever thread owns it, serialised
 * with batch writing.  For rare events (device init, module changes).
 */
void buffer_with_db(void (*fn)(struct db_writer *w, void *arg), void *arg);
/* Flush everything, write the end of the run and close the database. Idempotent. */
void buffer_finish(void);

/* --- modules.c ------------------------------------------------------------ */

/* Record every loaded ELF object not yet recorded. */
void modules_record(struct db_writer *w);
/* Nonzero when objects were loaded or unloaded since the last modules_record(). */
int modules_changed(void);

/* --- runinfo.c ------------------------------------------------------------ */

/* Write run metadata (command line, cwd, pid, host, time, environment). */
int runinfo_record(struct db_writer *w, const char *runtime_version);

/* A growing string (runinfo.c).  p is malloc'ed and NUL-terminated. */
struct sbuf {
	char *p;
	size_t len, cap;
};
void sb_put(struct sbuf *b, const char *s, size_t n);
/* Append s[0..n) as a JSON string literal. */
void sb_json_str(struct sbuf *b, const char *s, size_t n);

/* --- interpose.c ----------------------------------------------------------- */

/*
 * The map entry of the offload call in progress on this thread that covers
 * host address 'addr', or -1.
 */
int interpose_map_index(uint64_t addr);
/* Write the source records seen so far that are not yet in the database. */
void interpose_flush(struct db_writer *w);

#endif
