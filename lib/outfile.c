/*
 * outfile.c - writing an output file without destroying what the path names.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "lib/outfile.h"

int outfile_is_stdout(const char *path)
{
	struct stat a, b;

	if (!path)
		return 0;
	if (!strcmp(path, "-"))
		return 1;
	return stat(path, &a) == 0 && fstat(STDOUT_FILENO, &b) == 0 &&
	       a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/*
 * The descriptor N when 'path' leads (through symlinks) to /proc/self/fd/N:
 * /dev/stdout, /dev/stderr, /dev/fd/N, a symlink to one.  Opening those
 * anew would give a file at offset 0 (truncated, or overwritten from its
 * start) or, renamed over, replace what the shell opened with '>>'; the
 * already open descriptor is what the user meant.  -1 when not one.
 */
static int proc_fd(const char *path)
{
	char self[64], *cur = strdup(path), *dir = NULL, *real = NULL, *base, *end;
	char link[4096];
	int n = -1;

	snprintf(self, sizeof(self), "/proc/%d/fd", (int)getpid());
	for (int hop = 0; cur && hop < 16; hop++) {
		struct stat st;
		ssize_t k;

		dir = strdup(cur);
		real = dir ? realpath(dirname(dir), NULL) : NULL;
		base = strrchr(cur, '/') ? strrchr(cur, '/') + 1 : cur;
		if (real && !strcmp(real, self) && *base) {
			long v = strtol(base, &end, 10);
			if (!*end && v >= 0 && v < 1 << 20)
				n = (int)v;
			break;
		}
		if (!real || lstat(cur, &st) < 0 || !S_ISLNK(st.st_mode) ||
		    (k = readlink(cur, link, sizeof(link) - 1)) <= 0)
			break;
		link[k] = 0;
		free(cur);
		if (link[0] == '/')
			cur = strdup(link);
		else if (asprintf(&cur, "%s/%s", real, link) < 0)
			cur = NULL;
		free(dir);
		free(real);
		dir = real = NULL;
	}
	free(cur);
	free(dir);
	free(real);
	return n;
}

/*
 * The mode a file created now gets.  umask() can only be read by setting
 * it: it is set back at once (mapprof writes its outputs from one thread).
 */
static mode_t new_file_mode(void)
{
	mode_t mask = umask(022);

	umask(mask);
	return 0666 & ~mask;
}

/* A temporary file beside 'dest', renamed over it by outfile_commit. */
static int open_replace(struct outfile *o, const char *dest, const struct stat *old)
{
	int fd, saved;

	o->dest = strdup(dest);
	if (!o->dest || asprintf(&o->tmp, "%s.tmp.XXXXXX", dest) < 0) {
		o->tmp = NULL;
		goto fail_nomem;
	}
	fd = mkostemp(o->tmp, O_CLOEXEC);
	if (fd < 0)
		goto fail;
	/* mkstemp makes it 0600: give it the mode the file has or would get. */
	if (fchmod(fd, old ? old->st_mode & 0777 : new_file_mode()) < 0 ||
	    !(o->f = fdopen(fd, "w"))) {
		saved = errno;
		close(fd);
		unlink(o->tmp);
		errno = saved;
		goto fail;
	}
	return 0;
fail_nomem:
	errno = ENOMEM;
fail:
	saved = errno;
	free(o->tmp);
	free(o->dest);
	o->tmp = o->dest = NULL;
	errno = saved;
	return -1;
}

/* Not a regular file: write to it where it is. */
static int open_in_place(struct outfile *o, const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC, 0666);
	int saved;

	if (fd < 0)
		return -1;
	o->f = fdopen(fd, "w");
	if (!o->f) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return 0;
}

int outfile_open(struct outfile *o, const char *path)
{
	struct stat st;
	char *real;
	int rc, fd;

	memset(o, 0, sizeof(*o));
	if (outfile_is_stdout(path)) {
		o->f = stdout;
		o->is_stdout = 1;
		return 0;
	}
	fd = proc_fd(path);
	if (fd >= 0) {
		/* An open descriptor (/dev/stderr, /dev/fd/3): write to it as it is. */
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		o->f = fdopen(fd, "w");
		if (!o->f) {
			int saved = errno;
			close(fd);
			errno = saved;
			return -1;
		}
		return 0;
	}
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? open_replace(o, path, NULL) : -1;
	if (S_ISREG(st.st_mode))
		return open_replace(o, path, &st);
	if (S_ISLNK(st.st_mode) && stat(path, &st) == 0 && S_ISREG(st.st_mode)) {
		/* Replace the target, beside it: the symlink stays. */
		real = realpath(path, NULL);
		if (!real)
			return -1;
		rc = open_replace(o, real, &st);
		free(real);
		return rc;
	}
	/* A device, a FIFO, a socket, a symlink to one, a dangling symlink. */
	return open_in_place(o, path);
}

int outfile_commit(struct outfile *o)
{
	int bad = 0;

	if (!o->f) {
		errno = EBADF;
		return -1;
	}
	errno = 0;
	if (fflush(o->f) != 0 || ferror(o->f))
		bad = errno ? errno : EIO;
	if (o->is_stdout) {
		o->f = NULL;
		o->is_stdout = 0;
	} else {
		if (fclose(o->f) != 0 && !bad)
			bad = errno ? errno : EIO;
		o->f = NULL;
		if (!bad && o->tmp && rename(o->tmp, o->dest) < 0)
			bad = errno;
	}
	outfile_discard(o);
	errno = bad;
	return bad ? -1 : 0;
}

void outfile_discard(struct outfile *o)
{
	int saved = errno;

	if (o->f && !o->is_stdout)
		fclose(o->f);
	o->f = NULL;
	o->is_stdout = 0;
	if (o->tmp)
		unlink(o->tmp);
	free(o->tmp);
	free(o->dest);
	o->tmp = o->dest = NULL;
	errno = saved;
}

/* What a path names: a file (device and inode), or, where there is none, an
 * entry of a directory (the directory's device and inode, and 'name'). */
struct file_id {
	dev_t dev;
	ino_t ino;
	char *name;
};

static int file_id(const char *path, struct file_id *id)
{
	struct stat st;
	char *dir, *base;
	int rc = -1;

	id->name = NULL;
	if (!strcmp(path, "-") ? fstat(STDOUT_FILENO, &st) == 0
			       : stat(path, &st) == 0 || lstat(path, &st) == 0) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		return 0;
	}
	if (!strcmp(path, "-"))
		return -1;
	dir = strdup(path);
	base = strdup(path);
	if (dir && base && stat(dirname(dir), &st) == 0) {
		id->dev = st.st_dev;
		id->ino = st.st_ino;
		id->name = strdup(basename(base));
		rc = id->name ? 0 : -1;
	}
	free(dir);
	free(base);
	return rc;
}

int outfile_same(const char *a, const char *b)
{
	struct file_id x, y;
	int same = 0;

	if (file_id(a, &x) < 0)
		return 0;
	if (file_id(b, &y) == 0) {
		same = x.dev == y.dev && x.ino == y.ino &&
		       (x.name && y.name ? !strcmp(x.name, y.name) : !x.name && !y.name);
		free(y.name);
	}
	free(x.name);
	return same;
}
