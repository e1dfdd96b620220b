/*
 * wtrack_bench.c - what write tracking costs per 4 KiB page on this machine
 * (make bench): the numbers collector/wtrack.c's policy rests on.
 *
 * On a 64 MiB private anonymous buffer, registered with a userfaultfd in
 * asynchronous write-protect mode (Linux 6.7+), the median of 7 rounds of:
 * a write to an unprotected page, protecting, a write to a protected page
 * (the fault the program pays), a PAGEMAP_SCAN of clean and of written
 * pages, unprotecting, and hashing a page (XXH3 as the collector does,
 * from memory: the buffer is larger than the caches).  Then what one
 * protect-and-unprotect of a single page costs, alone and while another
 * thread of the process runs on another core (as an OpenMP worker spinning
 * between kernels does): every change of protection then flushes that
 * core's TLB by an interrupt, a fixed cost per call that page counts do
 * not show.  Prints one line per figure, or why it cannot measure.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/hash.h"
#include "collector/wtrack_uapi.h"

#define FEATURES (WT_FEATURE_WP_ASYNC | WT_FEATURE_WP_UNPOPULATED)

#define BYTES ((size_t)64 << 20)
#define ROUNDS 7
#define FIGURES 7

static int uffd, pagemap;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void protect(char *p, size_t n, int on)
{
	struct uffdio_writeprotect wp = { .range = { (uint64_t)(uintptr_t)p, n },
					  .mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0 };
	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &wp) < 0) {
		perror("wtrack_bench: UFFDIO_WRITEPROTECT");
		exit(1);
	}
}

static long scan(char *p, size_t n)
{
	static struct wt_page_region vec[64];
	struct wt_scan_arg a = { .size = sizeof(a), .flags = WT_SCAN_WP_MATCHING | WT_SCAN_CHECK_WPASYNC, .start = (uint64_t)(uintptr_t)p,
			      .end = (uint64_t)(uintptr_t)p + n, .vec = (uint64_t)(uintptr_t)vec,
			      .vec_len = 64, .category_anyof_mask = WT_PAGE_IS_WRITTEN, .return_mask = WT_PAGE_IS_WRITTEN };
	return ioctl(pagemap, WT_PAGEMAP_SCAN, &a);
}

static atomic_int spin_stop;

static void *spin(void *arg)
{
	(void)arg;
	while (!atomic_load_explicit(&spin_stop, memory_order_relaxed))
		;
	return NULL;
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

int main(void)
{
	static const char *const names[FIGURES] = {
		"write to an unprotected page", "protect a page", "write to a protected page (fault)",
		"scan a clean page", "scan a written page", "unprotect a page", "hash a page (from memory)",
	};
	double t[FIGURES][ROUNDS];
	size_t pages = BYTES / 4096;
	volatile uint64_t sink = 0;
	struct uffdio_api api = { .api = UFFD_API, .features = FEATURES };
	char *p;

	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api) < 0 || (api.features & FEATURES) != FEATURES) {
		printf("write tracking: not measured (no asynchronous userfaultfd write protection: %s)\n",
		       uffd < 0 ? strerror(errno) : "kernel before 6.7");
		return 0;
	}
	pagemap = open("/proc/self/pagemap", O_RDONLY);
	p = mmap(NULL, BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (pagemap < 0 || p == MAP_FAILED) {
		perror("wtrack_bench");
		return 1;
	}
	memset(p, 1, BYTES);
	struct uffdio_register reg = { .range = { (uint64_t)(uintptr_t)p, BYTES },
				       .mode = UFFDIO_REGISTER_MODE_WP };
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0) {
		perror("wtrack_bench: UFFDIO_REGISTER");
		return 1;
	}
	for (int r = 0; r < ROUNDS; r++) {
		double a = now();
		for (size_t i = 0; i < BYTES; i += 4096)
			p[i]++;
		double b = now();
		protect(p, BYTES, 1);
		double c = now();
		if (scan(p, BYTES) != 0) {
			printf("write tracking: not measured (PAGEMAP_SCAN: %s)\n", strerror(errno));
			return 0;
		}
		double d = now();
		for (size_t i = 0; i < BYTES; i += 4096)
			p[i]++;
		double e = now();
		scan(p, BYTES);  /* written: reports them and protects them again */
		double f = now();
		protect(p, BYTES, 0);
		double g = now();
		sink += hash_bytes(p, BYTES);
		double h = now();
		t[0][r] = b - a;
		t[1][r] = c - b;
		t[3][r] = d - c;
		t[2][r] = e - d;
		t[4][r] = f - e;
		t[5][r] = g - f;
		t[6][r] = h - g;
	}
	for (int k = 0; k < FIGURES; k++) {
		qsort(t[k], ROUNDS, sizeof(double), cmp);
		printf("write tracking: %-34s %7.1f ns\n", names[k], t[k][ROUNDS / 2] / pages * 1e9);
	}
	/* The fixed cost of a call: one page protected and unprotected, median of 101. */
	for (int other = 0; other < 2; other++) {
		enum { CALLS = 101 };
		double c[CALLS];
		pthread_t th;
		if (other && sysconf(_SC_NPROCESSORS_ONLN) < 2) {
			printf("write tracking: protect+unprotect 1 page, another thread running: not measured (one core)\n");
			break;
		}
		if (other && pthread_create(&th, NULL, spin, NULL)) {
			printf("write tracking: protect+unprotect 1 page, another thread running: not measured (no thread)\n");
			break;
		}
		usleep(10000);
		for (int i = 0; i < CALLS; i++) {
			p[0]++;
			double a = now();
			protect(p, 4096, 1);
			protect(p, 4096, 0);
			c[i] = now() - a;
		}
		if (other) {
			atomic_store(&spin_stop, 1);
			pthread_join(th, NULL);
		}
		qsort(c, CALLS, sizeof(double), cmp);
		printf("write tracking: protect+unprotect 1 page, %-28s %7.1f us\n",
		       other ? "another thread running" : "no other thread", c[CALLS / 2] * 1e6);
	}
	return sink == 42;
}
