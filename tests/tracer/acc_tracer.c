/*
 * acc_tracer.c - a minimal, independent OpenACC Profiling Interface tool
 * the end-to-end tests check the collector's OpenACC recording against.
 *
 * It shares no code with collector/ on purpose: it is written from the
 * interface's declarations in GCC's <acc_prof.h>.  Loaded through
 * ACC_PROFLIB, it registers every event type and writes one line per event
 * the runtime dispatches (start and end alike) to the file named by
 * MAPPROF_TRACER_OUT, tab separated:
 *
 *     event  valid_bytes  device_type  bytes
 *
 * event is the acc_event_t name without 'acc_ev_' (device_init_start,
 * compute_construct_end, enqueue_upload_start, alloc, ...); valid_bytes
 * the event info's; device_type the acc_device_t number; bytes those of a
 * data event when its valid_bytes covers the field, else '-'.  Each line is
 * one write() to a file opened O_APPEND.  Without MAPPROF_TRACER_OUT the
 * tool registers nothing.
 */
#include <acc_prof.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static int out = -1;

static const char *const names[] = {
	[acc_ev_device_init_start] = "device_init_start",
	[acc_ev_device_init_end] = "device_init_end",
	[acc_ev_device_shutdown_start] = "device_shutdown_start",
	[acc_ev_device_shutdown_end] = "device_shutdown_end",
	[acc_ev_runtime_shutdown] = "runtime_shutdown",
	[acc_ev_create] = "create",
	[acc_ev_delete] = "delete",
	[acc_ev_alloc] = "alloc",
	[acc_ev_free] = "free",
	[acc_ev_enter_data_start] = "enter_data_start",
	[acc_ev_enter_data_end] = "enter_data_end",
	[acc_ev_exit_data_start] = "exit_data_start",
	[acc_ev_exit_data_end] = "exit_data_end",
	[acc_ev_update_start] = "update_start",
	[acc_ev_update_end] = "update_end",
	[acc_ev_compute_construct_start] = "compute_construct_start",
	[acc_ev_compute_construct_end] = "compute_construct_end",
	[acc_ev_enqueue_launch_start] = "enqueue_launch_start",
	[acc_ev_enqueue_launch_end] = "enqueue_launch_end",
	[acc_ev_enqueue_upload_start] = "enqueue_upload_start",
	[acc_ev_enqueue_upload_end] = "enqueue_upload_end",
	[acc_ev_enqueue_download_start] = "enqueue_download_start",
	[acc_ev_enqueue_download_end] = "enqueue_download_end",
	[acc_ev_wait_start] = "wait_start",
	[acc_ev_wait_end] = "wait_end",
};

static int is_data_event(acc_event_t e)
{
	switch (e) {
	case acc_ev_create: case acc_ev_delete: case acc_ev_alloc: case acc_ev_free:
	case acc_ev_enter_data_start: case acc_ev_enter_data_end:
	case acc_ev_exit_data_start: case acc_ev_exit_data_end:
	case acc_ev_update_start: case acc_ev_update_end:
	case acc_ev_enqueue_upload_start: case acc_ev_enqueue_upload_end:
	case acc_ev_enqueue_download_start: case acc_ev_enqueue_download_end:
		return 1;
	default:
		return 0;
	}
}

static void cb(acc_prof_info *pi, acc_event_info *ei, acc_api_info *ai)
{
	char line[256], bytes[32] = "-";
	int vb = ei->data_event.valid_bytes, n;
	acc_event_t e = pi->event_type;
	(void)ai;

	if (is_data_event(e) &&
	    vb >= (int)(offsetof(acc_data_event_info, bytes) + sizeof(ei->data_event.bytes)))
		snprintf(bytes, sizeof(bytes), "%zu", (size_t)ei->data_event.bytes);
	n = snprintf(line, sizeof(line), "%s\t%d\t%d\t%s\n",
		     e > 0 && e < acc_ev_last && names[e] ? names[e] : "unknown", vb,
		     (int)pi->device_type, bytes);
	if (n > 0 && write(out, line, (size_t)n) != n)
		perror("acc_tracer: write");
}

void acc_register_library(acc_prof_reg reg, acc_prof_reg unreg, acc_prof_lookup_func lookup)
{
	const char *path = getenv("MAPPROF_TRACER_OUT");
	(void)unreg;
	(void)lookup;

	if (!path || (out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) < 0) {
		fprintf(stderr, "acc_tracer: cannot open MAPPROF_TRACER_OUT '%s'\n", path ? path : "");
		return;
	}
	for (int e = acc_ev_none + 1; e < acc_ev_last; e++)
		reg((acc_event_t)e, cb, acc_reg);
}
