/*
 * fork_child.c - a program that forks a child which offloads too.
 *
 * The parent offloads once, forks, waits for the child, offloads once more
 * and prints one line.  The child offloads its own array three times and
 * exits (exit(), so its OpenMP runtime and tool finish normally).  Two
 * processes: 'mapprof record' must record both, each as its own process.
 *
 * Data operations (all on device 0; N = 1024, 4-byte elements):
 *   parent, before the fork: a  alloc 1, to_device 1, from_device 1, delete 1; kernel 1
 *   child:  3 x b (map(to:), then map(from:) of one int each time):
 *             b  alloc 3, to_device 3, delete 3
 *             r  alloc 3, from_device 3, delete 3;  kernels 3
 *   parent, after the child ended: a  alloc 1, to_device 1, from_device 1, delete 1; kernel 1
 * Per process:
 *   parent: alloc 2, to_device 2, from_device 2, delete 2, kernel 2
 *   child:  alloc 6, to_device 3, from_device 3, delete 6, kernel 3
 * Totals: alloc 8, to_device 5, from_device 5, delete 8, kernel 5.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define N 1024

static int a[N], b[N];

static void parent_step(int k)
{
#pragma omp target map(tofrom: a)
	for (int i = 0; i < N; i++)
		a[i] += k;
}

static int child(void)
{
	int r = 0;
	for (int i = 0; i < N; i++)
		b[i] = i;
	for (int k = 0; k < 3; k++) {
#pragma omp target map(to: b) map(from: r)
		{
			r = 0;
			for (int i = 0; i < N; i++)
				r += b[i] + k;
		}
	}
	return r == 1023 * 512 + 2 * N ? 0 : 1;
}

int main(void)
{
	int status;
	pid_t pid;

	parent_step(1);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0)
		exit(child());
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "fork_child: the child failed\n");
		return 1;
	}
	parent_step(2);
	printf("fork_child: a[0] = %d\n", a[0]);
	return a[0] == 3 ? 0 : 1;
}
