/*
 * proc_ends.c - children that end every way a process can, each after
 * offloading a known number of times.  argv[1] picks the way:
 *
 *   _exit      the child offloads 3 times and calls _exit(7); the parent waits.
 *   daemon     the parent offloads once and exits at once; the child, an
 *              orphan now, waits 300 ms, offloads 300 times (more than a
 *              buffer of events: its collector looks whether 'record' is
 *              alive) and exits (0).
 *   kill       the child offloads 5 times and waits; the parent kills it
 *              (SIGKILL) and exits without reaping it.
 *   killwait   the same, but the parent reaps the killed child.
 *   abort      the child offloads 2 times and calls abort(); the parent
 *              exits without reaping it.
 *   exec       the child offloads 2 times and execs this program with
 *              "second" (which offloads once); the parent waits.
 *   execclear  this process offloads 2 times and execs this program with
 *              "plain" (no offload) and an empty environment.
 *
 * Each offload is one map(tofrom: a) region (a: 1024 ints): alloc 1,
 * to_device 1, from_device 1, delete 1, kernel 1.  The parent offloads once
 * before it forks unless said otherwise.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define N 1024

static int a[N];

static void offload(int times)
{
	for (int k = 0; k < times; k++) {
#pragma omp target map(tofrom: a)
		for (int i = 0; i < N; i++)
			a[i] += 1;
	}
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	int p[2], status;
	char c;
	pid_t pid;

	if (!strcmp(how, "plain"))
		return 0;
	if (!strcmp(how, "second")) {
		offload(1);
		return 0;
	}
	if (!strcmp(how, "execclear")) {
		char *args[] = { argv[0], "plain", NULL }, *env[] = { NULL };
		offload(2);
		execve("/proc/self/exe", args, env);
		perror("execve");
		return 1;
	}
	offload(1);
	if (pipe(p) < 0)
		return 1;
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		if (!strcmp(how, "_exit")) {
			offload(3);
			_exit(7);
		} else if (!strcmp(how, "daemon")) {
			nanosleep(&(struct timespec){ 0, 300 * 1000000 }, NULL);
			offload(300);
			exit(0);
		} else if (!strcmp(how, "kill") || !strcmp(how, "killwait")) {
			offload(5);
			if (write(p[1], "x", 1) != 1)
				_exit(1);
			for (;;)
				pause();
		} else if (!strcmp(how, "abort")) {
			offload(2);
			abort();
		} else if (!strcmp(how, "exec")) {
			offload(2);
			execl("/proc/self/exe", argv[0], "second", (char *)NULL);
			_exit(1);
		}
		_exit(1);
	}
	if (!strcmp(how, "daemon") || !strcmp(how, "abort"))
		return 0;
	if (!strcmp(how, "kill") || !strcmp(how, "killwait")) {
		if (read(p[0], &c, 1) != 1)
			return 1;
		kill(pid, SIGKILL);
		if (!strcmp(how, "kill"))
			return 0;
	}
	if (waitpid(pid, &status, 0) != pid)
		return 1;
	return 0;
}
