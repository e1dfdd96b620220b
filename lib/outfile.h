/*
 * outfile.h - writing an output file without destroying what the path names.
 *
 * A report goes wherever the user points it: a new file, an old report, a
 * terminal, /dev/null, a FIFO, a symlink to /proc/self/fd/1.  Writing to a
 * temporary file and renaming it over the path keeps an old report whole
 * when the write fails, but renamed over a device or a FIFO it replaces
 * that with a regular file (as root, /dev/null).  So:
 *
 *   "-", or a path that is this process's standard output (same device and
 *   inode as descriptor 1)        -> descriptor 1 (stdio's stdout flushed
 *                                    first), never closed
 *   /dev/stderr, /dev/fd/N, /proc/self/fd/N, a symlink to one
 *                                 -> a duplicate of descriptor N, written at
 *                                    its offset (a shell's '>>' appends)
 *   no such file, a regular file  -> a temporary file in the same directory,
 *                                    renamed over the path when complete
 *   a symlink to a regular file   -> the same, beside and over the symlink's
 *                                    target: the symlink stays
 *   anything else: a device, a FIFO, a socket, a dangling symlink
 *                                 -> opened and written in place
 *
 * Nothing is ever unlinked or renamed over except a regular file.  A new
 * file gets mode 0666 less the umask; a replaced one keeps its permission
 * bits.  No fsync: a report is rewritten from its database when lost.
 *
 * A default output (report.json beside the database: OUTFILE_NOFOLLOW) is
 * never written through a symlink: whoever can write the database's
 * directory could point it at ~/.bashrc.  A symlink there, dangling or not,
 * is replaced by the new file (the link goes, its target is not touched);
 * a device or FIFO there is opened with O_NOFOLLOW; /dev/fd/N links are not
 * looked for.  Paths the user gives follow symlinks as above.
 *
 * Every write goes through the stream's own write function, which keeps the
 * first error's errno: outfile_commit() reports that one (ENOSPC, EPIPE,
 * EIO), not whatever a later call left in errno.  After the first error
 * nothing more is written.  OUTFILE_TEXT escapes what a terminal would obey
 * (lib/termesc.h, TERMESC_LINES): the stream for a summary whose strings
 * come from a database.
 *
 * lib/ includes nothing of the stages; errors are returned in errno.
 */
#ifndef MAPPROF_LIB_OUTFILE_H
#define MAPPROF_LIB_OUTFILE_H

#include <stddef.h>
#include <stdio.h>

#define OUTFILE_NOFOLLOW 1u   /* a default output: a symlink at the path is replaced, never followed */
#define OUTFILE_TEXT 2u       /* text for a terminal: control characters escaped (lib/termesc.h) */

/*
 * An open output.  'f' writes through this struct (its address is the
 * stream's cookie): keep it where it is until outfile_commit/discard.
 */
struct outfile {
	FILE *f;        /* write here; NULL when not open */
	char *tmp;      /* the temporary file, or NULL when written in place */
	char *dest;     /* what 'tmp' is renamed over (symlinks resolved) */
	int is_stdout;  /* f writes to standard output (descriptor 1) */
	int fd;         /* the descriptor f writes to */
	int own_fd;     /* fd was opened here: closed by commit and discard */
	int err;        /* the first write error (an errno value); 0: none yet */
	unsigned flags; /* OUTFILE_* */
	unsigned char pend[4];   /* OUTFILE_TEXT: a UTF-8 sequence cut between two writes */
	size_t npend;
};

/*
 * Open 'path' for writing as above; flags: OUTFILE_*.  0, or -1 with errno
 * set (nothing is left open or created).  A FIFO blocks until it has a
 * reader.
 */
int outfile_open(struct outfile *o, const char *path, unsigned flags);

/*
 * A stream onto the open descriptor 'fd' (standard output: 1), which stays
 * open after commit; stdio's own stream of it is flushed first.  0, or -1
 * with errno set.
 */
int outfile_fd(struct outfile *o, int fd, unsigned flags);

/*
 * Finish: flush and close, then rename the temporary file over its
 * destination.  0, or -1 with errno set to the first error a write met (or
 * close's, or rename's): the temporary file is removed and the destination
 * left as it was.  Either way 'o' is released.
 */
int outfile_commit(struct outfile *o);

/* Give up: close (writing nothing more) and remove the temporary file.
 * Accepts a zeroed or already released 'o'; keeps errno. */
void outfile_discard(struct outfile *o);

/* 1 when 'path' is "-" or names this process's standard output. */
int outfile_is_stdout(const char *path);

/*
 * 1 when paths 'a' and 'b' name the same file: both exist with the same
 * device and inode (after following symlinks; "-" is standard output), or
 * neither exists and both name the same entry of the same directory.
 */
int outfile_same(const char *a, const char *b);

#endif
