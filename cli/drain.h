/*
 * drain.h - 'mapprof record's side of the ring of event buffers (db/spool/ring.h).
 */
#ifndef MAPPROF_CLI_DRAIN_H
#define MAPPROF_CLI_DRAIN_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct drain;

/*
 * Create the spool (it must not exist), a ring of nchunks chunks (0: the
 * collector writes every buffer itself) and the socket pair that tells the
 * program record is alive (and record that a chunk is full), all
 * inheritable by the program.  The spool may take
 * spool_max bytes (0: no cap).  NULL with *err set (malloc'ed) when one
 * cannot be created.
 */
struct drain *drain_open(const char *spool_path, unsigned nchunks, int64_t spool_max, char **err);
/* The descriptors the program inherits (MAPPROF_SPOOL_FD, MAPPROF_RING_FD, MAPPROF_LIVE_FD). */
int drain_spool_fd(const struct drain *d);
int drain_ring_fd(const struct drain *d);
int drain_live_fd(const struct drain *d);
/* MAPPROF_LIVE_FD's value: the program's socket's descriptor and inode, "FD:INODE" (the collector checks it is ours). */
const char *drain_live_env(const struct drain *d);
/* MAPPROF_RECORDER's value: this process, "PID:START" (db/spool/ring.h ring_proc_start()). */
const char *drain_recorder_env(const struct drain *d);
/* How the program's first process ended, as its collector said (enum ring_end); *status for RING_ENDED_EXIT. */
int drain_ended(const struct drain *d, int *status);
/* Offload calls the program made after its collector finished (db/spool/ring.h calls_late). */
int64_t drain_calls_late(const struct drain *d);
/* The program started: record closes its copy of the program's end of the socket pair. */
void drain_started(struct drain *d);
/* wait4(pid) that writes full chunks to the spool meanwhile.  0, or -1 with errno. */
int drain_wait(struct drain *d, pid_t pid, int *wstatus, struct rusage *ru);
/*
 * fn(arg, chunks) after each of drain_wait()'s passes that wrote chunks to
 * the spool, on its thread; chunks: how many it wrote so far.
 */
void drain_on_written(struct drain *d, void (*fn)(void *, uint64_t), void *arg);
/*
 * From another thread than drain_wait()'s: wait until the process that
 * records into the ring (the program's first to start OpenMP, the ring's
 * owner) says its collector finished (RING_ENDED_FINISHED: it writes
 * nothing more to the spool, though the process may still be ending), 1;
 * or until drain_unblock(), 0.  Killed, _exit() or no collector: no such word.
 */
int drain_wait_finished(struct drain *d);
/* drain_wait_finished() returns 0 now, or at once from now on. */
void drain_unblock(struct drain *d);
/*
 * Once the program has ended, or its collector finished: write what is
 * left in the ring, and with clock_frame (event times are timestamp counter
 * ticks) a CLOCK frame.  A spool that stopped early is cut back to its last
 * whole frame and ends with a STATUS frame saying why.  Once only (a second
 * call does nothing); drain_wait() writes no more chunks after it.
 */
void drain_final(struct drain *d, int clock_frame);
/* Why the spool stopped early (its cap, a failed write), malloc'ed; NULL when it did not. */
char *drain_stop_text(const struct drain *d);
/* Nonzero when the collector already said on stderr why the spool stopped. */
int drain_stop_said(const struct drain *d);
/*
 * Close the spool, the ring and the socket; accepts NULL.  Only once every
 * process of the command is done: the socket tells them record is alive.
 */
void drain_close(struct drain *d);

/* What a process's own ring file (collector/procs.c, "PID.N.ring") says of it. */
struct ring_file_info {
	long pid;
	int64_t start;       /* its start time (ring_proc_start()) */
	int ended;           /* enum ring_end */
	int exit_status;     /* RING_ENDED_EXIT */
	int64_t calls_late;  /* offload calls after its collector finished */
	dev_t dev;           /* the ring file's, to find it among the process's mappings */
	ino_t ino;
};
/* Read it.  0, or -1 when there is no such ring or it is not one. */
int drain_ring_info(const char *ring_path, struct ring_file_info *out);
/*
 * The process that owned the ring file is gone: append what its buffers
 * still held to its spool (after cutting a frame it left half-written),
 * then remove the ring.  0 (also when there is no ring), or -1 (*err
 * malloc'ed; the ring is kept).
 */
int drain_ring_file(const char *ring_path, const char *spool_path, char **err);

#endif
