/*
 * open_gate.c - an LD_PRELOAD library that holds one open() of a path
 * until the test says go, so that a test can replace the file in the gap
 * between a program's earlier opens of it and that one, every time.
 *
 * OPEN_GATE_PATH  the path, as the program passes it
 * OPEN_GATE_NTH   which of its opens to hold (1: the first; every open,
 *                 open64, openat and openat64 of the path counts)
 * OPEN_GATE_HELD  a file created when the open is held
 * OPEN_GATE_GO    a file the test creates to let it go (given up after 120 s)
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static int seen;

static void gate(const char *path)
{
	const char *want = getenv("OPEN_GATE_PATH"), *nth = getenv("OPEN_GATE_NTH");
	const char *held = getenv("OPEN_GATE_HELD"), *go = getenv("OPEN_GATE_GO");
	struct timespec ms10 = { 0, 10 * 1000 * 1000 };
	int fd;

	if (!want || !path || strcmp(path, want) || !nth || ++seen != atoi(nth))
		return;
	if (held) {
		open_fn real = (open_fn)dlsym(RTLD_NEXT, "open");
		fd = real(held, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
		if (fd >= 0)
			close(fd);
	}
	for (int i = 0; go && i < 12000 && access(go, F_OK) != 0; i++)
		nanosleep(&ms10, NULL);
}

/* The mode argument, when the flags say there is one. */
#define MODE_ARG(flags, mode)                                                  \
	do {                                                                   \
		va_list ap;                                                    \
		va_start(ap, flags);                                           \
		mode = (flags & (O_CREAT | O_TMPFILE)) ? va_arg(ap, mode_t) : 0; \
		va_end(ap);                                                    \
	} while (0)

int open(const char *path, int flags, ...)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, "open");
	mode_t mode;

	MODE_ARG(flags, mode);
	gate(path);
	return real(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
	open_fn real = (open_fn)dlsym(RTLD_NEXT, "open64");
	mode_t mode;

	MODE_ARG(flags, mode);
	gate(path);
	return real(path, flags, mode);
}

int openat(int dir, const char *path, int flags, ...)
{
	openat_fn real = (openat_fn)dlsym(RTLD_NEXT, "openat");
	mode_t mode;

	MODE_ARG(flags, mode);
	gate(path);
	return real(dir, path, flags, mode);
}

int openat64(int dir, const char *path, int flags, ...)
{
	openat_fn real = (openat_fn)dlsym(RTLD_NEXT, "openat64");
	mode_t mode;

	MODE_ARG(flags, mode);
	gate(path);
	return real(dir, path, flags, mode);
}
