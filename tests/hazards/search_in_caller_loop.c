/*
 * search_in_caller_loop.c - the loop that repeats the construct is in a
 * function the caller calls from a loop of its own.
 *
 * Each call of spread() maps the graph (constant), the front (the host's,
 * new at every step) and the distances (cleared by the host in the first
 * call, before its loop, then changed by the device only) at every step of
 * its loop.  A region around spread()'s loop maps the graph once per call:
 * still once per source.  The data is global, so a region around the
 * caller's loop holds it for every call; the updates beside the construct
 * keep what the host and the device change, the first call's clearing
 * included: the host writes the distances after the region began, so the
 * region's own copy would send the zeros from before it.
 */
#include <stdio.h>

#define V 4096
#define DEG 4
#define SOURCES 4

static int adj[V * DEG], dist[V], front[V], next[V];

/* Grows the reached set from src; the first call clears it. */
static int spread(int src)
{
	static int cleared;
	int level = 0, more = 1;

	if (!cleared) {
		for (int v = 0; v < V; v++)
			dist[v] = -1;
		cleared = 1;
	}
	for (int v = 0; v < V; v++)
		front[v] = 0;
	front[src] = 1;
	while (more) {
#pragma omp target teams distribute parallel for map(to: adj, front) map(tofrom: dist) map(from: next)
		for (int v = 0; v < V; v++) {
			next[v] = 0;
			if (dist[v] >= 0)
				continue;
			for (int e = 0; e < DEG; e++)
				if (front[adj[v * DEG + e]]) {
					dist[v] = level + 1;
					next[v] = 1;
					break;
				}
		}
		more = 0;
		level++;
		for (int v = 0; v < V; v++) {
			front[v] = next[v];
			more |= next[v];
		}
	}
	return level;
}

int main(void)
{
	long sum = 0;
	int levels = 0;

	for (int v = 0; v < V; v++)
		for (int e = 0; e < DEG; e++)
			adj[v * DEG + e] = (v * 7 + e * 131 + 1) % V;
	for (int s = 0; s < SOURCES; s++) {
		levels += spread(s * 977 % V);
		for (int v = 0; v < V; v++)
			sum += dist[v] * (v % 3 + 1);
	}
	printf("search_in_caller_loop: levels=%d checksum=%ld\n", levels, sum);
	return 0;
}
