/*
 * huge.h - ask for transparent huge pages on a large buffer.
 *
 * The report's big buffers (the event queue, the sort buffers and their
 * scratch, the duplicate map and its filter) are each tens of MiB, touched
 * page by page as they fill: with 4 KiB pages every one is a page fault (a
 * trip to the hypervisor on a virtual machine: 5-8 % of a pass's CPU in
 * perf), and a map probed at random also misses the TLB.  A hint only
 * (Linux, THP "madvise" or "always"); nothing else changes.
 */
#ifndef MAPPROF_LIB_HUGE_H
#define MAPPROF_LIB_HUGE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>

/* madvise(MADV_HUGEPAGE) on the 2 MiB-aligned part of [p, p + bytes), when it is >= 8 MiB. */
static inline void huge_advise(void *p, size_t bytes)
{
#ifdef MADV_HUGEPAGE
	const uintptr_t huge = (uintptr_t)2 << 20;
	uintptr_t b = ((uintptr_t)p + huge - 1) & ~(huge - 1);
	uintptr_t e = ((uintptr_t)p + bytes) & ~(huge - 1);

	if (p && bytes >= 4 * huge && e > b)
		(void)madvise((void *)b, e - b, MADV_HUGEPAGE);
#else
	(void)p;
	(void)bytes;
#endif
}

#endif
