/*
 * drain.c - 'mapprof record's side of the ring (db/spool/ring.h).
 *
 * Before the program starts, record creates the spool and the ring and lets
 * the program inherit both.  While the program runs, record waits for it
 * and, every few milliseconds while chunks fill (every 250 ms once they
 * stop, woken by the collector), appends the ring's full chunks to the spool
 * and frees them: the kernel's copy of the records happens here, on another
 * core, not in the program.  Once the program has ended, whatever is left in
 * the ring is written too, including the partly filled chunks of a program
 * that was killed.
 *
 * Record also holds one end of a socket pair whose other end the program
 * inherits (MAPPROF_LIVE_FD): when record dies, the collector reads end of
 * file there and stops recording; the other way, the collector sends a
 * byte once a chunk is full while record sleeps long (drain_wait()).
 * Record writes nothing to it.  It stays open until every process of the
 * command is done, not only the first (a daemon outlives it); a process
 * that lost the socket looks at record's pid and start time instead
 * (MAPPROF_RECORDER).  The other processes' rings are files in the spool
 * directory; once such a process is gone, drain_ring_file() appends what
 * its buffers still held to its spool.  The spool is held to its cap here as in
 * the collector (the ring header's accounting), and once the program has
 * ended a spool that stopped early is cut back to its last whole frame and
 * told why (a STATUS frame), so that the database, or 'mapprof recover',
 * says it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdatomic.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli/drain.h"
#include "db/spool/ring.h"
#include "db/spool/spool.h"
#include "lib/huge.h"

/* Polling interval while the program runs, adapted to how fast chunks fill. */
#define POLL_MIN_MS 1
#define POLL_BUSY_MS 4   /* the longest while chunks come: 64 fill in ~35 ms at 1.8 M events a second */
#define POLL_MAX_MS 16
/*
 * Once nothing came for a while and the collector can say when a chunk
 * is full (ring_header.wakes): a look every POLL_SLEEP_MS only.  A look
 * every 16 ms was ~60 wake-ups a second, ~4 ms of CPU a second of the
 * program on the 2-core VM, taken from the program's threads.
 */
#define POLL_SLEEP_MS 250

/* A chunk to write, by the sequence number of its first event. */
struct chunk_order {
	uint64_t seq;
	uint32_t i;
};

struct drain {
	struct chunk_order *order;   /* nchunks entries, for drain_pass() */
	int spool_fd;
	int ring_fd;
	struct ring_header *ring;
	size_t ring_size;
	int live[2];                 /* a socket pair: the program holds live[0], record live[1] */
	uint64_t chunks;             /* chunks written by us */
	/*
	 * The passes over the ring: record's main thread drains while the
	 * program runs, and drain_final() may run on another thread as soon as
	 * the program's collector finished (drain_wait_finished()).
	 */
	pthread_mutex_t pass_mu;
	int finaled;                 /* drain_final() ran: no pass after it */
	atomic_int unblocked;        /* drain_unblock(): drain_wait_finished() returns 0 */
	char live_env[64];           /* MAPPROF_LIVE_FD */
	char recorder_env[160];       /* MAPPROF_RECORDER */
	void (*on_written)(void *, uint64_t);  /* drain_on_written() */
	void *on_written_arg;
};

static int write_all(int fd, const void *p, size_t n)
{
	while (n) {
		ssize_t k = write(fd, p, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		p = (const char *)p + k;
		n -= (size_t)k;
	}
	return 0;
}

struct drain *drain_open(const char *spool_path, unsigned nchunks, int64_t spool_max, char **err)
{
	struct drain *d = calloc(1, sizeof(*d));

	if (!d) {
		*err = strdup("out of memory");
		return NULL;
	}
	d->ring_fd = -1;
	pthread_mutex_init(&d->pass_mu, NULL);
	atomic_init(&d->unblocked, 0);
	d->order = calloc(nchunks ? nchunks : 1, sizeof(*d->order));
	if (!d->order) {
		*err = strdup("out of memory");
		free(d);
		return NULL;
	}
	/* Only live[0] goes to the program: its end of file there means record is gone. */
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, d->live) < 0 || fcntl(d->live[0], F_SETFD, 0) < 0) {
		if (asprintf(err, "cannot create a socket pair: %s", strerror(errno)) < 0)
			*err = NULL;
		free(d->order);
		free(d);
		return NULL;
	}
	/*
	 * Inherited by the program (no O_CLOEXEC); appends, so its writes and
	 * ours never overlap.  Readable: a spool that stopped early is read
	 * back to find its last whole frame.
	 */
	d->spool_fd = open(spool_path, O_RDWR | O_CREAT | O_EXCL | O_APPEND, 0644);
	if (d->spool_fd < 0) {
		if (asprintf(err, "cannot create '%s': %s", spool_path, strerror(errno)) < 0)
			*err = NULL;
		close(d->live[0]);
		close(d->live[1]);
		free(d->order);
		free(d);
		return NULL;
	}
	/*
	 * The spool's header, written here rather than in the program; its pid
	 * stays 0 (the ring's owner says who records).  A spool that ends
	 * after its header was never claimed.
	 */
	struct spool_header h = { SPOOL_MAGIC, SPOOL_VERSION, sizeof(struct rec), 0 };
	if (write_all(d->spool_fd, &h, sizeof(h)) < 0) {
		if (asprintf(err, "cannot write '%s': %s", spool_path, strerror(errno)) < 0)
			*err = NULL;
		close(d->spool_fd);
		unlink(spool_path);
		close(d->live[0]);
		close(d->live[1]);
		free(d->order);
		free(d);
		return NULL;
	}
	/* Even without chunks (nchunks 0) the ring's header says who records. */
	d->ring_size = ring_bytes(nchunks);
	d->ring_fd = (int)syscall(SYS_memfd_create, "mapprof-ring", 0);
	if (d->ring_fd < 0 || ftruncate(d->ring_fd, (off_t)d->ring_size) < 0 ||
	    (d->ring = mmap(NULL, d->ring_size, PROT_READ | PROT_WRITE, MAP_SHARED, d->ring_fd, 0)) ==
		    MAP_FAILED) {
		if (asprintf(err, "cannot create the shared event buffers: %s", strerror(errno)) < 0)
			*err = NULL;
		if (d->ring_fd >= 0)
			close(d->ring_fd);
		close(d->spool_fd);
		unlink(spool_path);
		close(d->live[0]);
		close(d->live[1]);
		free(d->order);
		free(d);
		return NULL;
	}
	memcpy(d->ring->magic, RING_MAGIC, sizeof(d->ring->magic));
	d->ring->nchunks = nchunks;
	d->ring->chunk_size = sizeof(struct ring_chunk);
	d->ring->recorder = (int64_t)getpid();
	d->ring->recorder_start = ring_proc_start((long)getpid());
	d->ring->spool_max = spool_max;
	atomic_store(&d->ring->spool_bytes, (int64_t)sizeof(h));
	{
		struct stat st;
		snprintf(d->live_env, sizeof(d->live_env), "%d:%llu", d->live[0],
			 fstat(d->live[0], &st) == 0 ? (unsigned long long)st.st_ino : 0ULL);
		char boot[64] = "";
		/*
		 * With our pid namespace and boot: a process in another one, or
		 * on another host, cannot look our pid up (output.c).
		 */
		if (spool_boot_id(boot, sizeof(boot)) < 0)
			boot[0] = 0;
		snprintf(d->recorder_env, sizeof(d->recorder_env), "%ld:%lld:%ld:%s", (long)getpid(),
			 (long long)d->ring->recorder_start,
			 stat("/proc/self/ns/pid", &st) == 0 ? (long)st.st_ino : 0L, boot);
	}
	return d;
}

const char *drain_live_env(const struct drain *d)
{
	return d->live_env;
}

const char *drain_recorder_env(const struct drain *d)
{
	return d->recorder_env;
}

int drain_ended(const struct drain *d, int *status)
{
	*status = atomic_load(&d->ring->exit_status);
	return atomic_load(&d->ring->ended);
}

int64_t drain_calls_late(const struct drain *d)
{
	return atomic_load(&d->ring->calls_late);
}

int drain_live_fd(const struct drain *d)
{
	return d->live[0];
}

void drain_started(struct drain *d)
{
	if (d->live[0] >= 0)
		close(d->live[0]);
	d->live[0] = -1;
	/* While the program starts (it claims the ring much later): the header and the first chunks. */
	if (d->ring)
		huge_populate(d->ring, ring_warm_bytes(d->ring));
}

int drain_spool_fd(const struct drain *d)
{
	return d->spool_fd;
}

int drain_ring_fd(const struct drain *d)
{
	return d->ring_fd;
}

/*
 * Nonzero when the spool at fd holds the frame p[0..n) at a frame boundary
 * from byte 'from' on: a chunk its writer appended and was killed before it
 * could say so (ring_chunk.write_from).
 */
static int spool_holds(int fd, int64_t from, const void *p, size_t n)
{
	struct stat st;
	struct spool_frame fr;
	unsigned char *buf;
	int64_t off = from;
	int found = 0;

	if (from < (int64_t)sizeof(struct spool_header) || fstat(fd, &st) < 0 || !(buf = malloc(n)))
		return 0;
	while (!found && off + (int64_t)sizeof(fr) <= (int64_t)st.st_size &&
	       pread(fd, &fr, sizeof(fr), off) == (ssize_t)sizeof(fr)) {
		if (sizeof(fr) + (size_t)fr.len == n && fr.type == SPOOL_RECORDS &&
		    pread(fd, buf, n, off) == (ssize_t)n && !memcmp(buf, p, n))
			found = 1;
		off += (int64_t)sizeof(fr) + fr.len;
	}
	free(buf);
	return found;
}

/*
 * Append chunk c's n records (c is the ring's, or a copy of a ring file's)
 * unless its writer already did: written_from is where its write began.
 */
static void put_records(struct drain *d, struct ring_chunk *c, uint32_t n, int64_t write_from)
{
	if (n > RING_CHUNK_RECS)
		n = RING_CHUNK_RECS;
	c->frame.type = SPOOL_RECORDS;
	c->frame.len = (uint32_t)(n * sizeof(struct rec));
	if (n && write_from && spool_holds(d->spool_fd, write_from, &c->frame, sizeof(c->frame) + c->frame.len))
		return;
	/* Past the cap, or once the spool stopped, the chunk is dropped. */
	if (n && ring_reserve(d->ring, sizeof(c->frame) + c->frame.len, n) == 0) {
		if (write_all(d->spool_fd, &c->frame, sizeof(c->frame) + c->frame.len) < 0) {
			ring_set_stop(d->ring, RING_STOP_WRITE, errno ? errno : EIO);
			atomic_fetch_sub(&d->ring->spool_events, n);  /* not whole in the spool */
		} else
			d->chunks++;
	}
}

/* Chunk c (DRAINING, written or dropped) back to the collector. */
static void release(struct ring_chunk *c)
{
	atomic_store_explicit(&c->n, 0, memory_order_relaxed);
	atomic_store_explicit(&c->write_from, 0, memory_order_relaxed);
	atomic_store_explicit(&c->state, RING_FREE, memory_order_release);
}

/* Write chunk c (in state DRAINING) to the spool and free it. */
static void put(struct drain *d, struct ring_chunk *c)
{
	put_records(d, c, atomic_load_explicit(&c->n, memory_order_acquire),
		    atomic_load_explicit(&c->write_from, memory_order_acquire));
	release(c);
}

/*
 * The chunks of one pass go out in one writev() (or a few): a system call
 * costs ~2.5 us in a VM, and a launch-heavy program fills ~1,800 chunks a
 * second.  Each chunk stays DRAINING (the collector does not reuse it)
 * until its bytes are written.
 */
#define BATCH_MAX 64

struct batch {
	struct iovec iov[BATCH_MAX];
	uint32_t events[BATCH_MAX];
	struct ring_chunk *c[BATCH_MAX];
	int n;
};

/* The batch written in order and its chunks freed; as put_records() when a write fails. */
static void batch_flush(struct drain *d, struct batch *b)
{
	int i = 0;

	while (i < b->n) {
		ssize_t k = writev(d->spool_fd, b->iov + i, b->n - i);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0) {
			ring_set_stop(d->ring, RING_STOP_WRITE, errno ? errno : EIO);
			/* From the chunk cut short on: not whole in the spool. */
			for (int j = i; j < b->n; j++)
				atomic_fetch_sub(&d->ring->spool_events, b->events[j]);
			break;
		}
		while (k > 0) {
			if ((size_t)k >= b->iov[i].iov_len) {
				k -= (ssize_t)b->iov[i].iov_len;
				d->chunks++;
				i++;
			} else {
				b->iov[i].iov_base = (char *)b->iov[i].iov_base + k;
				b->iov[i].iov_len -= (size_t)k;
				k = 0;
			}
		}
	}
	for (int j = 0; j < b->n; j++)
		release(b->c[j]);
	b->n = 0;
}

/* Chunk c (DRAINING) into the batch, or written at once when its writer began it (put()). */
static void batch_put(struct drain *d, struct batch *b, struct ring_chunk *c)
{
	uint32_t n = atomic_load_explicit(&c->n, memory_order_acquire);

	if (atomic_load_explicit(&c->write_from, memory_order_acquire)) {
		/* spool_holds() reads the spool: what came before is in it. */
		batch_flush(d, b);
		put(d, c);
		return;
	}
	if (n > RING_CHUNK_RECS)
		n = RING_CHUNK_RECS;
	c->frame.type = SPOOL_RECORDS;
	c->frame.len = (uint32_t)(n * sizeof(struct rec));
	/* Past the cap, or once the spool stopped, the chunk is dropped. */
	if (!n || ring_reserve(d->ring, sizeof(c->frame) + c->frame.len, n) < 0) {
		release(c);
		return;
	}
	b->iov[b->n] = (struct iovec){ &c->frame, sizeof(c->frame) + c->frame.len };
	b->events[b->n] = n;
	b->c[b->n++] = c;
	if (b->n == BATCH_MAX)
		batch_flush(d, b);
}

static int by_first_seq(const void *a, const void *b)
{
	const struct chunk_order *x = a, *y = b;
	return x->seq < y->seq ? -1 : x->seq > y->seq ? 1 : (x->i > y->i) - (x->i < y->i);
}

/*
 * Write the full chunks; at the end (the program is gone) also the chunks
 * threads were still filling.  Returns how many were written.  They go in
 * the order of their first event, not of their place in the ring (which
 * wraps): a thread's events then reach the spool in the order it recorded
 * them, and the expansion pairs deletes as it reads them (db/ingest/finish.c)
 * instead of sorting the whole table.
 */
static unsigned drain_pass_locked(struct drain *d, int final)
{
	unsigned n = 0;
	/* Only chunks taken at least once can hold records (ring_header.taken). */
	uint32_t upto = atomic_load_explicit(&d->ring->taken, memory_order_acquire);

	if (upto > d->ring->nchunks)
		upto = d->ring->nchunks;
	for (uint32_t i = 0; i < upto; i++) {
		struct ring_chunk *c = ring_chunk_at(d->ring, i);
		uint32_t st = atomic_load_explicit(&c->state, memory_order_acquire);
		if (st == RING_FULL || (final && st == RING_OWNED)) {
			atomic_store_explicit(&c->state, RING_DRAINING, memory_order_relaxed);
			d->order[n].seq = atomic_load_explicit(&c->n, memory_order_relaxed) ? c->recs[0].seq : 0;
			d->order[n++].i = i;
		}
	}
	if (n > 1)
		qsort(d->order, n, sizeof(d->order[0]), by_first_seq);
	struct batch b;
	b.n = 0;
	for (unsigned k = 0; k < n; k++)
		batch_put(d, &b, ring_chunk_at(d->ring, d->order[k].i));
	batch_flush(d, &b);
	return n;
}

/* A pass while the program runs; none once drain_final() ran. */
static unsigned drain_pass(struct drain *d)
{
	unsigned n = 0;

	pthread_mutex_lock(&d->pass_mu);
	if (!d->finaled)
		n = drain_pass_locked(d, 0);
	pthread_mutex_unlock(&d->pass_mu);
	return n;
}

int drain_wait_finished(struct drain *d)
{
	for (;;) {
		/* Read before the checks: a change after them makes the wait return at once. */
		uint32_t w = atomic_load(&d->ring->wake);
		if (atomic_load(&d->ring->ended) == RING_ENDED_FINISHED)
			return 1;
		if (atomic_load(&d->unblocked))
			return 0;
		syscall(SYS_futex, &d->ring->wake, FUTEX_WAIT, w, NULL, NULL, 0);
	}
}

void drain_unblock(struct drain *d)
{
	atomic_store(&d->unblocked, 1);
	atomic_fetch_add(&d->ring->wake, 1);
	syscall(SYS_futex, &d->ring->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

/* The collector's bytes read (only that they came matters); 0, or -1 once its end is closed. */
static int take_wakes(struct drain *d)
{
	char buf[64];

	for (;;) {
		ssize_t k = recv(d->live[1], buf, sizeof(buf), MSG_DONTWAIT);
		if (k > 0)
			continue;
		if (k < 0 && errno == EINTR)
			continue;
		return k < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? 0 : -1;
	}
}

void drain_on_written(struct drain *d, void (*fn)(void *, uint64_t), void *arg)
{
	d->on_written = fn;
	d->on_written_arg = arg;
}

int drain_wait(struct drain *d, pid_t pid, int *wstatus, struct rusage *ru)
{
	int pidfd = d->ring->nchunks ? (int)syscall(SYS_pidfd_open, pid, 0) : -1;
	int timeout = POLL_MAX_MS;  /* a short run ends before the first look */
	int nfds = 2;               /* the collector's socket too, until its end is closed */

	if (pidfd >= 0) {
		for (;;) {
			struct pollfd pfd[2] = { { pidfd, POLLIN, 0 }, { d->live[1], POLLIN, 0 } };
			int rc = poll(pfd, (nfds_t)nfds, timeout);
			if (rc > 0 && pfd[0].revents)
				break;  /* the program has ended */
			if (rc < 0 && errno != EINTR)
				break;
			/* Awake now, whichever woke us (the collector took the 1 already, or no chunk filled). */
			atomic_store(&d->ring->drain_sleep, 0);
			if (nfds == 2 && pfd[1].revents && take_wakes(d) < 0)
				nfds = 1;   /* every process closed its end: no more words */
			/*
			 * Busy ring: look again soon; quiet: less often.  A pass
			 * that found a quarter of the ring full comes sooner; one
			 * that found only a few, later (up to POLL_BUSY_MS): ~1/8
			 * of the ring a pass, not one chunk a wake-up.
			 */
			unsigned n = drain_pass(d), nchunks = d->ring->nchunks;
			if (!n && timeout >= POLL_MAX_MS && nfds == 2 &&
			    (!atomic_load(&d->ring->owner) || atomic_load(&d->ring->wakes))) {
				/*
				 * Quiet for a while: sleep long, while no collector
				 * claimed the ring (it says when it does) or the one
				 * that did can wake us.  The chunks looked at again
				 * after the word is out: one filled before the
				 * collector could see it is written now.
				 */
				atomic_store(&d->ring->drain_sleep, 1);
				atomic_thread_fence(memory_order_seq_cst);
				n = drain_pass(d);
				if (n)
					timeout = POLL_BUSY_MS;
				else if (atomic_load(&d->ring->owner) && !atomic_load(&d->ring->wakes))
					timeout = POLL_MAX_MS;   /* claimed meanwhile by one that cannot wake us */
				else
					timeout = POLL_SLEEP_MS;
			} else if (n && 4 * n >= nchunks)
				timeout = POLL_MIN_MS;
			else if (n && 16 * n >= nchunks)
				timeout = timeout > POLL_BUSY_MS ? POLL_BUSY_MS : timeout;
			else if (n)
				timeout = 2 * timeout > POLL_BUSY_MS ? POLL_BUSY_MS : 2 * timeout;
			else if (timeout < POLL_MAX_MS)
				timeout *= 2;
			if (n && d->on_written)
				d->on_written(d->on_written_arg, d->chunks);
		}
		atomic_store(&d->ring->drain_sleep, 0);
		close(pidfd);
	}
	/* Without pidfd_open (Linux < 5.3) the collector writes whatever does not fit. */
	for (;;) {
		pid_t r = wait4(pid, wstatus, 0, ru);
		if (r >= 0 || errno != EINTR)
			return r < 0 ? -1 : 0;
	}
}

/* Append a small frame (no events) when the spool takes it. */
static void put_frame(struct drain *d, const void *buf, size_t n)
{
	if (ring_reserve(d->ring, n, 0) == 0 && write_all(d->spool_fd, buf, n) < 0)
		ring_set_stop(d->ring, RING_STOP_WRITE, errno ? errno : EIO);
}

/*
 * The spool stopped early: cut it back to its last whole frame (a write cut
 * short by a full disk leaves half a frame) and append why, as a STATUS
 * frame: the database built from it, now or by 'mapprof recover', says so.
 * Cutting it back frees the room the frame needs.
 */
static void tell_why(struct drain *d)
{
	char why[512];
	unsigned char buf[1024];
	struct stat st;
	int64_t whole;
	size_t n;

	spool_stop_text(atomic_load(&d->ring->stop), atomic_load(&d->ring->stop_errno), d->ring->spool_max,
			atomic_load(&d->ring->spool_events), why, sizeof(why));
	if (fstat(d->spool_fd, &st) < 0)
		return;
	whole = spool_whole_end(d->spool_fd, (int64_t)st.st_size);
	if (whole < (int64_t)st.st_size && ftruncate(d->spool_fd, (off_t)whole) < 0)
		return;
	n = spool_pack(buf, sizeof(buf), SPOOL_STATUS, "incomplete", why);
	if (n <= sizeof(buf) && write_all(d->spool_fd, buf, n) < 0 && ftruncate(d->spool_fd, (off_t)whole) < 0)
		return;
}

void drain_final(struct drain *d, int clock_frame)
{
	pthread_mutex_lock(&d->pass_mu);
	if (d->finaled) {
		pthread_mutex_unlock(&d->pass_mu);
		return;
	}
	d->finaled = 1;
	drain_pass_locked(d, 1);
	/*
	 * A last CLOCK frame: the collector writes one when it starts and one
	 * when it finishes, but a killed program never finishes.
	 */
	if (clock_frame && atomic_load(&d->ring->owner)) {
		unsigned char buf[64];
		int64_t ticks, ns;
		size_t n;
		spool_clock_pair(&ticks, &ns);
		n = spool_pack(buf, sizeof(buf), SPOOL_CLOCK, ticks, ns);
		if (n <= sizeof(buf))
			put_frame(d, buf, n);
	}
	if (atomic_load(&d->ring->stop))
		tell_why(d);
	pthread_mutex_unlock(&d->pass_mu);
}

int drain_stop_said(const struct drain *d)
{
	return atomic_load(&d->ring->said);
}

char *drain_stop_text(const struct drain *d)
{
	char why[512];

	if (!atomic_load(&d->ring->stop))
		return NULL;
	spool_stop_text(atomic_load(&d->ring->stop), atomic_load(&d->ring->stop_errno), d->ring->spool_max,
			atomic_load(&d->ring->spool_events), why, sizeof(why));
	return strdup(why);
}

void drain_close(struct drain *d)
{
	if (!d)
		return;
	if (d->live[0] >= 0)
		close(d->live[0]);
	close(d->live[1]);
	munmap(d->ring, d->ring_size);
	close(d->ring_fd);
	close(d->spool_fd);
	free(d->order);
	pthread_mutex_destroy(&d->pass_mu);
	free(d);
}

/*
 * Read the header of the ring file open at fd into *h: 0, or -1 when it is
 * not a ring.  A ring file is read, never mapped: a page of it without disk
 * blocks (a full disk) would raise SIGBUS here.
 */
static int ring_file_header(int fd, struct ring_header *h)
{
	struct stat st;

	if (fstat(fd, &st) < 0 || (size_t)st.st_size < sizeof(*h) ||
	    pread(fd, h, sizeof(*h), 0) != (ssize_t)sizeof(*h))
		return -1;
	if (memcmp(h->magic, RING_MAGIC, sizeof(h->magic)) || h->chunk_size != sizeof(struct ring_chunk) ||
	    ring_bytes(h->nchunks) != (size_t)st.st_size)
		return -1;
	return 0;
}

int drain_ring_info(const char *ring_path, struct ring_file_info *out)
{
	struct ring_header h;
	struct stat st;
	int fd = open(ring_path, O_RDONLY | O_CLOEXEC), rc = -1;

	memset(out, 0, sizeof(*out));
	if (fd < 0)
		return -1;
	if (ring_file_header(fd, &h) == 0 && fstat(fd, &st) == 0) {
		out->pid = (long)atomic_load(&h.owner);
		out->start = h.owner_start;
		out->ended = atomic_load(&h.ended);
		out->exit_status = atomic_load(&h.exit_status);
		out->calls_late = atomic_load(&h.calls_late);
		out->dev = st.st_dev;
		out->ino = st.st_ino;
		rc = 0;
	}
	close(fd);
	return rc;
}

int drain_ring_file(const char *ring_path, const char *spool_path, char **err)
{
	struct ring_header h;
	struct drain d = { .spool_fd = -1, .ring_fd = -1, .live = { -1, -1 }, .ring = &h };
	struct ring_chunk *c = NULL;
	struct stat st;
	int64_t whole;
	int fd = open(ring_path, O_RDONLY | O_CLOEXEC), rc = -1;

	if (fd < 0)
		return 0;
	if (ring_file_header(fd, &h) < 0) {
		/* Made but never whole (the process died as it made it): nothing in it. */
		close(fd);
		unlink(ring_path);
		return 0;
	}
	d.spool_fd = open(spool_path, O_RDWR | O_APPEND | O_CLOEXEC);
	if (d.spool_fd < 0 || fstat(d.spool_fd, &st) < 0) {
		if (asprintf(err, "cannot open '%s': %s", spool_path, strerror(errno)) < 0)
			*err = NULL;
		goto out;
	}
	/* A write the process's end cut short: the records go after its last whole frame. */
	whole = spool_whole_end(d.spool_fd, (int64_t)st.st_size);
	if ((whole < (int64_t)st.st_size && ftruncate(d.spool_fd, (off_t)whole) < 0) ||
	    !(c = malloc(sizeof(*c)))) {
		if (asprintf(err, "cannot write '%s': %s", spool_path, c ? strerror(errno) : "out of memory") < 0)
			*err = NULL;
		goto out;
	}
	for (uint32_t i = 0; i < h.nchunks; i++) {
		off_t at = (off_t)ring_bytes(i);
		uint32_t state;
		/* Only the chunks the process took have blocks; the others read as zeros (FREE). */
		if ((h.flags & RING_SELF_WRITTEN) && i >= atomic_load(&h.backed))
			break;
		if (pread(fd, c, offsetof(struct ring_chunk, frame), at) != (ssize_t)offsetof(struct ring_chunk, frame))
			break;
		state = atomic_load(&c->state);
		if ((state != RING_FULL && state != RING_OWNED) || !atomic_load(&c->n))
			continue;
		if (pread(fd, c, sizeof(*c), at) != (ssize_t)sizeof(*c))
			break;
		put_records(&d, c, atomic_load(&c->n), atomic_load(&c->write_from));
	}
	if (atomic_load(&h.stop))
		tell_why(&d);
	unlink(ring_path);
	rc = 0;
out:
	free(c);
	if (d.spool_fd >= 0)
		close(d.spool_fd);
	close(fd);
	return rc;
}
