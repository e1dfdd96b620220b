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
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "collector/buffer.h"
#include "collector/interpose.h"
#include "collector/modules.h"
#include "collector/output.h"
#include "collector/procs.h"
#include "collector/runinfo.h"
#include "collector/state.h"
#include "collector/text.h"

/* The variables MPI launchers set to a process's rank (docs/usage.md). */
static const char *const rank_vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					 "SLURM_PROCID" };

#define DEVICES_MAX 16
static struct {
	int num;
	char type[48];
	int64_t init_ns;
} devices[DEVICES_MAX];
static int ndevices;

static const char *runtime_version;
static int recording_at_fork;

int procs_open(void)
{
	const char *dir = getenv("MAPPROF_SPOOL_DIR");
	char path[4096];
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
	return output_adopt(fd, path);
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
	return output_frame(SPOOL_PROCESS, (int64_t)getpid(), (int64_t)getppid(), rank, var, started);
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
	if (output_sync() == 0)
		buffer_restart();
}

void procs_start(const char *runtime)
{
	runtime_version = runtime;
	pthread_atfork(at_fork_prepare, at_fork_parent, at_fork_child);
}
