/*
 * safefile.c - regular files of bounded size only (see safefile.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report/attribute/safefile.h"

static int check(const struct stat *st, uint64_t max_bytes, const char **why)
{
	if (!S_ISREG(st->st_mode)) {
		*why = "not a regular file";
		return -1;
	}
	if (st->st_size < 0 || (uint64_t)st->st_size > max_bytes) {
		*why = "larger than the limit";
		return -1;
	}
	return 0;
}

int safefile_open(const char *path, uint64_t max_bytes, const char **why)
{
	const char *dummy;
	struct stat st;
	int fd;

	if (!why)
		why = &dummy;
	if (!path || !*path) {
		*why = "no path";
		return -1;
	}
	if (stat(path, &st) < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (check(&st, max_bytes, why) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	if (fstat(fd, &st) < 0) {
		*why = strerror(errno);
		close(fd);
		return -1;
	}
	if (check(&st, max_bytes, why) < 0) {
		close(fd);
		return -1;
	}
	/* Regular files ignore O_NONBLOCK; clear it all the same for stdio. */
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}
