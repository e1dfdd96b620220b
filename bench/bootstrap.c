/*
 * bootstrap.c - how far the bench's geometric mean could move by chance.
 *
 * usage: bootstrap [RESAMPLES] < RUNS
 *
 * RUNS has one line per iteration of 'make bench': "PROGRAM NATIVE_NS
 * RECORDED_NS", the two runs of one ABBA iteration.  The statistic is the
 * bench's own: per program the median recorded time over the median native
 * time, then the geometric mean of those ratios over the programs.  Each
 * resample draws, per program, as many iterations as it has, with
 * replacement (an iteration's native and recorded runs stay together), and
 * recomputes the statistic.  Prints "LOW HIGH", the 2.5th and 97.5th
 * percentiles of RESAMPLES (default 2000) resamples: a 95% percentile
 * bootstrap interval.  The generator has a fixed seed, so the same runs give
 * the same interval.
 *
 * It covers the spread between runs within one bench; drift between benches
 * (the machine's state minutes apart) it cannot see.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PROGS 64
#define MAX_RUNS 1024

struct prog {
	char name[128];
	int n;
	double nat[MAX_RUNS], rec[MAX_RUNS];
};

static struct prog progs[MAX_PROGS];
static int nprogs;

/* xorshift64*: small, fast and reproducible. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ULL;
static uint64_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static struct prog *prog_named(const char *name)
{
	for (int i = 0; i < nprogs; i++)
		if (!strcmp(progs[i].name, name))
			return &progs[i];
	if (nprogs == MAX_PROGS)
		return NULL;
	snprintf(progs[nprogs].name, sizeof(progs[nprogs].name), "%s", name);
	return &progs[nprogs++];
}

int main(int argc, char **argv)
{
	int resamples = argc > 1 ? atoi(argv[1]) : 2000;
	static double nat[MAX_RUNS], rec[MAX_RUNS];
	char name[128];
	double a, b, *geo;
	int lineno = 0, rc;

	if (resamples < 100) {
		fprintf(stderr, "usage: bootstrap [RESAMPLES >= 100] < RUNS\n");
		return 2;
	}
	while ((rc = scanf("%127s %lf %lf", name, &a, &b)) == 3) {
		struct prog *p = prog_named(name);
		lineno++;
		if (!p || p->n == MAX_RUNS) {
			fprintf(stderr, "bootstrap: line %d: more than %d programs or %d runs\n", lineno,
				MAX_PROGS, MAX_RUNS);
			return 2;
		}
		if (a <= 0 || b <= 0) {
			fprintf(stderr, "bootstrap: line %d: times must be positive\n", lineno);
			return 2;
		}
		p->nat[p->n] = a;
		p->rec[p->n] = b;
		p->n++;
	}
	if (rc != EOF || !feof(stdin) || !nprogs) {
		fprintf(stderr, "bootstrap: line %d: expected 'PROGRAM NATIVE_NS RECORDED_NS'\n",
			lineno + 1);
		return 2;
	}
	geo = malloc((size_t)resamples * sizeof(*geo));
	if (!geo) {
		fprintf(stderr, "bootstrap: out of memory\n");
		return 2;
	}
	for (int r = 0; r < resamples; r++) {
		double s = 0;
		for (int i = 0; i < nprogs; i++) {
			struct prog *p = &progs[i];
			for (int k = 0; k < p->n; k++) {
				int j = (int)(rng() % (uint64_t)p->n);
				nat[k] = p->nat[j];
				rec[k] = p->rec[j];
			}
			s += log(median(rec, p->n) / median(nat, p->n));
		}
		geo[r] = exp(s / nprogs);
	}
	qsort(geo, (size_t)resamples, sizeof(*geo), cmp_double);
	printf("%.3f %.3f\n", geo[(int)(0.025 * (resamples - 1))], geo[(int)(0.975 * (resamples - 1))]);
	free(geo);
	return 0;
}
