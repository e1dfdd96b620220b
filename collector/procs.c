/*
 * procs.c - the processes of a recorded command besides the first one
 * (procs.h).
 *
 * A forked child inherits the parent's collector mid-run: its buffers are
 * the parent's (ring chunks in shared memory the parent keeps filling), its
 * spool descriptor is the parent's, and only the forking thread lives on.
 * The atfork handlers below hold the collector's locks across fork(); in the
 * child every file forgets what is the parent's, then the child opens its
 * own spool and writes into it what a reader needs before its first event:
 * the run, the process, the clock, the devices the parent initialised (the
 * runtime will not announce them again), the loaded objects and the call
 * sites seen so far.  None of this touches a callback's fast path.
 *
 * A program exec'd inside the run loads the collector afresh and comes here
 * through procs_open() at the tool's start (output.c said the buffers of
 * 'record' are another process's or not inherited).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "collector/buffer.h"
#include "collector/got.h"
#include "collector/interpose.h"
#include "collector/modules.h"
#include "collector/output.h"
#include "collector/procs.h"
#include "collector/runinfo.h"
#include "collector/state.h"
#include "collector/text.h"
#include "db/spool/ring.h"
#include "lib/ranks.h"

/* The variables MPI launchers set to a process's rank (docs/usage.md). */
static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					 "SLURM_PROCID" };
/* And to their number (the first of these set). */
static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS" };

#define DEVICES_MAX 16
static struct {
	int num;
	char type[48];
	int64_t init_ns;
} devices[DEVICES_MAX];
static int ndevices;

static const char *runtime_version;
static int recording_at_fork;
/* The process whose recording this memory holds: a vfork() child shares it and must not end it. */
static pid_t recording_pid;

/*
 * This process's own ring: a file beside its spool ("PID.N.ring"), mapped
 * shared and its descriptor closed at once.  Its threads' buffers are its
 * chunks, so that whatever they hold when the process ends (_exit, a
 * signal, an exec) is still there for 'record' to append to the spool
 * (cli/drain.c).  Nobody drains it while the process runs: a thread writes
 * its own full chunk, as it did with buffers of its own.  NULL when it
 * cannot be made (the process then records into buffers of its own).
 */
static struct ring_header *ring_file(const char *spool, char *path, size_t size)
{
	size_t len = strlen(spool), bytes = ring_bytes(RING_CHUNKS_CHILD);
	struct ring_header *r;
	int fd;

	if (len < 6 || len + 1 > size)
		return NULL;
	snprintf(path, size, "%.*s.ring", (int)(len - 6), spool);
	fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0)
		return NULL;
	/*
	 * Sparse, but the header and the first chunk get disk blocks now (the
	 * others as threads take them, buffer.c): a store into a page without
	 * a block on a full disk is SIGBUS, in the middle of fork().
	 */
	r = ftruncate(fd, (off_t)bytes) == 0 && posix_fallocate(fd, 0, (off_t)ring_bytes(1)) == 0 ?
		    mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0) : MAP_FAILED;
	close(fd);
	if (r == MAP_FAILED) {
		unlink(path);
		return NULL;
	}
	r->nchunks = RING_CHUNKS_CHILD;
	r->chunk_size = sizeof(struct ring_chunk);
	r->flags = RING_SELF_WRITTEN;
	atomic_store(&r->backed, 1);
	atomic_store(&r->owner, (int64_t)getpid());
	r->owner_start = ring_proc_start((long)getpid());
	/* Last: 'record' takes a ring with its magic as whole. */
	memcpy(r->magic, RING_MAGIC, sizeof(r->magic));
	return r;
}

int procs_open(void)
{
	const char *dir = getenv("MAPPROF_SPOOL_DIR");
	char path[4096], ring_path[4096];
	struct ring_header *r;
	int fd = -1;

	if (!dir || !*dir) {
		clog_msg("not recording process %ld: 'mapprof record' named no spool directory",
			 (long)getpid());
		return -1;
	}
	/* A pid runs several images when it execs: each has its own spool. */
	for (int n = 0; fd < 0 && n < 1000; n++) {
		if (snprintf(path, sizeof(path), "%s/%ld.%d.spool", dir, (long)getpid(), n) >=
		    (int)sizeof(path)) {
			errno = ENAMETOOLONG;
			break;
		}
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0644);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		clog_msg("not recording process %ld: cannot create a spool in '%s': %s", (long)getpid(),
			 dir, strerror(errno));
		return -1;
	}
	r = ring_file(path, ring_path, sizeof(ring_path));
	return output_adopt(fd, path, r, ring_path);
}

int procs_rank_off(void)
{
	const char *spec = getenv("MAPPROF_RANKS");

	if (!spec || !*spec || !ranks_valid(spec))
		return 0;
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++) {
		const char *v = getenv(rank_vars[i]);
		char *end;
		if (v && *v) {
			long r = strtol(v, &end, 10);
			if (!*end && r >= 0)
				return !ranks_has(spec, r);
		}
	}
	return 0;
}

int procs_record(const char *started)
{
	const char *var = NULL, *v;
	int64_t rank = -1;
	char *end;

	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]) && !var; i++) {
		v = getenv(rank_vars[i]);
		if (v && *v) {
			long r = strtol(v, &end, 10);
			if (!*end && r >= 0) {
				rank = r;
				var = rank_vars[i];
			}
		}
	}
	if (output_frame(SPOOL_PROCESS, (int64_t)getpid(), (int64_t)getppid(), rank, var, started) < 0)
		return -1;
	/*
	 * 'record --ranks' outside the launcher did not know the job's size: the
	 * launcher's variable tells the merged report which ranks were left out
	 * (kept as the environment is, never set in the program's).
	 */
	v = getenv("MAPPROF_RANKS");
	if (rank >= 0 && v && *v && !getenv("MAPPROF_WORLD_SIZE"))
		for (size_t i = 0; i < sizeof(size_vars) / sizeof(size_vars[0]); i++)
			if ((v = getenv(size_vars[i])) && *v)
				return output_frame(SPOOL_ENV, "MAPPROF_WORLD_SIZE", v);
	return 0;
}

void procs_note_device(int num, const char *type, int64_t init_ns)
{
	if (ndevices < DEVICES_MAX) {
		devices[ndevices].num = num;
		snprintf(devices[ndevices].type, sizeof(devices[0].type), "%s", type ? type : "unknown");
		devices[ndevices++].init_ns = init_ns;
	}
}

/* Locks in the order the collector takes them: buffer, modules, call sites, spool. */
static void at_fork_prepare(void)
{
	recording_at_fork = buffer_recording();
	buffer_at_fork(FORK_PREPARE);
	modules_at_fork(FORK_PREPARE);
	interpose_at_fork(FORK_PREPARE);
	output_at_fork(FORK_PREPARE);
}

static void at_fork_parent(void)
{
	output_at_fork(FORK_PARENT);
	interpose_at_fork(FORK_PARENT);
	modules_at_fork(FORK_PARENT);
	buffer_at_fork(FORK_PARENT);
}

static void at_fork_child(void)
{
	output_at_fork(FORK_CHILD);
	interpose_at_fork(FORK_CHILD);
	modules_at_fork(FORK_CHILD);
	buffer_at_fork(FORK_CHILD);
	/* Stopped (or never started) in the parent: nothing to record here either. */
	if (!recording_at_fork || procs_open() < 0)
		return;
	if (runinfo_record(runtime_version) < 0 || procs_record("fork") < 0)
		return;
	if (collector_tsc)
		output_clock_frame();
	for (int i = 0; i < ndevices; i++)
		output_frame(SPOOL_DEVICE, (int64_t)devices[i].num, devices[i].type, devices[i].init_ns,
			     (int64_t)-1);
	modules_record();
	interpose_flush();
	if (output_sync() == 0) {
		recording_pid = getpid();
		buffer_restart();
	}
}

/* --- the ways a process ends or replaces its program ---------------------------
 *
 * The program's own calls to exec and _exit come here first (got.c points
 * the program's slots for them at these): before an exec the call sites and
 * libraries go to the spool (the image's memory is about to go; the ring's
 * chunks are not: 'record' appends them) and the ring says the process
 * exec'd, which 'record' cannot learn otherwise when the new program does
 * not load the collector (a cleared environment); an _exit() finishes the
 * recording as exit() would and then says its status.  In a vfork() child,
 * which runs in its parent's memory, they do nothing.
 *
 * A signal handler may call _exit and exec (signal(7)), in the middle of
 * the collector's own code: nothing here waits for a lock, asks dlsym or
 * takes memory from the heap (buffer_exit(), buffer_sync()).  The libc
 * functions are looked up once, at the start.
 */
static int ours(void)
{
	return recording_pid && getpid() == recording_pid;
}

static void before_exec(void)
{
	int e = errno;
	if (!ours())
		return;
	buffer_sync();
	output_ended(RING_ENDED_EXEC, 0);
	errno = e;
}

/* The exec failed: the program goes on, and so does its recording. */
static void exec_failed(void)
{
	int e = errno;
	if (ours())
		output_ended(RING_RUNNING, 0);
	errno = e;
}

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef void (*exit_fn)(int);

/* libc's, looked up in procs_start(): dlsym is not async-signal-safe. */
static execve_fn libc_execve, libc_execvpe;
static fexecve_fn libc_fexecve;
static exit_fn libc__exit, libc__Exit;

static int mp_execve(const char *path, char *const argv[], char *const envp[])
{
	execve_fn fn = libc_execve;
	int rc;
	before_exec();
	rc = fn ? fn(path, argv, envp) : (errno = ENOSYS, -1);
	exec_failed();
	return rc;
}

static int mp_execvpe(const char *file, char *const argv[], char *const envp[])
{
	execve_fn fn = libc_execvpe;
	int rc;
	before_exec();
	rc = fn ? fn(file, argv, envp) : (errno = ENOSYS, -1);
	exec_failed();
	return rc;
}

static int mp_fexecve(int fd, char *const argv[], char *const envp[])
{
	fexecve_fn fn = libc_fexecve;
	int rc;
	before_exec();
	rc = fn ? fn(fd, argv, envp) : (errno = ENOSYS, -1);
	exec_failed();
	return rc;
}

static int mp_execv(const char *path, char *const argv[])
{
	return mp_execve(path, argv, environ);
}

static int mp_execvp(const char *file, char *const argv[])
{
	return mp_execvpe(file, argv, environ);
}

/*
 * execl, execlp, execle: the arguments gathered on the stack (no malloc: the
 * caller may be a vfork() child).  'envp': execle's environment follows the
 * NULL that ends the arguments.
 */
#define GATHER(arg, argv, envp, with_env)                                       \
	do {                                                                    \
		va_list ap;                                                     \
		size_t n = 1;                                                   \
		va_start(ap, arg);                                              \
		while (va_arg(ap, char *))                                      \
			n++;                                                    \
		va_end(ap);                                                     \
		argv = __builtin_alloca((n + 1) * sizeof(char *));              \
		argv[0] = (char *)arg;                                          \
		va_start(ap, arg);                                              \
		for (size_t i = 1; i <= n; i++)                                 \
			argv[i] = i < n ? va_arg(ap, char *) : NULL;            \
		if (with_env) {                                                 \
			(void)va_arg(ap, char *);                               \
			envp = va_arg(ap, char **);                             \
		}                                                               \
		va_end(ap);                                                     \
	} while (0)

static int mp_execl(const char *path, const char *arg, ...)
{
	char **argv, **envp = environ;
	GATHER(arg, argv, envp, 0);
	return mp_execve(path, argv, envp);
}

static int mp_execlp(const char *file, const char *arg, ...)
{
	char **argv, **envp = environ;
	GATHER(arg, argv, envp, 0);
	return mp_execvpe(file, argv, envp);
}

static int mp_execle(const char *path, const char *arg, ...)
{
	char **argv, **envp = environ;
	GATHER(arg, argv, envp, 1);
	return mp_execve(path, argv, envp);
}

static void end_by_exit(exit_fn fn, int status)
{
	if (ours()) {
		buffer_exit();
		/* Last: once it says so, 'record' may append what is left of the ring. */
		output_ended(RING_ENDED_EXIT, status);
	}
	if (fn)
		fn(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

static void mp__exit(int status)
{
	end_by_exit(libc__exit, status);
}

static void mp__Exit(int status)
{
	end_by_exit(libc__Exit, status);
}

static const struct got_target ends[] = {
	{ "execve", (void *)mp_execve },     { "execv", (void *)mp_execv },
	{ "execvp", (void *)mp_execvp },     { "execvpe", (void *)mp_execvpe },
	{ "execl", (void *)mp_execl },       { "execlp", (void *)mp_execlp },
	{ "execle", (void *)mp_execle },     { "fexecve", (void *)mp_fexecve },
	{ "_exit", (void *)mp__exit },       { "_Exit", (void *)mp__Exit },
};

void procs_start(const char *runtime)
{
	runtime_version = runtime;
	recording_pid = getpid();
	libc_execve = (execve_fn)dlsym(RTLD_DEFAULT, "execve");
	libc_execvpe = (execve_fn)dlsym(RTLD_DEFAULT, "execvpe");
	libc_fexecve = (fexecve_fn)dlsym(RTLD_DEFAULT, "fexecve");
	libc__exit = (exit_fn)dlsym(RTLD_DEFAULT, "_exit");
	libc__Exit = (exit_fn)dlsym(RTLD_DEFAULT, "_Exit");
	pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
	got_redirect_program(ends, sizeof(ends) / sizeof(ends[0]));
}
