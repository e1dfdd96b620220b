/*
 * slow_end.c - offloads, then ends slowly or abruptly (tests/e2e/record_early.sh).
 *
 *     slow_end REGIONS [slow|kill|_exit]
 *
 * REGIONS target regions map an array tofrom (4 data operations each); the
 * sum goes to stdout.  Then:
 *   slow   exit(0), and a destructor that sleeps 300 ms: it runs after the
 *          exit handlers, the collector's among them, so the process is
 *          still ending well after the collector finished;
 *   kill   SIGKILL: the collector never finishes;
 *   _exit  _exit(3): the collector's _exit() path, not its finish;
 *   fork   as slow, but halfway a child forked without the atfork handlers
 *          (_Fork()) calls exit(): the parent's collector state and ring
 *          are in it, yet the parent goes on recording.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static int end_ms;

/* After exit()'s handlers (the collector's at_exit() among them). */
__attribute__((destructor)) static void slow(void)
{
	if (end_ms > 0)
		usleep((useconds_t)end_ms * 1000);
}

int main(int argc, char **argv)
{
	int n = 4096, regions = argc > 1 ? atoi(argv[1]) : 20;
	const char *how = argc > 2 ? argv[2] : "slow";
	double *a = malloc((size_t)n * sizeof(*a)), sum = 0;

	if (!a)
		return 1;
	for (int i = 0; i < n; i++)
		a[i] = i;
	for (int r = 0; r < regions; r++) {
		if (r == regions / 2 && !strcmp(how, "fork")) {
			pid_t child = _Fork();
			if (child == 0)
				exit(0);
			if (child < 0 || waitpid(child, NULL, 0) != child)
				return 2;
		}
#pragma omp target map(tofrom: a[0:n])
		for (int i = 0; i < n; i++)
			a[i] += 1;
	}
	for (int i = 0; i < n; i++)
		sum += a[i];
	printf("%.0f\n", sum);
	fflush(stdout);
	free(a);
	if (!strcmp(how, "kill"))
		raise(SIGKILL);
	if (!strcmp(how, "_exit"))
		_exit(3);
	end_ms = 300;
	return 0;
}
