/*
 * attach.c - attached pointer slots and the masked content hash (attach.h).
 *
 * Two tables behind one lock: the live device buffers whose allocation was
 * seen (to tell which host range a device address mirrors), and the slots,
 * host addresses kept sorted so that the slots of a range are found by two
 * binary searches.  Both come from mappings of our own (text.h says why,
 * never the program's heap) and are bounded; what does not fit is counted
 * for the stats table.  A transfer reads the slot count without the lock
 * first: a program that attaches nothing pays one load per transfer.
 *
 * The masked hash is hash.h's definition over the bytes with the slots'
 * bytes as zeros, computed through hash.h's own functions: the chunks that
 * hold no slot are hashed in place (hash_chunk()), each chunk that holds
 * one is copied, the slot bytes in the copy cleared, and the copy hashed as
 * the one chunk of a buffer of its length; hash_combine() makes the whole.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <unistd.h>

#include "collector/attach.h"
#include "collector/hash.h"
#include "collector/state.h"
#include "collector/text.h"

#define BUFS_MAX 4096
#define SLOTS_MAX 4096
#define SLOT_BYTES ((uint64_t)sizeof(void *))
/* The 16 high bits of a map type: 1 + the index of the struct's entry this one is a member of (0: none). */
#define MAP_MEMBER_OF_SHIFT 48
/* Calls with at most this many map entries are searched whole for the entry holding a pointer. */
#define MAP_SCAN_MAX 64
/* Slots of one range copied out on the stack; more go into a mapping for the call. */
#define LOCAL_SLOTS 64
/* Ranges up to this long are copied to the stack to mask them; longer chunks into a mapping. */
#define LOCAL_CHUNK 4096
/* Chunk hashes of one range on the stack; more go into a mapping for the call. */
#define LOCAL_CHUNKS 64

struct abuf {
	int dev;
	uint64_t host, dev_addr, bytes;
	uint64_t seq;   /* its allocation's */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static struct abuf *bufs;
static int nbufs;
static uint64_t *slots;
static atomic_int nslots;
static uint64_t learned, dropped, untracked_bufs, late, late_fixed, late_unknown;
static uint64_t unread;  /* host slots that could not be read (attach_unread()) */
/* Late slots' fixes not yet taken (attach_take_fixes()); what did not fit is counted in none of late_*. */
#define FIXES_MAX 256
static struct attach_fix fixes[FIXES_MAX];
static atomic_int nfixes;
/* A late slot's buffer is hashed again up to this size, and up to FIX_BYTES_ALL in all. */
#define FIX_BYTES_ONE ((uint64_t)64 << 20)
#define FIX_BYTES_ALL ((uint64_t)256 << 20)
static uint64_t fix_bytes;
static uint64_t (*hook_peek_seq)(void);
static void (*hook_fixes_out)(void);

void attach_set_hooks(uint64_t (*peek_seq)(void), void (*fixes_out)(void))
{
	hook_peek_seq = peek_seq;
	hook_fixes_out = fixes_out;
}

/* Queued fixes to their hook (attach_set_hooks()); called without mu. */
static void fixes_out(void)
{
	if (hook_fixes_out && atomic_load_explicit(&nfixes, memory_order_acquire))
		hook_fixes_out();
}
/* Buffers holding one late slot that get a fix (one per device, as a rule). */
#define FIX_BUFS 4

/* --- the slot table (called with mu held) ------------------------------------ */

/* The index of the first slot >= addr. */
static int slot_lower(uint64_t addr)
{
	int lo = 0, hi = atomic_load_explicit(&nslots, memory_order_relaxed);

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;
		if (slots[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static int host_held(uint64_t addr);

static void late_fixes_before(uint64_t addr, uint64_t seq, struct attach_fix *f, void **snap, int *nf);
static void late_fixes_after(struct attach_fix *f, void **snap, int nf);

/*
 * Add slot addr; 1 when it is new, 0 when known, -1 when it does not fit.
 * A new slot inside host data that a live device buffer already mirrors
 * comes late: that buffer's copy from the host, if it had one, was hashed
 * without it (counted for the stats table), and so was every transfer of
 * that data since the buffer's allocation, up to seq (not included): each
 * such buffer gets a fix (attach.h).
 */
static int slot_add(uint64_t addr, uint64_t seq)
{
	int n = atomic_load_explicit(&nslots, memory_order_relaxed);
	int i = slot_lower(addr), nf = 0;
	struct attach_fix f[FIX_BUFS];
	void *snap[FIX_BUFS];

	if (i < n && slots[i] == addr)
		return 0;
	if (!slots)
		slots = text_alloc(SLOTS_MAX * sizeof(*slots));
	if (!slots || n == SLOTS_MAX) {
		dropped++;
		return -1;
	}
	if (host_held(addr)) {
		late++;
		late_fixes_before(addr, seq, f, snap, &nf);
	}
	memmove(&slots[i + 1], &slots[i], (size_t)(n - i) * sizeof(*slots));
	slots[i] = addr;
	learned++;
	atomic_store_explicit(&nslots, n + 1, memory_order_release);
	late_fixes_after(f, snap, nf);
	return 1;
}

static void slot_remove(int i)
{
	int n = atomic_load_explicit(&nslots, memory_order_relaxed);

	memmove(&slots[i], &slots[i + 1], (size_t)(n - i - 1) * sizeof(*slots));
	atomic_store_explicit(&nslots, n - 1, memory_order_release);
}

/* --- device buffers (called with mu held) ------------------------------------ */

static struct abuf *buf_find(int dev, uint64_t addr)
{
	for (int i = nbufs - 1; i >= 0; i--)
		if (bufs[i].dev == dev && addr >= bufs[i].dev_addr && addr - bufs[i].dev_addr < bufs[i].bytes)
			return &bufs[i];
	return NULL;
}

/*
 * Whether value is where a buffer of dev puts host address hp, which lies
 * at most TRANSLATE_MAX before the buffer's host data: the device address
 * of a pointer's target when the pointee's buffer begins after it
 * ('s.v[1:n-1]': the runtime writes the device address of v[0], before the
 * buffer of v[1..n-1]).  An attach writes exactly that; other eight bytes
 * (a host pointer's own device copy, written by hand, is one) rarely do.
 */
#define TRANSLATE_MAX ((uint64_t)1 << 30)
static int translates(int dev, uint64_t hp, uint64_t value)
{
	for (int i = nbufs - 1; i >= 0; i--)
		if (bufs[i].dev == dev && hp <= bufs[i].host && bufs[i].host - hp <= TRANSLATE_MAX &&
		    bufs[i].dev_addr - value == bufs[i].host - hp)
			return 1;
	return 0;
}

/*
 * The 8 bytes at host address addr, or -1 where they cannot be read (host
 * data a device buffer still mirrors may have been unmapped): read by the
 * kernel, which reports a bad address instead of faulting.
 */
static int read_host_u64(uint64_t addr, uint64_t *v)
{
	struct iovec to = { v, sizeof(*v) }, from = { (void *)(uintptr_t)addr, sizeof(*v) };

	return process_vm_readv(getpid(), &to, 1, &from, 1, 0) == (ssize_t)sizeof(*v) ? 0 : -1;
}

/* Whether a live buffer (any device) mirrors host address addr. */
static int host_held(uint64_t addr)
{
	for (int i = 0; i < nbufs; i++)
		if (addr >= bufs[i].host && addr - bufs[i].host < bufs[i].bytes)
			return 1;
	return 0;
}

void attach_alloc(int dev, uint64_t host_addr, uint64_t dev_addr, uint64_t bytes, uint64_t seq)
{
	struct abuf *b;

	if (!bytes || !dev_addr || !host_addr)
		return;
	pthread_mutex_lock(&mu);
	if ((b = buf_find(dev, dev_addr)))
		*b = bufs[--nbufs];  /* its delete was not seen */
	if (!bufs)
		bufs = text_alloc(BUFS_MAX * sizeof(*bufs));
	if (!bufs || nbufs == BUFS_MAX) {
		untracked_bufs++;
	} else {
		b = &bufs[nbufs++];
		b->dev = dev;
		b->host = host_addr;
		b->dev_addr = dev_addr;
		b->bytes = bytes;
		b->seq = seq;
	}
	pthread_mutex_unlock(&mu);
}

void attach_delete(int dev, uint64_t dev_addr)
{
	struct abuf *b, gone;

	pthread_mutex_lock(&mu);
	b = buf_find(dev, dev_addr);
	if (b && b->dev_addr == dev_addr) {
		gone = *b;
		*b = bufs[--nbufs];
		/* Its slots, unless another device's copy of the same host data holds them too. */
		for (int i = slot_lower(gone.host);
		     i < atomic_load_explicit(&nslots, memory_order_relaxed) && slots[i] < gone.host + gone.bytes;) {
			if (host_held(slots[i]))
				i++;
			else
				slot_remove(i);
		}
	}
	pthread_mutex_unlock(&mu);
}

uint64_t attach_transfer_to(int dev, uint64_t src, uint64_t dst, uint64_t bytes, uint64_t seq)
{
	struct abuf *b;
	uint64_t value, slot = 0;

	if (bytes != SLOT_BYTES || !src || !dst)
		return 0;
	/* The 8 bytes sent (host memory: the caller checked the source is the host). */
	memcpy(&value, (const void *)(uintptr_t)src, sizeof(value));
	pthread_mutex_lock(&mu);
	b = buf_find(dev, dst);
	/*
	 * Into a buffer, from elsewhere than the host bytes it mirrors, and the
	 * bytes are an address inside a device buffer of the same device, or
	 * the device address that such a buffer gives the host's pointer at
	 * the slot (a section with a lower bound, translates()): the runtime
	 * attaching a pointer.  Eight other bytes copied in (an
	 * omp_target_memcpy of a scalar into mapped data) are not a slot: a
	 * slot's bytes are left out of the hash, which would then miss the
	 * device changing them.
	 */
	if (b && dst - b->dev_addr <= b->bytes - SLOT_BYTES && src != b->host + (dst - b->dev_addr)) {
		uint64_t at = b->host + (dst - b->dev_addr), hp = 0;
		int known = buf_find(dev, value) != NULL;
		if (!known && read_host_u64(at, &hp) < 0)
			unread++;
		else if (known || translates(dev, hp, value)) {
			slot = at;
			slot_add(slot, seq);
		}
	}
	pthread_mutex_unlock(&mu);
	fixes_out();
	return slot;
}

/* Whether entry j of a call maps the pointer at p. */
static int entry_holds(void *const *ptrs, const int64_t *sizes, int j, uint64_t p)
{
	uint64_t lo = (uint64_t)(uintptr_t)ptrs[j];

	return lo && sizes[j] >= (int64_t)SLOT_BYTES && p >= lo && p - lo <= (uint64_t)sizes[j] - SLOT_BYTES;
}

void attach_map_entries(int n, void *const *bases, void *const *ptrs, const int64_t *sizes,
			const int64_t *types)
{
	int locked = 0;
	uint64_t seq = 0;

	if (!bases || !ptrs || !sizes || !types)
		return;
	for (int i = 0; i < n; i++) {
		uint64_t p = (uint64_t)(uintptr_t)bases[i];
		int parent = (int)((uint64_t)types[i] >> MAP_MEMBER_OF_SHIFT) - 1, in = 0;
		if (!(types[i] & MAP_PTR_AND_OBJ) || !p)
			continue;
		/* The pointer lies in data this call maps (its parent struct's entry, or any, in a short list). */
		if (parent >= 0 && parent < n && parent != i)
			in = entry_holds(ptrs, sizes, parent, p);
		for (int j = 0; !in && n <= MAP_SCAN_MAX && j < n; j++)
			in = j != i && entry_holds(ptrs, sizes, j, p);
		if (!in)
			continue;
		/* Its device copy will get the pointee's device address. */
		if (!locked) {
			seq = hook_peek_seq ? hook_peek_seq() : 0;
			pthread_mutex_lock(&mu);
			locked = 1;
		}
		slot_add(p, seq);
	}
	if (locked) {
		pthread_mutex_unlock(&mu);
		fixes_out();
	}
}

int attach_masked(uint64_t host, uint64_t n)
{
	int r;

	if (!atomic_load_explicit(&nslots, memory_order_acquire) || !n)
		return 0;
	pthread_mutex_lock(&mu);
	int i = slot_lower(host > SLOT_BYTES ? host - SLOT_BYTES + 1 : 0);
	r = i < atomic_load_explicit(&nslots, memory_order_relaxed) && slots[i] < host + n;
	pthread_mutex_unlock(&mu);
	return r;
}

/* --- the masked hash ------------------------------------------------------------ */

static void *scratch_map(size_t n)
{
	void *p = mmap(NULL, n, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

/*
 * Chunk c of p[0..n) with the slot bytes (offsets off[k..ns) from p, sorted,
 * each SLOT_BYTES long, possibly starting before p) as zeros, hashed; *k
 * moves past the slots that end in this chunk.  tmp holds a chunk.
 */
static uint64_t chunk_masked(const unsigned char *p, uint64_t n, uint32_t c, const int64_t *off, int ns,
			     int *k, unsigned char *tmp)
{
	uint64_t lo = (uint64_t)c * HASH_CHUNK_BYTES, len = hash_chunk_len(n, c), hi = lo + len;
	int j;

	while (*k < ns && off[*k] + (int64_t)SLOT_BYTES <= (int64_t)lo)
		(*k)++;
	if (*k == ns || off[*k] >= (int64_t)hi)
		return hash_chunk(p, n, c);
	memcpy(tmp, p + lo, len);
	for (j = *k; j < ns && off[j] < (int64_t)hi; j++) {
		int64_t s = off[j] > (int64_t)lo ? off[j] : (int64_t)lo;
		int64_t e = off[j] + (int64_t)SLOT_BYTES < (int64_t)hi ? off[j] + (int64_t)SLOT_BYTES : (int64_t)hi;
		memset(tmp + (s - (int64_t)lo), 0, (size_t)(e - s));
	}
	/* The copy is a buffer of len bytes: its one chunk is chunk c's bytes. */
	return hash_chunk(tmp, len, 0);
}

/*
 * The offsets (from host) of the slots in host range [host, host + n), into
 * *off: the caller's local[LOCAL_SLOTS], or a mapping of *off_bytes bytes
 * (NULL when that failed).  Called with mu held.  Returns how many.
 */
static int slot_offsets(uint64_t host, uint64_t n, int64_t *local, int64_t **off, size_t *off_bytes)
{
	int first = slot_lower(host > SLOT_BYTES ? host - SLOT_BYTES + 1 : 0);
	int ns = slot_lower(host + n) - first;

	*off = local;
	*off_bytes = 0;
	if (ns > LOCAL_SLOTS) {
		*off_bytes = (size_t)ns * sizeof(**off);
		*off = scratch_map(*off_bytes);
	}
	for (int i = 0; *off && i < ns; i++)
		(*off)[i] = (int64_t)(slots[first + i] - host);
	return ns;
}

/* p[0..n) hashed with the ns slots at off[] (slot_offsets()) as zeros. */
static uint64_t hash_masked(const void *p, uint64_t n, const int64_t *off, int ns)
{
	uint64_t local_h[LOCAL_CHUNKS], *h = local_h, r;
	unsigned char local_tmp[LOCAL_CHUNK], *tmp = local_tmp;
	size_t h_bytes = 0, tmp_bytes = 0;
	uint32_t nchunks;
	int k = 0;

	if (!ns || !off)
		return hash_bytes(p, n);  /* no slot here (or no memory: the bytes as they are) */
	nchunks = hash_nchunks(n);
	if (nchunks > LOCAL_CHUNKS) {
		h_bytes = (size_t)nchunks * sizeof(*h);
		h = scratch_map(h_bytes);
	}
	if (hash_chunk_len(n, 0) > LOCAL_CHUNK) {
		tmp_bytes = (size_t)HASH_CHUNK_BYTES;
		tmp = scratch_map(tmp_bytes);
	}
	if (h && tmp) {
		for (uint32_t c = 0; c < nchunks; c++)
			h[c] = chunk_masked(p, n, c, off, ns, &k, tmp);
		r = hash_combine(h, n);
	} else {
		r = hash_bytes(p, n);
	}
	if (h_bytes && h)
		munmap(h, h_bytes);
	if (tmp_bytes && tmp)
		munmap(tmp, tmp_bytes);
	return r;
}

/* attach_hash() with mu held: the slots as they are now. */
static uint64_t hash_locked(const void *p, uint64_t n, uint64_t host)
{
	int64_t local_off[LOCAL_SLOTS], *off;
	size_t off_bytes;
	int ns = slot_offsets(host, n, local_off, &off, &off_bytes);
	uint64_t r = hash_masked(p, n, off, ns);

	if (off_bytes && off)
		munmap(off, off_bytes);
	return r;
}

uint64_t attach_hash(const void *p, uint64_t n, uint64_t host)
{
	int64_t local_off[LOCAL_SLOTS], *off;
	size_t off_bytes;
	uint64_t r;
	int ns;

	if (!n || n >= HASH_CHUNKED_MAX_BYTES || !atomic_load_explicit(&nslots, memory_order_acquire))
		return hash_bytes(p, n);
	pthread_mutex_lock(&mu);
	ns = slot_offsets(host, n, local_off, &off, &off_bytes);
	pthread_mutex_unlock(&mu);
	r = hash_masked(p, n, off, ns);
	if (off_bytes && off)
		munmap(off, off_bytes);
	return r;
}

/* --- late slots' fixes (called with mu held) ------------------------------------- */

/* Whether buffer b's device copy is read again for a late slot's fix (and its bytes counted). */
static int fix_readable(const struct abuf *b)
{
	if (atomic_load_explicit(&nfixes, memory_order_relaxed) == FIXES_MAX || b->bytes >= HASH_CHUNKED_MAX_BYTES ||
	    b->bytes > FIX_BYTES_ONE || fix_bytes + b->bytes > FIX_BYTES_ALL || !collector_device_host_addressable(b->dev))
		return 0;
	fix_bytes += b->bytes;
	return 1;
}

/*
 * Before late slot addr goes in: a fix for each buffer holding it (up to
 * FIX_BUFS), with the hash of its device copy under the slots known so far
 * where that copy can be read.  The copy is read once, into snap[] (a
 * kernel of a nowait construct may write it meanwhile): both hashes are of
 * the same bytes.
 */
static void late_fixes_before(uint64_t addr, uint64_t seq, struct attach_fix *f, void **snap, int *nf)
{
	for (int i = 0; i < nbufs && *nf < FIX_BUFS; i++) {
		const struct abuf *b = &bufs[i];
		struct attach_fix *x = &f[*nf];
		/* (seq 0: its allocation's begin was not seen, so the window would have no start.) */
		if (addr < b->host || addr - b->host >= b->bytes || !b->seq)
			continue;
		*x = (struct attach_fix){ .dev = b->dev, .host = b->host, .dev_addr = b->dev_addr, .bytes = b->bytes,
					  .slot = addr, .from_seq = b->seq, .to_seq = seq };
		snap[*nf] = fix_readable(b) ? scratch_map(b->bytes) : NULL;
		if (snap[*nf]) {
			memcpy(snap[*nf], (const void *)(uintptr_t)b->dev_addr, b->bytes);
			x->known = 1;
			x->old_hash = hash_locked(snap[*nf], b->bytes, b->host);
		}
		(*nf)++;
	}
}

/* Once the slot is in: the same copies' hashes with it, and the fixes queued. */
static void late_fixes_after(struct attach_fix *f, void **snap, int nf)
{
	for (int i = 0; i < nf; i++) {
		int q = atomic_load_explicit(&nfixes, memory_order_relaxed);
		if (snap[i]) {
			f[i].new_hash = hash_locked(snap[i], f[i].bytes, f[i].host);
			munmap(snap[i], f[i].bytes);
		}
		if (q == FIXES_MAX)
			continue;
		fixes[q] = f[i];
		if (f[i].known)
			late_fixed++;
		else
			late_unknown++;
		atomic_store_explicit(&nfixes, q + 1, memory_order_release);
	}
}

int attach_take_fixes(struct attach_fix *out, int max)
{
	int n;

	if (!atomic_load_explicit(&nfixes, memory_order_acquire))
		return 0;
	pthread_mutex_lock(&mu);
	n = atomic_load_explicit(&nfixes, memory_order_relaxed);
	if (n > max)
		n = max;
	memcpy(out, fixes, (size_t)n * sizeof(*out));
	memmove(fixes, fixes + n, (size_t)(atomic_load_explicit(&nfixes, memory_order_relaxed) - n) * sizeof(*fixes));
	atomic_store_explicit(&nfixes, atomic_load_explicit(&nfixes, memory_order_relaxed) - n,
			      memory_order_release);
	pthread_mutex_unlock(&mu);
	return n;
}

/* --- the rest ------------------------------------------------------------------- */

int attach_lock_free(void)
{
	if (pthread_mutex_trylock(&mu))
		return 0;
	pthread_mutex_unlock(&mu);
	return 1;
}

void attach_stats(uint64_t *known, uint64_t *all, uint64_t *not_kept, uint64_t *untracked_buffers,
		  uint64_t *late_slots, uint64_t *fixed, uint64_t *unknown)
{
	pthread_mutex_lock(&mu);
	*known = (uint64_t)atomic_load_explicit(&nslots, memory_order_relaxed);
	*all = learned;
	*not_kept = dropped;
	*untracked_buffers = untracked_bufs;
	*late_slots = late;
	*fixed = late_fixed;
	*unknown = late_unknown;
	pthread_mutex_unlock(&mu);
}

uint64_t attach_unread(void)
{
	uint64_t n;

	pthread_mutex_lock(&mu);
	n = unread;
	pthread_mutex_unlock(&mu);
	return n;
}

void attach_at_fork(enum fork_moment when)
{
	if (when == FORK_PREPARE) {
		pthread_mutex_lock(&mu);
	} else if (when == FORK_PARENT) {
		pthread_mutex_unlock(&mu);
	} else {
		pthread_mutex_init(&mu, NULL);
		nbufs = 0;
		atomic_store(&nslots, 0);
		/* The child's stats rows count its own slots. */
		learned = dropped = untracked_bufs = late = late_fixed = late_unknown = fix_bytes = unread = 0;
		atomic_store(&nfixes, 0);
	}
}
