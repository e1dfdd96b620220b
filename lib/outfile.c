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
#include "lib/termesc.h"

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

/* All of buf to fd: 0, or -1 with errno set. */
static int write_all(int fd, const char *buf, size_t n)
{
	while (n) {
		ssize_t k = write(fd, buf, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (k == 0)
				errno = EIO;
			return -1;
		}
		buf += k;
		n -= (size_t)k;
	}
	return 0;
}

/* The first error is kept; later writes are not tried (stdio sees each fail). */
static int put(struct outfile *o, const char *buf, size_t n)
{
	if (o->err) {
		errno = o->err;
		return -1;
	}
	if (write_all(o->fd, buf, n) < 0) {
		o->err = errno ? errno : EIO;
		return -1;
	}
	return 0;
}

/* OUTFILE_TEXT: escaped in pieces; a UTF-8 sequence cut by the end of buf waits in pend. */
static int put_text(struct outfile *o, const char *buf, size_t n, int final)
{
	char in[1024], out[TERMESC_MAX(sizeof(in))];
	size_t done = 0;

	do {
		size_t k = o->npend, take = n - done, used, len;

		memcpy(in, o->pend, k);
		if (take > sizeof(in) - k)
			take = sizeof(in) - k;
		if (take)
			memcpy(in + k, buf + done, take);
		done += take;
		k += take;
		len = termesc(out, in, k, TERMESC_LINES, final && done == n, &used);
		o->npend = k - used;
		memcpy(o->pend, in + used, o->npend);
		if (len && put(o, out, len) < 0)
			return -1;
	} while (done < n);
	return 0;
}

static ssize_t cookie_write(void *cookie, const char *buf, size_t n)
{
	struct outfile *o = cookie;

	if ((o->flags & OUTFILE_TEXT) ? put_text(o, buf, n, 0) : put(o, buf, n))
		return -1;
	return (ssize_t)n;
}

static int cookie_close(void *cookie)
{
	struct outfile *o = cookie;

	/* The end of a cut sequence that never came: its bytes, escaped. */
	if (o->npend && !o->err)
		return put_text(o, "", 0, 1);
	return 0;
}

/* o->f: a stream writing to o->fd through 'o'. */
static int open_stream(struct outfile *o)
{
	static const cookie_io_functions_t io = { .write = cookie_write, .close = cookie_close };

	o->f = fopencookie(o, "w", io);
	return o->f ? 0 : -1;
}

/* o->f on descriptor fd, which o now owns (closed on failure). */
static int open_fd(struct outfile *o, int fd)
{
	int saved;

	o->fd = fd;
	o->own_fd = 1;
	if (open_stream(o) == 0)
		return 0;
	saved = errno;
	close(fd);
	o->own_fd = 0;
	errno = saved;
	return -1;
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
	if (fchmod(fd, old ? old->st_mode & 0777 : new_file_mode()) < 0) {
		saved = errno;
		close(fd);
		unlink(o->tmp);
		errno = saved;
		goto fail;
	}
	if (open_fd(o, fd) < 0) {
		saved = errno;
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
static int open_in_place(struct outfile *o, const char *path, int extra)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOCTTY | O_CLOEXEC | extra, 0666);

	if (fd < 0)
		return -1;
	return open_fd(o, fd);
}

int outfile_fd(struct outfile *o, int fd, unsigned flags)
{
	memset(o, 0, sizeof(*o));
	o->flags = flags;
	/* What stdio holds for the descriptor goes first. */
	if (fd == STDOUT_FILENO)
		fflush(stdout);
	else if (fd == STDERR_FILENO)
		fflush(stderr);
	o->fd = fd;
	o->is_stdout = fd == STDOUT_FILENO;
	return open_stream(o);
}

/* A default output: the path itself, never what a symlink there points to. */
static int open_nofollow(struct outfile *o, const char *path)
{
	struct stat st, out;

	if (!strcmp(path, "-"))
		return outfile_fd(o, STDOUT_FILENO, o->flags);
	if (lstat(path, &st) < 0)
		return errno == ENOENT ? open_replace(o, path, NULL) : -1;
	if (S_ISLNK(st.st_mode))
		return open_replace(o, path, NULL);   /* renamed over the link itself */
	if (S_ISREG(st.st_mode)) {
		/* 'mapprof report run.db > report.json': the shell's file is the output. */
		if (fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino)
			return outfile_fd(o, STDOUT_FILENO, o->flags);
		return open_replace(o, path, &st);
	}
	return open_in_place(o, path, O_NOFOLLOW);
}

int outfile_open(struct outfile *o, const char *path, unsigned flags)
{
	struct stat st;
	char *real;
	int rc, fd;

	memset(o, 0, sizeof(*o));
	o->flags = flags;
	if (flags & OUTFILE_NOFOLLOW)
		return open_nofollow(o, path);
	if (outfile_is_stdout(path))
		return outfile_fd(o, STDOUT_FILENO, flags);
	fd = proc_fd(path);
	if (fd >= 0) {
		/* An open descriptor (/dev/stderr, /dev/fd/3): write to it as it is. */
		fd = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		if (fd < 0)
			return -1;
		return open_fd(o, fd);
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
	return open_in_place(o, path, 0);
}

int outfile_commit(struct outfile *o)
{
	int bad;

	if (!o->f) {
		errno = EBADF;
		return -1;
	}
	/* Flushes through put(): a failure is in o->err with its own errno. */
	errno = 0;
	if (fclose(o->f) != 0 && !o->err)
		o->err = errno ? errno : EIO;
	o->f = NULL;
	bad = o->err;
	if (o->own_fd) {
		/* NFS and others may say ENOSPC or EIO only now. */
		if (close(o->fd) < 0 && !bad && errno != EINTR)
			bad = errno;
		o->own_fd = 0;
	}
	if (!bad && o->tmp) {
		if (rename(o->tmp, o->dest) < 0)
			bad = errno;
		else
			o->tmp[0] = 0;   /* renamed: nothing to remove */
	}
	outfile_discard(o);
	errno = bad;
	return bad ? -1 : 0;
}

void outfile_discard(struct outfile *o)
{
	int saved = errno;

	if (o->f) {
		/* Whatever is still buffered is not written. */
		if (!o->err)
			o->err = ECANCELED;
		fclose(o->f);
	}
	o->f = NULL;
	if (o->own_fd)
		close(o->fd);
	o->own_fd = 0;
	o->is_stdout = 0;
	if (o->tmp && o->tmp[0])
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
