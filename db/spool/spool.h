/*
 * spool.h - the spool: what the collector writes while the program runs.
 *
 * The collector does not touch SQLite inside the profiled program.  It
 * appends binary frames to a spool file beside the database ("DB-spool");
 * once the program has ended, 'mapprof record' (or, for a collector loaded
 * by hand, libmapprof-ingest.so at exit) expands the frames into the
 * database's tables and removes the spool.
 *
 * Layout, native byte order (the spool never leaves the machine that wrote
 * it):
 *
 *   struct spool_header                      magic, version, sizeof(struct rec), pid
 *   { struct spool_frame; payload[len] }...  until the end of the file
 *
 * A RECORDS frame's payload is an array of struct rec.  Every other frame's
 * payload is a list of fields as its format in spool_frame_format() says:
 * 'i' an int64, 's' a string (uint32 length, or UINT32_MAX for NULL, then the
 * bytes and a NUL).  A frame cut short by a crash ends the spool: everything
 * before it is kept.
 */
#ifndef MAPPROF_DB_SPOOL_H
#define MAPPROF_DB_SPOOL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include "lib/map_index.h"  /* struct rec's map_index */

#define SPOOL_MAGIC "MPSPOOL"  /* 8 bytes with its NUL */
#define SPOOL_VERSION 2

enum rec_type {
	REC_DATA_OP = 1,
	REC_KERNEL,
	REC_TARGET,
};

/*
 * One recorded event, as the collector buffers it.  Times are ns relative to
 * run start; or, when the spool holds CLOCK frames, CPU timestamp counter
 * ticks, which the ingest turns into ns through those frames.
 */
struct rec {
	uint8_t type;        /* enum rec_type */
	uint8_t kind;        /* data op: ompt_target_data_op_t; target: ompt_target_t */
	uint8_t has_hash;
	int8_t map_index;    /* -1: none; MAP_INDEX_ATTACH(i): the pointer entry i attaches */
	int32_t thread;
	int32_t src_dev;     /* data op: source device; target/kernel: device */
	int32_t dst_dev;
	uint32_t teams;      /* kernel: requested teams */
	uint64_t seq;
	uint64_t src_addr;
	uint64_t dst_addr;
	uint64_t bytes;
	int64_t begin_ns;
	int64_t end_ns;
	uint64_t hash;
	uint64_t codeptr;
	uint64_t target_id;
};

struct spool_header {
	char magic[8];
	uint32_t version;
	uint32_t rec_size;   /* sizeof(struct rec) of the writer */
	int64_t pid;         /* the process that claimed the spool; 0 when mapprof record wrote it */
};

struct spool_frame {
	uint32_t type;       /* enum spool_frame_type */
	uint32_t len;        /* payload bytes that follow */
};

/* Frame types; the fields of each are those of the db_writer call it replays. */
enum spool_frame_type {
	SPOOL_RECORDS = 1,  /* struct rec[len / sizeof(struct rec)] */
	SPOOL_RUN,          /* command_json, cwd, pid, host, start_time, start_ns, runtime, collector */
	SPOOL_ENV,          /* name, value */
	SPOOL_STATUS,       /* status, detail */
	SPOOL_END,          /* end_ns, events_lost */
	SPOOL_DEVICE,       /* num, type (NULL at finalize), init_ns, fini_ns (-1: none) */
	SPOOL_MODULE,       /* path, base, low, high, build_id, seen_ns */
	SPOOL_THREAD,       /* id, tid */
	SPOOL_IMAGE,        /* device, file, host_addr, bytes, ns */
	SPOOL_SOURCE,       /* codeptr, entry, psource, map_names_json */
	SPOOL_CLOCK,        /* ticks, ns: the timestamp counter and CLOCK_MONOTONIC read together */
	SPOOL_PROCESS,      /* pid, ppid, rank (-1: none), rank_var, started ("record", "exec", "fork") */
	SPOOL_STAT,         /* name, value: a counter of the run (the stats table) */
	SPOOL_CHECK,        /* kind, seq, device, host_addr, first, end, bytes, note: a --check
			       finding's occurrence, or a check skipped on a device (check_raw) */
	SPOOL_ACC,          /* seq, event, parent_construct, implicit, device_type, device_number,
			     * async, async_queue, valid_bytes, begin_ns, end_ns, detail_json:
			     * an OpenACC event (acc_event_raw; collector/openacc.c) */
	SPOOL_HASH_FIX,     /* device, host_addr, bytes, slot, from_seq, to_seq, known, old_hash,
			     * new_hash: a late attached pointer slot's fix of the hashes of the
			     * transfers before it (hash_fix_raw; collector/attach.h) */
	SPOOL_FRAME_TYPES
};

/* The field format of a frame type ("" for RECORDS, NULL for unknown types). */
const char *spool_frame_format(uint32_t type);

/* One unpacked field: 'i' fills i, 's' fills s (NUL-terminated, or NULL). */
struct spool_field {
	int64_t i;
	const char *s;
};

#define SPOOL_MAX_FIELDS 12

/*
 * Pack fields (int64_t for 'i', const char * for 's') after a struct
 * spool_frame into buf[0..cap).  Returns the frame's total size; when that is
 * more than cap nothing useful was written (call again with a larger buf).
 */
size_t spool_pack(void *buf, size_t cap, uint32_t type, ...);
size_t spool_vpack(void *buf, size_t cap, uint32_t type, va_list ap);

/* Unpack payload p[0..len) by its type's format.  0, or -1 when malformed. */
int spool_unpack(uint32_t type, const void *p, size_t len, struct spool_field *out);

/*
 * Nonzero when event times can be read from the CPU's timestamp counter:
 * x86-64 and the kernel keeps CLOCK_MONOTONIC with it (clock source "tsc",
 * so the counter is invariant and the same on every core).  Reads sysfs.
 */
int spool_tsc_usable(void);

/*
 * The spool's size cap when none is given: 8 GiB, or a quarter of the space
 * free on the filesystem of 'path' (a directory or a file on it) now,
 * whichever is smaller; at least 1 MiB.  0 when that space cannot be read.
 */
int64_t spool_default_max(const char *path);

/* A size like "512M", "8G", "1.5GiB" or "1000000" (bytes) into *bytes.  0, or -1 when malformed. */
int spool_parse_size(const char *text, int64_t *bytes);

/* The size in KiB, MiB or GiB, as a person would write it ("1 MiB", "8 GiB", "2.5 GiB"). */
void spool_size_text(int64_t bytes, char *buf, size_t n);

/*
 * Why the spool stopped growing (enum ring_stop, db/spool/ring.h), as the status
 * detail of the run: 'stop', the errno of a failed write, the cap and the
 * events written before.  Empty for RING_GOING.
 */
void spool_stop_text(int stop, int err, int64_t max, uint64_t events, char *buf, size_t n);

/*
 * The end of the last whole frame of the spool open at fd (of 'size' bytes):
 * where a frame cut short by a full disk or a kill begins, or 'size'.
 */
int64_t spool_whole_end(int fd, int64_t size);

/*
 * This boot's id (/proc/sys/kernel/random/boot_id) into buf: 0, or -1 when
 * it cannot be read.  A (ticks, ns) pair is of use only on the machine, and
 * the boot, that read it (MAPPROF_CLOCK_BASE).
 */
int spool_boot_id(char *buf, size_t n);

/* The timestamp counter and CLOCK_MONOTONIC (ns) read together, for a CLOCK frame. */
void spool_clock_pair(int64_t *ticks, int64_t *ns);

#endif
