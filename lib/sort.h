/*
 * sort.h - qsort that takes an empty array.
 *
 * qsort's array argument is declared nonnull, even for 0 elements, and an
 * empty array here is often a NULL pointer (nothing was allocated for no
 * rows): UBSan stops on that.  sort_array() sorts only what has two
 * elements or more.  And the one compare of int64_t values.
 */
#ifndef MAPPROF_LIB_SORT_H
#define MAPPROF_LIB_SORT_H

#include <stdint.h>
#include <stdlib.h>

/* Two int64_t in ascending order: qsort's, bsearch's or lib/extsort's compare. */
static inline int sort_cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return (x > y) - (x < y);
}

static inline void sort_array(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
