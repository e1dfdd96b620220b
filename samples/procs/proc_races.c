/*
 * proc_races.c - children that end at the worst moments for their
 * collector.  argv[1] picks the case:
 *
 *   sigexit N  forks N children, one after the other; each offloads in a
 *              loop until a SIGALRM handler calls _exit(3) (what signal(7)
 *              allows a handler), 2 to 22 ms in: at any point of the
 *              collector's own code, a lock held or a buffer half written.
 *              A child that has not ended 3 s later hangs: it is killed and
 *              counted; the exit status is the number that hung.
 *   full       offloads once, fills the disk of the current directory
 *              (a file "fill"), then forks a child that offloads once and
 *              _exit(0)s; the exit status is 1 when the child died of a
 *              signal.
 *   rawexec    forks a child that offloads once and replaces itself with
 *              "sleep 25" through the raw system call, as an exec from a
 *              library would (not through the program's own calls); the
 *              parent exits at once.
 *   daemon S   forks a child that offloads once and sleeps S seconds; the
 *              parent exits at once.
 *   loop S     offloads in a loop for S seconds (no child).
 *   execmt N   forks N children, one after the other; in each a second
 *              thread offloads in a loop, counting the regions it finished
 *              in memory shared with the parent, while the first thread
 *              execs /bin/true (execl, through the collector) 20 ms in.
 *              Prints one line per child: "child PID regions K" (K: the
 *              regions finished before the exec).
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/mman.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int a[64];

static void offload(void)
{
#pragma omp target map(tofrom: a)
	for (int i = 0; i < 64; i++)
		a[i] += 1;
}

static void on_alarm(int sig)
{
	(void)sig;
	_exit(3);
}

static int sigexit(int n)
{
	int hung = 0;

	for (int k = 0; k < n; k++) {
		pid_t p = fork();
		int st = 0, done = 0;
		if (p < 0)
			return 100;
		if (p == 0) {
			struct itimerval t = { { 0, 0 }, { 0, 2000 + (k * 1777) % 20000 } };
			signal(SIGALRM, on_alarm);
			setitimer(ITIMER_REAL, &t, NULL);
			for (;;)
				offload();
		}
		for (int w = 0; w < 300 && !done; w++) {
			if (waitpid(p, &st, WNOHANG) == p)
				done = 1;
			else
				usleep(10000);
		}
		if (!done) {
			fprintf(stderr, "proc_races: child %d hangs in _exit\n", (int)p);
			hung++;
			kill(p, SIGKILL);
			waitpid(p, &st, 0);
		}
	}
	return hung;
}

static int full(void)
{
	static char block[65536];
	int fd = open("fill", O_WRONLY | O_CREAT | O_TRUNC, 0644), st;
	pid_t p;

	while (fd >= 0 && write(fd, block, sizeof(block)) > 0)
		;
	if (fd >= 0)
		close(fd);
	p = fork();
	if (p == 0) {
		offload();
		_exit(0);
	}
	if (p < 0 || waitpid(p, &st, 0) != p)
		return 100;
	fprintf(stderr, "proc_races: child %s %d\n", WIFSIGNALED(st) ? "killed by signal" : "exited",
		WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
	return WIFSIGNALED(st) ? 1 : 0;
}

static _Atomic long *regions;

static void *offloader(void *arg)
{
	(void)arg;
	for (;;) {
		offload();
		atomic_fetch_add(regions, 1);
	}
	return NULL;
}

static int execmt(int n)
{
	regions = mmap(NULL, sizeof(*regions), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (regions == MAP_FAILED)
		return 100;
	for (int k = 0; k < n; k++) {
		pthread_t t;
		int st;
		pid_t p;
		atomic_store(regions, 0);
		p = fork();
		if (p < 0)
			return 100;
		if (p == 0) {
			if (pthread_create(&t, NULL, offloader, NULL))
				_exit(100);
			usleep(20000);
			execl("/bin/true", "true", (char *)NULL);
			_exit(101);
		}
		if (waitpid(p, &st, 0) != p || !WIFEXITED(st) || WEXITSTATUS(st))
			return 100;
		printf("child %d regions %ld\n", (int)p, atomic_load(regions));
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *how = argc > 1 ? argv[1] : "";
	extern char **environ;

	offload();
	if (!strcmp(how, "sigexit"))
		return sigexit(argc > 2 ? atoi(argv[2]) : 20);
	if (!strcmp(how, "full"))
		return full();
	if (!strcmp(how, "loop")) {
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			offload();
			usleep(100);
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while (t.tv_sec - t0.tv_sec < (argc > 2 ? atoi(argv[2]) : 2));
		return 0;
	}
	if (!strcmp(how, "execmt"))
		return execmt(argc > 2 ? atoi(argv[2]) : 5);
	if (!strcmp(how, "rawexec") || !strcmp(how, "daemon")) {
		pid_t p = fork();
		if (p == 0) {
			offload();
			if (!strcmp(how, "daemon")) {
				sleep(argc > 2 ? (unsigned)atoi(argv[2]) : 3);
				_exit(0);
			}
			char *av[] = { "sleep", "25", NULL };
			syscall(SYS_execve, "/bin/sleep", av, environ);
			_exit(1);
		}
		return p < 0 ? 100 : 0;
	}
	fprintf(stderr, "usage: proc_races sigexit N | full | rawexec | daemon S | execmt N | loop S\n");
	return 2;
}
