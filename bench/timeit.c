/*
 * timeit.c - run a program and write "WALL_NS PEAK_RSS_KB USER_NS SYS_NS"
 * to a file.
 *
 * usage: timeit OUTFILE PROGRAM [ARGS...]
 *
 * The native side of 'make bench': it times the program exactly as
 * 'mapprof record' does (monotonic clock from just before posix_spawn to
 * wait4's return; ru_maxrss, ru_utime and ru_stime from wait4), so the two
 * are compared like for like.  Readers take the fields in order; new ones
 * go at the end.
 */
#define _GNU_SOURCE
#include <spawn.h>
#include <stdio.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long long tv_ns(struct timeval tv)
{
	return (long long)tv.tv_sec * 1000000000 + (long long)tv.tv_usec * 1000;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int64_t t0, t1;
	int status, rc;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: timeit OUTFILE PROGRAM [ARGS...]\n");
		return 2;
	}
	fflush(NULL);
	t0 = mono_ns();
	rc = posix_spawnp(&pid, argv[2], NULL, NULL, argv + 2, environ);
	if (rc) {
		fprintf(stderr, "timeit: cannot run '%s': %s\n", argv[2], strerror(rc));
		return 127;
	}
	if (wait4(pid, &status, 0, &ru) < 0) {
		perror("timeit: wait4");
		return 2;
	}
	t1 = mono_ns();
	f = fopen(argv[1], "w");
	if (!f) {
		perror("timeit: output");
		return 2;
	}
	fprintf(f, "%lld %ld %lld %lld\n", (long long)(t1 - t0), ru.ru_maxrss, tv_ns(ru.ru_utime),
		tv_ns(ru.ru_stime));
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
