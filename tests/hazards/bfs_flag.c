/*
 * bfs_flag.c - a breadth-first search whose host loop reads a flag the
 * device sets (issue #25, observation 1).
 *
 * Each level is one construct: the device marks the next level and sets
 * 'changed'; the host loops while it is set.  A plan that keeps 'changed'
 * on the device across the loop must copy it back after every level (and
 * send the host's 0 before it), or the search stops after one level.
 */
#include <stdio.h>

#define WIDTH 256
#define LEVELS 16
#define N (WIDTH * LEVELS)

int main(void)
{
	static int level[N];
	int changed = 1, depth = 0;
	long sum = 0;

	for (int i = 0; i < N; i++)
		level[i] = i < WIDTH ? 0 : -1;
	while (changed) {
		changed = 0;
#pragma omp target teams distribute parallel for map(tofrom: changed, level[0:N])
		for (int i = WIDTH; i < N; i++)
			if (level[i] < 0 && level[i - WIDTH] == depth) {
				level[i] = depth + 1;
#pragma omp atomic write
				changed = 1;
			}
		depth += changed;
	}
	for (int i = 0; i < N; i++)
		sum += level[i];
	printf("bfs_flag: depth=%d checksum=%ld\n", depth, sum);
	return 0;
}
