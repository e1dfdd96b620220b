/*
 * hmap.c - open addressing with linear probing and backward-shift deletion
 * (no tombstones, so long runs of deletes do not slow lookups down).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "lib/hmap.h"
#include "lib/huge.h"

/* The hash word of a slot; 0 marks an empty slot, so hashes are never 0. */
/*
 * Each word folded in by a 64x64->128-bit multiply whose halves are xored
 * (as wyhash mixes): one multiply a word, where three chained ones (a
 * murmur finalizer per word) were 6 % of a long report's main thread.
 */
static uint64_t hash_key(const uint64_t *key, size_t words)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ words;
	for (size_t i = 0; i < words; i++) {
		__uint128_t p = (__uint128_t)(key[i] ^ h ^ 0xa0761d6478bd642fULL) * 0xe7037ed1a0b428dbULL;
		h = (uint64_t)p ^ (uint64_t)(p >> 64);
	}
	return h ? h : 1;
}

static uint64_t *slot_at(const struct hmap *m, size_t i)
{
	return (uint64_t *)(m->slots + i * m->slot_size);
}

void hmap_init(struct hmap *m, size_t key_words, size_t val_size)
{
	memset(m, 0, sizeof(*m));
	m->key_words = key_words;
	m->val_size = val_size;
	m->slot_size = 8 * (1 + key_words) + ((val_size + 7) & ~(size_t)7);
}

void hmap_release(struct hmap *m)
{
	if (!m)
		return;
	free(m->slots);
	m->slots = NULL;
	m->cap = m->count = 0;
}

static size_t find(const struct hmap *m, const uint64_t *key, uint64_t h, int *found)
{
	size_t mask = m->cap - 1;
	for (size_t i = h & mask;; i = (i + 1) & mask) {
		uint64_t *s = slot_at(m, i);
		if (!s[0]) {
			*found = 0;
			return i;
		}
		if (s[0] == h && !memcmp(s + 1, key, 8 * m->key_words)) {
			*found = 1;
			return i;
		}
	}
}

void hmap_prefetch(const struct hmap *m, const uint64_t *key)
{
	if (m->cap)
		__builtin_prefetch(slot_at(m, hash_key(key, m->key_words) & (m->cap - 1)));
}

void *hmap_get(const struct hmap *m, const uint64_t *key)
{
	int found;
	size_t i;

	if (!m->cap)
		return NULL;
	i = find(m, key, hash_key(key, m->key_words), &found);
	return found ? slot_at(m, i) + 1 + m->key_words : NULL;
}

/*
 * A map of millions of entries (the duplicate detector's, on a long run) is
 * probed at random: with 4 KiB pages nearly every probe also misses the TLB,
 * and every page is faulted in one by one as the map grows (lib/huge.h).
 */
static int grow(struct hmap *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	unsigned char *old = m->slots;
	size_t ocap = m->cap;

	m->slots = calloc(ncap, m->slot_size);
	if (!m->slots) {
		m->slots = old;
		return -1;
	}
	huge_advise(m->slots, ncap * m->slot_size);
	m->cap = ncap;
	for (size_t i = 0; i < ocap; i++) {
		uint64_t *s = (uint64_t *)(old + i * m->slot_size);
		int found;
		if (!s[0])
			continue;
		memcpy(slot_at(m, find(m, s + 1, s[0], &found)), s, m->slot_size);
	}
	free(old);
	return 0;
}

void *hmap_put(struct hmap *m, const uint64_t *key, int *created)
{
	uint64_t h = hash_key(key, m->key_words);
	uint64_t *s;
	int found;
	size_t i;

	/* Keep the load under 3/4: probes stay short. */
	if ((m->count + 1) * 4 > m->cap * 3 && grow(m) < 0)
		return NULL;
	i = find(m, key, h, &found);
	s = slot_at(m, i);
	if (!found) {
		s[0] = h;
		memcpy(s + 1, key, 8 * m->key_words);
		memset(s + 1 + m->key_words, 0, m->slot_size - 8 * (1 + m->key_words));
		m->count++;
	}
	if (created)
		*created = !found;
	return s + 1 + m->key_words;
}

int hmap_del(struct hmap *m, const uint64_t *key)
{
	size_t mask, i, j;
	int found;

	if (!m->cap)
		return 0;
	i = find(m, key, hash_key(key, m->key_words), &found);
	if (!found)
		return 0;
	mask = m->cap - 1;
	/* Shift later members of the probe run back into the hole. */
	for (j = (i + 1) & mask;; j = (j + 1) & mask) {
		uint64_t *s = slot_at(m, j);
		size_t home;
		if (!s[0])
			break;
		home = s[0] & mask;
		/* s may fill the hole at i only if its home is not in (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && home <= i && home > j)) {
			memcpy(slot_at(m, i), s, m->slot_size);
			i = j;
		}
	}
	slot_at(m, i)[0] = 0;
	m->count--;
	return 1;
}

/*
 * One pass over the slots from an empty one: no probe run crosses it, so
 * every kept entry's run from its home slot lies before it in the pass,
 * already settled.  A kept entry moves to the first empty slot of that run
 * (where a put would place it now): every entry is then found from its
 * home slot as after deletes one by one (the slots' order may differ), in
 * one sequential sweep instead of a random probe each.
 */
size_t hmap_sweep(struct hmap *m, int (*drop)(const uint64_t *key, void *val, void *arg), void *arg)
{
	size_t mask, start, n = 0;

	if (!m->count)
		return 0;
	mask = m->cap - 1;
	for (start = 0; slot_at(m, start)[0]; start++)
		;   /* the load stays under 3/4: there is one */
	for (size_t k = 1; k < m->cap; k++) {
		size_t j = (start + k) & mask, i;
		uint64_t *s = slot_at(m, j);
		if (!s[0])
			continue;
		if (drop(s + 1, s + 1 + m->key_words, arg)) {
			s[0] = 0;
			n++;
			continue;
		}
		for (i = s[0] & mask; i != j && slot_at(m, i)[0]; i = (i + 1) & mask)
			;
		if (i != j) {
			memcpy(slot_at(m, i), s, m->slot_size);
			s[0] = 0;
		}
	}
	m->count -= n;
	return n;
}

int hmap_next(const struct hmap *m, size_t *pos, const uint64_t **key, void **val)
{
	for (; *pos < m->cap; (*pos)++) {
		uint64_t *s = slot_at(m, *pos);
		if (s[0]) {
			*key = s + 1;
			*val = s + 1 + m->key_words;
			(*pos)++;
			return 1;
		}
	}
	return 0;
}
