/*
 * spillmap.h - a map with fixed-size keys and values that keeps its
 * recently used entries in memory and the others in a temporary file.
 *
 * The duplicate detector must remember every content a run ever sent, and
 * a long run sends tens of millions: an hmap of them all grows with the
 * run.  Here the memory holds at most 'max_entries'; when full, the
 * entries not used for a while are written out, sorted, as a run of an
 * unlinked temporary file ($TMPDIR, else /tmp; runs of similar size are
 * merged, so that there are O(log n) of them), and a fixed-size Bloom
 * filter remembers which keys went out.  A key the filter has never seen
 * is new without reading the file; one it may have seen is looked up in
 * the runs (newest first; one read of a block each, through an index of
 * every 128th key) and comes back into memory.  Memory: the entries held,
 * the filter (32 MiB, once something was written out; blocked: one cache line per lookup) and the index.
 * Exact: a key is found wherever it is.
 */
#ifndef MAPPROF_LIB_SPILLMAP_H
#define MAPPROF_LIB_SPILLMAP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "lib/hmap.h"

struct spillmap_run;

struct spillmap {
	struct hmap mem;          /* key -> [uint64_t last use][value] */
	size_t key_words, val_size, rec_size;
	size_t max_entries;
	uint64_t clock;           /* puts so far: the last-use stamps */
	int fd;                   /* -1 until the first run */
	off_t end;                /* bytes used in the file */
	struct spillmap_run *runs;
	size_t nruns;
	uint64_t *bloom;          /* NULL until the first run */
	uint64_t spilled, reloaded;  /* entries written out, read back (for the bench) */
	char *evict_buf[2];       /* evict()'s records and its sort's, kept between evictions */
	size_t evict_cap;         /* records each holds */
	uint32_t *evict_count;    /* its sort's buckets */
};

/* Set up; max_entries 0: 2^18 + 2^17 (the hmap stays at 2^19 slots).  No allocation yet. */
void spillmap_init(struct spillmap *m, size_t key_words, size_t val_size, size_t max_entries);
void spillmap_release(struct spillmap *m);

/*
 * The value under 'key' (zeroed and *created = 1 when the map never had
 * it), held in memory until the next put.  NULL with *why (static) when out
 * of memory or the file failed.
 */
void *spillmap_put(struct spillmap *m, const uint64_t *key, int *created, const char **why);

/*
 * Start loading what a put of 'key' will look at (its slot; its filter
 * block once something went out): the caller knows its next keys early.
 */
void spillmap_prefetch(const struct spillmap *m, const uint64_t *key);

#endif
