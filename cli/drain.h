/*
 * drain.h - 'mapprof record's side of the ring of event buffers (db/ring.h).
 */
#ifndef MAPPROF_CLI_DRAIN_H
#define MAPPROF_CLI_DRAIN_H

#include <stdint.h>
#include <sys/resource.h>
#include <sys/types.h>

struct drain;

/*
 * Create the spool (it must not exist), a ring of nchunks chunks (0: the
 * collector writes every buffer itself) and the pipe that tells the program
 * record is alive, all inheritable by the program.  The spool may take
 * spool_max bytes (0: no cap).  NULL with *err set (malloc'ed) when one
 * cannot be created.
 */
struct drain *drain_open(const char *spool_path, unsigned nchunks, int64_t spool_max, char **err);
/* The descriptors the program inherits (MAPPROF_SPOOL_FD, MAPPROF_RING_FD, MAPPROF_LIVE_FD). */
int drain_spool_fd(const struct drain *d);
int drain_ring_fd(const struct drain *d);
int drain_live_fd(const struct drain *d);
/* The program started: record closes its copy of the pipe's read end. */
void drain_started(struct drain *d);
/* wait4(pid) that writes full chunks to the spool meanwhile.  0, or -1 with errno. */
int drain_wait(struct drain *d, pid_t pid, int *wstatus, struct rusage *ru);
/*
 * After the program has ended: write what is left in the ring, and with
 * clock_frame (event times are timestamp counter ticks) a CLOCK frame.  A
 * spool that stopped early is cut back to its last whole frame and ends
 * with a STATUS frame saying why.
 */
void drain_final(struct drain *d, int clock_frame);
/* Why the spool stopped early (its cap, a failed write), malloc'ed; NULL when it did not. */
char *drain_stop_text(const struct drain *d);
/* Nonzero when the collector already said on stderr why the spool stopped. */
int drain_stop_said(const struct drain *d);
/* Close the spool, the ring and the pipe; accepts NULL. */
void drain_close(struct drain *d);

#endif
