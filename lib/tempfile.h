/*
 * tempfile.h - the unlinked temporary files the report spills to
 * (lib/extsort.h, lib/spillmap.h), and whole positioned reads and writes.
 */
#ifndef MAPPROF_LIB_TEMPFILE_H
#define MAPPROF_LIB_TEMPFILE_H

#include <stddef.h>
#include <sys/types.h>

/*
 * A new file in $TMPDIR (else /tmp) named mapprof-TAG-XXXXXX, unlinked at
 * once: nothing is left behind however the process ends.  Its descriptor,
 * or -1 (errno set).
 */
int tempfile_open(const char *tag);

/* The directory tempfile_open() makes its files in ($TMPDIR, else /tmp): borrowed from the environment. */
const char *tempfile_dir(void);

/*
 * All 'len' bytes at 'off', written (writing) or read, through short counts
 * and EINTR.  0, or -1 with errno set: the call's own, or ENOSPC when a
 * write wrote nothing, EIO when a read met the end of the file.
 */
int tempfile_io(int fd, void *p, size_t len, off_t off, int writing);

/*
 * How many records a bounded buffer of the report holds before it spills
 * to a temporary file: MAPPROF_REPORT_BUFFER when it is a number above 0
 * (the tests make small runs take the file paths with it), else 'dflt'.
 */
size_t tempfile_buffer_records(size_t dflt);

#endif
