/*
 * output.c - where the collector's events go: the spool file.
 *
 * Under 'mapprof record' the spool is MAPPROF_SPOOL, which 'record' expands
 * into the database once the program has ended.  Loaded by hand (only
 * MAPPROF_OUTPUT set), the collector spools to "OUTPUT-spool" and, at exit,
 * opens libmapprof-ingest.so (installed beside it) to build the database.
 *
 * Under 'mapprof record' the spool is already open (MAPPROF_SPOOL_FD) and
 * comes with the ring of event buffers (MAPPROF_RING_FD, db/spool/ring.h); the
 * first process to set the ring's owner records, so a child or a second
 * program of a recorded script does not.  Loaded by hand, the first process
 * to create the spool (O_EXCL) owns it.
 *
 * The spool stops growing, and this process stops recording while the
 * program runs on, when it reaches its cap (MAPPROF_SPOOL_MAX, or what
 * 'record --max-spool' put in the ring), when a write fails (a full disk),
 * or when 'mapprof record' is gone: our end of a socket pair whose other
 * end only 'record' holds (MAPPROF_LIVE_FD) reads end-of-file once it dies.
 * (The other way, a byte on it wakes a 'record' that sleeps long once a
 * ring chunk is full: wake_recorder().)
 * That is looked at once per buffer of events (output_check()) at most
 * every 4 ms, never per event, with one poll() that does not wait.
 * Whichever happens is said once on stderr.
 *
 * The descriptors are the program's table too: a program that closes every
 * descriptor it did not open (daemons do) and opens its own files gets our
 * numbers back.  So ours are moved to high numbers (close-on-exec) as soon
 * as they are ours, their device and inode are kept, and each is checked
 * with fstat() right before every use: a descriptor that is no longer ours
 * is never read, written or closed again.  The spool is then opened again
 * by its path; the socket is replaced by a look at /proc/PID/stat of 'record'
 * (its pid and start time, MAPPROF_RECORDER); the ring is memory, mapped
 * once, and needs no descriptor at all.
 *
 * Writes are serialised by one mutex, taken once per buffer of events and
 * for the rare other frames.  Those small frames (run, modules, devices, call
 * sites) are staged in memory and go out with the next buffer of events, at
 * output_sync() (the end of the tool's start) or at the end: a handful of
 * write() calls per run instead of one per frame.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <poll.h>
#include <pthread.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <linux/futex.h>
#include <limits.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/output.h"
#include "collector/state.h"
#include "collector/text.h"
#include "db/spool/ring.h"
#include "db/spool/spool.h"
#include "lib/huge.h"
#include "lib/shquote.h"

#define INGEST_LIB "libmapprof-ingest.so"

/* A descriptor of ours, and what it is (to tell it from a program's file that took its number). */
struct own_fd {
	int fd;      /* -1: none */
	dev_t dev;
	ino_t ino;
};

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;
static struct own_fd out = { -1, 0, 0 };   /* the spool */
static int out_failed;
static char *spool_path;
static char *by_hand_db;  /* set when there is no 'mapprof record' to expand the spool */
static char staged[16384];
static size_t nstaged;
static struct ring_header *ring;
/* The spool's accounting: the ring's header, or this one without 'record'. */
static struct ring_header solo;
static struct ring_header *sp_acct = &solo;
static struct own_fd live = { -1, 0, 0 };  /* our end of record's socket: EOF once record is gone */
static long recorder_pid;      /* 'mapprof record' (MAPPROF_RECORDER), or 0 */
static int64_t recorder_start; /* its start time (ring_proc_start()) */
static int64_t recorder_seen_ns;  /* when /proc last said it is alive */
static atomic_int said;    /* the stop was announced */
static char ring_path[4096];   /* this process's ring file (procs.c), or "" */
static long recorder_pidns;    /* inode of the pid namespace record's pid means something in, or 0 */
static char recorder_boot[64]; /* the boot (and so the machine) record runs in, or "" */
/* The chunk whose write comes next learns where it starts (ring_chunk.write_from); with out_mu. */
static _Atomic int64_t *mark_next;
/*
 * Set while _exit() or an exec, which a signal handler may call, writes what
 * it can (procs.c): nothing may come from the heap then.
 */
static __thread int no_heap __attribute__((tls_model("initial-exec")));

/*
 * The first number a descriptor of ours takes: far above those a program
 * opens (open() takes the lowest free one), below its limit, and not so high
 * that the kernel grows the descriptor table (which fork() copies) much.
 */
static int high_fd_base(void)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > 1100)
		return 1024;
	return rl.rlim_cur > 64 ? (int)(rl.rlim_cur * 3 / 4) : 3;
}

/*
 * Make fd (ours: just opened, or checked) o's descriptor: moved to a high
 * number, close-on-exec, its identity kept.  The low number is closed.
 */
static void own_fd_take(struct own_fd *o, int fd)
{
	struct stat st;
	int high = fcntl(fd, F_DUPFD_CLOEXEC, high_fd_base());

	if (high < 0)
		high = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (high >= 0) {
		close(fd);
		fd = high;
	} else {
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
	o->fd = fd;
	o->dev = 0;
	o->ino = 0;
	if (fstat(fd, &st) == 0) {
		o->dev = st.st_dev;
		o->ino = st.st_ino;
	}
}

/* Nonzero when o's descriptor is still the file it was (fstat now). */
static int own_fd_ok(const struct own_fd *o)
{
	struct stat st;
	return o->fd >= 0 && fstat(o->fd, &st) == 0 && st.st_dev == o->dev && st.st_ino == o->ino;
}

/* Close o's descriptor if it is still ours; forget it either way. */
static void own_fd_close(struct own_fd *o)
{
	if (own_fd_ok(o))
		close(o->fd);
	o->fd = -1;
}

/*
 * With out_mu held, right before a write: 0 when out.fd is the spool (opened
 * again by its path if the program closed ours), -1 when it cannot be
 * (recording stops, RING_STOP_LOST).
 */
static int spool_fd_check(void)
{
	struct stat st;
	int fd;

	if (own_fd_ok(&out))
		return 0;
	out.fd = -1;  /* the number is the program's now: never touched again */
	fd = spool_path ? open(spool_path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
	if (fd >= 0 && (fstat(fd, &st) < 0 || st.st_dev != out.dev || st.st_ino != out.ino)) {
		close(fd);  /* another file by that name now: not our spool */
		fd = -1;
		errno = ESTALE;
	}
	if (fd < 0) {
		ring_set_stop(sp_acct, RING_STOP_LOST, errno ? errno : EBADF);
		return -1;
	}
	own_fd_take(&out, fd);
	return 0;
}

/* Absolute, so a program that changes directory still writes beside it. */
static char *absolute(const char *path)
{
	char cwd[4096], *abs;
	if (path[0] == '/' || !getcwd(cwd, sizeof(cwd)))
		return strdup(path);
	return asprintf(&abs, "%s/%s", cwd, path) < 0 ? NULL : abs;
}

/* The pid in a spool another process claimed, or -1. */
static long owner_of(const char *path)
{
	struct spool_header h;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	long pid = -1;
	if (fd >= 0) {
		if (read(fd, &h, sizeof(h)) == (ssize_t)sizeof(h) && h.pid > 0)
			pid = (long)h.pid;
		close(fd);
	}
	return pid;
}

/* Write iov[0..n) whole (one writev() unless it comes back short). */
static int write_all(struct iovec *iov, int n)
{
	while (n) {
		ssize_t k = writev(out.fd, iov, n);
		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return -1;
		while (n && (size_t)k >= iov->iov_len) {
			k -= (ssize_t)iov->iov_len;
			iov++;
			n--;
		}
		if (n) {
			iov->iov_base = (char *)iov->iov_base + k;
			iov->iov_len -= (size_t)k;
		}
	}
	return 0;
}

/* Say once why recording stopped (the accounting's stop is set). */
static void announce(void)
{
	char why[512];

	if (atomic_exchange(&said, 1))
		return;
	atomic_store(&sp_acct->said, 1);
	if (atomic_load(&sp_acct->stop) == RING_STOP_GONE) {
		char quoted[CLOG_LINE_MAX];   /* the hint is pasted into a shell */
		size_t q = shquote(quoted, sizeof(quoted), spool_path);
		/* The line is cut past CLOG_LINE_MAX: a quote cut open is worse than none. */
		if (q >= sizeof(quoted) || q + strlen(spool_path) + 512 > CLOG_LINE_MAX)
			snprintf(quoted, sizeof(quoted), "'%s'", "SPOOL");
		clog_msg("the recorder ('mapprof record', pid %lld) is gone: recording stopped, the program"
			 " runs on; the spool '%s' holds what was recorded until then (%llu events);"
			 " recover it with: mapprof recover %s", (long long)sp_acct->recorder, spool_path,
			 (unsigned long long)atomic_load(&sp_acct->spool_events), quoted);
		return;
	}
	spool_stop_text(atomic_load(&sp_acct->stop), atomic_load(&sp_acct->stop_errno), sp_acct->spool_max,
			atomic_load(&sp_acct->spool_events), why, sizeof(why));
	clog_msg("recording stopped, the program runs on: %s", why);
}

/*
 * With out_mu held: the staged frames, then p[0..n) (may be empty), which
 * holds 'events' events.  Events past the spool's cap are not written (the
 * staged frames still are).  Says once why it stopped.
 */
static int locked_write(const void *p, size_t n, uint64_t events)
{
	struct iovec iov[2] = { { staged, nstaged }, { (void *)p, n } };
	int rc = 0;

	if (out.fd < 0 || out_failed)
		return -1;
	if (spool_fd_check() < 0) {
		out_failed = 1;
		nstaged = 0;
		announce();
		return -1;
	}
	if (n && ring_reserve(sp_acct, n, events) < 0) {
		iov[1].iov_len = 0;
		rc = -1;
	}
	if (nstaged && ring_reserve(sp_acct, nstaged, 0) < 0)
		iov[0].iov_len = 0;
	nstaged = 0;
	if (mark_next) {
		off_t at = lseek(out.fd, 0, SEEK_END);
		atomic_store(mark_next, at > 0 ? (int64_t)at : 0);
		mark_next = NULL;
	}
	if ((iov[0].iov_len || iov[1].iov_len) && write_all(iov, 2) < 0) {
		out_failed = 1;
		ring_set_stop(sp_acct, RING_STOP_WRITE, errno ? errno : EIO);
		if (iov[1].iov_len)
			atomic_fetch_sub(&sp_acct->spool_events, events);  /* not whole in the spool */
		rc = -1;
	}
	if (rc < 0)
		announce();
	return rc;
}

/*
 * An inherited descriptor from the environment variable 'name' ("N", or
 * "N:INODE"), or -1.  *ino: the inode after the colon, or 0.
 */
static int env_fd(const char *name, unsigned long long *ino)
{
	const char *v = getenv(name);
	char *end;
	long fd;

	*ino = 0;
	if (!v || !*v)
		return -1;
	fd = strtol(v, &end, 10);
	if (*end == ':')
		*ino = strtoull(end + 1, &end, 10);
	return *end || fd < 0 || fd > 1 << 20 ? -1 : (int)fd;
}

/* Nonzero when fd is the memfd 'mapprof record' made for the ring (cli/drain.c names it). */
static int is_ring_fd(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = 0;
	return !strncmp(target, "/memfd:mapprof-ring", strlen("/memfd:mapprof-ring"));
}

/*
 * The socket that says 'record' is alive (MAPPROF_LIVE_FD), ours once it is
 * the very socket (its inode), and 'record' itself (MAPPROF_RECORDER, its pid
 * and start time) for when the program closes the socket or never had it.
 */
static void live_take(void)
{
	const char *rec = getenv("MAPPROF_RECORDER");
	unsigned long long ino;
	int fd = env_fd("MAPPROF_LIVE_FD", &ino);
	struct stat st;
	long long start;
	long pid;

	long ns = 0;

	recorder_boot[0] = 0;
	if (rec && sscanf(rec, "%ld:%lld:%ld:%63s", &pid, &start, &ns, recorder_boot) >= 2 && pid > 0) {
		recorder_pid = pid;
		recorder_start = start;
		recorder_pidns = ns;
	}
	if (live.fd < 0 && fd >= 0 && ino && fstat(fd, &st) == 0 && S_ISSOCK(st.st_mode) &&
	    (unsigned long long)st.st_ino == ino)
		own_fd_take(&live, fd);
}

/* Record sleeps long (ring_header.drain_sleep): a byte on its socket wakes it. */
static void wake_recorder(struct ring_header *r)
{
	/* What changed (a chunk's FULL, the owner) before the look at drain_sleep; record: the other way round. */
	atomic_thread_fence(memory_order_seq_cst);
	if (!atomic_load_explicit(&r->drain_sleep, memory_order_relaxed) || !atomic_exchange(&r->drain_sleep, 0))
		return;
	/* Only the very socket record gave us: a number the program reused is not ours to write to. */
	if (live.fd >= 0 && own_fd_ok(&live))
		(void)send(live.fd, "", 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	else
		atomic_store(&r->wakes, 0);   /* lost: record looks every few milliseconds again */
}

/*
 * Under 'mapprof record': claim the ring 'record' made and write to the spool
 * it opened.  0, or -1 (said why).
 */
static int open_from_record(int spool_fd, int ring_fd)
{
	struct ring_header *r;
	struct stat st, sp, want;
	int64_t none = 0, me = (int64_t)getpid();
	/* Another process of the run (procs.c) records into its own spool. */
	int quiet = getenv("MAPPROF_SPOOL_DIR") != NULL;

	/*
	 * The numbers may have been reused: a program exec'd after the one that
	 * claimed them (which made them close-on-exec), or started by a daemon
	 * that closed them, can hold anything there.  Ours only if the spool
	 * descriptor is the file MAPPROF_SPOOL names and the ring's is the
	 * memfd record made.
	 */
	if (fstat(spool_fd, &sp) < 0 || stat(spool_path, &want) < 0 || sp.st_dev != want.st_dev ||
	    sp.st_ino != want.st_ino || !S_ISREG(sp.st_mode))
		ring_fd = -1;
	if (ring_fd < 0 || !is_ring_fd(ring_fd) || fstat(ring_fd, &st) < 0 ||
	    (size_t)st.st_size < sizeof(*r) ||
	    (r = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd, 0)) ==
		    MAP_FAILED) {
		if (quiet)
			return -2;
		clog_msg("not recording process %ld: the descriptors 'mapprof record' passed are gone "
			 "(closed before OpenMP started, or another process of this run records)", (long)me);
		return -1;
	}
	if (memcmp(r->magic, RING_MAGIC, sizeof(r->magic)) || r->chunk_size != sizeof(struct ring_chunk) ||
	    ring_bytes(r->nchunks) != (size_t)st.st_size) {
		clog_msg("not recording: the ring from 'mapprof record' is not this collector's "
			 "(mixed mapprof versions?)");
		munmap(r, (size_t)st.st_size);
		return -1;
	}
	if (!atomic_compare_exchange_strong(&r->owner, &none, me)) {
		if (!quiet)
			clog_msg("not recording process %ld: '%s' already records process %ld", (long)me,
				 getenv("MAPPROF_OUTPUT") ? getenv("MAPPROF_OUTPUT") : spool_path,
				 (long)none);
		munmap(r, (size_t)st.st_size);
		/* Both checked above: record's, inherited, of no use here. */
		close(ring_fd);
		close(spool_fd);
		return quiet ? -2 : -1;
	}
	r->owner_start = ring_proc_start((long)me);
	/*
	 * Record may sleep long between looks: a full chunk wakes it
	 * (output_ring_full()); without its socket, told now, it looks
	 * every few milliseconds instead.
	 */
	atomic_store(&r->wakes, live.fd >= 0);
	wake_recorder(r);
	/* The chunks taken first, mapped in at once: record has faulted them in already. */
	huge_populate(r, ring_warm_bytes(r));
	/* Ours now: the ring is mapped (no descriptor needed), the spool moves out of the program's way. */
	close(ring_fd);
	own_fd_take(&out, spool_fd);
	ring = r;
	sp_acct = r;
	return 0;
}

/* Without 'record': the cap from MAPPROF_SPOOL_MAX, or the default.  0, or -1 (said why). */
static int spool_max_from_env(const char *path)
{
	const char *v = getenv("MAPPROF_SPOOL_MAX");
	char *dir;

	if (v && *v) {
		if (spool_parse_size(v, &solo.spool_max) < 0) {
			clog_msg("not recording: MAPPROF_SPOOL_MAX must be a size like 512M or 8G, not '%s'", v);
			return -1;
		}
		return 0;
	}
	dir = strdup(path);
	solo.spool_max = dir ? spool_default_max(dirname(dir)) : 0;
	free(dir);
	return 0;
}

struct ring_header *output_ring(void)
{
	return ring;
}

void output_ring_full(void)
{
	if (ring)
		wake_recorder(ring);
}

int output_open(void)
{
	const char *spool = getenv("MAPPROF_SPOOL"), *db = getenv("MAPPROF_OUTPUT");
	struct spool_header h = { SPOOL_MAGIC, SPOOL_VERSION, sizeof(struct rec), (int64_t)getpid() };
	unsigned long long ino;
	int spool_fd = env_fd("MAPPROF_SPOOL_FD", &ino), rc = -1;
	char def[64];

	if (spool_fd >= 0) {
		live_take();
		spool_path = absolute(spool && *spool ? spool : "spool");
		if (!spool_path || (rc = open_from_record(spool_fd, env_fd("MAPPROF_RING_FD", &ino))) < 0)
			goto fail;
	} else if (spool && *spool) {
		spool_path = absolute(spool);
	} else {
		if (!db || !*db) {
			snprintf(def, sizeof(def), "mapprof.%ld.db", (long)getpid());
			db = def;
		}
		by_hand_db = absolute(db);
		if (!by_hand_db || asprintf(&spool_path, "%s-spool", by_hand_db) < 0)
			spool_path = NULL;
		if (spool_path && access(by_hand_db, F_OK) == 0) {
			clog_msg("not recording process %ld: '%s' exists (remove it first)",
				 (long)getpid(), by_hand_db);
			goto fail;
		}
	}
	if (!spool_path) {
		clog_msg("not recording: out of memory");
		goto fail;
	}
	if (!ring && spool_max_from_env(spool_path) < 0)
		goto fail;
	if (out.fd < 0) {
		int fd = open(spool_path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
		if (fd >= 0)
			own_fd_take(&out, fd);
	}
	if (out.fd < 0) {
		if (errno == EEXIST)
			clog_msg("not recording process %ld: '%s' already records process %ld",
				 (long)getpid(), by_hand_db ? by_hand_db : db ? db : spool_path,
				 owner_of(spool_path));
		else
			clog_msg("not recording: cannot create '%s': %s", spool_path, strerror(errno));
		goto fail;
	}
	/* 'mapprof record' wrote the header of the spool it handed over. */
	atomic_fetch_add(&solo.spool_bytes, (int64_t)sizeof(h));
	if (!ring && write(out.fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		clog_msg("not recording: cannot write '%s': %s", spool_path, strerror(errno));
		own_fd_close(&out);
		if (!ring)
			unlink(spool_path);
		goto fail;
	}
	return 0;
fail:
	free(spool_path);
	free(by_hand_db);
	spool_path = by_hand_db = NULL;
	return rc;
}

int output_adopt(int fd, const char *path, struct ring_header *r, const char *ring_file)
{
	struct spool_header h = { SPOOL_MAGIC, SPOOL_VERSION, sizeof(struct rec), (int64_t)getpid() };

	if (!(spool_path = strdup(path)) || write(fd, &h, sizeof(h)) != (ssize_t)sizeof(h)) {
		clog_msg("not recording process %ld: cannot write '%s': %s", (long)getpid(), path,
			 strerror(errno));
		free(spool_path);
		spool_path = NULL;
		close(fd);
		return -1;
	}
	own_fd_take(&out, fd);
	if (r) {
		/* Its accounting goes on in the ring 'record' reads once the process is gone. */
		r->spool_max = sp_acct->spool_max;
		r->recorder = sp_acct->recorder ? sp_acct->recorder : recorder_pid;
		r->recorder_start = recorder_start;
		atomic_store(&r->spool_bytes, (int64_t)sizeof(h));
		ring = r;
		sp_acct = r;
		snprintf(ring_path, sizeof(ring_path), "%s", ring_file);
	}
	return 0;
}

int output_ring_grow(uint32_t upto)
{
	uint32_t had;
	int fd, rc;

	if (!ring || !ring_path[0] || upto > ring->nchunks)
		return -1;
	had = atomic_load(&ring->backed);
	if (upto <= had)
		return 0;
	fd = open(ring_path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return -1;
	rc = posix_fallocate(fd, 0, (off_t)ring_bytes(upto));
	close(fd);
	if (rc)
		return -1;
	while (had < upto && !atomic_compare_exchange_weak(&ring->backed, &had, upto))
		;
	return 0;
}

long output_recorder(void)
{
	return recorder_pid;
}

void output_ended(int how, int status)
{
	/* No lock: a signal handler may be here (procs.c), with out_mu held by the code it cut into. */
	struct ring_header *r = ring;

	/*
	 * Finished is the owner's word only: a child forked without our atfork
	 * handlers (_Fork(), a raw clone) still maps its parent's ring, and its
	 * exit() must not tell 'record' that the parent wrote its last event.
	 */
	if (r && how == RING_ENDED_FINISHED && atomic_load(&r->owner) != (int64_t)getpid())
		return;
	if (r) {
		atomic_store(&r->exit_status, status);
		atomic_store(&r->ended, how);
		/* 'record' may be waiting for it (RING_ENDED_FINISHED: it expands the spool at once). */
		atomic_fetch_add(&r->wake, 1);
		syscall(SYS_futex, &r->wake, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
	}
}

void output_call_late(void)
{
	struct ring_header *r = ring;

	if (r && atomic_load(&r->owner) == (int64_t)getpid())
		atomic_fetch_add(&r->calls_late, 1);
}

void output_no_heap(int on)
{
	no_heap = on;
}

int output_lock_free(void)
{
	if (pthread_mutex_trylock(&out_mu))
		return 0;
	pthread_mutex_unlock(&out_mu);
	return 1;
}

/*
 * In a forked child: the spool and the ring are the parent's.  The child's
 * copy of the spool descriptor is closed and the ring unmapped here (the
 * parent keeps both), and frames staged for the parent's spool are dropped.
 */
void output_at_fork(enum fork_moment when)
{
	if (when == FORK_PREPARE) {
		pthread_mutex_lock(&out_mu);
		return;
	}
	if (when == FORK_PARENT) {
		pthread_mutex_unlock(&out_mu);
		return;
	}
	own_fd_close(&out);
	/* The child's spool is its own: its accounting starts afresh in 'solo'
	 * (the ring's header, 'sp_acct' until now, is unmapped here), under
	 * the same cap.  The socket to 'record' stays: it still says whether
	 * record is alive. */
	{
		struct ring_header *was = sp_acct;
		int64_t spool_max = was->spool_max, recorder = was->recorder;
		memset(&solo, 0, sizeof(solo));
		solo.spool_max = spool_max;
		solo.recorder = recorder;   /* named when record is gone */
	}
	sp_acct = &solo;
	atomic_store(&said, 0);
	if (ring)
		munmap(ring, ring_bytes(ring->nchunks));
	ring = NULL;
	ring_path[0] = 0;
	mark_next = NULL;
	nstaged = 0;
	out_failed = 0;
	free(spool_path);
	spool_path = NULL;
	free(by_hand_db);
	by_hand_db = NULL;
	pthread_mutex_unlock(&out_mu);
}

int output_frame(uint32_t type, ...)
{
	char small[4096], *buf = small;
	va_list ap, ap2;
	size_t n;
	int rc;

	va_start(ap, type);
	va_copy(ap2, ap);
	n = spool_vpack(small, sizeof(small), type, ap);
	if (n > sizeof(small) && no_heap) {
		buf = NULL;  /* dropped: no malloc() in a signal handler */
	} else if (n > sizeof(small)) {
		buf = malloc(n);
		if (buf)
			spool_vpack(buf, n, type, ap2);
	}
	va_end(ap2);
	va_end(ap);
	if (!buf || !n)
		return -1;
	pthread_mutex_lock(&out_mu);
	if (out.fd < 0 || out_failed) {
		rc = -1;
	} else if (nstaged + n <= sizeof(staged)) {
		memcpy(staged + nstaged, buf, n);
		nstaged += n;
		rc = 0;
	} else {
		rc = locked_write(buf, n, 0);
	}
	pthread_mutex_unlock(&out_mu);
	if (buf != small)
		free(buf);
	return rc;
}

/*
 * The pair 'mapprof record' read before it started the program
 * (MAPPROF_CLOCK_BASE, "TICKS:NS"), written with each pair of ours: with it,
 * the spool converts ticks to ns from its first clock frame on, whatever
 * ends the recording early (record or the program killed), and the ingest
 * does not need the pair of the end.
 */
static int clock_base(int64_t *ticks, int64_t *ns)
{
	const char *v = getenv("MAPPROF_CLOCK_BASE");
	char boot[64];
	long long t, n;
	int used = 0;

	if (!v || sscanf(v, "%lld:%lld:%n", &t, &n, &used) != 2 || !used || t <= 0 || n <= 0)
		return -1;
	/* Another machine's (a launcher forwarded the environment): its counter is not ours. */
	if (spool_boot_id(boot, sizeof(boot)) < 0 || strcmp(v + used, boot))
		return -1;
	*ticks = t;
	*ns = n;
	return 0;
}

int output_clock_frame(void)
{
	int64_t ticks, ns;

	if (clock_base(&ticks, &ns) == 0)
		output_frame(SPOOL_CLOCK, ticks, ns);
	spool_clock_pair(&ticks, &ns);
	return output_frame(SPOOL_CLOCK, ticks, ns);
}

int output_sync(void)
{
	int rc;
	pthread_mutex_lock(&out_mu);
	rc = locked_write(NULL, 0, 0);
	pthread_mutex_unlock(&out_mu);
	return rc;
}

int output_records(struct spool_frame *frame, size_t n, _Atomic int64_t *write_from)
{
	int rc;
	frame->type = SPOOL_RECORDS;
	frame->len = (uint32_t)(n * sizeof(struct rec));
	pthread_mutex_lock(&out_mu);
	mark_next = write_from;
	rc = locked_write(frame, sizeof(*frame) + frame->len, n);
	mark_next = NULL;
	pthread_mutex_unlock(&out_mu);
	return rc;
}

int output_failed(void)
{
	return out_failed;
}

/* The inode of this process's pid namespace, or 0. */
static long pidns_inode(void)
{
	struct stat st;
	return stat("/proc/self/ns/pid", &st) == 0 ? (long)st.st_ino : 0;
}

/* Nonzero when /proc is this pid namespace's: its "self" is this process's pid. */
static int proc_is_ours(void)
{
	char link[32];
	ssize_t n = readlink("/proc/self", link, sizeof(link) - 1);

	if (n <= 0)
		return 0;
	link[n] = 0;
	return strtol(link, NULL, 10) == (long)getpid();
}

/*
 * Nonzero once 'mapprof record' is gone: its socket reads end of file, or,
 * when the program closed the socket (or this image never had it), its pid is
 * gone or another process's (the start time differs; looked at in /proc
 * at most every 100 ms).
 */
static int recorder_gone(void)
{
	struct pollfd p = { live.fd, POLLIN, 0 };
	char boot[64];
	int64_t now;

	if (live.fd >= 0) {
		/* Checked first: a poll on the program's file would say it is readable. */
		if (own_fd_ok(&live))
			return poll(&p, 1, 0) > 0;
		live.fd = -1;  /* the program's now */
	}
	if (recorder_pid <= 0 || recorder_start <= 0)
		return 0;
	now = now_ns();
	if (now - recorder_seen_ns < 100000000)
		return 0;
	recorder_seen_ns = now;
	if (ring_proc_start(recorder_pid) == recorder_start)
		return 0;
	/*
	 * Gone only if record's pid means the same here: this process is in
	 * record's pid namespace, /proc is that namespace's (its "self" is
	 * this process) and the machine and boot are record's.  Inside a container with a /proc of its own, or
	 * without a /proc, nothing is known: go on.
	 */
	if (!recorder_pidns || pidns_inode() != recorder_pidns || !proc_is_ours())
		return 0;
	/* Another machine's pid (an MPI launcher forwards the environment): the root namespaces look alike. */
	return spool_boot_id(boot, sizeof(boot)) == 0 && !strcmp(boot, recorder_boot);
}

/*
 * Whether to look for 'record' now.  A buffer of a launch-heavy program
 * fills every ~0.6 ms, and the look is a poll() and an fstat() (~2.5 us
 * each in a VM): 3,500 system calls in the program for 1.8 M events.  A
 * buffer handed to the ring while 'record' is gone stays in the ring file
 * ('mapprof recover' drains it): the look is only due before this process
 * writes the spool itself.
 */
static int gone_due(int writing)
{
	static _Atomic int64_t looked_ns;
	int64_t now, then;

	if (writing)
		return 1;
	now = now_ns();
	then = atomic_load_explicit(&looked_ns, memory_order_relaxed);
	if (now - then < 4000000 && now >= then)
		return 0;
	atomic_store_explicit(&looked_ns, now, memory_order_relaxed);
	return 1;
}

int output_check(int writing)
{
	int stop = atomic_load_explicit(&sp_acct->stop, memory_order_relaxed);

	if (!stop && gone_due(writing) && recorder_gone()) {
		/*
		 * 'record' never writes into the socket: readable means end
		 * of file, its end closed with it.  Its last write may have
		 * been cut short, so nothing more is appended to the spool.
		 */
		pthread_mutex_lock(&out_mu);
		ring_set_stop(sp_acct, RING_STOP_GONE, 0);
		own_fd_close(&out);
		nstaged = 0;
		pthread_mutex_unlock(&out_mu);
		stop = RING_STOP_GONE;
	}
	if (!stop)
		return 0;
	announce();
	return -1;
}

int output_stop_text(char *buf, size_t n)
{
	if (!atomic_load(&sp_acct->stop))
		return -1;
	spool_stop_text(atomic_load(&sp_acct->stop), atomic_load(&sp_acct->stop_errno), sp_acct->spool_max,
			atomic_load(&sp_acct->spool_events), buf, n);
	return 0;
}

/* Build the database from the spool, through the library installed beside this one. */
static void ingest_by_hand(void)
{
	int (*ingest)(const char *, const char *, char **);
	char *dir = NULL, *lib = NULL, *err = NULL;
	void *h = NULL;
	Dl_info info;

	if (dladdr((void *)ingest_by_hand, &info) && info.dli_fname && (dir = strdup(info.dli_fname)) &&
	    asprintf(&lib, "%s/" INGEST_LIB, dirname(dir)) >= 0)
		h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	ingest = h ? (int (*)(const char *, const char *, char **))dlsym(h, "mapprof_ingest_file") : NULL;
	if (!ingest) {
		clog_msg("cannot load '%s' (%s): the events stay in '%s'", lib ? lib : INGEST_LIB,
			 dlerror(), spool_path);
	} else if (ingest(spool_path, by_hand_db, &err) < 0) {
		clog_msg("cannot build '%s': %s; the events stay in '%s'", by_hand_db,
			 err ? err : "unknown error", spool_path);
		free(err);
	} else {
		unlink(spool_path);
	}
	if (h)
		dlclose(h);
	free(lib);
	free(dir);
}

void output_close(void)
{
	pthread_mutex_lock(&out_mu);
	locked_write(NULL, 0, 0);
	own_fd_close(&out);
	pthread_mutex_unlock(&out_mu);
	/* Not from _exit() (a signal handler): the spool stays for 'mapprof recover'. */
	if (by_hand_db && spool_path && !no_heap)
		ingest_by_hand();
}
