/*
 * events.h - the read side of the report stage: the recorded events as a
 * stream, and the facts about the run that the report shows.
 *
 * The stream merges data operations and kernels in the one order every
 * detector relies on,  ORDER BY begin_ns, seq  (seq is global and unique, so
 * the order is total), and yields one struct event at a time: memory does not
 * grow with the number of events.  Deletes carry the allocation they free
 * (delete_pair_raw, filled by 'mapprof record') with its size and host
 * address; kernels carry the code pointer of their target construct.
 *
 * Two ways to get that order.  EVENTS_BY_SEQ reads the tables in seq order
 * (no sort: seq is the rowid) through a reorder window of EVENTS_WINDOW
 * events: the collector numbers an operation before it stamps its begin
 * time, so seq order is begin order except across threads, by little.  When
 * an event arrives too late for the window, event_stream_next() returns
 * EVENTS_RESTART and the caller starts again with EVENTS_SORTED, which has
 * SQLite sort (seconds for millions of events, but always right).
 *
 * struct event is the row type of that stream: what the detectors and the
 * totals of report/ consume.  Detectors never see SQLite; they see a stream
 * of these.
 */
#ifndef MAPPROF_DB_EVENTS_H
#define MAPPROF_DB_EVENTS_H

#include <stddef.h>
#include <stdint.h>

enum ev_kind {
	EV_ALLOC,
	EV_TO_DEVICE,
	EV_FROM_DEVICE,
	EV_DELETE,
	EV_ASSOCIATE,
	EV_DISASSOCIATE,
	EV_KERNEL,
	EV_KIND_COUNT
};

/* One recorded event, a row of the stream. */
struct event {
	int64_t seq;          /* global sequence number, unique */
	enum ev_kind kind;
	int thread;
	int src_device;       /* device numbers as the runtime reports them; */
	int dest_device;      /* the host has its own number (run.host_device) */
	uint64_t src_addr;
	uint64_t dest_addr;
	uint64_t bytes;       /* delete: size of the allocation it frees (0 if unknown) */
	int64_t begin_ns;     /* since run start */
	int64_t end_ns;
	int has_hash;         /* transfers whose host side was hashed */
	int first_copy;       /* not read: the analysis sets it (report/findings/cost.h) on a
				 copy into device memory allocated and not written since */
	uint64_t hash;        /* XXH3-64 of the bytes moved */
	uint64_t codeptr;     /* return address in the program, 0 if unknown */
	int64_t target_id;    /* enclosing target construct, 0 if none */
	int has_target_id;    /* target_id is not NULL */
	int attach;           /* the runtime attaching a pointer: 1 + the map entry whose pointer
				 it writes (data_op_raw.map_index -2 - i, lib/map_index.h), else 0 */
	/*
	 * Kernels: device is dest_device; src_* unused.
	 * Alloc: src_addr = host address, dest_addr = device address.
	 * Delete: src_addr = device address, src_device = device; alloc_seq is
	 * the paired allocation (0 if none) and host_addr its host address.
	 */
	int64_t alloc_seq;
	uint64_t host_addr;
};

/* The name used in the database and JSON for a kind ("alloc", "kernel", ...). */
const char *ev_kind_name(enum ev_kind kind);

struct db;
struct event_stream;
struct op_keys;

enum events_mode { EVENTS_BY_SEQ, EVENTS_SORTED };

#define EVENTS_WINDOW 16384
#define EVENTS_RESTART (-2)

/*
 * Start streaming the run's events.  When 'keys' is not NULL, every row of
 * data_op_raw the stream reads (damaged ones too) is also added to it
 * (db/store/locations.h: the attribution keys, gathered in the same pass).  NULL
 * with *err set on error.
 */
struct event_stream *event_stream_open(struct db *db, enum events_mode mode, struct op_keys *keys,
				       char **err);

/*
 * The same, and in seq mode every row read (damaged ones too) is handed to
 * 'rec' as well (db/read/timeline_rows.h: the page timeline's intervals, so that
 * the tables are read once; the caller calls timeline_rec_finish() once
 * event_stream_next() has returned 0).  In sorted mode 'rec' is ignored.
 */
struct timeline_rec;
struct event_stream *event_stream_open_rec(struct db *db, enum events_mode mode, struct op_keys *keys,
					   struct timeline_rec *rec, char **err);

/*
 * Next event into *ev: 1, or 0 at the end, or -1 with *err set, or (only in
 * EVENTS_BY_SEQ mode) EVENTS_RESTART when the order cannot be kept.
 */
int event_stream_next(struct event_stream *s, struct event *ev, char **err);

/* Accepts NULL. */
void event_stream_close(struct event_stream *s);

/*
 * Rows of one table left out of the stream because they break what the
 * schema means (db/read/sound.h, docs/database.md "Damaged rows").  A row can
 * have several reasons; rows counts it once.
 */
struct damaged {
	int64_t rows;
	int64_t null;      /* NULL where a value is needed */
	int64_t kind;      /* unknown op code */
	int64_t device;    /* device number out of range */
	int64_t bytes;     /* negative or implausible size */
	int64_t time;      /* begin or duration out of range, end before begin */
};

/*
 * The damaged rows of data_op_raw and kernel_raw the stream has left out so
 * far: every one of them once event_stream_next() has returned 0.
 */
void event_stream_damaged(const struct event_stream *s, struct damaged *ops,
			  struct damaged *kernels);

/* A row of module_raw (strings owned by the run_info). */
struct run_module {
	char *path;
	uint64_t base;         /* load bias */
	uint64_t low, high;    /* mapped range [low, high) */
};

struct run_device {
	int num;
	char *type;            /* NULL when unknown */
};


/* The run as recorded (run_raw, device_raw, module_raw).  Strings malloc'ed. */
struct run_info {
	char *command;         /* JSON array text of argv, or NULL */
	char *runtime;         /* OpenMP runtime version string, or NULL */
	char *status;          /* 'complete', 'recording', ...; or NULL */
	char *status_detail;   /* why, when status is not 'complete' (or a note); or NULL */
	int has_exit_status;
	int exit_status;
	int exit_signal;       /* 0 when not killed by a signal */
	int64_t duration_ns;   /* collector start to finish; -1 when unknown */
	int has_host_device;
	int host_device;
	int64_t events_lost;
	struct run_module *modules;
	size_t nmodules;
	struct run_device *devices;   /* by number */
	size_t ndevices;
	int64_t damaged_run;  /* run_raw: 1 when its end_ns or host_device is out of range (ignored) */
	int64_t collector_own_ns;  /* the collector's own time on the program's threads (the
				      stats row collector_own_ns); -1 when not recorded */
	int64_t hash_function;     /* the hash column's definition (stats rows hash_function, */
	int64_t hash_chunk_bytes;  /* hash_chunk_bytes; absent: 1 and 1 MiB, docs/database.md) */
};

/*
 * Read the run.  When run_raw.host_device is NULL, the host is taken from
 * the first transfer (its source when it goes to a device, else its
 * destination).  A duration or host device out of range is taken as
 * unknown (damaged_run); the event stream counts the other tables' damaged
 * rows (event_stream_damaged()).  Returns 0, or -1 with *err set.  Release with
 * run_info_release() either way.
 */
int db_read_run(struct db *db, struct run_info *run, char **err);
void run_info_release(struct run_info *run);

#endif
