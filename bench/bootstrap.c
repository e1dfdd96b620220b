/*
 * bootstrap.c - how far the bench's geometric mean could move by chance.
 *
 * usage: bootstrap [-r] [-e] [RESAMPLES] < RUNS
 *
 * RUNS has one line per iteration of 'make bench': "PROGRAM NATIVE_NS
 * RECORDED_NS", the two runs of one ABBA iteration.  The statistic is the
 * bench's own: per program the median recorded time over the median native
 * time, then the geometric mean of those ratios over the programs.  With -r
 * a program's ratio is the median of its per-iteration ratios (RECORDED_NS /
 * NATIVE_NS of the same iteration) instead.  Each resample draws, per
 * program, as many iterations as it has, with replacement (an iteration's
 * native and recorded runs stay together), and recomputes the statistic.
 * Prints "LOW HIGH", the 2.5th and 97.5th percentiles of RESAMPLES (default
 * 2000) resamples: a 95% percentile bootstrap interval.  With -e it prints
 * instead one line per program, "PROGRAM RATIO LOW HIGH" (the ratio from all
 * of its iterations, and its own interval from the same resamples), in the
 * order the programs first appear, then "geomean RATIO LOW HIGH".  The
 * generator has a fixed seed, so the same runs give the same interval.
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

/* The program's ratio from iterations idx[0..n-1] (all of them when idx is NULL). */
static double prog_ratio(const struct prog *p, const int *idx, int pairs)
{
	static double nat[MAX_RUNS], rec[MAX_RUNS];

	for (int k = 0; k < p->n; k++) {
		int j = idx ? idx[k] : k;
		nat[k] = p->nat[j];
		rec[k] = p->rec[j];
		if (pairs)
			rec[k] /= nat[k];
	}
	return pairs ? median(rec, p->n) : median(rec, p->n) / median(nat, p->n);
}

/* The 2.5th and 97.5th percentiles of v[0..n-1] (sorted here). */
static void interval(double *v, int n, double *low, double *high)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	*low = v[(int)(0.025 * (n - 1))];
	*high = v[(int)(0.975 * (n - 1))];
}

int main(int argc, char **argv)
{
	static int idx[MAX_RUNS];
	int resamples = 2000, pairs = 0, each = 0, lineno = 0, rc, i;
	char name[128];
	double a, b, *geo, *per, low, high, s;

	for (i = 1; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-r"))
			pairs = 1;
		else if (!strcmp(argv[i], "-e"))
			each = 1;
		else
			break;
	}
	if (i < argc)
		resamples = atoi(argv[i++]);
	if (i < argc || resamples < 100) {
		fprintf(stderr, "usage: bootstrap [-r] [-e] [RESAMPLES >= 100] < RUNS\n");
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
	per = malloc((size_t)resamples * nprogs * sizeof(*per));
	if (!geo || !per) {
		fprintf(stderr, "bootstrap: out of memory\n");
		return 2;
	}
	for (int r = 0; r < resamples; r++) {
		s = 0;
		for (i = 0; i < nprogs; i++) {
			struct prog *p = &progs[i];
			for (int k = 0; k < p->n; k++)
				idx[k] = (int)(rng() % (uint64_t)p->n);
			per[(size_t)i * resamples + r] = prog_ratio(p, idx, pairs);
			s += log(per[(size_t)i * resamples + r]);
		}
		geo[r] = exp(s / nprogs);
	}
	if (each) {
		s = 0;
		for (i = 0; i < nprogs; i++) {
			double ratio = prog_ratio(&progs[i], NULL, pairs);
			s += log(ratio);
			interval(per + (size_t)i * resamples, resamples, &low, &high);
			printf("%s %.3f %.3f %.3f\n", progs[i].name, ratio, low, high);
		}
		interval(geo, resamples, &low, &high);
		printf("geomean %.3f %.3f %.3f\n", exp(s / nprogs), low, high);
	} else {
		interval(geo, resamples, &low, &high);
		printf("%.3f %.3f\n", low, high);
	}
	free(per);
	free(geo);
	return 0;
}
