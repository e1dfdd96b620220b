/*
 * wtrack.c - write tracking of host ranges (see wtrack.h).
 *
 * A table of the ranges seen in transfers, by exact (address, length).  An
 * entry is "tracked" when its pages are registered with our userfaultfd and
 * were write-protected before its hash was computed, and "known" while that
 * hash is the hash of the bytes: every write since shows in PAGEMAP_SCAN as
 * a written page, and so does every page unprotected (by us, for a
 * transfer into it) or dropped (MADV_DONTNEED, swapped: not present).  A
 * range unmapped, remapped or registered no more fails the scan's check
 * that the whole range is tracked, and is hashed again.
 *
 * Protection is per page and pages are shared: two ranges may overlap, or
 * share the page at their ends.  A range protects only its whole pages; the
 * chunks holding its partial end pages are read at every send, because a
 * page it shares with a neighbour would otherwise be unprotected for every
 * copy into the neighbour.  Unprotecting a page marks it written for every
 * range holding it, which is safe; protecting a page forgets that it was
 * written, so whenever pages are protected for one entry every other entry
 * holding any of them stops being known.
 *
 * Whether it pays is measured per range, in the program, not assumed: on
 * the 2-core VM of bench/wtrack_bench.c a write to a protected page costs
 * about 1.7 us (21 ns unprotected), protecting a page 150 ns, unprotecting
 * it 190 ns, a scan of clean pages 3 ns a page, while hashing a page from
 * memory costs about 330 ns -- so a range pays when few of its pages are
 * written between sends, and a round trip (unprotect for the runtime's
 * copy back, protect after it) is about even there; on another 2-core VM
 * (2026-11-30) unprotecting cost 1272 ns a page and hashing 180, and a
 * round trip then pays only for a range sent many times between its copies
 * back (round_trip_loses()).  Every call that changes protection also
 * costs a fixed 12-35 us while another thread of the process runs (an
 * interrupt flushes that core's TLB), against 2 us alone.  Each entry adds
 * up the time its ioctls took and the faults it made the program take (the
 * pages found written, times the cost of one fault measured at start),
 * against the hashing it saved (bytes not read, times this process's
 * measured hash rate).  A call that changes protection is charged once for
 * every core the process's threads may be running on (spread(): each takes
 * the TLB shootdown's interrupt, a cost its ioctl's time does not show).  A trial's
 * outlay (registering, the mapping's query, the first protection) is sunk
 * once paid: a range is kept while what each send costs after it is repaid
 * by what it saves, and given up (unprotected) as soon as it is not.  The
 * trial's whole loss, outlay included, sets how many sends it is then left
 * alone: enough that retrying costs at most 1/RETRY_SHARE of the hashing
 * done meanwhile, and twice as many after each failed trial.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "collector/hash.h"
#include "collector/modules.h"
#include "collector/wtrack.h"
#include "collector/wtrack_uapi.h"

#define ENTRIES 256
#define MIN_BYTES ((uint64_t)64 << 10)  /* smaller ranges: the ioctls cost more than hashing */
#define VEC 64
#define MAX_BACKOFF ((uint32_t)1 << 20)
#define RETRY_SHARE 16  /* a failed trial costs at most 1/16 of the hashing until the next */
#define PEND 4
#define INLINE_CHUNKS 16

struct entry {
	uint64_t addr, len;   /* len 0: a free slot */
	uint64_t lo, hi;      /* its whole pages, the ones protected (see insert()) */
	uint64_t hash;
	uint64_t *chunk;      /* hash_nchunks(len) chunk hashes while known: inline, or mapped */
	uint64_t inline_chunk[INLINE_CHUNKS];
	uint64_t used;        /* for eviction: the least recently used goes */
	uint32_t sends;
	uint32_t skip, backoff;
	double spent_ns;      /* since tracked: ioctls, and the faults the program took */
	double outlay_ns;     /* of that, what starting the trial cost (track() when not tracked) */
	double saved_ns;      /* since tracked: the hashing not done */
	double hash_ns;       /* what hashing the whole range took when it was last read whole */
	double protect_ns;    /* what protecting the whole range cost the last time (all cores) */
	double open_ns;       /* what unprotecting it for transfers into it cost since (all cores) */
	double round_trip_ns; /* a round trip that did not pay (round_trip_loses()): what it cost */
	uint32_t tracked_sends; /* sends since tracked */
	uint32_t cycle_sends; /* sends since the last transfer into it (or since first seen) */
	unsigned char opened; /* unprotected by us for a transfer into it since it was protected */
	unsigned char received; /* protected again after a transfer into it, not sent since */
	/* Pages protected again for another range since: as if written (at most PEND, else not known). */
	uint64_t pend_lo[PEND], pend_hi[PEND];
	int npend;
	unsigned char known, tracked, never;
	unsigned char file;   /* not known to be anonymous memory: scans look for a file's pages (see scan()) */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static int state;         /* 0: not tried yet, 1: on, -1: off */
static int uffd = -1, pagemap = -1, maps = -1, self_stat = -1;
static int cpus = 1;      /* the cores this process may run on (its affinity at start) */
static double cores = 1;  /* what a protection change costs, in its own time: see spread() */
/* For the stats table: calls that changed protection, scans, and their time. */
static uint64_t n_protects, n_scans, n_queries, ioctl_ns;
static uint64_t page_size, use_clock;
static unsigned long long seen_adds = ~0ULL;
static struct entry table[ENTRIES];
/*
 * table[nslots..] never held a range: every walk of the table stops there
 * (insert() fills the lowest free slot), so that a run with few ranges does
 * not walk all 256 entries (64 KB) at every transfer.
 */
static int nslots;
static double fault_ns = 1000;      /* one write to a protected page, measured at start */

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* --- the kernel ------------------------------------------------------------ */

/*
 * An ioctl counted in *calls, its time added to ioctl_ns: for the stats
 * table, read by wtrack_stats() without mu.  The writers hold mu today; an
 * atomic add keeps the counts whole without leaning on that, and costs a few
 * ns against the ioctl's microseconds.
 */
static int timed_ioctl(int fd, unsigned long request, void *arg, uint64_t *calls)
{
	int64_t t = mono_ns();
	int r = ioctl(fd, request, arg);
	t = mono_ns() - t;
	__atomic_fetch_add(calls, 1, __ATOMIC_RELAXED);
	__atomic_fetch_add(&ioctl_ns, (uint64_t)t, __ATOMIC_RELAXED);
	return r;
}

static int protect(uint64_t lo, uint64_t hi, int on)
{
	struct uffdio_writeprotect wp = {
		.range = { .start = lo, .len = hi - lo },
		.mode = on ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};
	return timed_ioctl(uffd, UFFDIO_WRITEPROTECT, &wp, &n_protects);
}

/*
 * The pages of [lo, hi) written or not present since they were protected,
 * and with file set every page of a file (a file's pages change with the
 * file, and shared memory with any process mapping it, none of it through
 * our page tables), protected again; -1 when the range is not (all)
 * tracked any more.  Telling a file's page costs the kernel a look at each
 * page's struct page (30-70 ns a page against 5-25 ns), so ranges known to
 * be private anonymous memory (plain_anonymous(), see track()) leave it out.
 * VEC regions returned and *walk_end below hi: there were more, and the
 * pages from *walk_end on were neither looked at nor protected.
 */
static long scan(uint64_t lo, uint64_t hi, int file, struct wt_page_region *vec, uint64_t *walk_end)
{
	struct wt_scan_arg a = {
		.size = sizeof(a),
		.flags = WT_SCAN_WP_MATCHING | WT_SCAN_CHECK_WPASYNC,
		.start = lo,
		.end = hi,
		.vec = (uint64_t)(uintptr_t)vec,
		.vec_len = VEC,
		/* written, or a file's, or (inverted) not present */
		.category_inverted = WT_PAGE_IS_PRESENT,
		.category_anyof_mask = WT_PAGE_IS_WRITTEN | (file ? WT_PAGE_IS_FILE : 0) | WT_PAGE_IS_PRESENT,
		.return_mask = file ? WT_PAGE_IS_FILE : 0,
	};
	long r = timed_ioctl(pagemap, WT_PAGEMAP_SCAN, &a, &n_scans);
	*walk_end = a.walk_end;
	return r;
}

static void at_fork_child(void)
{
	/* The child's memory is registered no more, and it has no helpers to wait for. */
	if (uffd >= 0)
		close(uffd);
	if (pagemap >= 0)
		close(pagemap);
	if (maps >= 0)
		close(maps);
	if (self_stat >= 0)
		close(self_stat);
	uffd = pagemap = maps = self_stat = -1;
	state = -1;
	pthread_mutex_init(&mu, NULL);
}

static void at_fork_prepare(void)
{
	pthread_mutex_lock(&mu);
}

static void at_fork_parent(void)
{
	pthread_mutex_unlock(&mu);
}

/*
 * Whether every page of [lo, hi) lies in private anonymous mappings (1),
 * some may not (0), or the kernel cannot say (-1: no PROCMAP_QUERY).  Only
 * such pages change nowhere but through our page tables: a file's pages
 * change with the file, and shared memory with whoever else maps it.  A
 * mapping replaced since is not registered, which every scan checks.
 */
static int plain_anonymous(uint64_t lo, uint64_t hi)
{
	uint64_t addr = lo;

	if (maps < 0)
		return -1;
	while (addr < hi) {
		struct wt_procmap_query q = { .size = sizeof(q), .query_addr = addr,
					      .query_flags = WT_PROCMAP_COVERING_OR_NEXT_VMA };
		__atomic_fetch_add(&n_queries, 1, __ATOMIC_RELAXED);
		if (ioctl(maps, WT_PROCMAP_QUERY, &q) < 0)
			return errno == ENOENT ? 0 : -1;
		if (q.vma_start > addr || q.inode || q.dev_major || q.dev_minor ||
		    (q.vma_flags & WT_PROCMAP_VMA_SHARED))
			return 0;
		addr = q.vma_end;
	}
	return 1;
}

/*
 * How many cores a protection change interrupts: the process's threads
 * (from /proc/self/stat), at most the cores it may run on.  Changing a
 * page's protection flushes it from the TLB of every core that runs one of
 * the process's threads, by an interrupt that core takes -- an OpenMP team
 * spinning between kernels, 15 cores of a 16-core host.  The ioctl's own
 * time is that of the core that asked, which waits for the others; each
 * other core's loss is taken as the same (an estimate: it errs towards not
 * tracking ranges whose protection changes often, never towards a wrong
 * hash).  Read when a trial starts, not at every call.
 */
static void spread(void)
{
	char buf[512];
	ssize_t n = self_stat >= 0 ? pread(self_stat, buf, sizeof(buf) - 1, 0) : -1;
	char *p;
	long threads = 0;

	if (n <= 0)
		return;
	buf[n] = 0;
	p = strrchr(buf, ')');  /* the name may hold spaces */
	/* Then state (field 3) ... num_threads (field 20): 17 fields on. */
	for (int field = 3; p && field <= 20; field++) {
		p = strchr(p + 1, ' ');
		if (p && field == 20)
			threads = strtol(p + 1, NULL, 10);
	}
	if (threads < 1)
		return;
	cores = (double)(threads < cpus ? threads : cpus);
}

/* The cost of one write to a protected page: the median of 9, on pages of our own. */
static void calibrate(void)
{
	enum { PAGES = 9 };
	uint64_t len = PAGES * page_size;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	struct uffdio_register reg = { .range = { .start = (uint64_t)(uintptr_t)p, .len = len },
				       .mode = UFFDIO_REGISTER_MODE_WP };
	double t[PAGES];

	if (p == MAP_FAILED)
		return;
	memset(p, 1, len);
	if (ioctl(uffd, UFFDIO_REGISTER, &reg) == 0 && protect(reg.range.start, reg.range.start + len, 1) == 0) {
		for (int i = 0; i < PAGES; i++) {
			int64_t a = mono_ns();
			((volatile char *)p)[(uint64_t)i * page_size] = 2;
			t[i] = (double)(mono_ns() - a);
		}
		for (int i = 1; i < PAGES; i++)  /* insertion sort: nine values */
			for (int j = i; j > 0 && t[j] < t[j - 1]; j--) {
				double x = t[j];
				t[j] = t[j - 1];
				t[j - 1] = x;
			}
		fault_ns = t[PAGES / 2];
	}
	munmap(p, len);
}

/* Open the userfaultfd and pagemap and check the kernel has what we need; called with mu held. */
static void start(void)
{
	const char *env = getenv("MAPPROF_HASH_REUSE");
	struct uffdio_api api = { .api = UFFD_API,
				  .features = WT_FEATURE_WP_ASYNC | WT_FEATURE_WP_UNPOPULATED };
	struct wt_page_region vec[VEC];
	uint64_t end, probe_page;
	long probe = 0;

	state = -1;
	if (env && !strcmp(env, "0"))
		return;
	page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK | UFFD_USER_MODE_ONLY);
	if (uffd < 0)
		uffd = (int)syscall(SYS_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		return;
	if (ioctl(uffd, UFFDIO_API, &api) < 0 ||
	    (api.features & (WT_FEATURE_WP_ASYNC | WT_FEATURE_WP_UNPOPULATED)) !=
		    (WT_FEATURE_WP_ASYNC | WT_FEATURE_WP_UNPOPULATED))
		goto off;
	pagemap = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (pagemap < 0)
		goto off;
	/* A page of ours is not registered: the scan must say so (EPERM), not fail as unknown. */
	probe_page = (uint64_t)(uintptr_t)&probe / page_size * page_size;
	if (scan(probe_page, probe_page + page_size, 1, vec, &end) >= 0 || errno != EPERM)
		goto off;
	/* Optional (Linux 6.11): without it every range is scanned for file pages. */
	maps = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (maps >= 0 && plain_anonymous(probe_page, probe_page + page_size) < 0) {
		close(maps);
		maps = -1;
	}
	calibrate();
	{
		cpu_set_t set;
		if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0)
			cpus = CPU_COUNT(&set);
	}
	self_stat = open("/proc/self/stat", O_RDONLY | O_CLOEXEC);
	pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
	state = 1;
	return;
off:
	if (pagemap >= 0)
		close(pagemap);
	close(uffd);
	uffd = pagemap = -1;
}

/* --- libraries that write memory behind the page tables ------------------- */

/*
 * A network card or GPU that writes pinned host memory by DMA, outside an
 * OpenMP transfer, leaves no trace in the page tables.  The libraries that
 * do that: once one is loaded, no hash is reused any more.
 */
static const char *const dma_libraries[] = {
	"libibverbs", "libfabric", "libucp", "libuct", "libpsm2", "libmlx5", "libnccl",
	"librccl", "libcudart", "libamdhip64",
	/* The GPU drivers LLVM's offload plugins load: their copies into pinned
	 * host memory may land after the end callback (not verified on a GPU). */
	"libcuda", "libhsa-runtime64", "libze_loader", NULL,
};

static int dma_find(struct dl_phdr_info *info, size_t size, void *arg)
{
	const char *name = strrchr(info->dlpi_name, '/');
	(void)size;
	name = name ? name + 1 : info->dlpi_name;
	for (int i = 0; dma_libraries[i]; i++)
		if (!strncmp(name, dma_libraries[i], strlen(dma_libraries[i]))) {
			*(int *)arg = 1;
			return 1;
		}
	return 0;
}

/* Stop for good: unprotect every tracked range; called with mu held. */
static void stop(void)
{
	for (int i = 0; i < nslots; i++) {
		if (table[i].len && table[i].tracked)
			protect(table[i].lo, table[i].hi, 0);
		table[i].known = table[i].tracked = 0;
	}
	state = -1;
}

/* Whether tracking is on; called with mu held. */
static int on(void)
{
	unsigned long long adds;
	int found = 0;

	if (state == 0)
		start();
	if (state <= 0)
		return 0;
	adds = modules_loaded();
	if (adds != seen_adds) {
		seen_adds = adds;
		dl_iterate_phdr(dma_find, &found);
		if (found)
			stop();
	}
	return state > 0;
}

int wtrack_lock_free(void)
{
	if (pthread_mutex_trylock(&mu))
		return 0;
	pthread_mutex_unlock(&mu);
	return 1;
}

void wtrack_stats(uint64_t *protects, uint64_t *scans, uint64_t *queries, uint64_t *ns)
{
	*protects = __atomic_load_n(&n_protects, __ATOMIC_RELAXED);
	*scans = __atomic_load_n(&n_scans, __ATOMIC_RELAXED);
	*queries = __atomic_load_n(&n_queries, __ATOMIC_RELAXED);
	*ns = __atomic_load_n(&ioctl_ns, __ATOMIC_RELAXED);
}

int wtrack_active(void)
{
	int r;
	pthread_mutex_lock(&mu);
	r = state > 0;
	pthread_mutex_unlock(&mu);
	return r;
}

/* --- the table ---------------------------------------------------------------- */

static struct entry *find(uint64_t addr, uint64_t len)
{
	for (int i = 0; i < nslots; i++)
		if (table[i].addr == addr && table[i].len == len)
			return &table[i];
	return NULL;
}

static void forget(struct entry *e)
{
	if (e->tracked)
		protect(e->lo, e->hi, 0);  /* written, for any other range holding these pages */
	if (e->chunk && e->chunk != e->inline_chunk)
		munmap(e->chunk, hash_nchunks(e->len) * sizeof(uint64_t));
	memset(e, 0, sizeof(*e));
}

static struct entry *insert(uint64_t addr, uint64_t len)
{
	struct entry *e = NULL;

	/* The lowest free slot; when none is, the least recently used. */
	for (int i = 0; i < nslots && !e; i++)
		if (!table[i].len)
			e = &table[i];
	if (!e && nslots < ENTRIES)
		e = &table[nslots++];
	if (!e) {
		e = &table[0];
		for (int i = 1; i < ENTRIES; i++)
			if (table[i].used < e->used)
				e = &table[i];
	}
	if (e->len)
		forget(e);
	e->addr = addr;
	e->len = len;
	/* Only whole pages: a page shared with a neighbour (arrays side by side,
	 * a malloc header) would be unprotected for every copy into the
	 * neighbour -- a TLB flush on every core the program runs on, dearer
	 * than reading the chunk around it again at each send (refresh()). */
	e->lo = (addr + page_size - 1) / page_size * page_size;
	e->hi = (addr + len) / page_size * page_size;
	if (e->hi <= e->lo)
		e->never = 1;
	e->backoff = 1;
	return e;
}

/*
 * Pages [lo, hi) were just protected for e: for every other entry holding
 * some, they count as written at its next send.
 */
static void protected_for(const struct entry *e, uint64_t lo, uint64_t hi)
{
	for (int i = 0; i < nslots; i++) {
		struct entry *o = &table[i];
		if (o == e || !o->len || !o->known || o->hi <= lo || hi <= o->lo)
			continue;
		if (o->npend == PEND) {
			o->known = 0;
			continue;
		}
		o->pend_lo[o->npend] = lo > o->lo ? lo : o->lo;
		o->pend_hi[o->npend++] = hi < o->hi ? hi : o->hi;
	}
}

/*
 * protect() for e, its time charged to e for every core it interrupts
 * (spread()); *cost (if given) is set to that charge.
 */
static int protect_for(struct entry *e, uint64_t lo, uint64_t hi, int on, double *cost)
{
	int64_t t = mono_ns();
	int r = protect(lo, hi, on);
	double c = cores * (double)(mono_ns() - t);

	e->spent_ns += c;
	if (cost)
		*cost = c;
	return r;
}

/* Hash every chunk of e (protected first) and keep the hashes. */
static int hash_all(struct entry *e)
{
	uint32_t n = hash_nchunks(e->len);
	/* Not from malloc: the program's heap stays as it would be without us (text.h). */
	if (!e->chunk && n <= INLINE_CHUNKS)
		e->chunk = e->inline_chunk;
	if (!e->chunk) {
		void *m = mmap(NULL, n * sizeof(uint64_t), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			return -1;
		e->chunk = m;
	}
	int64_t t = mono_ns();
	for (uint32_t i = 0; i < n; i++)
		e->chunk[i] = hash_chunk((const void *)(uintptr_t)e->addr, e->len, i);
	e->hash_ns = (double)(mono_ns() - t);
	e->hash = hash_combine(e->chunk, e->len);
	e->known = 1;
	e->npend = 0;
	return 0;
}

/* Register and protect e's pages, then hash them: 0, or -1 (left to the caller). */
static int track(struct entry *e)
{
	struct uffdio_register reg = { .range = { .start = e->lo, .len = e->hi - e->lo },
				       .mode = UFFDIO_REGISTER_MODE_WP };
	int64_t t = mono_ns();
	int starting = !e->tracked;

	if (starting) {
		int plain;
		spread();
		if (ioctl(uffd, UFFDIO_REGISTER, &reg) < 0) {
			/* Memory the kernel cannot write-protect, or someone else's userfaultfd. */
			e->never = 1;
			return -1;
		}
		e->spent_ns = e->saved_ns = 0;
		e->tracked_sends = 0;
		/*
		 * After registering (a mapping that replaces one of these later
		 * is not registered, which every scan checks, and which makes
		 * protecting it again fail): only private anonymous memory is
		 * tracked where the kernel can say so.  A file's mapping, shared
		 * memory or a device's (whose pages the scan skips without a
		 * word) is not, and is not left registered either, so that no
		 * range holding it passes the scan's check.  Where the kernel
		 * cannot say (before Linux 6.11), every range's scan looks for
		 * file pages.  A range still tracked (protected again after a
		 * transfer into it) is not asked again: its mapping is the one
		 * asked about, or the protection below fails.
		 */
		plain = plain_anonymous(e->lo, e->hi);
		if (plain == 0) {
			ioctl(uffd, UFFDIO_UNREGISTER, &reg.range);
			e->never = 1;
			e->tracked = e->known = 0;
			return -1;
		}
		e->file = plain < 0;
		e->spent_ns = (double)(mono_ns() - t);
	}
	e->opened = 0;
	e->open_ns = 0;
	if (protect_for(e, e->lo, e->hi, 1, &e->protect_ns) < 0) {
		/* Unmapped or replaced since (not registered): left alone from now on. */
		e->never = 1;
		e->tracked = e->known = 0;
		return -1;
	}
	if (starting)
		e->outlay_ns = e->spent_ns;
	e->tracked = 1;
	protected_for(e, e->lo, e->hi);
	return hash_all(e);
}

/*
 * Leave e unprotected for a while: tracking it cost more than it saved.
 * What the trial lost (its outlay, its sends, this unprotection, less the
 * hashing it saved) sets for how long: as many sends as it takes to hash
 * the range RETRY_SHARE times that loss, and at least twice the wait
 * before.  A range that lost 2 ms in a trial and hashes in 15 us (0.5
 * MiB, cg.naive's vectors, sent to the device and back every kernel:
 * each round trip two protection changes and a scan to save one hash)
 * waits about 2,000 sends; it used to wait at most 256, and each retry
 * took four round trips to judge (issue 29: 10 % over the hash floor on
 * 16 cores).
 */
static void leave(struct entry *e)
{
	double loss, skip;

	e->tracked = e->known = 0;
	loss = e->spent_ns - e->saved_ns;
	skip = RETRY_SHARE * loss / (e->hash_ns > 1 ? e->hash_ns : 1);
	if (skip < (double)e->backoff)
		skip = (double)e->backoff;
	e->skip = skip < MAX_BACKOFF ? (uint32_t)skip : MAX_BACKOFF;
	e->backoff = e->skip < MAX_BACKOFF / 2 ? 2 * e->skip : MAX_BACKOFF;
}

/* leave() e, unprotecting its pages first (they were protected). */
static void give_up(struct entry *e)
{
	int64_t t = mono_ns();

	protect(e->lo, e->hi, 0);
	e->spent_ns += cores * (double)(mono_ns() - t);
	leave(e);
}

/*
 * At a transfer into e, its pages just unprotected for it: whether
 * protecting them again after it cannot pay before the next such transfer.
 * The round trip costs what protecting e cost the last time and what
 * unprotecting it for this transfer cost (both measured on e, every core
 * counted); it saves the hashing of the sends before the next transfer into
 * e, taken to be as many as came before this one.  A range sent twice between copies back
 * (torture's 'map(tofrom:)' and 'update to' of 16 MiB each iteration) pays
 * 7.8 ms for its first round trip on the 2-core VM to save 0.8 ms of
 * hashing: given up here, where its pages are already unprotected, instead
 * of one round trip later with another unprotection (20 ms in all).
 */
static int round_trip_loses(const struct entry *e)
{
	return e->opened && e->protect_ns + e->open_ns > (double)e->cycle_sends * e->hash_ns;
}

/*
 * After such a round trip, e is tracked again only where it would have paid
 * for one: once sent, since the last transfer into it, as many times as
 * hashing it costs a round trip.  torture's range, sent twice between its
 * copies back, is then not tried again (its retry after the trial's wait
 * cost as much as the trial); a range whose loop changes to sending it
 * alone is tried again after that many sends.
 */
static int round_trips_lose(const struct entry *e)
{
	return e->round_trip_ns > (double)e->cycle_sends * e->hash_ns;
}

/*
 * Whether tracking e costs more than it saves from now on: the outlay of
 * starting it is paid whatever follows, so only what the sends since cost
 * (scans, faults, protection changes around transfers into the range)
 * counts against what they saved, with an allowance of hashing the range
 * twice (a send or two slowed by the machine's load).  A range that saves
 * most of a hash at each send for a scan of clean pages stays; one sent
 * to the device and back between its sends goes after two.
 */
static int not_paying(const struct entry *e)
{
	return e->tracked_sends >= 2 && e->spent_ns - e->outlay_ns > e->saved_ns + 2 * e->hash_ns;
}

/*
 * Hash again e's chunks that hold bytes of [s, t), from chunk *from on
 * (called in address order, a chunk is read once); returns the bytes read.
 */
static uint64_t reread(struct entry *e, uint64_t s, uint64_t t, uint32_t *from)
{
	uint64_t bytes = 0;
	uint32_t c, last;
	if (s < e->addr)
		s = e->addr;
	if (t > e->addr + e->len)
		t = e->addr + e->len;
	if (s >= t)
		return 0;  /* a shared page, outside the range itself */
	c = (uint32_t)((s - e->addr) / HASH_CHUNK_BYTES);
	last = (uint32_t)((t - 1 - e->addr) / HASH_CHUNK_BYTES);
	if (c < *from)
		c = *from;
	if (*from <= last)
		*from = last + 1;
	for (; c <= last; c++) {
		e->chunk[c] = hash_chunk((const void *)(uintptr_t)e->addr, e->len, c);
		bytes += hash_chunk_len(e->len, c);
	}
	return bytes;
}

/* Hash again the chunks of e holding pages written since it was hashed; 0, or -1. */
static int refresh(struct entry *e)
{
	struct wt_page_region vec[VEC];
	uint64_t walk_end, bad = 0, bytes = 0;
	int64_t t = mono_ns();
	long r = scan(e->lo, e->hi, e->file, vec, &walk_end);

	/* The scan, and protecting the pages found again: that interrupts every core (spread()). */
	e->spent_ns += (r > 0 ? cores : 1) * (double)(mono_ns() - t);

	if (r < 0) {
		/* Unmapped, remapped, or registered no more. */
		e->tracked = e->known = 0;
		return -1;
	}
	if (r == VEC && walk_end < e->hi) {
		/* More written regions than vec holds: protect the rest and read it all. */
		protect_for(e, walk_end, e->hi, 1, NULL);
		protected_for(e, e->lo, e->hi);
		if (hash_all(e) < 0)
			return -1;
		e->spent_ns += fault_ns * (double)((e->hi - e->lo) / page_size);
		return 0;
	}
	/* The partial pages at the ends are never protected (below): read every time. */
	uint32_t from = 0;
	bytes += reread(e, e->addr, e->lo, &from);
	for (long k = 0; k < r; k++) {
		if (vec[k].categories & WT_PAGE_IS_FILE)
			e->never = 1;  /* read again every time: not worth protecting */
		bad += (vec[k].end - vec[k].start) / page_size;
		protected_for(e, vec[k].start, vec[k].end);
		bytes += reread(e, vec[k].start, vec[k].end, &from);
	}
	bytes += reread(e, e->hi, e->addr + e->len, &from);
	for (int k = 0; k < e->npend; k++) {
		from = 0;  /* (at most PEND: a chunk may be read twice) */
		bytes += reread(e, e->pend_lo[k], e->pend_hi[k], &from);
	}
	if (bytes)
		e->hash = hash_combine(e->chunk, e->len);
	e->npend = 0;
	hash_count_reused(bytes < e->len ? e->len - bytes : 0);
	e->saved_ns += e->hash_ns * (double)(bytes < e->len ? e->len - bytes : 0) / (double)e->len;
	e->tracked_sends++;
	if (!e->opened)
		e->spent_ns += fault_ns * (double)bad;  /* each was a write fault (or a page dropped) */
	e->opened = 0;
	e->open_ns = 0;  /* the pages opened since are protected again: that round trip is over */
	return 0;
}

int wtrack_source(const void *p, uint64_t n, uint64_t *hash)
{
	uint64_t addr = (uint64_t)(uintptr_t)p;
	struct entry *e;
	int r = 0;

	if (n < MIN_BYTES || n >= HASH_CHUNKED_MAX_BYTES)
		return 0;
	pthread_mutex_lock(&mu);
	if (!on())
		goto out;
	e = find(addr, n);
	if (!e) {
		e = insert(addr, n);
		e->sends = e->cycle_sends = 1;
		e->used = ++use_clock;
		goto out;
	}
	e->used = ++use_clock;
	e->sends++;
	e->cycle_sends++;
	e->received = 0;
	if (e->never)
		goto out;
	if (e->tracked && e->known && refresh(e) == 0) {
		*hash = e->hash;
		r = 1;
		if (e->never || not_paying(e))
			give_up(e);
		goto out;
	}
	if (e->skip) {
		e->skip--;
		goto out;
	}
	/* (A range still tracked, its hash not known, is protected and read again as before.) */
	if (!e->tracked && round_trips_lose(e))
		goto out;
	if (track(e) == 0) {
		*hash = e->hash;
		r = 1;
	}
out:
	pthread_mutex_unlock(&mu);
	return r;
}

int wtrack_dest_begin(const void *p, uint64_t n)
{
	uint64_t addr = (uint64_t)(uintptr_t)p, lo, hi;
	struct entry *e;
	int r = 0;

	pthread_mutex_lock(&mu);
	if (state <= 0 || !on())
		goto out;
	lo = addr / page_size * page_size;
	hi = (addr + n + page_size - 1) / page_size * page_size;
	e = n >= MIN_BYTES ? find(addr, n) : NULL;
	/*
	 * A range that comes back twice with no send between (a field brought
	 * back every step for the host to look at, 'target update from' in a
	 * time loop): protecting it after the last copy saved nothing, and
	 * doing so at every copy costs two protection changes a step and a
	 * fault at each page the host writes.  Given up, as any range whose
	 * tracking does not pay, until sends come again.
	 */
	if (e && e->tracked && e->received)
		give_up(e);
	/* The runtime's copy must not fault on pages protected for any range;
	 * unprotected pages read as written, so every range holding them
	 * hashes them again. */
	for (int i = 0; i < nslots; i++) {
		struct entry *o = &table[i];
		if (o->len && o->tracked && o->lo < hi && lo < o->hi) {
			double c;
			protect_for(o, o->lo > lo ? o->lo : lo, o->hi < hi ? o->hi : hi, 0, &c);
			o->open_ns += c;
			o->opened = 1;
		}
	}
	if (e && e->tracked && round_trip_loses(e)) {
		e->round_trip_ns = e->protect_ns + e->open_ns;
		leave(e);  /* its pages are unprotected now: the caller hashes it after the copy */
	} else if (e && e->tracked) {
		e->round_trip_ns = 0;  /* this one pays */
	}
	/*
	 * A range sent again and again and now coming back: hashed after the
	 * copy, tracked for the next send.  One sent once ('target data
	 * map(to:)' around a loop that brings it back every step) is left
	 * alone: nothing says a send will follow, and the trial (registering,
	 * a protection change, its interrupts on every core, undone at the
	 * next copy back) cost 1.5 % of real/monitor.fixed's run.  Nor is one
	 * whose round trips did not pay, unless the sends since the last copy
	 * would have paid for one (round_trips_lose()).
	 */
	if (e && e->sends >= 2 && !e->never && !e->skip && !round_trips_lose(e)) {
		e->used = ++use_clock;
		r = 1;
	}
	if (e)
		e->cycle_sends = 0;
out:
	pthread_mutex_unlock(&mu);
	return r;
}

uint64_t wtrack_dest_end(const void *p, uint64_t n)
{
	uint64_t addr = (uint64_t)(uintptr_t)p, h = 0;
	struct entry *e;
	int done = 0;

	pthread_mutex_lock(&mu);
	e = state > 0 ? find(addr, n) : NULL;
	if (e && track(e) == 0) {
		h = e->hash;
		done = 1;
		e->received = 1;
		if (not_paying(e))
			give_up(e);
	}
	pthread_mutex_unlock(&mu);
	return done ? h : hash_bytes(p, n);
}
