/*
 * tracer.c - a minimal, independent OMPT tool used by the end-to-end tests
 * to cross-check the collector.
 *
 * It shares no code with collector/ on purpose: it is written from the OMPT
 * 5.1 EMI callback signatures in omp-tools.h, so a bug in the collector cannot
 * hide itself by appearing in both.  It writes one line per finished event to
 * the file named by MAPPROF_TRACER_OUT, tab separated:
 *
 *     op  src_device  dest_device  bytes  hash
 *
 * op is alloc | to_device | from_device | delete | associate | disassociate |
 * kernel (the _async data ops use the same names).  hash is the content
 * hash docs/database.md defines (one piece below 16 KiB; above, XXH3-64
 * seeded with the length of the 16 KiB chunks' piece hashes, little-endian;
 * a piece's hash is XXH3-64, or aeshash from 4 KiB on a CPU with AES
 * instructions unless MAPPROF_HASH=xxh3, as the collector decides), of the
 * host-side bytes as 16 lowercase hex digits: the host source of a to_device
 * (hashed at the begin callback, before the copy), the host destination of a
 * from_device (hashed at the end callback, after the data arrived); '-' for
 * every other op.  A kernel line reads "kernel - - 0 -".  Lines appear in the
 * order the end callbacks ran; with nowait regions that order is not fixed,
 * so compare counts (or sorted lines), not sequences.
 *
 * The runtime calls this tool only if it is the first one in
 * OMP_TOOL_LIBRARIES whose ompt_start_tool returns non-NULL; ours always does.
 * Without MAPPROF_TRACER_OUT, or if the file cannot be opened, initialization
 * fails (once, with a message on stderr) and the program runs untraced.
 *
 * Several processes: each line is one write() to a file opened O_APPEND
 * (never truncated: remove it first), so a forked child, a program exec'd
 * with the same pid and the processes of an MPI job all add whole lines and
 * nothing sits in a buffer that exec would drop.  A "%p" in the path is
 * replaced by the process's pid (a forked child reopens its own file), and
 * "%r" by its MPI rank (OMPI_COMM_WORLD_RANK, PMIX_RANK, PMI_RANK or
 * SLURM_PROCID; "norank" without), so each process's events can be counted
 * apart.
 */
#include <fcntl.h>
#include <inttypes.h>
#include <omp-tools.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "content_hash.h"

static pthread_mutex_t out_lock = PTHREAD_MUTEX_INITIALIZER;
static int out = -1;		/* -1 before init and after finalize */
static unsigned long late_events;	/* events that came after finalize */

static const char *rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK",
					    "SLURM_PROCID" };
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		if (getenv(vars[i]) && *getenv(vars[i]))
			return getenv(vars[i]);
	return "norank";
}

/* MAPPROF_TRACER_OUT with "%p" (pid) and "%r" (rank) replaced, opened for appending. */
static int open_out(const char *path)
{
	char name[4096];
	size_t k = 0;

	for (const char *p = path; *p && k < sizeof(name) - 24; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			k += (size_t)snprintf(name + k, sizeof(name) - k, "%ld", (long)getpid());
			p++;
		} else if (p[0] == '%' && p[1] == 'r') {
			k += (size_t)snprintf(name + k, sizeof(name) - k, "%.20s", rank());
			p++;
		} else {
			name[k++] = *p;
		}
	}
	name[k] = 0;
	return open(name, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

/* A forked child traces into its own file when the path has a %p. */
static void atfork_child(void)
{
	const char *path = getenv("MAPPROF_TRACER_OUT");

	if (out >= 0 && path && strstr(path, "%p")) {
		close(out);
		out = open_out(path);
	}
}

static const char *op_name(ompt_target_data_op_t optype)
{
	switch (optype) {
	case ompt_target_data_alloc:
	case ompt_target_data_alloc_async:
		return "alloc";
	case ompt_target_data_transfer_to_device:
	case ompt_target_data_transfer_to_device_async:
		return "to_device";
	case ompt_target_data_transfer_from_device:
	case ompt_target_data_transfer_from_device_async:
		return "from_device";
	case ompt_target_data_delete:
	case ompt_target_data_delete_async:
		return "delete";
	case ompt_target_data_associate:
		return "associate";
	case ompt_target_data_disassociate:
		return "disassociate";
	}
	return NULL;
}

static int is_to_device(ompt_target_data_op_t optype)
{
	return optype == ompt_target_data_transfer_to_device ||
	       optype == ompt_target_data_transfer_to_device_async;
}

static int is_from_device(ompt_target_data_op_t optype)
{
	return optype == ompt_target_data_transfer_from_device ||
	       optype == ompt_target_data_transfer_from_device_async;
}

static void emit(const char *line)
{
	pthread_mutex_lock(&out_lock);
	if (out >= 0) {
		if (write(out, line, strlen(line)) < 0)
			late_events++;
	} else
		late_events++;
	pthread_mutex_unlock(&out_lock);
}

/*
 * Begin and end of one data op run on the same thread with the same
 * host_op_id pointer, which the tool may set at begin (OMPT 5.1, 4.5.2.25).
 * The to_device hash is taken at begin and carried to the end line in it.
 */
static void on_target_data_op_emi(ompt_scope_endpoint_t endpoint,
				  ompt_data_t *target_task_data,
				  ompt_data_t *target_data, ompt_id_t *host_op_id,
				  ompt_target_data_op_t optype, void *src_addr,
				  int src_device_num, void *dest_addr,
				  int dest_device_num, size_t bytes,
				  const void *codeptr_ra)
{
	char line[160], hash[24] = "-", opbuf[16];
	const char *op = op_name(optype);

	(void)target_task_data;
	(void)target_data;
	(void)codeptr_ra;
	if (endpoint == ompt_scope_begin) {
		if (host_op_id)
			*host_op_id = (src_addr && is_to_device(optype)) ?
				content_hash(src_addr, bytes) : 0;
		return;
	}
	if (is_to_device(optype) && src_addr && host_op_id)
		snprintf(hash, sizeof(hash), "%016" PRIx64, (uint64_t)*host_op_id);
	else if (is_from_device(optype) && dest_addr)
		snprintf(hash, sizeof(hash), "%016" PRIx64,
			 (uint64_t)content_hash(dest_addr, bytes));
	if (!op) {
		snprintf(opbuf, sizeof(opbuf), "op%d", (int)optype);
		op = opbuf;
	}
	snprintf(line, sizeof(line), "%s\t%d\t%d\t%zu\t%s\n", op,
		 src_device_num, dest_device_num, bytes, hash);
	emit(line);
}

static void on_target_submit_emi(ompt_scope_endpoint_t endpoint,
				 ompt_data_t *target_data,
				 ompt_id_t *host_op_id,
				 unsigned int requested_num_teams)
{
	(void)target_data;
	(void)host_op_id;
	(void)requested_num_teams;
	if (endpoint == ompt_scope_end)
		emit("kernel\t-\t-\t0\t-\n");
}

static int register_cb(ompt_set_callback_t set, ompt_callbacks_t event,
		       ompt_callback_t cb, const char *name)
{
	ompt_set_result_t r = set(event, cb);

	if (r == ompt_set_error || r == ompt_set_never ||
	    r == ompt_set_impossible) {
		fprintf(stderr, "mapprof-tracer: cannot register '%s': "
			"ompt_set_callback returned %d\n", name, (int)r);
		return -1;
	}
	return 0;
}

static int tracer_initialize(ompt_function_lookup_t lookup,
			     int initial_device_num, ompt_data_t *tool_data)
{
	const char *path = getenv("MAPPROF_TRACER_OUT");
	ompt_set_callback_t set;

	(void)initial_device_num;
	(void)tool_data;
	if (!path || !*path) {
		fprintf(stderr, "mapprof-tracer: MAPPROF_TRACER_OUT is not set; "
			"not tracing\n");
		return 0;
	}
	set = (ompt_set_callback_t)lookup("ompt_set_callback");
	if (!set) {
		fprintf(stderr, "mapprof-tracer: no 'ompt_set_callback' in "
			"this runtime; not tracing\n");
		return 0;
	}
	out = open_out(path);
	if (out < 0) {
		fprintf(stderr, "mapprof-tracer: cannot open '%s' for "
			"writing; not tracing\n", path);
		return 0;
	}
	if (register_cb(set, ompt_callback_target_data_op_emi,
			(ompt_callback_t)on_target_data_op_emi,
			"target_data_op_emi") ||
	    register_cb(set, ompt_callback_target_submit_emi,
			(ompt_callback_t)on_target_submit_emi,
			"target_submit_emi")) {
		close(out);
		out = -1;
		return 0;
	}
	pthread_atfork(NULL, NULL, atfork_child);
	return 1;
}

static void tracer_finalize(ompt_data_t *tool_data)
{
	(void)tool_data;
	pthread_mutex_lock(&out_lock);
	if (out >= 0) {
		close(out);
		out = -1;
	}
	pthread_mutex_unlock(&out_lock);
}

/* Say so if the runtime sent events after finalize: they are not traced. */
__attribute__((destructor)) static void tracer_report_late(void)
{
	if (late_events)
		fprintf(stderr, "mapprof-tracer: %lu event(s) after "
			"ompt finalize were not traced\n", late_events);
}

ompt_start_tool_result_t *ompt_start_tool(unsigned int omp_version,
					  const char *runtime_version)
{
	static ompt_start_tool_result_t result = {
		.initialize = tracer_initialize,
		.finalize = tracer_finalize,
		.tool_data = { .value = 0 },
	};

	(void)omp_version;
	(void)runtime_version;
	return &result;
}
