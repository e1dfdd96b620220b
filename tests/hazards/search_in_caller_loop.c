/*
 * search_in_caller_loop.c - the loop that repeats the construct is in a
 * function the caller calls from a loop of its own.
 *
 * Each call of spread() maps the graph (constant) and the distances (reset
 * by the host before each call) at every step of its loop.  A region around
 * spread()'s loop maps the graph once per call: still once per source.  The
 * data is global, so a region around the caller's loop holds it for every
 * call; the updates beside the construct keep what the host and the device
 * change.
 */
#include <stdio.h>

#define V 4096
#define DEG 4
#define SOURCES 4

static int adj[V * DEG], dist[V], next[V];

static int spread(int src)
{
	int level = 0, more = 1;

	for (int v = 0; v < V; v++)
		dist[v] = -1;
	dist[src] = 0;
	while (more) {
#pragma omp target teams distribute parallel for map(to: adj) map(tofrom: dist) map(from: next)
		for (int v = 0; v < V; v++) {
			next[v] = 0;
			if (dist[v] >= 0)
				continue;
			for (int e = 0; e < DEG; e++)
				if (dist[adj[v * DEG + e]] == level) {
					next[v] = 1;
					break;
				}
		}
		more = 0;
		level++;
		for (int v = 0; v < V; v++)
			if (next[v]) {
				dist[v] = level;
				more = 1;
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
