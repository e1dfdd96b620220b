/*
 * hash_reuse.c - host ranges sent again after every kind of write the
 * collector's write tracking (collector/wtrack.c) must notice.  Recorded
 * with MAPPROF_HASH_REUSE=0 and with the default, every transfer's hash
 * must be the same (tests/e2e/hash_reuse.sh).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#define N (3 * 1024 * 1024 / 8)  /* 3 MiB: 192 hash chunks */
#define PAGE 4096

static void send(const double *a, long n)
{
#pragma omp target map(to: a[0:n])
	{
		(void)a[0];
	}
}

static void *writer(void *arg)
{
	((double *)arg)[N - 1] = 42;
	return NULL;
}

int main(void)
{
	double *a = malloc(N * sizeof(double));
	char *page_in = (char *)(((unsigned long)a + 3 * PAGE) & ~(unsigned long)(PAGE - 1));
	pthread_t t;
	int fd;

	for (long i = 0; i < N; i++)
		a[i] = (double)i;
	for (int k = 0; k < 4; k++)  /* unchanged */
		send(a, N);
	a[N / 2] = -1;  /* one element */
	send(a, N);
	memset(a, 0, PAGE);  /* a page */
	send(a, N);
	a[N / 4] = -2;  /* pages in neighbouring chunks (16 KiB = 2048 doubles apart) */
	a[N / 4 + 2048] = -3;
	send(a, N);
	fd = open("/proc/self/exe", O_RDONLY);  /* the kernel writes: read() */
	if (fd < 0 || read(fd, (char *)a + 2 * 1024 * 1024 + 100, 64) != 64)
		return 2;
	close(fd);
	send(a, N);
	madvise(page_in, PAGE, MADV_DONTNEED);  /* a page dropped: zeros now */
	send(a, N);
	send(a, N);
	pthread_create(&t, NULL, writer, a);  /* another thread */
	pthread_join(t, NULL);
	send(a, N);
	for (long i = 0; i < N; i += 1024)  /* more written regions than one scan returns */
		a[i] += 1;
	send(a, N);
	send(a, N);

	/* Round trips: the runtime writes the range. */
	for (int k = 0; k < 3; k++) {
#pragma omp target map(tofrom: a[0:N])
		for (long i = 0; i < N; i += 512)
			a[i] += 1;
	}
	send(a, N);
	a[7] = 3;
	send(a, N);

	/* Overlapping ranges sharing pages: a write seen by one must not be lost for the other. */
	send(a + 1, N - 1);
	send(a, N);
	a[2] = 5;
	send(a + 1, N - 1);
	send(a, N);
	send(a + 1, N - 1);

	/* Sections of the range, each written and then tracked on its own: their
	 * protection forgets writes the whole range has not hashed yet (more
	 * sections than the collector remembers per range). */
	send(a, N);
	send(a, N);
	for (int round = 0; round < 2; round++) {
		for (int k = 0; k < (round ? 6 : 3); k++) {
			double *sec = a + (long)k * (N / 6) + round * 1024;
			sec[10] = -k - round;
			send(sec, 16 * 1024);
			send(sec, 16 * 1024);
		}
		send(a, N);
	}

	/* A forked child writes its own copy; the parent's is unchanged. */
	if (fork() == 0) {
		a[9] = 9;
		_exit(0);
	}
	wait(NULL);
	send(a, N);

	/* Freed and allocated again (often at the same address), other content. */
	free(a);
	a = malloc(N * sizeof(double));
	for (long i = 0; i < N; i++)
		a[i] = (double)(2 * i);
	send(a, N);
	send(a, N);

	/* Grown in place or moved (mremap). */
	a = realloc(a, 2 * N * sizeof(double));
	for (long i = N; i < 2 * N; i++)
		a[i] = 1;
	send(a, N);
	send(a, 2 * N);
	send(a, 2 * N);

	/* Unmapped and mapped again at the same address. */
	double *m = mmap(NULL, N * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; i < N; i++)
		m[i] = 1;
	send(m, N);
	send(m, N);
	munmap(m, N * sizeof(double));
	if (mmap(m, N * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
		 -1, 0) != m)
		return 2;
	m[1] = 2;
	send(m, N);
	send(m, N);

	/* A file mapped privately: its pages change when the file does. */
	char path[] = "/tmp/mapprof-hash-reuse.XXXXXX";
	fd = mkstemp(path);
	if (fd < 0 || ftruncate(fd, N * sizeof(double)) < 0)
		return 2;
	unlink(path);
	double *f = mmap(NULL, N * sizeof(double), PROT_READ, MAP_PRIVATE, fd, 0);
	send(f, N);
	send(f, N);
	if (pwrite(fd, "changed!", 8, 4096) != 8)
		return 2;
	send(f, N);

	/* An anonymous range, part of it mapped over by that file: its scans must
	 * look for file pages from then on, whichever range registered the file's
	 * mapping (here one sent on its own first). */
	double *g = mmap(NULL, N * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; i < N; i++)
		g[i] = 3;
	send(g, N);
	send(g, N);
	double *part = g + (1L << 20) / sizeof(double);
	if (mmap(part, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) != part)
		return 2;
	send(part, (1L << 20) / sizeof(double));
	send(part, (1L << 20) / sizeof(double));
	send(g, N);
	send(g, N);
	if (pwrite(fd, "again!!!", 8, 8192) != 8)
		return 2;
	send(g, N);
	send(part, (1L << 20) / sizeof(double));
	/* The same, the range itself finding the file's mapping. */
	double *h = mmap(NULL, N * sizeof(double), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	for (long i = 0; i < N; i++)
		h[i] = 4;
	send(h, N);
	send(h, N);
	if (mmap(h + N / 2, 1 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, fd, 0) != h + N / 2)
		return 2;
	send(h, N);
	send(h, N);
	if (pwrite(fd, "thrice!!", 8, 12288) != 8)
		return 2;
	send(h, N);
	close(fd);

	printf("%g %g\n", a[7], m[1]);
	return 0;
}
