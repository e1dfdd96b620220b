/*
 * interpose.c - the source records clang passes to the offload entry points.
 *
 * Built with -g, clang hands every offload call an ident_t whose psource reads
 * ";file;function;line;column;;" and, per map entry, a name record
 * ";a[0:N];file;line;column;;".  DWARF cannot give the directive line of a
 * target construct (clang 19 marks the launch sequence with line 0), so we
 * define the entry points, note the records, and jump to the runtime's own
 * function.  The program's calls reach ours because interpose_install()
 * points the GOT slots of every object that links libomptarget at them
 * (got.c); preloading the collector (LD_PRELOAD) works too, but makes every
 * symbol lookup of the program's start-up look in it first.
 *
 * The jump is a guaranteed tail call (musttail), so the runtime sees the
 * program's return address, exactly as without us: codeptr_ra in the OMPT
 * callbacks is the same value as our __builtin_return_address(0), which is
 * how records and events meet.  This file is compiled by clang for that
 * attribute.
 *
 * Per thread, the map entries of the call in progress are kept so that each
 * data operation can say which entry (variable) it moved.  Source records are
 * written once per call site.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "collector/attach.h"
#include "collector/buffer.h"
#include "collector/got.h"
#include "collector/interpose.h"
#include "collector/output.h"
#include "collector/state.h"
#include "collector/text.h"

#define EXPORT __attribute__((visibility("default")))

typedef struct {
	int32_t reserved_1, flags, reserved_2, reserved_3;
	const char *psource;
} ident_t;

/* __tgt_kernel_arguments, versions 1 to 3 share the fields we read. */
typedef struct {
	uint32_t version;
	uint32_t num_args;
	void **base_ptrs;
	void **ptrs;
	int64_t *sizes;
	int64_t *types;
	void **names;
	void **mappers;
	uint64_t tripcount;  /* version 2 and later: */
	uint64_t flags;      /* bit 0: nowait (clang calls __tgt_target_kernel for 'target nowait' too) */
} kernel_args_t;

#define KERNEL_ARGS_NOWAIT 1u


struct site {
	struct site *next;
	uint64_t codeptr;
	const char *entry;
	char *psource;
	char *names_json;
	int written;
};

static pthread_mutex_t sites_mu = PTHREAD_MUTEX_INITIALIZER;
static struct site *sites;
static atomic_int unwritten;  /* sites not yet in the spool */

static void note_site(struct thread_state *t, uint64_t codeptr, const char *entry, const ident_t *loc, int n, void **names)
{
	unsigned slot = (unsigned)(codeptr >> 2) % SEEN_SLOTS;
	struct site *s;
	struct sbuf json = { 0 };

	if (t->seen[slot] == codeptr)
		return;
	t->seen[slot] = codeptr;
	pthread_mutex_lock(&sites_mu);
	for (s = sites; s; s = s->next)
		if (s->codeptr == codeptr)
			break;
	if (!s && (s = text_alloc(sizeof(*s)))) {
		s->codeptr = codeptr;
		s->entry = entry;
		s->psource = loc && loc->psource ? text_strdup(loc->psource) : NULL;
		sb_put(&json, "[", 1);
		for (int i = 0; i < n; i++) {
			const char *name = names ? (const char *)names[i] : NULL;
			if (i)
				sb_put(&json, ",", 1);
			if (name)
				sb_json_str(&json, name, strlen(name));
			else
				sb_put(&json, "null", 4);
		}
		sb_put(&json, "]", 1);
		s->names_json = json.p;
		s->next = sites;
		sites = s;
		atomic_fetch_add_explicit(&unwritten, 1, memory_order_relaxed);
	} else {
		s = NULL;  /* known already */
	}
	pthread_mutex_unlock(&sites_mu);
	/*
	 * A new call site goes to the spool now (once per site, not per call):
	 * the process may end any moment by a signal or an exec, and its events
	 * survive in shared memory (procs.h) but a site kept here would not.
	 */
	if (s) {
		interpose_flush();
		output_sync();
	}
}

static void note_call(uint64_t codeptr, const char *entry, int nowait, const ident_t *loc, int n,
		      void **bases, void **ptrs, const int64_t *sizes, const int64_t *types, void **names)
{
	static atomic_int exit_hooked;
	struct thread_state *t;

	/*
	 * Registered at the first offload call, after the runtime's own exit
	 * handlers: run before them, it marks the process as ending before the
	 * runtime finalizes the collector at exit(), so that another thread's
	 * calls then are not taken for calls after a pause.
	 */
	if (!atomic_load_explicit(&exit_hooked, memory_order_relaxed) && !atomic_exchange(&exit_hooked, 1))
		atexit(buffer_exiting);

	if (!buffer_recording()) {
		/*
		 * Offloading on after the runtime finalized the collector (not the
		 * process's end): 'record' says the recording misses it.
		 */
		if (buffer_finished_early())
			output_call_late();
		return;
	}
	if (!(t = thread_state()))
		return;
	t->call_codeptr = codeptr;
	t->call_nowait = nowait;
	t->call_n = n < MAP_ENTRIES_MAX ? n : MAP_ENTRIES_MAX;
	for (int i = 0; i < t->call_n; i++) {
		t->call_begin[i] = ptrs ? (uint64_t)ptrs[i] : 0;
		t->call_bytes[i] = sizes ? (uint64_t)sizes[i] : 0;
		t->call_slot[i] = bases && types && (types[i] & MAP_PTR_AND_OBJ) ? (uint64_t)bases[i] : 0;
	}
	/* The pointers this call will attach, before its first copy is hashed (attach.h). */
	attach_map_entries(n, bases, ptrs, sizes, types);
	note_site(t, codeptr, entry, loc, n, names);
}

int interpose_map_index(const struct thread_state *t, uint64_t addr)
{
	int best = -1;
	for (int i = 0; i < t->call_n; i++) {
		if (t->call_begin[i] == addr)
			return i;
		if (best < 0 && addr > t->call_begin[i] && addr < t->call_begin[i] + t->call_bytes[i])
			best = i;
	}
	return best;
}

int interpose_attach_index(const struct thread_state *t, uint64_t slot)
{
	for (int i = 0; slot && i < t->call_n; i++)
		if (t->call_slot[i] == slot)
			return i;
	return -1;
}

void interpose_flush(void)
{
	pthread_mutex_lock(&sites_mu);
	for (struct site *s = sites; s && !s->written; s = s->next) {
		output_frame(SPOOL_SOURCE, (int64_t)s->codeptr, s->entry, s->psource, s->names_json);
		s->written = 1;
	}
	atomic_store_explicit(&unwritten, 0, memory_order_relaxed);
	pthread_mutex_unlock(&sites_mu);
}

void interpose_at_fork(enum fork_moment when)
{
	int n = 0;

	if (when == FORK_PREPARE) {
		pthread_mutex_lock(&sites_mu);
		return;
	}
	if (when == FORK_CHILD) {
		/* The child's spool is new: every call site goes into it again. */
		for (struct site *s = sites; s; s = s->next, n++)
			s->written = 0;
		atomic_store_explicit(&unwritten, n, memory_order_relaxed);
	}
	pthread_mutex_unlock(&sites_mu);
}

int interpose_lock_free(void)
{
	if (pthread_mutex_trylock(&sites_mu))
		return 0;
	pthread_mutex_unlock(&sites_mu);
	return 1;
}

int interpose_pending(void)
{
	return atomic_load_explicit(&unwritten, memory_order_relaxed) != 0;
}

static int find_omptarget(struct dl_phdr_info *info, size_t size, void *arg)
{
	(void)size;
	if (info->dlpi_name && strstr(info->dlpi_name, "libomptarget.so")) {
		*(void **)arg = dlopen(info->dlpi_name, RTLD_LAZY | RTLD_NOLOAD);
		return *(void **)arg != NULL;
	}
	return 0;
}

/*
 * The runtime's own entry point, 'ours' being our definition of it.  Usually
 * the definition in the global scope; when that is ours (the collector was
 * preloaded) or there is none (libomptarget was loaded privately, with
 * dlopen RTLD_LOCAL, as by a Python extension), libomptarget's own.
 */
static void *real(const char *name, void *ours)
{
	void *fn = dlsym(RTLD_DEFAULT, name), *lib = NULL;
	if (!fn || fn == ours) {
		fn = NULL;
		dl_iterate_phdr(find_omptarget, &lib);
		if (lib)
			fn = dlsym(lib, name);
	}
	if (!fn || fn == ours) {
		clog_msg("cannot find '%s' in the OpenMP runtime", name);
		fn = NULL;
	}
	return fn;
}

#define RA() ((uint64_t)__builtin_return_address(0))

/*
 * mp_NAME: our NAME under a hidden alias.  Within this library NAME itself
 * binds through the global scope, where libomptarget's definition comes
 * first when the runtime loaded us with dlopen.
 */
#define OURS(name) extern __typeof(name) mp_##name __attribute__((alias(#name), visibility("hidden")))
EXPORT int __tgt_target_kernel(ident_t *loc, int64_t device, int32_t teams, int32_t threads,
			       void *host_ptr, kernel_args_t *args);
OURS(__tgt_target_kernel);
EXPORT int __tgt_target_kernel_nowait(ident_t *loc, int64_t device, int32_t teams,
				      int32_t threads, void *host_ptr, kernel_args_t *args,
				      int32_t ndeps, void *deps, int32_t nnoalias, void *noalias);
OURS(__tgt_target_kernel_nowait);

/* --- kernels ----------------------------------------------------------------- */

typedef int (*kernel_fn)(ident_t *, int64_t, int32_t, int32_t, void *, kernel_args_t *);
typedef int (*kernel_nowait_fn)(ident_t *, int64_t, int32_t, int32_t, void *, kernel_args_t *,
				int32_t, void *, int32_t, void *);

EXPORT int __tgt_target_kernel(ident_t *loc, int64_t device, int32_t teams, int32_t threads,
			       void *host_ptr, kernel_args_t *args)
{
	static kernel_fn fn;
	if (!fn)
		fn = (kernel_fn)real("__tgt_target_kernel", (void *)mp___tgt_target_kernel);
	if (!fn)
		return -1;  /* offload failed: the program runs the region on the host */
	if (args)
		note_call(RA(), "__tgt_target_kernel",
			  args->version >= 2 && (args->flags & KERNEL_ARGS_NOWAIT), loc, (int)args->num_args,
			  args->base_ptrs, args->ptrs, args->sizes, args->types, args->names);
	__attribute__((musttail)) return fn(loc, device, teams, threads, host_ptr, args);
}

EXPORT int __tgt_target_kernel_nowait(ident_t *loc, int64_t device, int32_t teams,
				      int32_t threads, void *host_ptr, kernel_args_t *args,
				      int32_t ndeps, void *deps, int32_t nnoalias, void *noalias)
{
	static kernel_nowait_fn fn;
	if (!fn)
		fn = (kernel_nowait_fn)real("__tgt_target_kernel_nowait",
					     (void *)mp___tgt_target_kernel_nowait);
	if (!fn)
		return -1;
	if (args)
		note_call(RA(), "__tgt_target_kernel_nowait", 1, loc, (int)args->num_args, args->base_ptrs,
			  args->ptrs, args->sizes, args->types, args->names);
	__attribute__((musttail)) return fn(loc, device, teams, threads, host_ptr, args, ndeps,
					    deps, nnoalias, noalias);
}

/* --- target data, enter/exit data, update ----------------------------------- */

typedef void (*mapper_fn)(ident_t *, int64_t, int32_t, void **, void **, int64_t *, int64_t *,
			  void **, void **);
typedef void (*mapper_nowait_fn)(ident_t *, int64_t, int32_t, void **, void **, int64_t *,
				 int64_t *, void **, void **, int32_t, void *, int32_t, void *);

#define MAPPER(name)                                                                          \
	EXPORT void name(ident_t *, int64_t, int32_t, void **, void **, int64_t *, int64_t *,  \
			 void **, void **);                                                    \
	OURS(name);                                                                            \
	EXPORT void name(ident_t *loc, int64_t device, int32_t n, void **bases, void **ptrs,   \
			 int64_t *sizes, int64_t *types, void **names, void **mappers)         \
	{                                                                                      \
		static mapper_fn fn;                                                           \
		if (!fn)                                                                       \
			fn = (mapper_fn)real(#name, (void *)mp_##name);                   \
		if (!fn)                                                                       \
			return;                                                                \
		note_call(RA(), #name, 0, loc, n, bases, ptrs, sizes, types, names);          \
		__attribute__((musttail)) return fn(loc, device, n, bases, ptrs, sizes, types, \
						    names, mappers);                           \
	}

#define MAPPER_NOWAIT(name)                                                                   \
	EXPORT void name(ident_t *, int64_t, int32_t, void **, void **, int64_t *, int64_t *,  \
			 void **, void **, int32_t, void *, int32_t, void *);                  \
	OURS(name);                                                                            \
	EXPORT void name(ident_t *loc, int64_t device, int32_t n, void **bases, void **ptrs,   \
			 int64_t *sizes, int64_t *types, void **names, void **mappers,         \
			 int32_t ndeps, void *deps, int32_t nnoalias, void *noalias)           \
	{                                                                                      \
		static mapper_nowait_fn fn;                                                    \
		if (!fn)                                                                       \
			fn = (mapper_nowait_fn)real(#name, (void *)mp_##name);            \
		if (!fn)                                                                       \
			return;                                                                \
		note_call(RA(), #name, 1, loc, n, bases, ptrs, sizes, types, names);          \
		__attribute__((musttail)) return fn(loc, device, n, bases, ptrs, sizes, types, \
						    names, mappers, ndeps, deps, nnoalias,     \
						    noalias);                                  \
	}

MAPPER(__tgt_target_data_begin_mapper)
MAPPER(__tgt_target_data_end_mapper)
MAPPER(__tgt_target_data_update_mapper)
MAPPER_NOWAIT(__tgt_target_data_begin_nowait_mapper)
MAPPER_NOWAIT(__tgt_target_data_end_nowait_mapper)
MAPPER_NOWAIT(__tgt_target_data_update_nowait_mapper)

#define TARGET(name) { #name, (void *)mp_##name }
static const struct got_target targets[] = {
	TARGET(__tgt_target_kernel),
	TARGET(__tgt_target_kernel_nowait),
	TARGET(__tgt_target_data_begin_mapper),
	TARGET(__tgt_target_data_end_mapper),
	TARGET(__tgt_target_data_update_mapper),
	TARGET(__tgt_target_data_begin_nowait_mapper),
	TARGET(__tgt_target_data_end_nowait_mapper),
	TARGET(__tgt_target_data_update_nowait_mapper),
};

void interpose_install(void)
{
	got_redirect(targets, sizeof(targets) / sizeof(targets[0]), "libomptarget");
}
