/*
 * test_attach.c - the collector's attached pointer slots (collector/attach.h):
 * which transfers and map entries teach a slot, when one is forgotten, and
 * the masked hash: equal to hash.h's hash of the bytes with the slots'
 * bytes as zeros, wherever the slots lie (any chunk, across a chunk's end,
 * partly before the range), unchanged by the slots' bytes and changed by
 * any other byte.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/attach.h"
#include "collector/hash.h"
#include "check.h"

#define PTR_AND_OBJ 0x10
#define MEMBER_OF(i) ((int64_t)((uint64_t)((i) + 1) << 48))

static unsigned char *filled(size_t n, unsigned seed)
{
	unsigned char *p = malloc(n);
	for (size_t i = 0; i < n; i++)
		p[i] = (unsigned char)((i * 2654435761u) >> 13 ^ seed);
	return p;
}

/* hash_bytes() of p[0..n) with the 8 bytes at each of off[] (relative to p) cleared, written out. */
static uint64_t masked_reference(const unsigned char *p, uint64_t n, const int64_t *off, int k)
{
	unsigned char *q = malloc(n ? n : 1);
	memcpy(q, p, n);
	for (int i = 0; i < k; i++)
		for (int64_t b = off[i]; b < off[i] + 8; b++)
			if (b >= 0 && (uint64_t)b < n)
				q[b] = 0;
	uint64_t h = hash_bytes(q, n);
	free(q);
	return h;
}

/*
 * The runtime's temporary holding an attached pointer: its bytes are an
 * address inside a device buffer of the same device (pointees(), registered
 * before the tests), as an attach's are.
 */
static uint64_t dev_ptr[2] = { 0x6000000 + 64, 0x6100000 + 64 };
static unsigned char pointee_host[2][4096];
#define TEMP(dev) ((uint64_t)(uintptr_t)&dev_ptr[dev])

static void pointees(void)
{
	attach_alloc(0, (uint64_t)(uintptr_t)pointee_host[0], 0x6000000, 4096, 0);
	attach_alloc(1, (uint64_t)(uintptr_t)pointee_host[1], 0x6100000, 4096, 0);
}

/* A device buffer mirroring host [h, h + n) at a made-up device address, and an attach at off. */
static void attach_at(uint64_t dev_base, uint64_t host, uint64_t n, uint64_t off)
{
	uint64_t temp = TEMP(0);  /* the runtime's temporary holding the device pointer */
	attach_alloc(0, host, dev_base, n, 0);
	attach_transfer_to(0, temp, dev_base + off, 8, 0);
}

static void test_no_slot_is_plain_hash(void)
{
	unsigned char *p = filled(3 * HASH_CHUNK_BYTES + 5, 1);
	CHECK(!attach_masked((uint64_t)(uintptr_t)p, 3 * HASH_CHUNK_BYTES + 5));
	CHECK(attach_hash(p, 3 * HASH_CHUNK_BYTES + 5, (uint64_t)(uintptr_t)p) ==
	      hash_bytes(p, 3 * HASH_CHUNK_BYTES + 5));
	free(p);
}

static void test_learned_from_transfers(void)
{
	unsigned char *p = filled(64, 2);
	uint64_t h = (uint64_t)(uintptr_t)p, dev = 0x7000000;

	/* The host's own bytes into the buffer (an update of a member): no slot. */
	attach_alloc(0, h, dev, 64, 0);
	CHECK(attach_transfer_to(0, h + 8, dev + 8, 8, 0) == 0);
	CHECK(!attach_masked(h, 64));
	/* Another size from elsewhere: no slot.  A pointer's bytes from elsewhere: a slot (its host address). */
	CHECK(attach_transfer_to(0, TEMP(0), dev + 16, 16, 0) == 0);
	CHECK(!attach_masked(h, 64));
	CHECK(attach_transfer_to(0, TEMP(0), dev + 24, 8, 0) == h + 24);
	CHECK(attach_masked(h, 64));
	CHECK(attach_masked(h + 24, 8));
	CHECK(attach_masked(h + 31, 1));
	CHECK(!attach_masked(h, 24));
	CHECK(!attach_masked(h + 32, 32));
	/* Eight bytes from elsewhere that are no device address (omp_target_memcpy of a double): no slot. */
	static const double scalar = 3.0;
	CHECK(attach_transfer_to(0, (uint64_t)(uintptr_t)&scalar, dev + 48, 8, 0) == 0);
	CHECK(!attach_masked(h + 48, 8));
	/* Another device's buffer (not seen allocated): nothing learned. */
	attach_transfer_to(1, TEMP(1), dev + 40, 8, 0);
	CHECK(!attach_masked(h + 40, 8));
	/* The slot's bytes do not count; the others do. */
	uint64_t a = attach_hash(p, 64, h);
	int64_t off = 24;
	CHECK(a == masked_reference(p, 64, &off, 1));
	CHECK(a != hash_bytes(p, 64));
	p[24] ^= 0xff;
	p[31] ^= 1;
	CHECK(attach_hash(p, 64, h) == a);
	p[23] ^= 1;
	CHECK(attach_hash(p, 64, h) != a);
	p[23] ^= 1;
	p[32] ^= 1;
	CHECK(attach_hash(p, 64, h) != a);
	p[32] ^= 1;
	/* A device copy of the range, hashed for the host range: the same slots. */
	unsigned char *copy = malloc(64);
	memcpy(copy, p, 64);
	memset(copy + 24, 0xab, 8);  /* the device's pointer */
	CHECK(attach_hash(copy, 64, h) == a);
	free(copy);
	/* The buffer deleted: its slot forgotten. */
	attach_delete(0, dev);
	CHECK(!attach_masked(h, 64));
	free(p);
}

/*
 * A pointee mapped from past its start ('map(s) map(s.v[1:n-1])'): the
 * runtime writes the device address of v[0], which lies before the buffer
 * of v[1..n-1]; that is an attach too, the host's pointer (v) translated by
 * that buffer.  Eight bytes translating to nothing are not.
 */
static void test_learned_for_section_with_lower_bound(void)
{
	static double v[64];
	struct { int n; double *v; } s = { 64, v };
	uint64_t h = (uint64_t)(uintptr_t)&s, vdev = 0xa000000, sdev = 0xb000000, temp, other;

	attach_alloc(0, (uint64_t)(uintptr_t)&v[1], vdev, 63 * sizeof(double), 0);
	attach_alloc(0, h, sdev, sizeof(s), 0);
	temp = vdev - sizeof(double);  /* where v[0] would be on the device */
	CHECK(attach_transfer_to(0, (uint64_t)(uintptr_t)&temp, sdev + 8, 8, 0) == h + 8);
	CHECK(attach_masked(h + 8, 8));
	attach_delete(0, sdev);
	CHECK(!attach_masked(h, sizeof(s)));
	/* The same bytes while the host's pointer points elsewhere: no slot. */
	s.v = &v[8];
	attach_alloc(0, h, sdev, sizeof(s), 0);
	CHECK(attach_transfer_to(0, (uint64_t)(uintptr_t)&temp, sdev + 8, 8, 0) == 0);
	/* A host pointer past the buffer's data, and its translation (outside the buffer): no slot. */
	s.v = (double *)((uintptr_t)v + 72 * sizeof(double));
	other = vdev + 71 * sizeof(double);
	CHECK(attach_transfer_to(0, (uint64_t)(uintptr_t)&other, sdev + 8, 8, 0) == 0);
	attach_delete(0, sdev);
	attach_delete(0, vdev);
	/* Only another device's buffer translates it: no slot. */
	s.v = v;
	attach_alloc(1, (uint64_t)(uintptr_t)&v[1], vdev, 63 * sizeof(double), 0);
	attach_alloc(0, h, sdev, sizeof(s), 0);
	CHECK(attach_transfer_to(0, (uint64_t)(uintptr_t)&temp, sdev + 8, 8, 0) == 0);
	attach_delete(0, sdev);
	attach_delete(1, vdev);
	/* A buffer whose host data is unmapped: its bytes cannot be read, and nothing is learned. */
	long page = sysconf(_SC_PAGESIZE);
	void *gone = mmap(NULL, (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CHECK(gone != MAP_FAILED);
	attach_alloc(0, (uint64_t)(uintptr_t)gone, sdev, (uint64_t)page, 0);
	munmap(gone, (size_t)page);
	uint64_t unread = attach_unread();
	CHECK(attach_transfer_to(0, (uint64_t)(uintptr_t)&temp, sdev + 8, 8, 0) == 0);
	CHECK(attach_unread() == unread + 1);  /* counted for the stats table */
	attach_delete(0, sdev);
}

static void test_slot_kept_while_another_device_holds_it(void)
{
	unsigned char *p = filled(32, 3);
	uint64_t h = (uint64_t)(uintptr_t)p;

	attach_at(0x8000000, h, 32, 8);
	attach_alloc(1, h, 0x9000000, 32, 0);
	attach_transfer_to(1, TEMP(1), 0x9000000 + 8, 8, 0);
	attach_delete(0, 0x8000000);
	CHECK(attach_masked(h, 32));
	attach_delete(1, 0x9000000);
	CHECK(!attach_masked(h, 32));
	free(p);
}

static void test_learned_from_map_entries(void)
{
	/* map(tofrom: s) map(tofrom: s.v[0:N]) as clang passes it: struct, member, pointee. */
	struct S { int n; double *v; } *s = malloc(sizeof(*s));
	double *v = malloc(64);
	void *bases[3] = { s, s, &s->v }, *ptrs[3] = { s, s, v };
	int64_t sizes[3] = { sizeof(*s), sizeof(*s), 64 };
	int64_t types[3] = { 0x20, MEMBER_OF(0) | 0x3, MEMBER_OF(0) | PTR_AND_OBJ | 0x3 };
	uint64_t h = (uint64_t)(uintptr_t)s;

	attach_map_entries(3, bases, ptrs, sizes, types);
	CHECK(attach_masked(h, sizeof(*s)));
	CHECK(!attach_masked(h, 8));
	/* The struct's device buffer comes and goes: so does the slot. */
	attach_alloc(0, h, 0xa000000, sizeof(*s), 0);
	attach_delete(0, 0xa000000);
	CHECK(!attach_masked(h, sizeof(*s)));
	/* A pointee whose pointer lies in no entry of the call: nothing. */
	attach_map_entries(1, &bases[2], &ptrs[2], &sizes[2], &types[2]);
	CHECK(!attach_masked(h, sizeof(*s)));
	free(v);
	free(s);
}

/* Many slots in a multi-chunk range: in the first and last chunk, across chunk ends, before the range. */
static void test_chunked_hash(void)
{
	uint64_t n = 5 * HASH_CHUNK_BYTES + 100, dev = 0xb000000;
	unsigned char *buf = filled(n + 64, 4), *p = buf + 32;
	uint64_t hb = (uint64_t)(uintptr_t)buf, h = (uint64_t)(uintptr_t)p;
	int64_t off[] = { -4, 0, 40, HASH_CHUNK_BYTES - 4, 2 * HASH_CHUNK_BYTES, 3 * HASH_CHUNK_BYTES + 17,
			  (int64_t)n - 8, (int64_t)n - 3 };
	int k = (int)(sizeof(off) / sizeof(off[0]));

	attach_alloc(0, hb, dev, n + 64, 0);
	for (int i = 0; i < k; i++)
		attach_transfer_to(0, TEMP(0), dev + 32 + (uint64_t)off[i], 8, 0);
	uint64_t a = attach_hash(p, n, h);
	CHECK(a == masked_reference(p, n, off, k));
	/* Each slot's bytes may change; the bytes beside each may not. */
	for (int i = 0; i < k; i++) {
		for (int64_t b = off[i]; b < off[i] + 8; b++)
			if (b >= 0 && (uint64_t)b < n)
				p[b] ^= 0x5a;
		CHECK(attach_hash(p, n, h) == a);
	}
	p[HASH_CHUNK_BYTES + 4] ^= 1;  /* a byte right after the slot across chunks 0 and 1 */
	CHECK(attach_hash(p, n, h) != a);
	p[HASH_CHUNK_BYTES + 4] ^= 1;
	p[n - 9] ^= 1;
	CHECK(attach_hash(p, n, h) != a);
	p[n - 9] ^= 1;
	CHECK(attach_hash(p, n, h) == masked_reference(p, n, off, k));
	/* A range inside it (one chunk, slots at both ends) and one of exactly a chunk. */
	int64_t sub[] = { -4, 0, 40 };
	CHECK(attach_hash(p, 48, h) == masked_reference(p, 48, sub, 3));
	int64_t whole[] = { -4, 0, 40, HASH_CHUNK_BYTES - 4 };
	CHECK(attach_hash(p, HASH_CHUNK_BYTES, h) == masked_reference(p, HASH_CHUNK_BYTES, whole, 4));
	attach_delete(0, dev);
	CHECK(attach_hash(p, n, h) == hash_bytes(p, n));
	free(buf);
}

/* Past the table's bound: counted, never mis-stored. */
static void test_bound(void)
{
	uint64_t known, all, dropped, untracked, late, fixed, unknown, n = 5000 * 16;
	unsigned char *p = filled(n, 5);
	uint64_t h = (uint64_t)(uintptr_t)p, dev = 0xc000000;

	attach_alloc(0, h, dev, n, 0);
	for (uint64_t i = 0; i < 5000; i++)
		attach_transfer_to(0, TEMP(0), dev + 16 * i + 8, 8, 0);
	attach_stats(&known, &all, &dropped, &untracked, &late, &fixed, &unknown);
	CHECK(known <= 4096);
	CHECK(dropped >= 5000 - 4096);
	CHECK(late >= 5000 - dropped);  /* learned into a buffer that mirrored the host data already */
	attach_delete(0, dev);
	attach_stats(&known, &all, &dropped, &untracked, &late, &fixed, &unknown);
	CHECK_INT(known, 0);
	free(p);
}

/*
 * A slot learned after its struct's copy: a fix per buffer holding it, with
 * the device copy's hash under the slots known before and with the new one
 * (device memory the host reads), or none known (a device it cannot read).
 */
static void test_late_slot_fixes(void)
{
	struct attach_fix f[8];
	unsigned char *host = filled(64, 6), *devmem = malloc(64), *pointee = malloc(4096);
	uint64_t h = (uint64_t)(uintptr_t)host, d = (uint64_t)(uintptr_t)devmem, o = (uint64_t)(uintptr_t)pointee;
	uint64_t tmp = o + 64, tmp3 = 0xd100000 + 8, known, all, dropped, untracked, late, fixed, unknown;
	uint64_t late0, fixed0, unknown0;
	int64_t off[2] = { 24, 40 };

	while (attach_take_fixes(f, 8) > 0)
		;  /* the earlier tests' late slots */
	attach_stats(&known, &all, &dropped, &untracked, &late0, &fixed0, &unknown0);
	collector_device_note(2, "generic-64bit");
	attach_alloc(2, o, o, 4096, 5);   /* the pointee's buffer */
	attach_alloc(2, h, d, 64, 10);    /* the struct's, then its copy */
	memcpy(devmem, host, 64);
	CHECK_INT(attach_take_fixes(f, 8), 0);
	attach_transfer_to(2, (uint64_t)(uintptr_t)&tmp, d + 24, 8, 20);
	CHECK_INT(attach_take_fixes(f, 8), 1);
	CHECK_INT(f[0].known, 1);
	CHECK_INT(f[0].dev, 2);
	CHECK(f[0].host == h && f[0].bytes == 64 && f[0].slot == h + 24);
	CHECK_INT(f[0].from_seq, 10);
	CHECK_INT(f[0].to_seq, 20);
	CHECK(f[0].old_hash == hash_bytes(host, 64));
	CHECK(f[0].new_hash == masked_reference(host, 64, off, 1));
	CHECK(f[0].new_hash == attach_hash(host, 64, h));
	CHECK_INT(attach_take_fixes(f, 8), 0);
	/* A known slot again: no fix.  A second late slot: from the hash with the first masked. */
	attach_transfer_to(2, (uint64_t)(uintptr_t)&tmp, d + 24, 8, 25);
	CHECK_INT(attach_take_fixes(f, 8), 0);
	attach_transfer_to(2, (uint64_t)(uintptr_t)&tmp, d + 40, 8, 30);
	CHECK_INT(attach_take_fixes(f, 8), 1);
	CHECK(f[0].old_hash == masked_reference(host, 64, off, 1));
	CHECK(f[0].new_hash == masked_reference(host, 64, off, 2));
	CHECK_INT(f[0].to_seq, 30);
	/* A device whose memory the host does not read: a fix, nothing known. */
	attach_alloc(3, o + 2048, 0xd100000, 1024, 40);
	attach_alloc(3, h, 0xd000000, 64, 41);
	attach_transfer_to(3, (uint64_t)(uintptr_t)&tmp3, 0xd000000 + 48, 8, 50);
	CHECK_INT(attach_take_fixes(f, 8), 2);   /* the slot's host data is in both devices' buffers */
	{
		const struct attach_fix *g = f[0].dev == 3 ? &f[0] : &f[1], *r = f[0].dev == 3 ? &f[1] : &f[0];
		CHECK_INT(g->dev, 3);
		CHECK_INT(g->known, 0);
		CHECK_INT(g->from_seq, 41);
		CHECK_INT(r->dev, 2);
		CHECK_INT(r->known, 1);   /* device 2's copy, read */
		CHECK_INT(r->from_seq, 10);
		CHECK(g->to_seq == 50 && r->to_seq == 50 && g->slot == h + 48 && r->slot == h + 48);
	}
	attach_stats(&known, &all, &dropped, &untracked, &late, &fixed, &unknown);
	CHECK_INT(late - late0, 3);
	CHECK_INT(fixed - fixed0, 3);
	CHECK_INT(unknown - unknown0, 1);
	attach_delete(3, 0xd000000);
	attach_delete(3, 0xd100000);
	attach_delete(2, d);
	attach_delete(2, o);
	free(host);
	free(devmem);
	free(pointee);
}

int main(void)
{
	pointees();
	RUN(test_no_slot_is_plain_hash);
	RUN(test_learned_from_transfers);
	RUN(test_learned_for_section_with_lower_bound);
	RUN(test_slot_kept_while_another_device_holds_it);
	RUN(test_learned_from_map_entries);
	RUN(test_chunked_hash);
	RUN(test_bound);
	RUN(test_late_slot_fixes);
	return check_done();
}
