/*
 * modules.h - the map of loaded ELF objects (path, load bias, range,
 * build-id), written to the spool so that 'report' can symbolize later.
 * Calls output.h only.
 */
#ifndef MAPPROF_COLLECTOR_MODULES_H
#define MAPPROF_COLLECTOR_MODULES_H

#include "collector/state.h"

/* Around fork() (procs.c); the child's next modules_record() writes every object again. */
void modules_at_fork(enum fork_moment when);
/* Record every loaded ELF object not yet recorded. */
void modules_record(void);
/* Nonzero when objects were loaded or unloaded since the last modules_record(). */
int modules_changed(void);
/* Nonzero when this thread does not hold the modules' lock (never waits). */
int modules_lock_free(void);
/* The loader's count of objects loaded so far (it only grows). */
unsigned long long modules_loaded(void);

#endif
