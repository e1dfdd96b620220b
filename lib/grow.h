/*
 * grow.h - an array that grows by doubling, for the readers and writers that
 * gather rows one at a time (the one copy of that loop).
 */
#ifndef MAPPROF_LIB_GROW_H
#define MAPPROF_LIB_GROW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/*
 * Make *p (an array of *cap elements of 'size' bytes, n of them in use) hold
 * one more: realloc'ed to twice its capacity (16 at first) when full, the
 * new elements zeroed.  0, or -1 when out of memory (*p and *cap as they
 * were).
 */
static inline int grow_one(void **p, size_t *cap, size_t n, size_t size)
{
	size_t want = *cap ? *cap * 2 : 16;
	void *q;

	if (n < *cap)
		return 0;
	if (want < *cap || want > SIZE_MAX / size)
		return -1;
	if (!(q = realloc(*p, want * size)))
		return -1;
	memset((char *)q + *cap * size, 0, (want - *cap) * size);
	*p = q;
	*cap = want;
	return 0;
}

#endif
