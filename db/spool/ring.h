/*
 * ring.h - event buffers shared between the program and 'mapprof record'.
 *
 * Under 'mapprof record' the collector's per-thread event buffers are chunks
 * of a ring in shared memory (a memfd that 'record' creates and the program
 * inherits, MAPPROF_RING_FD).  A thread fills its chunk, marks it full and
 * takes a free one: no system call.  'record', idle while the program runs,
 * appends full chunks to the spool on its own core and frees them.  The
 * program never pays for the kernel copying its records into the page cache,
 * and when it is killed, 'record' still finds each thread's last records in
 * the ring.
 *
 * A chunk's state moves FREE -> OWNED (a thread claimed it) -> FULL (the
 * thread is done with it) -> DRAINING (record writes it) -> FREE.  When no
 * chunk is free the thread writes its own chunk to the spool and keeps it,
 * as without a ring: nothing is lost and nothing waits.
 *
 * Both writers of the spool (record's drain and the collector, when no chunk
 * is free) account for it in the header: the bytes written against the cap
 * 'record' set (--max-spool), the events written, and why writing stopped.
 * Whoever stops it first (the cap, a failed write, the recorder gone) sets
 * 'stop' once; the other side sees it at its next chunk and stops too.
 * Loaded by hand, the collector keeps the same accounting in a header of its
 * own.
 *
 * Every other process of the command (collector/procs.h) has a ring of its
 * own, a file in the spool directory mapped shared, that nobody drains
 * while it runs (RING_SELF_WRITTEN): only its memory outliving the process
 * matters, so 'record' finds what a killed process's buffers held.  Its
 * header also says how the process ended (enum ring_end).
 *
 * Layout: struct ring_header, then nchunks struct ring_chunk.  The chunk's
 * frame header sits right before its records, so a chunk is written to the
 * spool with one write().
 */
#ifndef MAPPROF_DB_RING_H
#define MAPPROF_DB_RING_H

#include <fcntl.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "db/spool/spool.h"

/*
 * 8 bytes with its NUL.  Changed with the protocol: a collector of another
 * version is refused (2: ring_header.taken, which an older collector never
 * raises and a drain would then read as no chunk taken).
 */
#define RING_MAGIC "MPRING2"
#define RING_CHUNK_RECS 1024
#define RING_CHUNKS_DEFAULT 64  /* 6 MiB: 65536 events in flight */
/*
 * The chunks a thread takes first (the lowest free one: while record keeps
 * up, these few go round): record faults them in as the program starts and
 * the collector maps them in as it claims the ring, so that the program's
 * threads do not take a page fault every ~40 events (each a trip to the
 * hypervisor on a VM).
 */
#define RING_WARM_CHUNKS 4
#define RING_CHUNKS_CHILD 256   /* a ring file of another process: one chunk a thread (sparse: disk blocks as threads take chunks) */

enum ring_state {
	RING_FREE = 0,
	RING_OWNED,
	RING_FULL,
	RING_DRAINING,
};

/* Why the spool stopped growing (ring_header.stop). */
enum ring_stop {
	RING_GOING = 0,
	RING_STOP_CAP,           /* the spool reached spool_max */
	RING_STOP_WRITE,         /* a write failed (stop_errno: ENOSPC when the disk filled up) */
	RING_STOP_GONE,          /* 'mapprof record' died while the program ran */
	RING_STOP_LOST,          /* the program closed the spool's descriptor and it cannot be reopened */
};

/*
 * How the process that owns the ring ended, as far as its collector could
 * tell (ring_header.ended): what 'mapprof record' cannot learn when another
 * process reaps it.
 */
enum ring_end {
	RING_RUNNING = 0,
	RING_ENDED_FINISHED,     /* the collector finished (exit(), or the runtime's end): it writes nothing more */
	RING_ENDED_EXIT,         /* _exit() or _Exit(): exit_status holds its status */
	RING_ENDED_EXEC,         /* it replaced its program (exec): the ring is left for good */
};

/* ring_header.flags */
#define RING_SELF_WRITTEN 1u  /* nobody drains FULL chunks while the owner runs: its threads write their own */

struct ring_header {
	char magic[8];
	uint32_t nchunks;
	uint32_t chunk_size;         /* sizeof(struct ring_chunk) of the creator */
	_Atomic int64_t owner;       /* pid of the process that records into it; 0: none yet */
	int64_t recorder;            /* pid of 'mapprof record' (for messages) */
	int64_t spool_max;           /* bytes the spool may take; 0: no cap */
	_Atomic int64_t spool_bytes; /* bytes written to the spool so far, by either side */
	_Atomic uint64_t spool_events; /* events written to the spool so far */
	_Atomic int32_t stop;        /* enum ring_stop; set once */
	_Atomic int32_t stop_errno;  /* RING_STOP_WRITE: the write's errno */
	_Atomic int32_t said;        /* the collector said why on stderr: record need not */
	_Atomic int32_t ended;       /* enum ring_end */
	int64_t recorder_start;      /* start time of 'mapprof record' (ring_proc_start()) */
	int64_t owner_start;         /* start time of the owner, once it claimed the ring */
	_Atomic int32_t exit_status; /* RING_ENDED_EXIT: the status it gave */
	uint32_t flags;              /* RING_SELF_WRITTEN */
	/*
	 * A ring file: chunks [0, backed) have disk blocks behind them
	 * (fallocate), so storing into them cannot raise SIGBUS on a full
	 * disk; a thread takes no chunk past it.  0 for the memfd ring (memory).
	 */
	_Atomic uint32_t backed;
	/*
	 * Bumped, then woken (a futex: the ring is shared memory), whenever
	 * 'ended' changes, and by 'mapprof record' to stop waiting for it
	 * (cli/drain.c drain_wait_finished()).
	 */
	_Atomic uint32_t wake;
	/*
	 * Chunks [0, taken) were taken at least once (collector/buffer.c
	 * ring_take(), before any record goes in): a drain pass looks at no
	 * other.  A pass over all of them faulted every chunk's first page
	 * into 'mapprof record' (64 page faults a recording, 8-16 us each on
	 * a virtual machine) where a short run takes one or two.
	 */
	_Atomic uint32_t taken;
	/*
	 * 1 while 'mapprof record' sleeps long (nothing came for a while) and
	 * wants a word once a chunk is full; the collector that takes the 1
	 * (an exchange) sends a byte on record's socket (MAPPROF_LIVE_FD).
	 * Record looks at the chunks once more after setting it, so that a
	 * chunk filled meanwhile is seen by one side or the other.
	 */
	_Atomic uint32_t drain_sleep;
	/*
	 * Offload calls the program made after the collector finished while it
	 * was not ending (the runtime finalized the tool, as
	 * omp_pause_resource_all(omp_pause_hard) does, and restarted without
	 * it): their events reach no tool.
	 */
	_Atomic uint64_t calls_late;
	/*
	 * 1 while the ring's owner can send that byte (its collector holds
	 * record's socket): only then does record sleep long (drain_sleep).
	 */
	_Atomic uint32_t wakes;
	char pad2[4];
};

struct ring_chunk {
	_Atomic uint32_t state;      /* enum ring_state */
	_Atomic uint32_t n;          /* records filled */
	/*
	 * Nonzero while the chunk is being appended to the spool: the spool's
	 * size before that write.  A process killed after the write and before
	 * n went back to 0 leaves its frame in the spool: whoever drains the
	 * chunk later looks for that very frame from there on and does not
	 * append it twice (drain.c).
	 */
	_Atomic int64_t write_from;
	alignas(8) struct spool_frame frame;
	struct rec recs[RING_CHUNK_RECS];
};
_Static_assert(sizeof(struct ring_header) == 128, "the chunks start at byte 128");
_Static_assert(offsetof(struct ring_chunk, recs) ==
		       offsetof(struct ring_chunk, frame) + sizeof(struct spool_frame),
	       "records must follow the frame header");

/* Stop writing, for 'why' (the first reason stands).  Nonzero when this call set it. */
static inline int ring_set_stop(struct ring_header *h, int32_t why, int32_t err)
{
	int32_t going = RING_GOING;
	if (!atomic_compare_exchange_strong(&h->stop, &going, why))
		return 0;
	atomic_store(&h->stop_errno, err);
	return 1;
}

/*
 * Before appending n bytes holding 'events' events: 0 to write them, -1 when
 * the spool has stopped, or when they would take it past its cap (which
 * stops it).  Frames without events (events 0) are not held to the cap: the
 * few small frames that say how the run ended still go out.
 */
static inline int ring_reserve(struct ring_header *h, size_t n, uint64_t events)
{
	int32_t stop = atomic_load_explicit(&h->stop, memory_order_relaxed);
	int64_t was;

	if (stop == RING_STOP_WRITE || stop == RING_STOP_GONE || stop == RING_STOP_LOST ||
	    (events && stop == RING_STOP_CAP))
		return -1;
	was = atomic_fetch_add(&h->spool_bytes, (int64_t)n);
	if (events && h->spool_max && was + (int64_t)n > h->spool_max) {
		atomic_fetch_sub(&h->spool_bytes, (int64_t)n);
		ring_set_stop(h, RING_STOP_CAP, 0);
		return -1;
	}
	atomic_fetch_add(&h->spool_events, events);
	return 0;
}

static inline size_t ring_bytes(uint32_t nchunks)
{
	return sizeof(struct ring_header) + (size_t)nchunks * sizeof(struct ring_chunk);
}

/* The header and the RING_WARM_CHUNKS first chunks of h: what record and the collector fault in. */
static inline size_t ring_warm_bytes(const struct ring_header *h)
{
	return ring_bytes(h->nchunks < RING_WARM_CHUNKS ? h->nchunks : RING_WARM_CHUNKS);
}

static inline struct ring_chunk *ring_chunk_at(struct ring_header *h, uint32_t i)
{
	return (struct ring_chunk *)(void *)((char *)h + sizeof(*h)) + i;
}

/*
 * When process 'pid' started (clock ticks since boot, /proc/PID/stat field
 * 22), or -1 when it does not exist.  A pid and its start time name one
 * process for good: a pid reused later has another start time.  The same
 * definition on both sides, so the collector can tell whether 'record' is
 * alive and 'record' whether a process that recorded still runs.
 */
static inline int64_t ring_proc_start(long pid)
{
	char path[64], buf[1024], *p;
	long long start = -1;
	ssize_t n;
	int fd, field = 2;

	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	/* The command name may hold spaces and parentheses: fields count from its last ')'. */
	p = strrchr(buf, ')');
	for (; p && *p && field < 22; p++)
		if (*p == ' ')
			field++;
	if (p && field == 22 && sscanf(p, "%lld", &start) != 1)
		start = -1;
	return start;
}

#endif
