/*
 * timeit.c - run a program and write "WALL_NS PEAK_RSS_KB" to a file.
 *
 * usage: timeit OUTFILE PROGRAM [ARGS...]
 *
 * The native side of 'make bench': it times the program exactly as
 * 'mapprof record' does (monotonic clock from just before fork to wait4's
 * return; ru_maxrss from wait4), so the two are compared like for like.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	struct rusage ru;
	int64_t t0, t1;
	int status;
	pid_t pid;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: timeit OUTFILE PROGRAM [ARGS...]\n");
		return 2;
	}
	fflush(NULL);
	t0 = mono_ns();
	pid = fork();
	if (pid < 0) {
		perror("timeit: fork");
		return 2;
	}
	if (pid == 0) {
		execvp(argv[2], argv + 2);
		perror("timeit: exec");
		_exit(127);
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
	fprintf(f, "%lld %ld\n", (long long)(t1 - t0), ru.ru_maxrss);
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
