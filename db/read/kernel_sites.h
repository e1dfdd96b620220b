/*
 * kernel_sites.h - the kernels of a run, one row per place that launched
 * them (the target construct's code pointer) and device: how often, how
 * long, and what the constructs that launched them moved.
 *
 * "Moved around it" is what the data operations of the same target
 * constructs (data_op_raw.target_id) transferred: the map clauses of the
 * construct itself.  A 'target data' region's or a 'target update''s
 * transfers belong to their own constructs and are not counted here.
 * Sound rows only (db/read/sound.h).  SQLite groups; memory grows with the
 * number of places, not of launches.
 */
#ifndef MAPPROF_DB_KERNEL_SITES_H
#define MAPPROF_DB_KERNEL_SITES_H

#include <stddef.h>
#include <stdint.h>

struct db;

struct kernel_site {
	uint64_t codeptr;      /* the target construct's return address; 0: unknown */
	int device;
	int64_t launches;
	int64_t total_ns;      /* summed kernel durations (saturated) */
	int64_t min_ns, max_ns;
	int64_t bytes_to;      /* to_device bytes of the launching constructs */
	int64_t bytes_from;    /* from_device bytes of the launching constructs */
	int64_t transfers;     /* their transfers, both ways */
	int64_t transfer_ns;   /* summed transfer durations */
};

struct kernel_sites {
	struct kernel_site *v;
	size_t n;
};

/*
 * Read every site into *out, most total time first (then by code pointer
 * and device).  0, or -1 with *err set (malloc'ed); release out either way.
 */
int kernel_sites_read(struct db *db, struct kernel_sites *out, char **err);

/* Accepts a zeroed struct. */
void kernel_sites_release(struct kernel_sites *s);

#endif
