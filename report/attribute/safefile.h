/*
 * safefile.h - opening a path that came out of a recorded database.
 *
 * module_raw.path and the source file names of source_raw are whatever the
 * database says, and a database can be hostile: a FIFO there would block
 * open() (or libdw's read) forever, a device could be endless or have side
 * effects on open, a huge file could exhaust memory.  The report opens such
 * paths only through safefile_open(): regular files only, of bounded size.
 */
#ifndef MAPPROF_REPORT_SAFEFILE_H
#define MAPPROF_REPORT_SAFEFILE_H

#include <stdint.h>

#define SAFEFILE_MAX_SOURCE_BYTES (16ULL << 20)   /* a source file to quote */
#define SAFEFILE_MAX_MODULE_BYTES (4ULL << 30)    /* an ELF module to symbolize */

/*
 * Open 'path' read-only if it is a regular file of at most max_bytes.  The
 * path is checked with stat() before it is opened (a FIFO or device is never
 * opened at all), then opened with O_NONBLOCK | O_CLOEXEC | O_NOCTTY and
 * checked again with fstat() on the descriptor (the file may have been
 * replaced in between).  Returns the descriptor (the caller closes it), or
 * -1 with *why (when why is not NULL) set to a static phrase: "not a regular
 * file", "larger than the limit", or strerror's.
 */
int safefile_open(const char *path, uint64_t max_bytes, const char **why);

#endif
