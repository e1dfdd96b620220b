/*
 * wtrack.h - the hash of a host range nobody wrote since it was last hashed.
 *
 * Programs send the same host arrays again and again (what mapprof exists to
 * find).  Once a range has been sent twice, its pages are write-protected
 * with Linux's asynchronous userfaultfd write protection (6.7+): a write to
 * a protected page is let through by the kernel at once, which only notes
 * that the page was written.  At the next transfer of the range, one
 * PAGEMAP_SCAN ioctl lists the pages written (or dropped) since, and only
 * the hash chunks holding them are read again; the scan protects them again
 * in the same step.  A range written between most transfers is not worth
 * it (a write to a protected page costs a fault, far more than hashing the
 * page): it is left unprotected for a while, and so is a range that only
 * receives data (brought back twice with no send between: protecting it
 * after a copy into it saves nothing), and one whose round trips (unprotect
 * for a copy back, protect after) cost more than hashing it as often as it
 * is sent between them; a range sent only once is not tracked at its copies
 * back at all.  Exactness and its limits:
 * docs/performance.md, "Hashing".
 *
 * Only private anonymous memory is tracked (heap, stack, .bss, anonymous
 * maps), and only a range's whole pages; on kernels that cannot say what a
 * mapping is (before 6.11, no PROCMAP_QUERY) private file mappings are too,
 * their file pages read again at every send.  Anything else, a kernel
 * without the feature, a forked child, a loaded library that writes memory
 * by DMA, or MAPPROF_HASH_REUSE=0, leaves every range to be hashed as before.
 */
#ifndef MAPPROF_COLLECTOR_WTRACK_H
#define MAPPROF_COLLECTOR_WTRACK_H

#include <stdint.h>

/*
 * Before a transfer whose host source is p[0..n): 1 with *hash set when
 * write tracking answered (the hash known, or the written chunks read
 * again), 0 when the caller hashes the bytes itself.
 */
int wtrack_source(const void *p, uint64_t n, uint64_t *hash);

/*
 * Before a transfer into host memory p[0..n): lets the runtime write the
 * range without faults.  1 when wtrack_dest_end() is to hash it after the
 * copy (the caller then hashes nothing), 0 when the caller hashes as before.
 */
int wtrack_dest_begin(const void *p, uint64_t n);

/* After that copy: protect the range again and return its hash. */
uint64_t wtrack_dest_end(const void *p, uint64_t n);

/*
 * 1 when no thread holds write tracking's lock: an _exit() from a signal
 * handler that cut into it must not take it again (it would wait forever).
 */
int wtrack_lock_free(void);

/*
 * For the stats table: the calls that changed pages' protection, the scans,
 * the mappings' queries, and the time all of those took (ns).  Lock-free.
 */
void wtrack_stats(uint64_t *protects, uint64_t *scans, uint64_t *queries, uint64_t *ns);

/* 1 when write tracking is in use in this process (for the stats table). */
int wtrack_active(void);

#endif
