/*
 * wtrack_uapi.h - the kernel interface write tracking uses, as Linux 6.7
 * defines it: asynchronous userfaultfd write protection and the PAGEMAP_SCAN
 * ioctl of /proc/PID/pagemap; and, from Linux 6.11, the PROCMAP_QUERY ioctl
 * of /proc/PID/maps (one mapping's kind without reading the text).
 * Debian 12's kernel headers (6.1) lack them;
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

struct wt_procmap_query {
	uint64_t size, query_flags, query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset, inode;
	uint32_t dev_major, dev_minor, vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};

#define WT_PROCMAP_QUERY _IOWR('f', 17, struct wt_procmap_query)
#define WT_PROCMAP_VMA_SHARED 0x08ULL
#define WT_PROCMAP_COVERING_OR_NEXT_VMA 0x10ULL

#endif
