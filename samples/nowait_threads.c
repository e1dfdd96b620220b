/*
 * nowait_threads.c - two host threads, each launching asynchronous target
 * regions on its own array, then waiting for them.
 *
 * Owner 0 and owner 1 (one per thread of "parallel num_threads(2)"; with
 * fewer threads one thread does both, and the counts stay the same) each
 * launch 3 "target nowait" regions, one per chunk of the owner's array, and
 * then taskwait.  The chunks do not overlap, so no ordering is needed and
 * every region maps its own data: counts do not depend on timing.
 *
 * Data operations (all on device 0; 6 regions, each a 256-int chunk, 1024 B):
 *   per region: chunk alloc 1, to_device 1, from_device 1, delete 1, kernel 1
 * Totals: alloc 6, to_device 6, from_device 6, delete 6, kernel 6.
 * Equal hashes: none (every chunk starts with different values, x -> 2x+1).
 * The runtime runs nowait regions on hidden helper threads, so these events
 * arrive concurrently from several threads in no fixed order.
 */
#include <stdio.h>

#define OWNERS 2
#define CHUNKS 3
#define M 256

static int data[OWNERS][CHUNKS * M];

int main(void)
{
	long s = 0;

	for (int o = 0; o < OWNERS; o++)
		for (int i = 0; i < CHUNKS * M; i++)
			data[o][i] = 10000 * o + i;

#pragma omp parallel num_threads(OWNERS)
#pragma omp for schedule(static, 1)
	for (int o = 0; o < OWNERS; o++) {
		int *d = data[o];
		for (int c = 0; c < CHUNKS; c++) {
#pragma omp target nowait map(tofrom: d[c * M:M]) firstprivate(c)
			for (int i = c * M; i < (c + 1) * M; i++)
				d[i] = 2 * d[i] + 1;
		}
#pragma omp taskwait
	}

	for (int o = 0; o < OWNERS; o++)
		for (int i = 0; i < CHUNKS * M; i++)
			s += data[o][i];
	printf("nowait_threads: checksum=%ld\n", s);
	return 0;
}
