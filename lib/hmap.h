/*
 * hmap.h - an open-addressing hash map with fixed-size keys and values.
 *
 * lib/ holds generic containers that every stage may use: it includes
 * nothing of collector/, db/, report/ or cli/.
 *
 * The detectors (and db/'s event stream and attribution readers) keep bounded state keyed by content, buffer or allocation
 * (never by event), and millions of entries must stay cheap: a slot is one
 * array element holding a 64-bit hash, the key words and the value bytes,
 * with no per-entry allocation.  Keys are arrays of 'key_words' uint64_t
 * (callers pack their fields into words so that no padding is compared);
 * values are plain bytes, zeroed when created.
 *
 * Pointers to values stay valid until the next hmap_put() or hmap_del() on
 * the same map (either may move slots).
 */
#ifndef MAPPROF_LIB_HMAP_H
#define MAPPROF_LIB_HMAP_H

#include <stddef.h>
#include <stdint.h>

#define HMAP_MAX_KEY_WORDS 8

struct hmap {
	size_t key_words;
	size_t val_size;
	size_t slot_size;     /* bytes per slot: hash word, key words, value */
	size_t cap;           /* slots, a power of two (0 before the first put) */
	size_t count;
	unsigned char *slots;
};

/* Set up an empty map (no allocation yet).  key_words <= HMAP_MAX_KEY_WORDS. */
void hmap_init(struct hmap *m, size_t key_words, size_t val_size);

/* Free the slots; accepts a map that was only initialised. */
void hmap_release(struct hmap *m);

/* The value stored under 'key', or NULL. */
void *hmap_get(const struct hmap *m, const uint64_t *key);

/*
 * Start loading the slot where 'key' would be, for a lookup a little later:
 * a big map is probed at random and each probe otherwise waits for memory.
 * A hint only; nothing changes.
 */
void hmap_prefetch(const struct hmap *m, const uint64_t *key);

/*
 * The value under 'key', created (zeroed) when absent; *created (if not NULL)
 * says which.  NULL when out of memory.
 */
void *hmap_put(struct hmap *m, const uint64_t *key, int *created);

/* Remove 'key'; returns 1 if it was there. */
int hmap_del(struct hmap *m, const uint64_t *key);

/*
 * Remove every entry for which drop(key, val, arg) returns non-zero (it
 * may copy the entry out first), in one pass; the number removed.  The
 * map then holds what hmap_del() of each would leave, each entry found as
 * by hmap_get(); the order of hmap_next() may differ.
 */
size_t hmap_sweep(struct hmap *m, int (*drop)(const uint64_t *key, void *val, void *arg), void *arg);

/*
 * Iterate: start with *pos = 0; returns 1 and sets *key and *val (borrowed) for
 * each entry, 0 at the end.  Order is that of the slots: deterministic for a
 * given sequence of puts and deletes.  Do not modify the map while iterating.
 */
int hmap_next(const struct hmap *m, size_t *pos, const uint64_t **key, void **val);

#endif
