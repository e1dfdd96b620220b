/*
 * wtrack_uapi.h - the kernel interface write tracking uses, as Linux 6.7
 * defines it: asynchronous userfaultfd write protection and the PAGEMAP_SCAN
 * ioctl of /proc/PID/pagemap.  Debian 12's kernel headers (6.1) lack them;
 * the values are the kernel's ABI.  Used by collector/wtrack.c and
 * bench/wtrack_bench.c.
 */
#ifndef MAPPROF_COLLECTOR_WTRACK_UAPI_H
#define MAPPROF_COLLECTOR_WTRACK_UAPI_H

#include <linux/userfaultfd.h>
#include <stdint.h>
#include <sys/ioctl.h>

#ifndef UFFD_USER_MODE_ONLY
#define UFFD_USER_MODE_ONLY 1
#endif
#define WT_FEATURE_WP_UNPOPULATED (1ULL << 13)
#define WT_FEATURE_WP_ASYNC (1ULL << 15)

struct wt_page_region {
	uint64_t start, end, categories;
};

struct wt_scan_arg {
	uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
	uint64_t category_inverted, category_mask, category_anyof_mask, return_mask;
};

#define WT_PAGEMAP_SCAN _IOWR('f', 16, struct wt_scan_arg)
#define WT_SCAN_WP_MATCHING (1ULL << 0)
#define WT_SCAN_CHECK_WPASYNC (1ULL << 1)
#define WT_PAGE_IS_WRITTEN (1ULL << 1)
#define WT_PAGE_IS_FILE (1ULL << 2)
#define WT_PAGE_IS_PRESENT (1ULL << 3)

#endif
