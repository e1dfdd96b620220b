/*
 * record.c - 'mapprof record': run a program with the collector loaded.
 *
 * The database is created here, before the program starts, so a path that
 * cannot be written fails fast.  The program then runs with the collector in
 * OMP_TOOL_LIBRARIES (the collector also redirects the program's offload
 * calls to capture clang's source records, collector/got.c), with its
 * stdin/stdout/stderr untouched.  The collector writes a spool
 * ("DB-spool"); once the program has ended, this process expands it into the
 * database and completes it: how the program ended, deletes paired with
 * allocations.  None of that work is charged to the program.
 *
 * Until then the database's run row says 'recording' and names the spool,
 * so that if this process is killed the database says how to recover the
 * events ('mapprof recover', cli/recover.c); the program, told by a socket
 * (cli/drain.c), runs on unrecorded.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <libgen.h>
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/drain.h"
#include "cli/loader.h"
#include "cli/record.h"
#include "cli/record_procs.h"
#include "db/db.h"
#include "db/ingest/finish.h"
#include "db/ingest/ingest.h"
#include "db/store/locations.h"
#include "db/spool/ring.h"
#include "db/spool/spool.h"
#include "lib/huge.h"
#include "lib/ranks.h"
#include "report/attribute/attribute.h"
#include "report/report.h"

#define COLLECTOR_NAME "libmapprof-collector.so"

static const char record_usage[] =
	"usage: mapprof record [-o PATH] [-f] [--max-spool SIZE] [--ranks LIST] [--analyse]\n"
	"                      [--check] [--] PROGRAM [ARGS...]\n"
	"\n"
	"Run PROGRAM with the mapprof collector and record every target construct,\n"
	"kernel and data transfer of the run into one SQLite database.\n"
	"\n"
	"  -o, --output PATH   database to write (default: PROGRAM's name + .mapprof.db,\n"
	"                      in the current directory); %p is the process's pid, %r\n"
	"                      its MPI rank, %% a %.  Every process of the command that\n"
	"                      offloads gets a database: PATH for the first, PATH with\n"
	"                      .PID before .db for the others unless %p/%r tell them apart\n"
	"  -f, --force         replace PATH if it exists, once the new database is\n"
	"                      whole (written as PATH.new-PID until then; a symlink\n"
	"                      stays, its target is replaced); a device, a FIFO, a\n"
	"                      directory, the program, and an executable or a file\n"
	"                      its arguments name that is not a database are refused\n"
	"      --max-spool SIZE the most the events may take on disk while the program\n"
	"                      runs (the spool beside PATH), like 512M or 20G; 0: no cap.\n"
	"                      Default: MAPPROF_SPOOL_MAX, else 8G or a quarter of the\n"
	"                      free space there, whichever is smaller.  Past it the\n"
	"                      program runs on unrecorded and the run is incomplete.\n"
	"      --ranks LIST   record only these MPI ranks, like 0,7,100-199 (the rank\n"
	"                      from OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK or\n"
	"                      SLURM_PROCID): the others run the program without the\n"
	"                      collector, and the merged report lists them as not\n"
	"                      recorded.  Default: MAPPROF_RANKS, else every rank\n"
	"      --analyse       once recorded, analyse each database and store its\n"
	"                      findings in it (as 'mapprof report -q --no-json\n"
	"                      --no-html' would), where and while the job's other\n"
	"                      ranks do the same: 'mapprof-mpi report --stored'\n"
	"                      then merges the stored findings only\n"
	"      --check         also look for mapping bugs while the program runs (as\n"
	"                      MAPPROF_CHECK=1 does): copies back of bytes the device\n"
	"                      never wrote, host writes a copy back undoes, host writes\n"
	"                      racing a nowait copy (docs/checks.md); costs time and\n"
	"                      memory only when given\n"
	"  -h, --help          show this help\n"
	"\n"
	"The program's standard streams are left alone; mapprof speaks on stderr only.\n"
	"Exit status: the program's own (128+N if killed by signal N), 127 if it was\n"
	"not found, 126 if it could not be executed, 2 on usage errors, 3 if the\n"
	"database could not be created.  A recording cut short (its cap, a full disk)\n"
	"keeps the program's status: mapprof says why, and the run is 'incomplete'.\n"
	"If 'mapprof record' itself is killed, the program runs on unrecorded and\n"
	"'mapprof recover' turns the spool it left into the database.\n"
	"\n"
	"Environment: the collector is loaded through OMP_TOOL_LIBRARIES (appended to\n"
	"any value already set) and, for OpenACC programs built with GCC, ACC_PROFLIB\n"
	"(appended after a ';').  MAPPROF_COLLECTOR overrides the collector library's\n"
	"path.\n";

char *record_default_output(const char *program)
{
	char *copy = strdup(program), *out = NULL;
	if (copy && asprintf(&out, "%s.mapprof.db", basename(copy)) < 0)
		out = NULL;
	free(copy);
	return out;
}

static char *find_collector(void)
{
	const char *env = getenv("MAPPROF_COLLECTOR");
	char *dir, *path = NULL;

	if (env && *env)
		return realpath(env, NULL);
	dir = exe_dir();
	if (!dir)
		return NULL;
	/* Beside the binary (build tree), or PREFIX/lib/mapprof (installed). */
	const char *tries[] = { "/", "/../lib/mapprof/" };
	for (size_t i = 0; i < 2 && !path; i++) {
		char *p;
		if (asprintf(&p, "%s%s" COLLECTOR_NAME, dir, tries[i]) < 0)
			break;
		path = realpath(p, NULL);
		free(p);
	}
	free(dir);
	return path;
}

/* "NAME=" + old + sep + add, or "NAME=" + add when NAME is unset or empty. */
static char *env_entry(const char *name, const char *add, const char *sep)
{
	const char *old = getenv(name);
	char *v;

	if (old && *old) {
		if (asprintf(&v, "%s=%s%s%s", name, old, sep, add) < 0)
			return NULL;
	} else if (asprintf(&v, "%s=%s", name, add) < 0) {
		return NULL;
	}
	return v;
}

static int is_var(const char *entry, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(names[i]);
		if (!strncmp(entry, names[i], len) && entry[len] == '=')
			return 1;
	}
	return 0;
}

static void free_env(char **env)
{
	for (size_t i = 0; env && env[i]; i++)
		free(env[i]);
	free(env);
}

/*
 * The live expansion's thread (db/ingest/ingest.h): the spool's new frames
 * expanded every few ms while the program runs, on the core the drain
 * leaves idle, so that little is left to do once it ends.
 */
struct live_thread {
	struct ingest_live *l;
	pthread_t th;
	int running;
	atomic_int stop;
	pthread_mutex_t mu;   /* the nap, cut short by live_stop(); 'ready'; 'busy' */
	pthread_cond_t wake;
	int busy;             /* in a step (under mu): live_stop() waits for that only */
	int deep;             /* in a long nap (under mu): live_kick() ends it ... */
	uint64_t kick_at;     /* ... once the drain wrote this many chunks (under mu) */
	uint64_t written;     /* chunks the drain wrote, as last told (under mu) */
	int kicked;           /* live_kick() ended the nap (under mu) */
	/*
	 * The database, opened and marked as recording by the thread while the
	 * program starts (not before it: a few SQLite statements' parsing off
	 * the program's start); db NULL with err set when that failed.
	 */
	const char *path, *spool, *replaces;
	unsigned lag;
	int tsc;
	struct db *db;
	char *err;
	int ready;            /* db and l set (under mu) */
};

/* What live_setup() takes of its thread's malloc arena at once, faulted in, and gives back. */
#define LIVE_ARENA_WARM ((size_t)1 << 20)

/*
 * The calling thread's malloc arena grown by 'bytes' and its pages faulted
 * in with one system call, then given back to the arena (record keeps what
 * it frees: cmd_record()): what the thread allocates next takes pages
 * already there, not a fault a page.
 */
static void warm_arena(size_t bytes)
{
	void *warm = malloc(bytes);

	if (warm) {
		huge_populate(warm, bytes);
		free(warm);
	}
}

/* The database opened and marked, and the live expansion made ready on it (returned too). */
static struct ingest_live *live_setup(struct live_thread *t)
{
	struct ingest_live *l;

	/*
	 * This thread's arena grown by a MiB and faulted in (warm_arena()), on
	 * the core the program's start leaves idle: SQLite's schema,
	 * statements and page cache then take pages already there.  One
	 * fault a page was ~120 of the ~310 a recording of /bin/true took, each
	 * a trip to the hypervisor on a VM.  (The arena stays the thread's own:
	 * one shared with the main and expansion threads would make them wait
	 * for this nice-19 thread whenever it was preempted holding its lock.)
	 */
	warm_arena(LIVE_ARENA_WARM);
	t->db = db_open_created(t->path, &t->err);
	if (t->db && db_mark_recording(t->db, t->spool, t->replaces, &t->err) < 0) {
		db_close(t->db);
		t->db = NULL;
	}
	if (!t->db && !t->err)
		t->err = strdup("out of memory");
	/*
	 * The ring's chunks may still overtake a frame written: half a ring
	 * behind, and some (one that comes later still makes the expansion
	 * start over after the program: slower, the same rows).
	 */
	l = t->db ? ingest_live_new(t->db, t->spool, t->lag, t->tsc) : NULL;
	pthread_mutex_lock(&t->mu);
	t->l = l;
	t->ready = 1;
	pthread_cond_broadcast(&t->wake);
	pthread_mutex_unlock(&t->mu);
	return l;
}

/*
 * The nap between looks that found nothing to expand: 2 ms, doubled each
 * time nothing came, up to LIVE_NAP_MAX_MS; after that LIVE_NAP_LONG_MS,
 * cut short when the drain writes chunks to the spool (live_kick()).  A
 * run with few events (most of what it records stays within the lag) is
 * looked at a few times a second, not 500 or 30: each look is a wake-up
 * on a core the program's threads may be using and a few system calls
 * (cg.naive ran 3.5 % slower with the thread than without it; 30 looks a
 * second were ~3 ms of CPU a second on the 2-core VM).  A run that streams
 * events finds some at every look.
 */
#define LIVE_NAP_MIN_MS 2
#define LIVE_NAP_MAX_MS 32
#define LIVE_NAP_LONG_MS 250
/* A long nap ends once the drain wrote this many chunks more (8 K events): likely some past the lag. */
#define LIVE_KICK_CHUNKS 8

/* The drain wrote chunks to the spool (drain_on_written()): a thread in a long nap may look now. */
static void live_kick(void *arg, uint64_t written)
{
	struct live_thread *t = arg;

	pthread_mutex_lock(&t->mu);
	t->written = written;
	if (t->deep && written >= t->kick_at) {
		t->kicked = 1;
		pthread_cond_broadcast(&t->wake);
	}
	pthread_mutex_unlock(&t->mu);
}

static void *live_main(void *arg)
{
	struct live_thread *t = arg;
	long nap_ms = LIVE_NAP_MIN_MS;

	/* Its own pointer: once stopped, t->l is the expansion's to change. */
	struct ingest_live *l = live_setup(t);   /* at the program's priority: the expansion waits for it */

	if (!l)
		return NULL;
	/*
	 * Idle time only: where no core is idle (a loaded machine) the program
	 * and the drain come first, and what this thread did not get to is
	 * expanded after the program, as without it.  Linux's nice is per thread.
	 * MAPPROF_LIVE_EXPAND=eager: at the program's priority (the tests).
	 */
	const char *env = getenv("MAPPROF_LIVE_EXPAND");
	if (!env || strcmp(env, "eager"))
		setpriority(PRIO_PROCESS, (id_t)syscall(SYS_gettid), 19);
	for (;;) {
		/* A step starts only before the stop: after it, t->l is the expansion's. */
		pthread_mutex_lock(&t->mu);
		int stop = atomic_load_explicit(&t->stop, memory_order_acquire);
		t->busy = !stop;
		pthread_mutex_unlock(&t->mu);
		if (stop)
			break;
		int n = ingest_live_step(l);
		pthread_mutex_lock(&t->mu);
		t->busy = 0;
		pthread_cond_broadcast(&t->wake);
		pthread_mutex_unlock(&t->mu);
		if (n < 0)
			break;   /* given up: everything after the program, as without it */
		if (n) {
			nap_ms = LIVE_NAP_MIN_MS;
			continue;
		}
		struct timespec until;
		clock_gettime(CLOCK_MONOTONIC, &until);
		until.tv_nsec += nap_ms * 1000000;
		until.tv_sec += until.tv_nsec / 1000000000;
		until.tv_nsec %= 1000000000;
		pthread_mutex_lock(&t->mu);
		t->deep = nap_ms > LIVE_NAP_MAX_MS;
		t->kick_at = t->written + LIVE_KICK_CHUNKS;
		t->kicked = 0;
		while (!atomic_load_explicit(&t->stop, memory_order_acquire) && !t->kicked &&
		       pthread_cond_timedwait(&t->wake, &t->mu, &until) == 0)
			;
		t->deep = 0;
		pthread_mutex_unlock(&t->mu);
		nap_ms = nap_ms >= LIVE_NAP_MAX_MS ? LIVE_NAP_LONG_MS : nap_ms * 2;
	}
	return NULL;
}

static void live_start(struct live_thread *t, const char *path, const char *spool, const char *replaces,
		       unsigned nchunks, int tsc)
{
	pthread_condattr_t ca;

	memset(t, 0, sizeof(*t));
	t->path = path;
	t->spool = spool;
	t->replaces = replaces;
	t->lag = (nchunks ? nchunks : RING_CHUNKS_DEFAULT) / 2 + 16;
	t->tsc = tsc;
	atomic_init(&t->stop, 0);
	pthread_mutex_init(&t->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&t->wake, &ca);
	pthread_condattr_destroy(&ca);
	if (pthread_create(&t->th, NULL, live_main, t) == 0)
		t->running = 1;
	else
		live_setup(t);   /* here, then: no live expansion */
}

/*
 * The thread told to stop, its step in flight (if any) ended: the live
 * expansion is db_ingest_spool_live()'s from here on.  Not joined: a thread
 * found napping may get no core for milliseconds (it runs at nice 19, the
 * program's threads may still spin as it ends), and it touches nothing
 * but its own when it wakes; live_join() reaps it once the program is gone.
 */
static void live_stop(struct live_thread *t)
{
	if (!t->running)
		return;
	pthread_mutex_lock(&t->mu);
	while (!t->ready)
		pthread_cond_wait(&t->wake, &t->mu);
	pthread_mutex_unlock(&t->mu);
	/* What the thread has not expanded yet is ours now, at the program's priority. */
	if (t->l)
		ingest_live_cut(t->l);
	pthread_mutex_lock(&t->mu);
	atomic_store_explicit(&t->stop, 1, memory_order_release);
	pthread_cond_broadcast(&t->wake);
	while (t->busy)
		pthread_cond_wait(&t->wake, &t->mu);
	pthread_mutex_unlock(&t->mu);
}

/* The thread stopped and reaped. */
static void live_join(struct live_thread *t)
{
	if (!t->running)
		return;
	live_stop(t);
	pthread_join(t->th, NULL);
	t->running = 0;
}

/* Stopped and dropped. */
static void live_drop(struct live_thread *t)
{
	live_join(t);
	ingest_live_free(t->l);
	t->l = NULL;
	pthread_cond_destroy(&t->wake);
	pthread_mutex_destroy(&t->mu);
}

/*
 * The program's environment: ours, with the collector added.  Built before
 * the program starts, so that starting it is a plain posix_spawn (no copy of
 * this process's pages, whatever SQLite holds).  NULL when out of memory;
 * free with free_env().
 */
static char **child_env(const char *output, const char *spool, const char *collector,
			const struct drain *d, int tsc)
{
	static const char *const ours[] = { "MAPPROF_OUTPUT", "MAPPROF_SPOOL", "MAPPROF_SPOOL_FD",
					    "MAPPROF_RING_FD", "MAPPROF_LIVE_FD", "MAPPROF_RECORDER",
					    "MAPPROF_CLOCK", "MAPPROF_CLOCK_BASE", "OMP_TOOL_LIBRARIES",
					    "ACC_PROFLIB" };
	size_t n = 0, k = 0, nours = sizeof(ours) / sizeof(ours[0]);
	char **env;

	while (environ[n])
		n++;
	env = calloc(n + nours + 1, sizeof(*env));
	if (!env)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (!is_var(environ[i], ours, nours) && !(env[k++] = strdup(environ[i])))
			goto oom;
	if (asprintf(&env[k++], "MAPPROF_OUTPUT=%s", output) < 0 ||
	    asprintf(&env[k++], "MAPPROF_SPOOL=%s", spool) < 0 ||
	    asprintf(&env[k++], "MAPPROF_SPOOL_FD=%d", drain_spool_fd(d)) < 0 ||
	    asprintf(&env[k++], "MAPPROF_RING_FD=%d", drain_ring_fd(d)) < 0 ||
	    asprintf(&env[k++], "MAPPROF_LIVE_FD=%s", drain_live_env(d)) < 0 ||
	    asprintf(&env[k++], "MAPPROF_RECORDER=%s", drain_recorder_env(d)) < 0 ||
	    asprintf(&env[k++], "MAPPROF_CLOCK=%s", tsc ? "tsc" : "monotonic") < 0) {
		env[k - 1] = NULL;
		goto oom;
	}
	if (tsc) {
		/* The first (ticks, ns) pair of the run: see output_clock_frame(). */
		int64_t ticks, ns;
		char boot[64];
		spool_clock_pair(&ticks, &ns);
		/* With the boot's id: a rank on another host (the launcher forwards the environment) ignores it. */
		if (spool_boot_id(boot, sizeof(boot)) == 0 &&
		    asprintf(&env[k++], "MAPPROF_CLOCK_BASE=%lld:%lld:%s", (long long)ticks, (long long)ns,
			     boot) < 0) {
			env[k - 1] = NULL;
			goto oom;
		}
	}
	/* OMPT runtimes load OMP_TOOL_LIBRARIES; GCC's libgomp (OpenACC) loads ACC_PROFLIB, a ';' list. */
	if (!(env[k++] = env_entry("OMP_TOOL_LIBRARIES", collector, ":")) ||
	    !(env[k++] = env_entry("ACC_PROFLIB", collector, ";")))
		goto oom;
	env[k] = NULL;
	return env;
oom:
	free_env(env);
	return NULL;
}

static pid_t child_pid;
static volatile sig_atomic_t child_reaped;   /* its pid may be another process's now */

/* How the program ended, when not plainly (a script tells a status such as 3 as the program's, not mapprof's). */
static void say_program_end(const struct run_end *end)
{
	if (end->signal)
		info("the program was killed by signal %d (%s)", end->signal, strsignal(end->signal));
	else if (end->exit_status)
		info("the program exited with status %d", end->exit_status);
}

static int64_t mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* This thread's CPU time: the expansion's, whatever else runs on the machine. */
static int64_t cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static void forward_signal(int sig)
{
	if (child_pid > 0 && !child_reaped)
		kill(child_pid, sig);
}

/*
 * The spool's expansion into the database.  It starts as soon as the
 * process that records into the ring (the program's first to start OpenMP)
 * says its collector finished (exit(), the runtime's end): that process
 * writes nothing more to the spool, but it may
 * take milliseconds more to end (the exit handlers after ours, the kernel
 * freeing its memory), and the events go into the database meanwhile, on
 * another core.  Without that word (killed, _exit(), no collector) it runs
 * after the program, as it always did.  Either way the same database.
 */
struct expansion {
	struct db *db;
	struct drain *drain;
	const char *spool;
	struct live_thread *live;
	int tsc;
	pthread_t th;
	int running;             /* th started */
	int done;                /* expanded */
	int early;               /* ... on the collector's word (as the program ended) */
	char *stopped;           /* drain_stop_text() */
	int said;                /* drain_stop_said() */
	struct op_keys *keys;
	struct ingest_result ing;
	int ingested;            /* db_ingest_spool_live()'s result */
	char *err;
	int64_t ns, cpu_ns;      /* its wall and CPU time (ingested == 0) */
	/* Early, also the source files' hashes (attribute_record_sources()): */
	int sources_done;
	int sources_rc;
	char *sources_err;
};

static void expand(struct expansion *x)
{
	int64_t x0, c0;

	drain_final(x->drain, x->tsc);
	live_stop(x->live);
	x->db = x->live->db;
	x->stopped = drain_stop_text(x->drain);
	x->said = drain_stop_said(x->drain);
	if (!x->db) {
		/* Never opened (live_setup()): the spool keeps the events. */
		x->ingested = -1;
		x->done = 1;
		return;
	}
	x0 = mono_ns();
	c0 = cpu_ns();
	/* The source files' keys gathered as the events go in: data_op_raw is not read again. */
	x->keys = op_keys_new(x->db, &x->err);
	/* A spool that stopped early was cut back: the live expansion may have read what went. */
	x->ingested = x->keys ? db_ingest_spool_live(x->db, x->spool, &x->ing, &x->keys, x->live->l,
						      !x->stopped, &x->err)
			      : -1;
	if (!x->keys)
		ingest_live_free(x->live->l);
	x->live->l = NULL;
	if (x->ingested == 0) {
		x->ns = mono_ns() - x0;
		x->cpu_ns = cpu_ns() - c0;
	}
	x->done = 1;
}

/* What the expansion thread takes of its malloc arena as it starts, faulted in, and gives back. */
#define EXPANSION_ARENA_WARM ((size_t)512 << 10)

static void *expansion_main(void *arg)
{
	struct expansion *x = arg;

	/*
	 * This thread's arena is its own (live_setup() says why) and would
	 * start empty: faulted in now (warm_arena()) while the program's start
	 * leaves a core idle, the expansion and the source
	 * files' DWARF take pages already there as the program ends, when both
	 * cores are the program's too (on real/tealeaf.fixed ~40 faults fewer
	 * between the collector's word and the reap).
	 */
	warm_arena(EXPANSION_ARENA_WARM);
	if (drain_wait_finished(x->drain) == 1) {
		x->early = 1;
		expand(x);
		/*
		 * The run is in the database: its source files too.  Should the
		 * program turn out not to have offloaded itself (its processes
		 * did), the database goes and this with it.
		 */
		if (x->ingested >= 0 && x->keys) {
			x->sources_rc = attribute_record_sources(x->db, x->keys, &x->sources_err);
			x->sources_done = 1;
		}
	}
	return NULL;
}

/*
 * The thread that waits for the collector's word, started with the
 * program.  Record's signals stay with the main thread (its wait).
 */
static void expansion_start(struct expansion *x)
{
	sigset_t all, old;

	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	x->running = pthread_create(&x->th, NULL, expansion_main, x) == 0;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* The program has ended: the expansion, if the thread has not done it. */
static void expansion_finish(struct expansion *x)
{
	if (x->running) {
		drain_unblock(x->drain);
		pthread_join(x->th, NULL);
		x->running = 0;
	}
	if (!x->done)
		expand(x);
}

/*
 * The spool (or the spool directory) is 'mapprof record's while it lives:
 * an exclusive flock() on a descriptor of our own (close-on-exec, so the
 * program does not hold it), released when record ends or dies.  'mapprof
 * recover' takes the same lock and refuses a spool it cannot get
 * (cli/recover.c).  -1 when there is nothing to lock.
 */
static int lock_live(const char *path)
{
	int fd;

	if (!path)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		fd = -1;
	}
	return fd;
}

static void unlock_live(int fd)
{
	if (fd >= 0)
		close(fd);
}

/* Rename the finished database 'from' over 'to' (record -f).  0, or -1 (said why). */
static int replace_with(const char *from, const char *to)
{
	const char *refusal = output_refusal(to, NULL);
	char side[4096];

	if (refusal) {
		error("refusing to replace '%s': %s", to, refusal);
		hint("the new database is kept as '%s'", from);
		return -1;
	}
	/* The old database's journal would be replayed into the new one. */
	snprintf(side, sizeof(side), "%s-journal", to);
	unlink(side);
	snprintf(side, sizeof(side), "%s-wal", to);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", to);
	unlink(side);
	/*
	 * Swapped with the old one, which is then removed: a rename over an
	 * existing file makes ext4 (auto_da_alloc) write the new file's blocks
	 * out first, 35-50 ms for 83 MB here and the disk's time, where a
	 * recording never pays for fsync (db/db.c).  Atomic either way: 'to'
	 * is always the old database or the new one.
	 */
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_EXCHANGE) == 0) {
		if (unlink(from) < 0)
			info("warning: the old database is left as '%s': %s", from, strerror(errno));
		return 0;
	}
	if (rename(from, to) < 0) {
		error("cannot replace '%s': %s", to, strerror(errno));
		hint("the new database is kept as '%s'", from);
		return -1;
	}
	return 0;
}

int record_program(const struct record_options *opt, int *status, char **db_path_out,
		   char ***others_out, size_t *nothers)
{
	int main_dropped = 0;

	if (others_out) {
		*others_out = NULL;
		*nothers = 0;
	}
	char *output = opt->output ? strdup(opt->output) : record_default_output(opt->argv[0]);
	char *abs_output = NULL, *collector = NULL, *err = NULL, *spool = NULL, **env = NULL;
	const char *chunks_env = getenv("MAPPROF_RING_CHUNKS");
	char *chunks_end = NULL;
	long chunks = chunks_env && *chunks_env ? strtol(chunks_env, &chunks_end, 10) : RING_CHUNKS_DEFAULT;
	unsigned nchunks;
	struct drain *drain = NULL;
	/* Event times from the timestamp counter, unless MAPPROF_CLOCK=monotonic. */
	const char *clock_env = getenv("MAPPROF_CLOCK");
	int tsc = clock_env && *clock_env ? !strcmp(clock_env, "tsc") : spool_tsc_usable();
	struct db *db = NULL;
	struct ingest_result ing = { 0 };
	struct op_keys *keys = NULL;
	struct live_thread live = { .l = NULL, .running = 0 };
	struct expansion x = { 0 };
	int64_t t0;
	int rc_finish;
	int spawn_errno, wstatus = 0;
	struct sigaction ign = { .sa_handler = SIG_IGN }, fwd = { .sa_handler = forward_signal };
	struct sigaction old_int, old_quit, old_term, old_hup;
	struct run_end end = { 0 };
	struct rusage ru;
	struct record_counts counts;
	const char *max_text = opt->max_spool ? opt->max_spool : getenv("MAPPROF_SPOOL_MAX");
	int64_t spool_max = -1;
	char *stopped = NULL;
	int ingested, said = 0, main_end, main_end_status;
	char *lost = NULL;
	struct record_procs *procs = NULL;
	char *main_path = NULL;
	int usage = 0;
	const char *refusal;
	char *final = NULL;   /* -f: the database to replace once the new one is finished */
	struct stat ost;
	int lock_fd = -1, dir_lock_fd = -1;
	int created = 0;   /* output written (db_create_file()) */

	*status = EXIT_ERROR;
	if ((chunks_end && *chunks_end) || chunks < 0 || chunks > 4096) {
		error("MAPPROF_RING_CHUNKS must be a number from 0 to 4096, not '%s'", chunks_env);
		free(output);
		return -1;
	}
	nchunks = (unsigned)chunks;
	/* --max-spool '' says nothing: a usage error; an empty MAPPROF_SPOOL_MAX is unset. */
	if (opt->max_spool && !*opt->max_spool) {
		error("--max-spool needs a size like 512M or 8G (0: none), not ''");
		free(output);
		*status = EXIT_USAGE;
		return -1;
	}
	if (max_text && *max_text && spool_parse_size(max_text, &spool_max) < 0) {
		error("the spool cap must be a size like 512M or 8G (0: none), not '%s'", max_text);
		free(output);
		*status = EXIT_USAGE;
		return -1;
	}
	if (!output) {
		error("out of memory");
		return -1;
	}
	/* Every other process of the command records beside it (record_procs.h). */
	procs = record_procs_open(output, opt->force, &main_path, &usage, &err);
	if (!procs) {
		error("%s", err ? err : "out of memory");
		free(err);
		free(output);
		*status = usage ? EXIT_USAGE : EXIT_ERROR;
		return -1;
	}
	free(output);
	output = main_path;
	/* Never the program, its files or any executable, -f or not. */
	refusal = output_refusal(output, opt->argv);
	if (refusal) {
		error("refusing to write the database to '%s': %s", output, refusal);
		hint("name the database with -o PATH");
		goto fail_early;
	}
	/*
	 * -f over an existing database: the new one is written beside it and
	 * renamed over it once finished, so that a program that cannot start,
	 * or a recording cut short, leaves the old one as it was.  The spool
	 * is the new one's (NAME.new-PID-spool); its run names the old path,
	 * for 'mapprof recover' to finish the replacement.
	 */
	if (opt->force && stat(output, &ost) == 0 && S_ISREG(ost.st_mode)) {
		/* A symlink stays: its target is replaced, beside it. */
		char *next = NULL;
		final = replace_target(output);
		if (!final || asprintf(&next, "%s.new-%ld", final, (long)getpid()) < 0) {
			error("out of memory");
			goto fail_early;
		}
		free(output);
		output = next;
	}
	collector = find_collector();
	if (!collector) {
		error("cannot find the collector library '%s'", COLLECTOR_NAME);
		hint("it is built beside the mapprof binary by 'make'; or set MAPPROF_COLLECTOR");
		goto fail;
	}
	/* Opened by the live thread while the program starts (live_setup()). */
	if (db_create_file(output, opt->force && !final, &err) < 0) {
		error("%s", err);
		goto fail;
	}
	created = 1;
	abs_output = realpath(output, NULL);
	if (asprintf(&spool, "%s-spool", abs_output ? abs_output : output) < 0) {
		spool = NULL;
		error("out of memory");
		goto fail;
	}
	/* A spool left by an earlier run that was cut short belongs to the old file. */
	unlink(spool);
	if (spool_max < 0) {
		char *dir = strdup(spool);
		spool_max = dir ? spool_default_max(dirname(dir)) : 0;
		free(dir);
	}
	drain = drain_open(spool, nchunks, spool_max, &err);
	if (!drain) {
		error("%s", err);
		goto fail;
	}
	lock_fd = lock_live(spool);
	dir_lock_fd = lock_live(getenv("MAPPROF_SPOOL_DIR"));

	env = child_env(abs_output ? abs_output : output, spool, collector, drain, tsc);
	if (!env) {
		error("out of memory");
		goto fail;
	}
	fflush(NULL);
	t0 = mono_ns();
	spawn_errno = posix_spawnp(&child_pid, opt->argv[0], NULL, NULL, opt->argv, env);
	if (spawn_errno) {
		error("cannot run '%s': %s", opt->argv[0], strerror(spawn_errno));
		if (spawn_errno == ENOENT && !strchr(opt->argv[0], '/'))
			hint("not found in PATH; give a path like './%s'", opt->argv[0]);
		drain_close(drain);
		unlink(output);
		unlink(spool);
		unlock_live(lock_fd);
		unlock_live(dir_lock_fd);
		if (final)
			info("'%s' is left as it was", final);
		*status = spawn_errno == ENOENT ? 127 : 126;
		free(final);
		free(output);
		free(abs_output);
		free(collector);
		free(spool);
		free_env(env);
		record_procs_abort(procs);
		return -1;
	}
	free_env(env);
	/* Like system(): the terminal's ^C goes to the program; we wait for it to end. */
	sigaction(SIGINT, &ign, &old_int);
	sigaction(SIGQUIT, &ign, &old_quit);
	sigaction(SIGTERM, &fwd, &old_term);
	sigaction(SIGHUP, &fwd, &old_hup);
	/*
	 * From here until the expansion, the thread is the database's only user.
	 * Started once the program is on its way: its setup (the schema, the
	 * statements) runs while the program's runtime starts, not before.
	 */
	live_start(&live, output, spool, final, nchunks, tsc);
	drain_on_written(drain, live_kick, &live);
	drain_started(drain);
	x = (struct expansion){ .drain = drain, .spool = spool, .live = &live, .tsc = tsc };
	expansion_start(&x);
	memset(&ru, 0, sizeof(ru));
	drain_wait(drain, child_pid, &wstatus, &ru);
	end.wall_ns = mono_ns() - t0;
	child_reaped = 1;
	/* Reaped: ^C and kill stop record again (the spool stays for 'mapprof recover'). */
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGQUIT, &old_quit, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
	expansion_finish(&x);
	live_join(&live);   /* stopped by the expansion; reaped now that the program is gone */
	db = x.db;
	stopped = x.stopped;
	said = x.said;
	keys = x.keys;
	ing = x.ing;
	ingested = x.ingested;
	free(err);
	err = x.err;
	if (ingested == 0) {
		/* What the events cost after the program ended, or while it ended (the stats table). */
		end.expand_ns = x.ns;
		end.expand_cpu_ns = x.cpu_ns;
		end.expand_early = x.early;
	}
	main_end = drain_ended(drain, &main_end_status);
	end.calls_late = drain_calls_late(drain);
	end.peak_rss_kb = ru.ru_maxrss;
	end.user_ns = (int64_t)ru.ru_utime.tv_sec * 1000000000 + (int64_t)ru.ru_utime.tv_usec * 1000;
	end.sys_ns = (int64_t)ru.ru_stime.tv_sec * 1000000000 + (int64_t)ru.ru_stime.tv_usec * 1000;

	if (WIFEXITED(wstatus)) {
		end.exit_status = WEXITSTATUS(wstatus);
	} else if (WIFSIGNALED(wstatus)) {
		end.signal = WTERMSIG(wstatus);
		end.exit_status = 128 + end.signal;
	}
	*status = end.exit_status;
	if (!db) {
		/* The database could not be opened once the program started: the spool has it all. */
		char *qspool = shell_quoted(spool), *qfinal = final ? shell_quoted(final) : NULL;
		error("%s", live.err ? live.err : "cannot open the database");
		/* -f: the recovered database replaces the old one, as this record would have. */
		if (final)
			hint("the events are kept in '%s'; recover them with: mapprof recover -f -o %s %s", spool,
			     qfinal ? qfinal : final, qspool ? qspool : spool);
		else
			hint("the events are kept in '%s'; recover them with: mapprof recover %s", spool,
			     qspool ? qspool : spool);
		if (final)
			info("'%s' is left as it was", final);
		say_program_end(&end);
		free(qspool);
		free(qfinal);
		free(live.err);
		free(stopped);
		unlink(output);   /* the empty file, when the open worked and marking it did not */
		unlock_live(lock_fd);
		record_procs_finish(procs, 0, NULL, NULL);
		drain_close(drain);
		unlock_live(dir_lock_fd);
		*status = EXIT_ERROR;
		free(final);
		free(output);
		free(abs_output);
		free(collector);
		free(spool);
		free(err);
		return -1;
	}
	free(live.err);
	/* 127 before any OpenMP: the loader's "error while loading shared libraries", most likely. */
	char *no_start = WIFEXITED(wstatus) && end.exit_status == 127 ? loader_diagnosis(opt->argv[0]) : NULL;
	end.no_collector_why = no_start;

	if (ingested >= 0) {
		/*
		 * Expanded, or nothing in it (no collector came): either way not
		 * wanted; MAPPROF_KEEP_SPOOL=PATH keeps it there (the tests'
		 * 'mapprof recover' of the very spool record expanded).
		 */
		const char *keep = getenv("MAPPROF_KEEP_SPOOL");
		if (!keep || !*keep || rename(spool, keep) < 0)
			unlink(spool);
		if (ing.truncated && !stopped)
			info("warning: the spool ended mid-write (the program was killed?): "
			     "events after that point are lost");
	} else if (ingested < 0) {
		/* The database (on a full disk?) could not take the events: the spool keeps them. */
		memset(&ing, 0, sizeof(ing));
		if (stopped && !said)
			info("warning: recording of '%s' stopped early: %s", opt->argv[0], stopped);
		error("cannot expand the recorded events into '%s': %s", output, err);
		char *qspool = shell_quoted(spool);   /* pasted into a shell */
		hint("the events are kept in '%s'; once there is room, recover them with: mapprof recover %s",
		     spool, qspool ? qspool : spool);
		if (final)
			info("'%s' is left as it was until then", final);
		if (asprintf(&lost, "%s; they are kept in the spool '%s': recover them with: mapprof recover %s",
			     err, spool, qspool ? qspool : spool) < 0) {
			lost = err;
			err = NULL;
		}
		free(qspool);
		end.lost_why = lost;
	}
	free(err);
	err = NULL;
	rc_finish = db_finish_run(db, &end, &err);
	free(lost);
	if (rc_finish < 0) {
		/* Said once: after a failed expansion the hint above stands. */
		if (ingested >= 0) {
			error("%s", err);
			hint("the program may have removed or overwritten '%s'", output);
			if (final)
				info("'%s' is left as it was", final);
		}
		op_keys_free(keys);
		db_close(db);
		free(err);
		err = NULL;
	} else if (no_start && ingested >= 0 && !ing.data_ops && !ing.kernels && !ing.targets &&
		   !record_procs_others(procs)) {
		/*
		 * The program never ran (the loader's 127): nothing to keep, and a
		 * database left here would make the next run need -f.
		 */
		info("warning: nothing was recorded: %s", no_start);
		info("no database was written%s", final ? "" : " (record again once the program starts)");
		if (final)
			info("'%s' is left as it was", final);
		info("the program exited with status %d", end.exit_status);
		main_dropped = 1;
		op_keys_free(keys);
		db_close(db);
		unlink(output);
	} else if (record_procs_main(procs, db, final ? &final : &output, child_pid, wstatus, main_end,
				     main_end_status) == 1) {
		/* Only other processes offloaded (the program is mpirun, a shell): theirs are the databases. */
		info("'%s' did not offload itself: the processes it started did", opt->argv[0]);
		main_dropped = 1;
		op_keys_free(keys);
		db_close(db);
		unlink(output);
		unlink(spool);
		if (final)
			info("'%s' is left as it was", final);
	} else {
		/* The sources as they are now, for a report made after an edit (report/attribute/attribute.h). */
		int sources_rc = x.sources_done ? x.sources_rc : attribute_record_sources(db, keys, &err);
		if (x.sources_done) {
			free(err);
			err = x.sources_err;
			x.sources_err = NULL;
		}
		if (sources_rc < 0) {
			info("warning: the source files were not hashed (a report will not see them change): %s",
			     err ? err : "out of memory");
			free(err);
			err = NULL;
		}
		/* Finished: now it may replace the old database. */
		if (final && replace_with(output, final) == 0) {
			free(output);
			output = final;
			final = NULL;
		}
		db_record_counts(db, &counts);
		if (counts.status && !strcmp(counts.status, "complete")) {
			info("recorded %llu data operations, %llu kernels, %llu target constructs to '%s'",
			     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels,
			     (unsigned long long)ing.targets, output);
			if (counts.status_detail)
				info("note: %s", counts.status_detail);
		} else if (ingested >= 0 && stopped && said) {
			/* The collector said why when it happened: said once. */
			info("warning: recording of '%s' is %s (the reason is above)", opt->argv[0],
			     counts.status ? counts.status : "missing");
			info("recorded %llu data operations, %llu kernels to '%s'",
			     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels, output);
		} else if (ingested >= 0) {
			info("warning: recording of '%s' is %s: %s", opt->argv[0],
			     counts.status ? counts.status : "missing",
			     counts.status_detail ? counts.status_detail : "no detail");
			info("recorded %llu data operations, %llu kernels to '%s'",
			     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels, output);
		}
		if (counts.lost && !stopped)
			info("warning: %lld events were lost (recorded after the collector finished)",
			     counts.lost);
		say_program_end(&end);
		record_counts_release(&counts);
		op_keys_free(keys);
		db_close(db);
	}
	free(stopped);
	free(x.sources_err);   /* done early, for a database that went */
	/* Could not start: what the loader said is the whole story ('run' makes no empty report). */
	int could_not_start = no_start != NULL;
	free(no_start);
	/* Held until the spool is expanded and gone: 'mapprof recover' must leave it alone. */
	unlock_live(lock_fd);
	record_procs_finish(procs, !main_dropped && rc_finish >= 0, others_out, nothers);
	/* Only now: until every process of the command is done, the socket tells them record is alive. */
	drain_close(drain);
	unlock_live(dir_lock_fd);
	free(final);
	if (db_path_out && !main_dropped) {
		*db_path_out = output;
	} else {
		if (db_path_out)
			*db_path_out = NULL;
		free(output);
	}
	free(abs_output);
	free(collector);
	free(spool);
	return could_not_start ? -1 : 0;
fail:
	live_drop(&live);
	if (drain) {
		drain_close(drain);
		unlink(spool);
	}
	if (created)
		unlink(output);
	unlock_live(lock_fd);
	unlock_live(dir_lock_fd);
fail_early:
	free(final);
	free(spool);
	free(err);
	free(output);
	free(abs_output);
	free(collector);
	record_procs_abort(procs);
	*status = EXIT_ERROR;
	return -1;
}

/*
 * --ranks: a rank left out runs the program itself, no collector loaded
 * (exec: nothing of record stays in the process).  A rank kept, or a record
 * outside the launcher (no rank here: the collector of each rank checks its
 * own), records with MAPPROF_RANKS and MAPPROF_WORLD_SIZE in the program's
 * environment, which the database keeps (env) for the merged report.
 * Returns -1 to go on recording, or the exit status of a program that could
 * not be started.
 */
static int ranks_only(const char *spec, char **argv)
{
	long rank = record_procs_env_rank(), size = record_procs_env_size();
	char n[32];

	if (rank >= 0 && !ranks_has(spec, rank)) {
		unsetenv("MAPPROF_RANKS");
		execvp(argv[0], argv);
		error("cannot run '%s': %s", argv[0], strerror(errno));
		return errno == ENOENT ? 127 : 126;
	}
	snprintf(n, sizeof(n), "%ld", size);
	if (setenv("MAPPROF_RANKS", spec, 1) < 0 || (size > 0 && setenv("MAPPROF_WORLD_SIZE", n, 1) < 0))
		return error("out of memory");
	return -1;
}

/* --analyse: the findings of the database at 'path' stored in it.  0, or -1 (said why). */
static int analyse(const char *path)
{
	struct report_options opt = { .db_path = path, .quiet = 1 };
	struct report_result res;
	char *err = NULL;
	int rc = report_run(&opt, &res, &err);

	if (rc < 0) {
		error("cannot analyse '%s': %s", path, err ? err : "report failed");
	} else if (res.not_stored) {
		error("the findings of '%s' could not be stored in it (said above)", path);
		rc = -1;
	} else {
		info("stored the findings in '%s'", path);
	}
	report_result_release(&res);
	free(err);
	return rc;
}

int cmd_record(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "force", no_argument, NULL, 'f' },
		{ "max-spool", required_argument, NULL, 'M' },
		{ "ranks", required_argument, NULL, 'R' },
		{ "analyse", no_argument, NULL, 'A' },
		{ "analyze", no_argument, NULL, 'A' },
		{ "check", no_argument, NULL, 'C' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct record_options opt = { 0 };
	const char *ranks = getenv("MAPPROF_RANKS");
	int c, status, want_analysis = 0;
	char *db_path = NULL, **others = NULL;
	size_t nothers = 0;

	/*
	 * record's heap grows 1 MiB at a time and keeps up to 64 MiB of what it
	 * frees, so that its threads take memory the heap already has: on a
	 * virtual machine each fresh page is a trip to the hypervisor (13-28 us
	 * on the 2-core VM), and the heap's growth and trimming made record take
	 * ~9 % more CPU on real/tealeaf.fixed (docs/performance.md).
	 */
	mallopt(M_TOP_PAD, 1 << 20);
	mallopt(M_TRIM_THRESHOLD, 64 << 20);
	/* Blocks up to 4 MiB from the heap, not mapped apart (live_setup()'s warm-up among them). */
	mallopt(M_MMAP_THRESHOLD, 4 << 20);
	/* '+': stop at the first non-option, the program's name. */
	while ((c = getopt_long(argc, argv, "+o:fh", longopts, NULL)) != -1) {
		switch (c) {
		case 'o':
			opt.output = optarg;
			break;
		case 'f':
			opt.force = 1;
			break;
		case 'M':
			opt.max_spool = optarg;
			break;
		case 'A':
			want_analysis = 1;
			break;
		case 'C':
			/* The collector reads it in the program (collector/check.h). */
			if (setenv("MAPPROF_CHECK", "1", 1) < 0)
				return error("out of memory");
			break;
		case 'R':
			if (!ranks_valid(optarg))
				return usage_error("record", "--ranks takes ranks and ranges like 0,7,100-199, not '%s'",
						   optarg);
			ranks = optarg;
			break;
		case 'h':
			return help_out(record_usage);
		default:
			return usage_error("record", "bad option");
		}
	}
	if (optind >= argc)
		return usage_error("record", "no program to run");
	opt.argv = argv + optind;
	if (ranks && *ranks) {
		if (!ranks_valid(ranks))
			return usage_error("record", "MAPPROF_RANKS takes ranks and ranges like 0,7,100-199, not '%s'",
					   ranks);
		if ((status = ranks_only(ranks, opt.argv)) >= 0)
			return status;
	}
	if (!want_analysis) {
		record_program(&opt, &status, NULL, NULL, NULL);
		return status;
	}
	/* The program's status stays record's: an analysis that fails is said, as a report's error. */
	if (record_program(&opt, &status, &db_path, &others, &nothers) == 0 && db_path)
		analyse(db_path);
	for (size_t i = 0; i < nothers; i++) {
		analyse(others[i]);
		free(others[i]);
	}
	free(others);
	free(db_path);
	return status;
}
