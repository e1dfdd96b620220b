/*
 * modules.h - the map of loaded ELF objects (path, load bias, range,
 * build-id), written to the spool so that 'report' can symbolize later.
 * Calls output.h only.
 */
#ifndef MAPPROF_COLLECTOR_MODULES_H
#define MAPPROF_COLLECTOR_MODULES_H

/* Record every loaded ELF object not yet recorded. */
void modules_record(void);
/* Nonzero when objects were loaded or unloaded since the last modules_record(). */
int modules_changed(void);
/* The loader's count of objects loaded so far (it only grows). */
unsigned long long modules_loaded(void);

#endif
