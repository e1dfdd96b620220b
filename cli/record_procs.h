/*
 * record_procs.h - 'mapprof record' for commands of several processes.
 *
 * The process that takes record's shared buffers writes the database named
 * by -o; every other process that offloads (a forked child, a program a
 * script or an MPI launcher started, a program exec'd in place) writes a
 * spool of its own into a directory beside it (collector/procs.h), and each
 * becomes a database of its own here, once the command has ended.  -o may
 * hold %p (the process's pid), %r (its MPI rank) and %% (docs/usage.md).
 */
#ifndef MAPPROF_CLI_RECORD_PROCS_H
#define MAPPROF_CLI_RECORD_PROCS_H

#include <sys/types.h>

#include "db/db.h"

struct record_procs;

/*
 * Before the program starts: check -o's placeholders, make the spool
 * directory and name it in our environment (the program inherits it), and
 * become the reaper of the command's orphans.  *main_path (malloc'ed) is
 * where to create the first process's database: -o itself, or a
 * provisional file when -o's name depends on the process.  NULL on error
 * (*err malloc'ed; a usage error when *usage is set).
 */
struct record_procs *record_procs_open(const char *output, int force, char **main_path, int *usage,
				       char **err);

/*
 * Once the first process's spool is in its database: store how that
 * process ended (wstatus is that of the program record started, pid
 * 'child'; ring_end and ring_status: what its collector said, enum ring_end
 * of db/spool/ring.h), and when -o depends on the process, rename the database to its
 * name.  *path is replaced by the final path.  0, -1 (said why), or 1: no
 * process took the buffers but others recorded (the program is mpirun or a
 * shell): the database at *path holds nothing and is not wanted.
 */
int record_procs_main(struct record_procs *rp, struct db *db, char **path, pid_t child, int wstatus,
		      int ring_end, int ring_status);

/* How many of the command's other processes left a spool so far (0 when rp is NULL). */
size_t record_procs_others(const struct record_procs *rp);

/*
 * After that: wait a while for the command's other processes, expand every
 * other process's spool into its database, say which databases were
 * written, remove the spool directory.  Frees rp.  Returns how many other
 * processes were recorded, or -1 when one could not be (said why);
 * 'main_kept': the program's own database was kept (they are "more").  When
 * 'written' is not NULL, *written (malloc'ed, *nwritten paths) are their
 * databases.
 */
int record_procs_finish(struct record_procs *rp, int main_kept, char ***written, size_t *nwritten);

/*
 * 'mapprof recover DIR': the spools a killed 'record' left in its spool
 * directory 'dir', each expanded into a database of its own, named from
 * 'tmpl' (record's -o; DIR without '.spool.d' by default) as record would
 * name it: 'tmpl' is left to the first process (whose spool is tmpl-spool),
 * so each other one gets tmpl with .PID before its .db.  Each run is marked
 * incomplete with the reason (when its spool has no end).  spool: only the
 * spool of that file name, or NULL for all.  Removes the directory once
 * empty.  Returns how many databases were written, or -1 (said why).
 */
int record_procs_recover(const char *dir, const char *tmpl, const char *spool, int force);

/* Free rp without expanding anything (the program did not start); removes the empty directory. */
void record_procs_abort(struct record_procs *rp);

/*
 * -o with %p, %r and %% replaced (rank < 0: "norank").  malloc'ed, or NULL
 * when out of memory or the template has another %-sequence.
 */
char *record_procs_expand(const char *tmpl, long pid, long rank);

/* This process's MPI rank from the launcher's environment (OMPI_COMM_WORLD_RANK, ...), or -1. */
long record_procs_env_rank(void);
/* The job's number of ranks from it (OMPI_COMM_WORLD_SIZE, PMI_SIZE, SLURM_NTASKS), or 0. */
long record_procs_env_size(void);

#endif
