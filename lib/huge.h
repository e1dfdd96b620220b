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
#include <stdlib.h>
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

/*
 * A buffer of 'bytes' that faults in 2 MiB at a time where the kernel gives
 * huge pages: from 1 MiB up, rounded up to whole 2 MiB, aligned to them and
 * advised (a smaller one is plain malloc()).  For buffers of a few MiB
 * that huge_advise() leaves alone: filled once, each 4 KiB of them is a
 * page fault.  Free it with free().  NULL when out of memory.
 */
static inline void *huge_malloc(size_t bytes)
{
	const size_t huge = (size_t)2 << 20, whole = (bytes + huge - 1) & ~(huge - 1);
	void *p = NULL;

	if (bytes < huge / 2)
		return malloc(bytes);
	if (posix_memalign(&p, huge, whole))
		return NULL;
#ifdef MADV_HUGEPAGE
	(void)madvise(p, whole, MADV_HUGEPAGE);
#endif
	return p;
}

/* madvise() with 'advice' over the whole pages that hold [p, p + bytes). */
static inline void huge_advise_pages(const void *p, size_t bytes, int advice)
{
	const uintptr_t page = 4096;
	uintptr_t b = (uintptr_t)p & ~(page - 1), e = ((uintptr_t)p + bytes + page - 1) & ~(page - 1);

	if (p && bytes)
		(void)madvise((void *)b, e - b, advice);
}

/*
 * Fault in [p, p + bytes) now, in one system call (MADV_POPULATE_WRITE,
 * Linux 5.14+; nothing on an older kernel): for a buffer that is certain to
 * be written, at a moment when a core is idle.  Its contents are unchanged.
 */
static inline void huge_populate(void *p, size_t bytes)
{
#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23
#endif
	huge_advise_pages(p, bytes, MADV_POPULATE_WRITE);
}

/*
 * Map the pages of [p, p + bytes) of a file mapping now, in one system call
 * (MADV_POPULATE_READ, Linux 5.14+; nothing on an older kernel), not a fault
 * every 16 pages as they are first read.  Its contents are unchanged.
 */
static inline void huge_populate_read(const void *p, size_t bytes)
{
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22
#endif
	huge_advise_pages(p, bytes, MADV_POPULATE_READ);
}

#endif
