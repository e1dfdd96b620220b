/*
 * attach.h - pointer slots the runtime writes into device copies of host
 * data ("attaching" a pointer), and the content hash with them masked.
 *
 * For 'map(tofrom: s) map(tofrom: s.v[0:N])', libomptarget copies s to the
 * device, then writes the device address of v's copy into the pointer
 * member of s's device copy: an 8-byte to-device transfer from a host
 * temporary into s's device buffer.  The bytes of s that come back then
 * differ from those sent in that slot alone, while the device changed
 * nothing.  So every transfer between the host and a device hashes host
 * range [h, h + n) with the bytes of known slots inside it taken as zeros
 * (docs/database.md, "Hashes"): an unchanged struct hashes equal both
 * ways, and a change of any other byte still changes the hash.
 *
 * A slot is a host address: that of the pointer in the host's data.  It is
 * learned two ways:
 *   - from the offload call's map entries (interpose.c), before any of its
 *     data operations: an entry of type PTR_AND_OBJ whose pointer lies in
 *     another entry of the same call (so the struct's first copy is hashed
 *     masked already);
 *   - from the data operations: a to-device transfer of one pointer's
 *     bytes into a device buffer whose allocation was seen, from a host
 *     address other than the one the buffer mirrors (what --check calls a
 *     foreign write, collector/check.c), whose bytes are an address inside
 *     a buffer of that device or the host's pointer at the slot as a
 *     buffer of that device translates it ('s.v[1:n-1]': v[0]'s device
 *     address, before the buffer).
 * A slot is forgotten when the last live device buffer holding it is
 * deleted.  The tables are bounded; what did not fit is counted in the
 * stats table (attach_stats()).
 *
 * A slot learned late, inside host data a live device buffer already
 * mirrors (the manual deep copy: 'target enter data map(to: s)', then
 * 'target enter data map(to: s.v[0:n])'), was not masked in the hashes of
 * that data's transfers since the buffer's allocation: the struct's copy to
 * the device would not match its copy back.  Each such buffer gets a fix
 * (attach_take_fixes(), a frame of the spool): the transfers of host data
 * holding the slot, between the buffer's allocation and the moment the slot
 * was learned, hashed old_hash (the device copy's hash under the slots
 * known before, taken as the slot was learned) become new_hash (the same
 * bytes with the slot masked), one already new_hash stays (hashed after
 * the slot was known); any other hash of them is no longer known (the bytes
 * were not those of the device copy then, or only part of them).  Where the device
 * copy cannot be read (a GPU's memory), or is too large to hash again,
 * known is 0 and every such hash becomes unknown.  Applied when the
 * database is finished (db/ingest/finish.h).
 */
#ifndef MAPPROF_COLLECTOR_ATTACH_H
#define MAPPROF_COLLECTOR_ATTACH_H

#include <stdint.h>

#include "collector/state.h"

/* An allocation (data op seq) ended: dev_addr on dev holds 'bytes' for host_addr. */
void attach_alloc(int dev, uint64_t host_addr, uint64_t dev_addr, uint64_t bytes, uint64_t seq);
/* A delete ended: the buffer at dev_addr on dev is gone (its slots too, unless another buffer holds them). */
void attach_delete(int dev, uint64_t dev_addr);
/* Map type bit of an entry whose pointer (the base) is attached to its pointee (LLVM's PTR_AND_OBJ). */
#define MAP_PTR_AND_OBJ 0x10

/*
 * A to-device transfer (data op seq) from host address src to dst on dev
 * begins: learns a slot when it is an attach.  The slot's host address
 * when it is one (the pointer in the host's data that the runtime attaches:
 * the base of the call's PTR_AND_OBJ entry, interpose_attach_index()), else 0.
 */
uint64_t attach_transfer_to(int dev, uint64_t src, uint64_t dst, uint64_t bytes, uint64_t seq);
/* The map entries of an offload call (interpose.c): learns the slots it will attach. */
void attach_map_entries(int n, void *const *bases, void *const *ptrs, const int64_t *sizes,
			const int64_t *types);
/*
 * collector.c's: the sequence number its next event will get (the bound of
 * a fix learned from map entries, whose data ops come after), and where
 * fixes go once queued (called after both learning calls, without attach.c's
 * lock, when there are some).  Unset: 0, and fixes wait for
 * attach_take_fixes().
 */
void attach_set_hooks(uint64_t (*peek_seq)(void), void (*fixes_out)(void));

/* A late slot's fix (above): for the transfers of data ops from_seq < seq < to_seq. */
struct attach_fix {
	int dev;
	int known;            /* old_hash and new_hash were taken (else: every such hash is unknown) */
	uint64_t host, dev_addr, bytes;   /* the buffer */
	uint64_t slot;        /* the slot's host address */
	uint64_t from_seq, to_seq;
	uint64_t old_hash, new_hash;
};
/* Up to max fixes not yet taken, into out (oldest first); how many.  One load when there are none. */
int attach_take_fixes(struct attach_fix *out, int max);

/* Nonzero when host range [host, host + n) holds a known slot (one load when no slot is known). */
int attach_masked(uint64_t host, uint64_t n);
/*
 * The hash (hash.h) of p[0..n), the bytes of host range [host, host + n)
 * (p == host for host memory; a device copy of it otherwise), with the
 * bytes of the slots in that range as zeros.  Equals hash_bytes() where
 * the range holds no slot.
 */
uint64_t attach_hash(const void *p, uint64_t n, uint64_t host);

/* 1 when no thread holds attach.c's lock (a signal handler must not wait for it). */
int attach_lock_free(void);

/*
 * For the stats table: slots known now, slots learned in all, slots not
 * kept (table full), device buffers not kept (table full), slots learned
 * late (inside host data that a device buffer already mirrored: mapped by
 * an earlier call, or by this one when its map entries did not announce
 * the slot), and of their fixes, those that re-hashed the device copy
 * (fixed) and those that could not (unknown).  A late slot's fix that did
 * not fit the queue is counted in neither: those hashes stay as they were.
 */
void attach_stats(uint64_t *known, uint64_t *learned, uint64_t *dropped, uint64_t *untracked_buffers,
		  uint64_t *late, uint64_t *fixed, uint64_t *unknown);

/*
 * For the stats table: 8-byte writes into a device buffer, not the bytes it
 * mirrors, whose host slot could not be read (its host data unmapped, or
 * process_vm_readv refused): a pointer attached for a section with a lower
 * bound is not recognised there, and its 8 bytes are hashed as they are.
 */
uint64_t attach_unread(void);

/* Around fork(): the lock is held across it; the child forgets everything (its runtime starts anew). */
void attach_at_fork(enum fork_moment when);

#endif
