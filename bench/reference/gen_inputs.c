/*
 * gen_inputs.c - the input files of the published tool's evaluation programs
 * that cannot be downloaded here (bench/reference/run.sh).
 *
 * usage: gen_inputs bfs NODES OUT
 *        gen_inputs hotspot N TEMP_OUT POWER_OUT
 *
 * bfs: a Rodinia-format graph of NODES nodes; each node draws 2 to 4
 * undirected edges to random other nodes (so a node's degree is 2-4 plus
 * what others drew to it), weights 1-10, source node 0.  The text format
 * is the one the program reads: the node count, one "FIRST_EDGE DEGREE"
 * line per node, the source, the edge count, one "DEST WEIGHT" line per
 * directed edge.
 *
 * hotspot: N*N temperatures (323-343 K) and N*N power values (0-1e-3),
 * one per line, row after row.
 *
 * A fixed seed per file: the same arguments give the same bytes, so runs on
 * different days time the same work.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* xorshift64*: small and reproducible. */
static uint64_t rng_state;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* A uniform integer in [lo, hi]. */
static long rng_range(long lo, long hi)
{
	return lo + (long)(rng() % (uint64_t)(hi - lo + 1));
}

static double rng_unit(void)
{
	return (double)(rng() >> 11) / 9007199254740992.0;
}

static FILE *open_out(const char *path)
{
	FILE *f = fopen(path, "w");
	if (!f)
		perror(path);
	return f;
}

static int close_out(FILE *f, const char *path)
{
	if (ferror(f) | fclose(f)) {
		fprintf(stderr, "gen_inputs: cannot write '%s'\n", path);
		return -1;
	}
	return 0;
}

static int gen_bfs(long nodes, const char *path)
{
	long max_pairs = nodes * 4, npairs = 0;
	long *from = malloc(sizeof(*from) * max_pairs), *to = malloc(sizeof(*to) * max_pairs);
	int *weight = malloc(sizeof(*weight) * max_pairs);
	long *degree = calloc((size_t)nodes + 1, sizeof(*degree));
	long *first = malloc(sizeof(*first) * ((size_t)nodes + 1));
	long *fill = malloc(sizeof(*fill) * (size_t)nodes);
	long *adj_to;
	int *adj_w;
	FILE *f;

	if (!from || !to || !weight || !degree || !first || !fill) {
		fprintf(stderr, "gen_inputs: out of memory\n");
		return -1;
	}
	rng_state = 0x6266732D67726170ULL;
	for (long u = 0; u < nodes; u++) {
		long k = rng_range(2, 4);
		for (long e = 0; e < k; e++) {
			long v = rng_range(0, nodes - 2);
			if (v >= u)
				v++; /* no self-loops */
			from[npairs] = u;
			to[npairs] = v;
			weight[npairs] = (int)rng_range(1, 10);
			degree[u]++;
			degree[v]++;
			npairs++;
		}
	}
	first[0] = 0;
	for (long u = 0; u < nodes; u++)
		first[u + 1] = first[u] + degree[u];
	adj_to = malloc(sizeof(*adj_to) * (size_t)first[nodes]);
	adj_w = malloc(sizeof(*adj_w) * (size_t)first[nodes]);
	if (!adj_to || !adj_w) {
		fprintf(stderr, "gen_inputs: out of memory\n");
		return -1;
	}
	memcpy(fill, first, sizeof(*fill) * (size_t)nodes);
	for (long p = 0; p < npairs; p++) {
		adj_to[fill[from[p]]] = to[p];
		adj_w[fill[from[p]]++] = weight[p];
		adj_to[fill[to[p]]] = from[p];
		adj_w[fill[to[p]]++] = weight[p];
	}
	if (!(f = open_out(path)))
		return -1;
	fprintf(f, "%ld\n", nodes);
	for (long u = 0; u < nodes; u++)
		fprintf(f, "%ld %ld\n", first[u], degree[u]);
	fprintf(f, "\n0\n\n%ld\n", first[nodes]);
	for (long e = 0; e < first[nodes]; e++)
		fprintf(f, "%ld %d\n", adj_to[e], adj_w[e]);
	free(from), free(to), free(weight), free(degree), free(first), free(fill);
	free(adj_to), free(adj_w);
	return close_out(f, path);
}

static int gen_hotspot(long n, const char *temp_path, const char *power_path)
{
	FILE *f;

	if (!(f = open_out(temp_path)))
		return -1;
	rng_state = 0x686F742D74656D70ULL;
	for (long i = 0; i < n * n; i++)
		fprintf(f, "%.6f\n", 323.0 + 20.0 * rng_unit());
	if (close_out(f, temp_path) < 0 || !(f = open_out(power_path)))
		return -1;
	rng_state = 0x686F742D706F7772ULL;
	for (long i = 0; i < n * n; i++)
		fprintf(f, "%.9f\n", 1e-3 * rng_unit());
	return close_out(f, power_path);
}

int main(int argc, char **argv)
{
	if (argc == 4 && !strcmp(argv[1], "bfs") && atol(argv[2]) > 1)
		return gen_bfs(atol(argv[2]), argv[3]) < 0;
	if (argc == 5 && !strcmp(argv[1], "hotspot") && atol(argv[2]) > 0)
		return gen_hotspot(atol(argv[2]), argv[3], argv[4]) < 0;
	fprintf(stderr, "usage: gen_inputs bfs NODES OUT\n"
			"       gen_inputs hotspot N TEMP_OUT POWER_OUT\n");
	return 2;
}
