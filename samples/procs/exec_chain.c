/*
 * exec_chain.c - a program that replaces itself (exec) with another
 * offloading program: itself, with an argument.
 *
 * Run without arguments (image 1) it offloads twice and execs itself with
 * "second"; image 2 offloads once and prints one line.  One pid, two
 * program images: 'mapprof record' must record both.
 *
 * Data operations (all on device 0; N = 1024, 4-byte elements):
 *   image 1: 2 x map(tofrom: a): alloc 2, to_device 2, from_device 2, delete 2; kernels 2
 *   image 2: map(to: a) map(from: s): alloc 2, to_device 1, from_device 1, delete 2; kernel 1
 * Totals: alloc 4, to_device 3, from_device 3, delete 4, kernel 3.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define N 1024

static int a[N];

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "second")) {
		int s = 0;
		for (int i = 0; i < N; i++)
			a[i] = i;
#pragma omp target map(to: a) map(from: s)
		{
			s = 0;
			for (int i = 0; i < N; i++)
				s += a[i];
		}
		printf("exec_chain: sum %d\n", s);
		return s == 1023 * 512 ? 0 : 1;
	}
	for (int k = 0; k < 2; k++) {
#pragma omp target map(tofrom: a)
		for (int i = 0; i < N; i++)
			a[i] += k;
	}
	fflush(stdout);
	execl("/proc/self/exe", argv[0], "second", (char *)NULL);
	perror("exec_chain: exec");
	return 1;
}
