/*
 * runinfo.h - what the run is: command line, directory, pid, host, start
 * time, runtime version and the OpenMP settings in the environment, written
 * once at the tool's start.  Calls output.h only.
 */
#ifndef MAPPROF_COLLECTOR_RUNINFO_H
#define MAPPROF_COLLECTOR_RUNINFO_H

/* Write the run's metadata frames.  0, or -1 when the spool refused them. */
int runinfo_record(const char *runtime_version);

#endif
