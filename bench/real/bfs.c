/*
 * bfs.c - breadth-first search on a road-network-like graph, level by
 * level, as in route planning or in the graph kernels of Graph500 and
 * Rodinia's bfs: a 500 x 400 grid of junctions with 75 % of its streets
 * (200 000 vertices, about 300 000 undirected edges in CSR, 3.2 MB), searched
 * from several sources.  Each level is one bottom-up ("pull") kernel: every
 * unvisited vertex looks for a neighbour in the current frontier; the host
 * counts the next frontier and swaps the two.
 *
 * usage: bfs [SOURCES]   (default 3 sources; about 700 levels each)
 *
 * What moves, per level:
 *   naive: the graph (row offsets and neighbour lists, 3.2 MB), the
 *          frontier (200 000 ints, 0.8 MB) and the distances (0.8 MB) to
 *          the device, and the next frontier and the distances back.
 *   fixed (-DFIXED): the graph goes to the device once, for all searches,
 *          and the distances once a search ('target data' regions); only the
 *          frontier goes and the next frontier comes back (0.8 MB each way),
 *          as the host still counts and swaps them.
 *
 * Check: for every search, on the host: the source at 0, every edge joins
 * vertices whose distances differ by at most one (or two unreached ones),
 * and every reached vertex but the source has a neighbour one level
 * nearer; exit 1 otherwise.  Prints a checksum of the distances.
 */
#include <stdio.h>
#include <stdlib.h>

#define W 500
#define H 400
#define V (W * H)

static int rowp[V + 1], *col, ne;
static int dist[V], front[V], next[V];

static unsigned long long rng_state = 0x2545F4914F6CDD1DULL;
static unsigned rnd(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (unsigned)((rng_state * 0x2545F4914F6CDD1DULL) >> 32);
}

/* Keeps 3 streets in 4 of the grid, both directions, in CSR. */
static int build(void)
{
	static unsigned char right[V], down[V];
	int *fill;

	for (int v = 0; v < V; v++) {
		right[v] = v % W < W - 1 && rnd() % 4 != 0;
		down[v] = v / W < H - 1 && rnd() % 4 != 0;
		rowp[v + 1] += right[v] + down[v];
		if (right[v])
			rowp[v + 2]++;
		if (down[v] && v + W + 1 <= V)
			rowp[v + W + 1]++;
	}
	for (int v = 0; v < V; v++)
		rowp[v + 1] += rowp[v];
	ne = rowp[V];
	col = malloc((size_t)ne * sizeof(*col));
	fill = calloc(V, sizeof(*fill));
	if (!col || !fill)
		return -1;
	for (int v = 0; v < V; v++) {
		if (right[v]) {
			col[rowp[v] + fill[v]++] = v + 1;
			col[rowp[v + 1] + fill[v + 1]++] = v;
		}
		if (down[v]) {
			col[rowp[v] + fill[v]++] = v + W;
			col[rowp[v + W] + fill[v + W]++] = v;
		}
	}
	free(fill);
	return 0;
}

/* One search from src; returns the number of levels. */
static int search(int src)
{
	int level = 0, count = 1;

	for (int v = 0; v < V; v++) {
		dist[v] = -1;
		front[v] = 0;
	}
	dist[src] = 0;
	front[src] = 1;
#ifdef FIXED
#pragma omp target data map(tofrom: dist)
#endif
	while (count) {
#ifdef FIXED
#pragma omp target teams distribute parallel for map(to: front) map(from: next)
#else
#pragma omp target teams distribute parallel for map(to: rowp, col[0:ne], front) \
	map(tofrom: dist) map(from: next)
#endif
		for (int v = 0; v < V; v++) {
			next[v] = 0;
			if (dist[v] >= 0)
				continue;
			for (int e = rowp[v]; e < rowp[v + 1]; e++)
				if (front[col[e]]) {
					dist[v] = level + 1;
					next[v] = 1;
					break;
				}
		}
		level++;
		count = 0;
		for (int v = 0; v < V; v++) {
			front[v] = next[v];
			count += next[v];
		}
	}
	return level;
}

/* 0 when dist[] is a breadth-first distance map from src. */
static int check(int src)
{
	if (dist[src] != 0)
		return -1;
	for (int v = 0; v < V; v++) {
		int nearer = 0;
		for (int e = rowp[v]; e < rowp[v + 1]; e++) {
			int d = dist[col[e]];
			if ((dist[v] < 0) != (d < 0) || (d >= 0 && abs(d - dist[v]) > 1))
				return -1;
			nearer |= d >= 0 && d == dist[v] - 1;
		}
		if (dist[v] > 0 && !nearer)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	int sources = argc > 1 ? atoi(argv[1]) : 3, levels = 0, bad = -1;
	long long sum = 0;

	if (build()) {
		fprintf(stderr, "bfs: out of memory\n");
		return 2;
	}
#ifdef FIXED
#pragma omp target data map(to: rowp, col[0:ne])
#endif
	for (int s = 0; s < sources; s++) {
		int src = (int)(rnd() % V);
		levels += search(src);
		if (check(src)) {
			bad = src;
			break;
		}
		for (int v = 0; v < V; v++)
			sum += (long long)(dist[v] + 1) * (v % 5 + 1);
	}
	if (bad >= 0) {
		fprintf(stderr, "bfs: wrong distances from source %d\n", bad);
		return 1;
	}
	printf("bfs: %d vertices, %d edges, %d sources, %d levels, checksum=%lld\n", V, ne,
		sources, levels, sum);
	free(col);
	return 0;
}
