/*
 * ranks.h - the MPI ranks 'mapprof record --ranks' records: a list of ranks
 * and ranges, "0,7,100-199" (docs/usage.md).  Read in place, nothing
 * allocated: the collector (inside the program), record and the merged
 * report share it.
 */
#ifndef MAPPROF_LIB_RANKS_H
#define MAPPROF_LIB_RANKS_H

/*
 * 1 when spec is such a list: numbers from 0 (at most 2^31 - 1), a range's
 * end not below its start, no spaces, nothing empty; else 0.
 */
int ranks_valid(const char *spec);
/* 1 when 'rank' is one of a valid spec's ranks, else 0. */
int ranks_has(const char *spec, long rank);

#endif
