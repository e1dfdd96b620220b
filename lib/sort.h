/*
 * sort.h - qsort that takes an empty array.
 *
 * qsort's array argument is declared nonnull, even for 0 elements, and an
 * empty array here is often a NULL pointer (nothing was allocated for no
 * rows): UBSan stops on that.  sort_array() sorts only what has two
 * elements or more.
 */
#ifndef MAPPROF_LIB_SORT_H
#define MAPPROF_LIB_SORT_H

#include <stdlib.h>

static inline void sort_array(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *))
{
	if (n > 1)
		qsort(base, n, size, cmp);
}

#endif
