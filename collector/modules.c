/*
 * modules.c - the map of loaded ELF objects, for offline symbolization.
 *
 * Each object's path, load bias, mapped range and GNU build-id go into the
 * spool, once.  Objects loaded later (dlopen) are picked up whenever the
 * loader's add/remove counters move: at every buffer of events written, at
 * every offload image load, and at the end of the run.  A walk that finds
 * the counters where the last one left them stops at the first object.
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <unistd.h>

#include "collector/modules.h"
#include "collector/output.h"
#include "collector/state.h"

static unsigned long long seen_adds = (unsigned long long)-1, seen_subs;

/* Objects already in the spool, by load bias and name. */
#define DONE_MAX 1024
static struct {
	uint64_t base, name;
} done[DONE_MAX];
static int ndone;
static pthread_mutex_t modules_mu = PTHREAD_MUTEX_INITIALIZER;

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;  /* FNV-1a */
	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* Nonzero when already written; otherwise remembers it (while there is room). */
static int seen_before(uint64_t base, const char *name)
{
	uint64_t h = name_hash(name);
	for (int i = 0; i < ndone; i++)
		if (done[i].base == base && done[i].name == h)
			return 1;
	if (ndone < DONE_MAX) {
		done[ndone].base = base;
		done[ndone++].name = h;
	}
	return 0;
}

struct walk {
	int first;
	unsigned long long adds, subs;
};

/*
 * The first GNU build-id note in the PT_NOTE segment ph, as lower-case hex
 * in out (at most 63 bytes of it); nonzero when found.
 */
static int build_id_hex(const struct dl_phdr_info *info, const ElfW(Phdr) *ph, char out[128])
{
	static const char hex[] = "0123456789abcdef";
	const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;

	while (p + sizeof(ElfW(Nhdr)) <= end) {
		const ElfW(Nhdr) *nh = (const ElfW(Nhdr) *)p;
		const char *name = p + sizeof(*nh);
		const unsigned char *desc = (const unsigned char *)name + ((nh->n_namesz + 3) & ~3u);
		if (nh->n_type == NT_GNU_BUILD_ID && nh->n_namesz == 4 && !memcmp(name, "GNU", 4)) {
			unsigned n = nh->n_descsz < 63 ? nh->n_descsz : 63;
			for (unsigned j = 0; j < n; j++) {
				out[2 * j] = hex[desc[j] >> 4];
				out[2 * j + 1] = hex[desc[j] & 15];
			}
			out[2 * n] = 0;
			return 1;
		}
		p = (const char *)desc + ((nh->n_descsz + 3) & ~3u);
	}
	return 0;
}

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct walk *wk = arg;
	char path[4096], build_id[128];
	uint64_t low = UINT64_MAX, high = 0;
	const char *name = info->dlpi_name;
	int have_id = 0;
	(void)size;

	/*
	 * Nothing loaded or unloaded since the last walk: every object is in the
	 * spool (unless there are more than done[] holds: those are written again).
	 */
	if (wk->first && info->dlpi_adds == seen_adds && info->dlpi_subs == seen_subs &&
	    ndone < DONE_MAX)
		return 1;
	wk->adds = info->dlpi_adds;
	wk->subs = info->dlpi_subs;
	if (seen_before(info->dlpi_addr, name)) {
		wk->first = 0;
		return 0;
	}
	if (!name || !*name) {
		if (!wk->first)
			return 0;  /* only the executable has an empty name, and it comes first */
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);
		if (n <= 0)
			return 0;
		path[n] = 0;
		name = path;
	}
	wk->first = 0;
	build_id[0] = 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_NOTE && !have_id) {
			have_id = build_id_hex(info, ph, build_id);
			continue;
		}
		if (ph->p_type != PT_LOAD)
			continue;
		uint64_t a = info->dlpi_addr + ph->p_vaddr;
		if (a < low)
			low = a;
		if (a + ph->p_memsz > high)
			high = a + ph->p_memsz;
	}
	if (!high)
		return 0;
	output_frame(SPOOL_MODULE, name, (int64_t)info->dlpi_addr, (int64_t)low, (int64_t)high,
		     build_id[0] ? build_id : (const char *)NULL, now_ns() - collector_start_ns);
	return 0;
}

void modules_at_fork(enum fork_moment when)
{
	if (when == FORK_PREPARE) {
		pthread_mutex_lock(&modules_mu);
		return;
	}
	if (when == FORK_CHILD) {
		/* The child's spool is new: every object goes into it again. */
		ndone = 0;
		seen_adds = (unsigned long long)-1;
		seen_subs = 0;
	}
	pthread_mutex_unlock(&modules_mu);
}

void modules_record(void)
{
	struct walk wk;
	pthread_mutex_lock(&modules_mu);
	wk = (struct walk){ 1, seen_adds, seen_subs };
	dl_iterate_phdr(visit, &wk);
	seen_adds = wk.adds;
	seen_subs = wk.subs;
	pthread_mutex_unlock(&modules_mu);
}

static int peek(struct dl_phdr_info *info, size_t size, void *arg)
{
	unsigned long long *v = arg;
	(void)size;
	v[0] = info->dlpi_adds;
	v[1] = info->dlpi_subs;
	return 1;  /* the counters are the same in every entry: stop at the first */
}

unsigned long long modules_loaded(void)
{
	unsigned long long v[2] = { 0, 0 };
	dl_iterate_phdr(peek, v);
	return v[0];
}

int modules_lock_free(void)
{
	if (pthread_mutex_trylock(&modules_mu))
		return 0;
	pthread_mutex_unlock(&modules_mu);
	return 1;
}

int modules_changed(void)
{
	unsigned long long v[2] = { 0, 0 };
	dl_iterate_phdr(peek, v);
	return v[0] != seen_adds || v[1] != seen_subs;
}
