/*
 * procs.h - every process of a recorded command records, each into its own
 * spool.
 *
 * 'mapprof record' hands its shared buffers and spool to one process: the
 * first of the command to start OpenMP (output.c).  Every other process that
 * loads the collector (a child the program forked, a program exec'd by it
 * or by a script, the ranks an MPI launcher started) writes a spool of its
 * own in the directory 'record' named in MAPPROF_SPOOL_DIR, one file per
 * program image ("PID.N.spool", N counting the images a pid ran), and
 * 'record' expands each into a database of its own once the command ended.
 * Its threads' buffers are chunks of a ring file beside it ("PID.N.ring",
 * shared memory that outlives the process): whatever they hold when the
 * process ends, however it ends, 'record' appends to the spool.  The
 * program's own exec and _exit calls come here first (got.c), so the image
 * before an exec writes its call sites and says it exec'd.
 * A PROCESS frame after the run's says who the process is: pid, parent,
 * MPI rank, how it started.
 *
 * Beside collector.c, above buffer.c: a fork in the middle of a run goes
 * through here (pthread_atfork), never through the callbacks' fast path.
 */
#ifndef MAPPROF_COLLECTOR_PROCS_H
#define MAPPROF_COLLECTOR_PROCS_H

/*
 * Open this process's own spool in MAPPROF_SPOOL_DIR (output.h's spool from
 * then on).  0, or -1: not recording (said why).
 */
int procs_open(void);
/* The PROCESS frame: 'started' is "record", "exec" or "fork".  0 or -1. */
int procs_record(const char *started);
/*
 * 1 when this process is a rank 'record --ranks' leaves out (MAPPROF_RANKS
 * names ranks, and not this process's): the tool then stays off, the
 * program unrecorded.  0 otherwise.
 */
int procs_rank_off(void);
/*
 * Recording started in this process (the run's frames are written): from
 * now on a forked child records into a spool of its own.  'runtime' is the
 * OpenMP runtime's version string, borrowed for the process's life.
 */
void procs_start(const char *runtime);
/* A device the runtime initialised, for the spool of a child forked later. */
void procs_note_device(int num, const char *type, int64_t init_ns);

#endif
