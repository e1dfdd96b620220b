/*
 * tempfile.c - unlinked temporary files and whole positioned I/O
 * (lib/tempfile.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "lib/tempfile.h"

const char *tempfile_dir(void)
{
	const char *dir = getenv("TMPDIR");

	return dir && *dir ? dir : "/tmp";
}

int tempfile_open(const char *tag)
{
	const char *dir = tempfile_dir();
	char *path = NULL;
	int fd;

	if (asprintf(&path, "%s/mapprof-%s-XXXXXX", dir, tag) < 0)
		return -1;
	fd = mkstemp(path);
	if (fd >= 0)
		unlink(path);
	free(path);
	return fd;
}

int tempfile_io(int fd, void *p, size_t len, off_t off, int writing)
{
	char *c = p;

	while (len) {
		ssize_t k = writing ? pwrite(fd, c, len, off) : pread(fd, c, len, off);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			if (!k)   /* nothing written: the disk is full; nothing read: shorter than said */
				errno = writing ? ENOSPC : EIO;
			return -1;
		}
		c += k;
		len -= (size_t)k;
		off += k;
	}
	return 0;
}

size_t tempfile_buffer_records(size_t dflt)
{
	const char *v = getenv("MAPPROF_REPORT_BUFFER");
	char *end;
	unsigned long long n;

	if (!v || !*v)
		return dflt;
	n = strtoull(v, &end, 10);
	return *end || !n ? dflt : (size_t)n;
}
