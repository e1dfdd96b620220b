/*
 * drain.h - 'mapprof record's side of the ring of event buffers (db/ring.h).
 */
#ifndef MAPPROF_CLI_DRAIN_H
#define MAPPROF_CLI_DRAIN_H

#include <sys/resource.h>
#include <sys/types.h>

struct drain;

/*
 * Create the spool (it must not exist) and a ring of nchunks chunks (0: the
 * collector writes every buffer itself), both inheritable by the program.
 * NULL with *err set (malloc'ed) when either cannot be created.
 */
struct drain *drain_open(const char *spool_path, unsigned nchunks, char **err);
/* The descriptors the program inherits (MAPPROF_SPOOL_FD, MAPPROF_RING_FD). */
int drain_spool_fd(const struct drain *d);
int drain_ring_fd(const struct drain *d);
/* wait4(pid) that writes full chunks to the spool meanwhile.  0, or -1 with errno. */
int drain_wait(struct drain *d, pid_t pid, int *wstatus, struct rusage *ru);
/*
 * After the program has ended: write what is left in the ring, and with
 * clock_frame (event times are timestamp counter ticks) a CLOCK frame.
 */
void drain_final(struct drain *d, int clock_frame);
/* Close; -1 with *err set (malloc'ed) if a write to the spool failed. */
int drain_close(struct drain *d, char **err);

#endif
