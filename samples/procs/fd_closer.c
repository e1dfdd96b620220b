/*
 * fd_closer.c - a program that starts like a daemon: it closes every
 * descriptor it did not open (3 to 1023), then opens its own files, which
 * get the lowest numbers (those 'mapprof record' passed the collector),
 * writes known lines into them between offloads, and checks at the end
 * that each file holds exactly what it wrote.  Exit 0 when they do.
 *
 * Data operations (device 0): 1500 x map(tofrom: a) (a: 1024 ints):
 *   alloc 1500, to_device 1500, from_device 1500, delete 1500; kernels 1500
 * (more than one buffer of events: the collector writes, and looks whether
 * 'record' is alive, several times).
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 1024
#define FILES 4
#define REGIONS 1500

static int a[N];

static int line(char *buf, size_t n, int f, int k)
{
	return snprintf(buf, n, "file %d line %d: the program's own words\n", f, k);
}

int main(void)
{
	int fds[FILES], bad = 0;
	char name[32], buf[128], want[128];

	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	for (int f = 0; f < FILES; f++) {
		snprintf(name, sizeof(name), "victim_%d.txt", f);
		fds[f] = open(name, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fds[f] < 0) {
			perror(name);
			return 2;
		}
	}
	for (int k = 0; k < REGIONS; k++) {
#pragma omp target map(tofrom: a)
		for (int i = 0; i < N; i++)
			a[i] += 1;
		if (k % 100 == 0)
			for (int f = 0; f < FILES; f++) {
				int n = line(buf, sizeof(buf), f, k);
				if (write(fds[f], buf, (size_t)n) != n) {
					fprintf(stderr, "fd_closer: write to fd %d (victim_%d.txt) failed\n", fds[f], f);
					return 3;
				}
			}
	}
	for (int f = 0; f < FILES; f++) {
		off_t off = 0;
		for (int k = 0; k < REGIONS; k += 100) {
			int n = line(want, sizeof(want), f, k);
			if (pread(fds[f], buf, (size_t)n, off) != n || memcmp(buf, want, (size_t)n))
				bad = 1;
			off += n;
		}
		if (lseek(fds[f], 0, SEEK_END) != off)
			bad = 1;
		if (bad) {
			fprintf(stderr, "fd_closer: victim_%d.txt does not hold what the program wrote\n", f);
			return 4;
		}
		close(fds[f]);
	}
	printf("fd_closer: a[0] = %d\n", a[0]);
	return a[0] == REGIONS ? 0 : 1;
}
