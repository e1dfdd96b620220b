/*
 * ranks.c - the ranks of 'record --ranks' (ranks.h).
 */
#include <limits.h>

#include "lib/ranks.h"

/* A decimal number at *p (advanced past it) into *v: 0, or -1 when none or too large. */
static int number(const char **p, long *v)
{
	const char *s = *p;
	long n = 0;

	if (*s < '0' || *s > '9')
		return -1;
	for (; *s >= '0' && *s <= '9'; s++) {
		if (n > (INT_MAX - (*s - '0')) / 10)
			return -1;
		n = n * 10 + (*s - '0');
	}
	*p = s;
	*v = n;
	return 0;
}

/*
 * Walk spec: 1 when 'rank' is in it (rank < 0: never), 0 when it is not, -1
 * when spec is no list.
 */
static int walk(const char *spec, long rank)
{
	const char *p = spec;
	int found = 0;

	if (!p || !*p)
		return -1;
	for (;;) {
		long lo, hi;
		if (number(&p, &lo) < 0)
			return -1;
		hi = lo;
		if (*p == '-') {
			p++;
			if (number(&p, &hi) < 0 || hi < lo)
				return -1;
		}
		if (rank >= lo && rank <= hi)
			found = 1;
		if (!*p)
			return found;
		if (*p++ != ',')
			return -1;
	}
}

int ranks_valid(const char *spec)
{
	return walk(spec, -1) == 0;
}

int ranks_has(const char *spec, long rank)
{
	return walk(spec, rank) == 1;
}
