/*
 * record_procs.c - the processes of a recorded command besides the first
 * (record_procs.h).
 *
 * The collector of every process that does not take record's shared
 * buffers writes "PID.N.spool" into the spool directory named in
 * MAPPROF_SPOOL_DIR (collector/procs.c).  record is the command's child
 * subreaper, so the orphans of the command (a child whose parent did not
 * wait) are its children too, and their exit status is known; a process
 * reaped by someone else (the ranks mpirun starts) is 'exited' when its
 * collector finished, '_exit' when it came through the collector's _exit,
 * and 'unknown' otherwise.  Each process's ring file ("PID.N.ring",
 * collector/procs.c) is the registry of what records: record waits until
 * no process runs that still maps its ring (an exec drops it), then appends what their buffers still held to their
 * spools (drain.c).  Each spool becomes a database of its own, one at a
 * time (the memory of one spool's expansion).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/drain.h"
#include "cli/record_procs.h"
#include "db/db.h"
#include "db/ingest/finish.h"
#include "db/ingest/ingest.h"
#include "db/ingest/process.h"
#include "db/spool/ring.h"
#include "lib/sort.h"
#include "report/attribute/attribute.h"

/* Seconds to wait, once the program ended, for the rest of the command (MAPPROF_PROCS_WAIT). */
#define PROCS_WAIT_S 10

static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					 "SLURM_PROCID" };

struct reaped {
	pid_t pid;
	int wstatus;
};

struct spool_file {
	long pid;
	int n;
};

struct record_procs {
	char *tmpl;          /* -o with record's own %r expanded; %p, %r, %% may remain */
	int depends;         /* the name depends on the process (%p or %r left) */
	char *dir;           /* the spool directory, absolute */
	char *provisional;   /* the first process's database until it is named, or NULL */
	char *recording;
	int force;
	struct reaped *reaped;
	size_t nreaped, reaped_cap;
	char **used;         /* database names given so far */
	size_t nused;
	const char *recovered;   /* 'mapprof recover DIR': why each run is incomplete, else NULL */
	int reaping_done;
	char **written;      /* the other processes' databases, in the order written */
	size_t nwritten;
};

static long env_rank(void);

long record_procs_env_rank(void)
{
	return env_rank();
}

long record_procs_env_size(void)
{
	static const char *const size_vars[] = { "OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE", "SLURM_NTASKS" };

	for (size_t i = 0; i < sizeof(size_vars) / sizeof(size_vars[0]); i++) {
		const char *v = getenv(size_vars[i]);
		char *end;
		if (v && *v) {
			long n = strtol(v, &end, 10);
			if (!*end && n > 0)
				return n;
		}
	}
	return 0;
}

static long env_rank(void)
{
	for (size_t i = 0; i < sizeof(rank_vars) / sizeof(rank_vars[0]); i++) {
		const char *v = getenv(rank_vars[i]);
		char *end;
		if (v && *v) {
			long r = strtol(v, &end, 10);
			if (!*end && r >= 0)
				return r;
		}
	}
	return -1;
}

/*
 * tmpl with %p -> pid and %r -> rank; keep_p / keep_r leave them (and %%)
 * as they are, for a later expansion.  NULL on a bad %-sequence.
 */
static char *expand(const char *tmpl, long pid, long rank, int keep)
{
	char *out = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (const char *p = tmpl; *p; p++) {
		if (*p != '%') {
			fputc(*p, f);
			continue;
		}
		switch (p[1]) {
		case 'p':
			if (keep || pid < 0)
				fputs("%p", f);
			else
				fprintf(f, "%ld", pid);
			break;
		case 'r':
			if (keep && rank < 0)
				fputs("%r", f);
			else if (rank < 0)
				fputs("norank", f);
			else
				fprintf(f, "%ld", rank);
			break;
		case '%':
			fputs(keep ? "%%" : "%", f);
			break;
		default:
			fclose(f);
			free(out);
			return NULL;
		}
		p++;
	}
	fclose(f);
	return out;
}

char *record_procs_expand(const char *tmpl, long pid, long rank)
{
	return expand(tmpl, pid, rank, 0);
}

/* The directory's name: the template with its placeholders spelled out. */
static char *dir_name(const char *tmpl)
{
	char *out = NULL, *abs = NULL, *copy, *d;
	size_t len = 0;
	FILE *f = open_memstream(&out, &len);

	if (!f)
		return NULL;
	for (const char *p = tmpl; *p; p++) {
		if (p[0] == '%' && p[1]) {
			fputs(p[1] == 'p' ? "pid" : p[1] == 'r' ? "rank" : "%", f);
			p++;
		} else {
			fputc(*p, f);
		}
	}
	fputs(".spool.d", f);
	fclose(f);
	if (!out || out[0] == '/')
		return out;
	/* Absolute, for processes that change directory. */
	copy = strdup(out);
	d = copy ? realpath(dirname(copy), NULL) : NULL;
	if (d && asprintf(&abs, "%s/%s", d, strrchr(out, '/') ? strrchr(out, '/') + 1 : out) < 0)
		abs = NULL;
	free(d);
	free(copy);
	if (abs) {
		free(out);
		return abs;
	}
	return out;
}

static void procs_free(struct record_procs *rp)
{
	if (!rp)
		return;
	for (size_t i = 0; i < rp->nwritten; i++)
		free(rp->written[i]);
	free(rp->written);
	for (size_t i = 0; i < rp->nused; i++)
		free(rp->used[i]);
	free(rp->used);
	free(rp->reaped);
	free(rp->tmpl);
	free(rp->dir);
	free(rp->provisional);
	free(rp->recording);
	free(rp);
}

struct record_procs *record_procs_open(const char *output, int force, char **main_path, int *usage,
				       char **err)
{
	struct record_procs *rp = calloc(1, sizeof(*rp));
	char host[256] = "";
	char *full;

	*usage = 0;
	*main_path = NULL;
	if (!rp)
		goto oom;
	rp->force = force;
	rp->tmpl = expand(output, -1, env_rank(), 1);
	if (!rp->tmpl) {
		*usage = 1;
		if (asprintf(err, "'%s': only %%p (pid), %%r (MPI rank) and %%%% may follow a %%", output) < 0)
			*err = NULL;
		procs_free(rp);
		return NULL;
	}
	rp->depends = strstr(rp->tmpl, "%p") || strstr(rp->tmpl, "%r");
	rp->dir = dir_name(rp->tmpl);
	if (!rp->dir)
		goto oom;
	if (mkdir(rp->dir, 0755) < 0) {
		/* Left empty by an earlier run: reuse it; with spools in it: they are someone's events. */
		if (errno != EEXIST) {
			/* The database's directory is missing or not writable: say so of the database. */
			if (asprintf(err, "cannot create '%s': %s", output, strerror(errno)) < 0)
				*err = NULL;
			procs_free(rp);
			return NULL;
		}
		if (rmdir(rp->dir) < 0 || mkdir(rp->dir, 0755) < 0) {
			if (asprintf(err, "cannot make the spool directory '%s': %s%s", rp->dir,
				     strerror(errno == ENOTEMPTY ? EEXIST : errno),
				     errno == ENOTEMPTY ? " and holds the spools of a recording that was "
							  "cut short (expand them with 'mapprof recover DIR', "
							  "or remove them, first)" : "") < 0)
				*err = NULL;
			procs_free(rp);
			return NULL;
		}
	}
	if (rp->depends) {
		if (asprintf(&rp->provisional, "%s/main.db", rp->dir) < 0)
			goto oom_rmdir;
		*main_path = strdup(rp->provisional);
	} else {
		full = expand(rp->tmpl, -1, -1, 0);
		*main_path = full;
	}
	gethostname(host, sizeof(host) - 1);
	if (!*main_path || asprintf(&rp->recording, "%s:%ld:%lld", host, (long)getpid(),
				    (long long)time(NULL)) < 0)
		goto oom_rmdir;
	if (setenv("MAPPROF_SPOOL_DIR", rp->dir, 1) < 0)
		goto oom_rmdir;
	/* Orphans of the command become our children: we learn how they ended. */
	prctl(PR_SET_CHILD_SUBREAPER, 1);
	return rp;
oom_rmdir:
	rmdir(rp->dir);
oom:
	free(*main_path);
	*main_path = NULL;
	procs_free(rp);
	*err = strdup("out of memory");
	return NULL;
}

void record_procs_abort(struct record_procs *rp)
{
	if (rp)
		rmdir(rp->dir);
	procs_free(rp);
}

static struct spool_file *list_spools(const struct record_procs *rp, size_t *n);

/* DIR/PID.N.EXT (spool, ring, db), malloc'ed or NULL. */
static char *spool_file_path(const struct record_procs *rp, const struct spool_file *s, const char *ext)
{
	char *p;
	return asprintf(&p, "%s/%ld.%d.%s", rp->dir, s->pid, s->n, ext) < 0 ? NULL : p;
}

static volatile sig_atomic_t interrupted;

static void on_interrupt(int sig)
{
	(void)sig;
	interrupted = 1;
}

/*
 * Nonzero while the process pid, started at 'start', runs (a zombie has
 * ended: its parent has yet to reap it).
 */
static int proc_running(long pid, int64_t start)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	if (pid <= 0 || ring_proc_start(pid) != start)
		return 0;
	snprintf(path, sizeof(path), "/proc/%ld/stat", pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	p = strrchr(buf, ')');
	return p && p[1] == ' ' && p[2] != 'Z' && p[2] != 'X';
}

/*
 * Nonzero unless the process ri names is known not to map its ring file any
 * more: an exec drops every mapping, even one that did not go through the
 * collector (a library's exec, a raw system call), and the new program
 * never writes there.  Unknown (no /proc/PID/maps to read): it maps it.
 */
static int maps_ring(const struct ring_file_info *ri)
{
	char path[64], line[512];
	unsigned maj, min;
	unsigned long long ino;
	int found = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%ld/maps", ri->pid);
	if (!(f = fopen(path, "re")))
		return 1;
	while (!found && fgets(line, sizeof(line), f)) {
		size_t len = strlen(line);
		/* addresses perms offset MAJ:MIN INODE [path] */
		if (sscanf(line, "%*s %*s %*s %x:%x %llu", &maj, &min, &ino) == 3 && ino == (unsigned long long)ri->ino &&
		    makedev(maj, min) == ri->dev)
			found = 1;
		/* The rest of a long line (a long path) is not a line of its own. */
		while (len && line[len - 1] != '\n' && fgets(line, sizeof(line), f))
			len = strlen(line);
	}
	/* An error midway (the process ended as we read): it maps nothing now. */
	fclose(f);
	return found;
}

/*
 * Nonzero while the process that owned ring ri may still write into it or
 * its spool: it runs (not a zombie) and maps the ring.  Whatever its ring
 * says: one that said it exited may still be writing its last frames.
 */
static int ring_busy(const struct ring_file_info *ri)
{
	return proc_running(ri->pid, ri->start) && maps_ring(ri);
}

/* A process that loaded the collector and still records.  Its pid, or 0 when there is none. */
static long recording_process(const struct record_procs *rp)
{
	struct spool_file *v;
	struct ring_file_info ri;
	size_t n;
	long found = 0;

	v = list_spools(rp, &n);
	for (size_t i = 0; i < n && !found; i++) {
		char *ring = spool_file_path(rp, &v[i], "ring");
		if (ring && drain_ring_info(ring, &ri) == 0 && ring_busy(&ri))
			found = ri.pid;
		free(ring);
	}
	free(v);
	return found;
}

/*
 * Reap what is left of the command: every process that loaded the collector
 * (its ring file, PID.N.ring, says it still records), however long it runs;
 * any other process up to MAPPROF_PROCS_WAIT seconds.  ^C (or SIGTERM)
 * stops the wait: what still records is then 'running'.
 */
static void reap(struct record_procs *rp)
{
	const char *env = getenv("MAPPROF_PROCS_WAIT");
	long wait_ms = (env && *env ? atol(env) : PROCS_WAIT_S) * 1000, waited_ms = 0;
	struct sigaction stop = { .sa_handler = on_interrupt }, old_int, old_term, old_hup;
	int st, told = 0;

	if (rp->reaping_done)
		return;
	rp->reaping_done = 1;
	interrupted = 0;
	sigaction(SIGINT, &stop, &old_int);
	sigaction(SIGTERM, &stop, &old_term);
	sigaction(SIGHUP, &stop, &old_hup);
	for (;;) {
		pid_t p = waitpid(-1, &st, WNOHANG);
		long busy;
		if (p > 0) {
			if (rp->nreaped == rp->reaped_cap) {
				size_t cap = rp->reaped_cap ? 2 * rp->reaped_cap : 16;
				struct reaped *n = realloc(rp->reaped, cap * sizeof(*n));
				if (!n)
					continue;
				rp->reaped = n;
				rp->reaped_cap = cap;
			}
			rp->reaped[rp->nreaped++] = (struct reaped){ p, st };
			continue;
		}
		if (p < 0 && errno == EINTR && !interrupted)
			continue;
		busy = recording_process(rp);
		if (interrupted) {
			if (busy)
				info("warning: stopped waiting: process %ld (and maybe others) still records; "
				     "what it recorded until now is kept", busy);
			break;
		}
		if (!busy && (p < 0 || waited_ms >= wait_ms)) {
			if (p == 0)
				info("warning: processes of the command still run %s s after it ended: "
				     "their recordings may be incomplete", env && *env ? env : "10");
			break;
		}
		if (busy && waited_ms >= wait_ms && !told) {
			info("waiting for process %ld of the command, which still records "
			     "(^C stops waiting and keeps what it recorded)", busy);
			told = 1;
		}
		nanosleep(&(struct timespec){ 0, 20 * 1000000 }, NULL);
		waited_ms += 20;
	}
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	sigaction(SIGHUP, &old_hup, NULL);
}

static const struct reaped *reaped_of(const struct record_procs *rp, long pid)
{
	for (size_t i = 0; i < rp->nreaped; i++)
		if (rp->reaped[i].pid == pid)
			return &rp->reaped[i];
	return NULL;
}

/* The spools in the directory, by pid then image.  *n set; NULL when none or on error. */
static struct spool_file *list_spools(const struct record_procs *rp, size_t *n)
{
	struct spool_file *v = NULL;
	size_t cap = 0;
	struct dirent *e;
	DIR *d = opendir(rp->dir);

	*n = 0;
	if (!d)
		return NULL;
	while ((e = readdir(d))) {
		long pid;
		int k, used = 0;
		if (sscanf(e->d_name, "%ld.%d.spool%n", &pid, &k, &used) != 2 || e->d_name[used])
			continue;
		if (*n == cap) {
			struct spool_file *nv = realloc(v, (cap = cap ? 2 * cap : 16) * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		v[(*n)++] = (struct spool_file){ pid, k };
	}
	closedir(d);
	return v;
}

static size_t list_spools_count(const struct record_procs *rp)
{
	size_t n;
	free(list_spools(rp, &n));
	return n;
}

size_t record_procs_others(const struct record_procs *rp)
{
	return rp ? list_spools_count(rp) : 0;
}

static int cmp_spool(const void *a, const void *b)
{
	const struct spool_file *x = a, *y = b;
	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return (x->n > y->n) - (x->n < y->n);
}

static int spool_exists(const struct record_procs *rp, long pid, int n)
{
	struct spool_file f = { pid, n };
	char *p = spool_file_path(rp, &f, "spool");
	int yes;
	if (!p)
		return 0;
	yes = access(p, F_OK) == 0;
	free(p);
	return yes;
}

static int used_name(const struct record_procs *rp, const char *name)
{
	for (size_t i = 0; i < rp->nused; i++)
		if (!strcmp(rp->used[i], name))
			return 1;
	return 0;
}

static void use_name(struct record_procs *rp, const char *name)
{
	char **n = realloc(rp->used, (rp->nused + 1) * sizeof(*n));
	if (n) {
		rp->used = n;
		if ((n[rp->nused] = strdup(name)))
			rp->nused++;
	}
}

/* s with ".TAG" before its ".db" (or at its end).  malloc'ed. */
static char *with_tag(const char *s, const char *tag)
{
	size_t len = strlen(s);
	char *out;
	if (len > 3 && !strcmp(s + len - 3, ".db")) {
		if (asprintf(&out, "%.*s.%s.db", (int)(len - 3), s, tag) < 0)
			return NULL;
	} else if (asprintf(&out, "%s.%s", s, tag) < 0) {
		return NULL;
	}
	return out;
}

/*
 * A process's database name: -o expanded for it; when that is taken (by
 * another process of this run, or an existing file without -f), with
 * ".PID" (then ".PID.N" for a later image of the pid) inserted.
 */
static char *db_name(struct record_procs *rp, long pid, long rank, int image)
{
	char *base = expand(rp->tmpl, pid, rank, 0), *name = base, tag[48];

	for (int i = 0; name && i < 2; i++) {
		/* -f replaces an old database, never an executable (cli.h). */
		if (!used_name(rp, name) &&
		    ((rp->force && !output_refusal(name, NULL)) || access(name, F_OK) < 0))
			break;
		if (i == 0)
			snprintf(tag, sizeof(tag), "%ld", pid);
		else
			snprintf(tag, sizeof(tag), "%ld.%d", pid, image);
		if (name != base)
			free(name);
		name = with_tag(base, tag);
	}
	if (name && (used_name(rp, name) || ((!rp->force || output_refusal(name, NULL)) &&
					     access(name, F_OK) == 0))) {
		error("cannot name the database of process %ld: '%s' exists", pid, name);
		hint("use -f to overwrite, or %%p in -o");
		if (name != base)
			free(name);
		name = NULL;
	}
	if (name != base)
		free(base);
	if (name)
		use_name(rp, name);
	return name;
}

/* What we know of how one program image ended, besides its database. */
struct image_end {
	int next_image;      /* the same pid has a later spool: it exec'd a program that records */
	int ring_kept;       /* its buffers were in shared memory, all written to its spool */
	int ring_end;        /* enum ring_end: what its collector said */
	int ring_status;     /* RING_ENDED_EXIT: the status */
	int running;         /* it still ran when record stopped waiting */
};

/* How a process ended, from what we know of it. */
static void end_of(const struct record_procs *rp, const struct process_row *pr, const struct image_end *ie,
		   struct process_end *e, struct run_end *re)
{
	int exec = ie->next_image || ie->ring_end == RING_ENDED_EXEC;
	const struct reaped *r = exec || ie->running ? NULL : reaped_of(rp, (long)pr->pid);

	memset(e, 0, sizeof(*e));
	memset(re, 0, sizeof(*re));
	e->recording = rp->recording;
	if (exec) {
		e->ended = "exec";
		e->complete = ie->ring_kept || pr->has_end;
		e->detail = ie->ring_kept ? "the process replaced its program (exec)"
				      : "the process replaced its program (exec) before the collector "
					"finished: the events of its last buffer (up to 1024 per thread) "
					"are lost";
	} else if (ie->running) {
		e->ended = "running";
		e->detail = "the process still ran when 'mapprof record' stopped waiting for it: "
			    "this is what it recorded until then";
	} else if (r && WIFSIGNALED(r->wstatus)) {
		e->has_status = 1;
		e->ended = "killed";
		e->signal = WTERMSIG(r->wstatus);
		e->exit_status = 128 + e->signal;
		e->complete = ie->ring_kept;
		e->detail = ie->ring_kept ? "the process was killed before its collector finished; its buffers"
					    " were in shared memory: every event it recorded is here"
					  : "the process was killed before the collector finished: "
					    "the events of its last buffer (up to 1024 per thread) are lost";
	} else if (r) {
		e->has_status = 1;
		e->exit_status = WEXITSTATUS(r->wstatus);
		/* exit() finishes the collector; _exit() (or a raw exit_group) does not, unless it came through ours. */
		e->ended = ie->ring_end == RING_ENDED_EXIT || !pr->has_end ? "_exit" : "exited";
		e->complete = ie->ring_kept;
		if (!pr->has_end && ie->ring_kept)
			e->detail = "the process ended without running its exit handlers (_exit) before its "
				    "collector finished; its buffers were in shared memory: every event it "
				    "recorded is here";
	} else if (ie->ring_end == RING_ENDED_EXIT) {
		e->ended = "_exit";
		e->has_status = 1;
		e->exit_status = ie->ring_status;
		/* An _exit() from a signal handler that cut into the collector finishes nothing. */
		e->complete = ie->ring_kept;
		if (!pr->has_end && ie->ring_kept)
			e->detail = "the process called _exit() where its collector could not finish (from a "
				    "signal handler); its buffers were in shared memory: every event it "
				    "recorded is here";
	} else if (pr->has_end) {
		e->ended = "exited";
	} else {
		e->ended = "unknown";
		e->complete = ie->ring_kept;
		e->detail = ie->ring_kept ? "the process ended before its collector finished (killed, or a raw "
					    "exit system call) and its parent reaped it, so how is unknown; its "
					    "buffers were in shared memory: every event it recorded is here"
					  : "the process ended before the collector could finish (killed, or _exit); "
					    "its parent reaped it, so how it ended is unknown";
	}
	re->exit_status = e->exit_status;
	re->signal = e->signal;
}

int record_procs_main(struct record_procs *rp, struct db *db, char **path, pid_t child, int wstatus,
		      int ring_end, int ring_status)
{
	struct process_row pr;
	struct process_end e;
	struct run_end re;
	struct image_end ie = { 0 };
	char *err = NULL, *name;
	int rc = 0;

	/* Our child is reaped already; the rest of the command now. */
	rp->reaped = malloc(16 * sizeof(*rp->reaped));
	if (rp->reaped) {
		rp->reaped_cap = 16;
		rp->reaped[rp->nreaped++] = (struct reaped){ child, wstatus };
	}
	reap(rp);
	if (db_process_read(db, &pr, &err) < 0 || !pr.pid) {
		/* No process took the buffers (the program is mpirun, a shell): nothing to name it by. */
		free(err);
		process_row_release(&pr);
		if (list_spools_count(rp))
			return 1;
		use_name(rp, *path);
		return 0;
	}
	ie.next_image = spool_exists(rp, (long)pr.pid, 0);
	ie.ring_kept = 1;
	ie.ring_end = ring_end;
	ie.ring_status = ring_status;
	end_of(rp, &pr, &ie, &e, &re);
	if (db_process_end(db, &e, &err) < 0) {
		error("%s", err);
		free(err);
		rc = -1;
	}
	if (rp->provisional) {
		name = db_name(rp, (long)pr.pid, (long)pr.rank, 0);
		if (name && rename(*path, name) == 0) {
			free(*path);
			*path = name;
		} else {
			if (name)
				error("cannot rename '%s' to '%s': %s", *path, name, strerror(errno));
			hint("the database is kept as '%s'", *path);
			free(name);
			rc = -1;
		}
	} else {
		use_name(rp, *path);
	}
	process_row_release(&pr);
	return rc;
}

/* Expand one spool into its own database.  1 recorded, 0 nothing in it, -1 error (said why). */
static int expand_one(struct record_procs *rp, const struct spool_file *s, int next_image)
{
	char *spool = NULL, *tmp = NULL, *err = NULL, *name = NULL, *ring = NULL;
	struct ingest_result ing;
	struct process_row pr = { 0 };
	struct process_end e;
	struct run_end re;
	struct record_counts counts;
	struct ring_file_info ri = { 0 };
	struct image_end ie = { 0 };
	struct db *db = NULL;
	int rc = -1;

	if (!(spool = spool_file_path(rp, s, "spool")) || !(tmp = spool_file_path(rp, s, "db")) ||
	    !(ring = spool_file_path(rp, s, "ring"))) {
		error("out of memory");
		goto out;
	}
	ie.next_image = next_image;
	if (drain_ring_info(ring, &ri) == 0) {
		ie.ring_end = ri.ended;
		ie.ring_status = ri.exit_status;
		ie.running = ring_busy(&ri);
		/* Its buffers are shared memory that outlives it: what they held goes to its spool now. */
		if (!ie.running) {
			if (drain_ring_file(ring, spool, &err) < 0)
				goto fail;
			ie.ring_kept = 1;
		}
	}
	db = db_create(tmp, 1, &err);
	if (!db)
		goto fail;
	switch (db_ingest_spool(db, spool, &ing, &err)) {
	case 1:
		/* Claimed and left empty (killed at once): nothing to keep. */
		unlink(spool);
		rc = 0;
		goto out;
	case 0:
		break;
	default:
		goto fail;
	}
	if (db_process_read(db, &pr, &err) < 0)
		goto fail;
	pr.pid = pr.pid ? pr.pid : s->pid;
	/*
	 * A forked child that offloaded nothing (it exec'd a program, or ran
	 * host code): no database, or every fork+exec of an OpenMP program
	 * would leave an empty one.
	 */
	if (!ing.records && pr.started && !strcmp(pr.started, "fork")) {
		unlink(spool);
		rc = 0;
		goto out;
	}
	end_of(rp, &pr, &ie, &e, &re);
	re.calls_late = ri.calls_late;
	if (rp->recovered) {
		/* record was killed: how the process ended, and when, is not known. */
		re.exit_unknown = 1;
		re.unfinished_why = rp->recovered;
		e.detail = rp->recovered;
		e.complete = 0;
	}
	if (db_finish_run(db, &re, &err) < 0 || db_process_end(db, &e, &err) < 0)
		goto fail;
	/* The sources as they are now, for a report made after an edit (report/attribute/attribute.h). */
	if (!rp->recovered && attribute_record_sources(db, NULL, &err) < 0) {
		info("warning: the source files of process %ld were not hashed: %s", s->pid,
		     err ? err : "out of memory");
		free(err);
		err = NULL;
	}
	name = db_name(rp, s->pid, (long)pr.rank, s->n);
	if (!name)
		goto keep;
	db_record_counts(db, &counts);
	if (rename(tmp, name) < 0) {
		error("cannot rename '%s' to '%s': %s", tmp, name, strerror(errno));
		record_counts_release(&counts);
		goto keep;
	}
	unlink(spool);
	{
		char **w = realloc(rp->written, (rp->nwritten + 1) * sizeof(*w));
		if (w && (w[rp->nwritten] = strdup(name)))
			rp->nwritten++;
		if (w)
			rp->written = w;
	}
	if (pr.rank >= 0)
		info("process %ld (rank %ld, %s): %s %llu data operations, %llu kernels to '%s'",
		     s->pid, (long)pr.rank, pr.started ? pr.started : "?",
		     rp->recovered ? "recovered" : "recorded",
		     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels, name);
	else
		info("process %ld (%s): %s %llu data operations, %llu kernels to '%s'", s->pid,
		     pr.started ? pr.started : "?", rp->recovered ? "recovered" : "recorded",
		     (unsigned long long)ing.data_ops, (unsigned long long)ing.kernels, name);
	if (counts.status && strcmp(counts.status, "complete"))
		info("warning: recording of process %ld is %s: %s", s->pid, counts.status,
		     counts.status_detail ? counts.status_detail : "no detail");
	if (ing.truncated)
		info("warning: the spool of process %ld ended mid-write: events after that point are lost",
		     s->pid);
	record_counts_release(&counts);
	rc = 1;
	goto out;
fail:
	error("process %ld: %s", s->pid, err ? err : "out of memory");
keep:
	hint("the events are kept in '%s'", spool);
	if (db) {
		db_close(db);
		db = NULL;
	}
	unlink(tmp);
out:
	if (db)
		db_close(db);
	if (rc == 0)
		unlink(tmp);
	process_row_release(&pr);
	free(name);
	free(err);
	free(spool);
	free(tmp);
	free(ring);
	return rc;
}

/*
 * Expand the directory's spools (only: the one named so, when not NULL).
 * 0, or -1 when one could not be; *recorded: how many databases were written.
 */
static int expand_all(struct record_procs *rp, const struct spool_file *only, int *recorded)
{
	struct spool_file *v;
	size_t n;
	int failed = 0;

	*recorded = 0;
	v = list_spools(rp, &n);
	sort_array(v, n, sizeof(*v), cmp_spool);
	for (size_t i = 0; i < n; i++) {
		int next = i + 1 < n && v[i + 1].pid == v[i].pid;
		int rc;
		if (only && (only->pid != v[i].pid || only->n != v[i].n))
			continue;
		rc = expand_one(rp, &v[i], next);
		if (rc < 0)
			failed = 1;
		else
			*recorded += rc;
	}
	free(v);
	if (rmdir(rp->dir) < 0 && errno != ENOENT && !only)
		info("note: '%s' is kept (it holds what could not be expanded)", rp->dir);
	return failed ? -1 : 0;
}

int record_procs_finish(struct record_procs *rp, int main_kept, char ***written, size_t *nwritten)
{
	int recorded, rc;

	if (written) {
		*written = NULL;
		*nwritten = 0;
	}
	if (!rp)
		return 0;
	reap(rp);
	rc = expand_all(rp, NULL, &recorded);
	/* "more" only beside the program's own database: an mpirun's ranks are all there is. */
	if (recorded)
		info("recorded %d %sprocess%s, one database each", recorded, main_kept ? "more " : "",
		     recorded > 1 ? "es" : "");
	if (written) {
		*written = rp->written;
		*nwritten = rp->nwritten;
		rp->written = NULL;
		rp->nwritten = 0;
	}
	procs_free(rp);
	return rc < 0 ? -1 : recorded;
}

int record_procs_recover(const char *dir, const char *tmpl, const char *spool, int force)
{
	static const char why[] = "recovered from the spool directory by 'mapprof recover': the recording"
				  " ended before the command did (the recorder 'mapprof record' was killed);"
				  " how the process ended is not known";
	struct record_procs *rp = calloc(1, sizeof(*rp));
	struct spool_file only = { 0, 0 };
	char *check = NULL;
	int used = 0, recorded, rc;

	if (!rp || !(rp->dir = strdup(dir)) || !(rp->tmpl = strdup(tmpl))) {
		procs_free(rp);
		error("out of memory");
		return -1;
	}
	rp->force = force;
	rp->recovered = why;
	/* -o as record takes it: %p, %r and %% only. */
	if (!(check = expand(tmpl, 1, 1, 0))) {
		error("'%s': only %%p (pid), %%r (MPI rank) and %%%% may follow a %%", tmpl);
		procs_free(rp);
		return -1;
	}
	free(check);
	/* PATH is the first process's (its own spool, PATH-spool): the others get PATH.PID.db. */
	if (!strstr(tmpl, "%p") && !strstr(tmpl, "%r"))
		use_name(rp, tmpl);
	if (spool && (sscanf(spool, "%ld.%d.spool%n", &only.pid, &only.n, &used) != 2 || spool[used])) {
		error("'%s' is not a spool of the spool directory '%s' (PID.N.spool)", spool, dir);
		procs_free(rp);
		return -1;
	}
	rc = expand_all(rp, spool ? &only : NULL, &recorded);
	procs_free(rp);
	return rc < 0 ? -1 : recorded;
}
