/*
 * got.c - send a loaded object's calls to named functions elsewhere.
 *
 * A call from a shared object or the program to a function of another
 * object goes through a slot of its global offset table (a JUMP_SLOT
 * relocation for a PLT call, GLOB_DAT for an address taken or -fno-plt).
 * Writing our function's address into that slot redirects the calls, as
 * LD_PRELOAD would, but only for the objects we choose and at no cost to
 * anyone else: a preloaded library sits first in the loader's search list,
 * so every symbol the program and its libraries bind (about a hundred
 * thousand for an OpenMP offload program, most of them in libLLVM) is first
 * looked for in it: 1.9 M of the 32.6 M instructions a 12 ms sample ran
 * (callgrind).
 *
 * Slots in the RELRO segment are made writable for the write and read-only
 * again.  Only 64-bit objects with RELA relocations (x86-64, AArch64).
 */
#define _GNU_SOURCE
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "collector/got.h"
#include "collector/modules.h"

#if defined(__x86_64__)
#define R_JUMP_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB_DAT R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_JUMP_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB_DAT R_AARCH64_GLOB_DAT
#endif

struct got_walk {
	const struct got_target *targets;
	size_t n;
	const char *needed;  /* only objects that depend on a library whose name holds this */
	int program;         /* only the program itself (the first object), any name */
	int patched;
};

/*
 * A pointer from the dynamic section.  The loader rewrites them to addresses
 * on most targets; where it does not (and in the vDSO), they are offsets.
 */
static uintptr_t dyn_ptr(const struct dl_phdr_info *info, ElfW(Addr) v)
{
	return v < info->dlpi_addr ? info->dlpi_addr + v : v;
}

/*
 * Write fn into the slot at addr.  [lo, hi) is the object's RELRO range,
 * rounded down at both ends as the loader does when it makes it read-only
 * (a partial last page stays writable).
 */
static int write_slot(uintptr_t addr, void *fn, uintptr_t lo, uintptr_t hi)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t start = addr & ~(page - 1);
	int ro = addr >= (lo & ~(page - 1)) && addr < (hi & ~(page - 1));

	if (*(void **)addr == fn)
		return 0;
	if (ro && mprotect((void *)start, (size_t)page, PROT_READ | PROT_WRITE) < 0)
		return -1;
	/* An aligned 8-byte store: a thread calling through the slot sees the old or the new address. */
	__atomic_store_n((void **)addr, fn, __ATOMIC_RELEASE);
	if (ro)
		mprotect((void *)start, (size_t)page, PROT_READ);
	return 1;
}

#ifdef R_JUMP_SLOT
static void patch_relocs(const struct dl_phdr_info *info, struct got_walk *w, const ElfW(Rela) *rel,
			 size_t bytes, const ElfW(Sym) *symtab, const char *strtab, uintptr_t lo,
			 uintptr_t hi)
{
	for (size_t i = 0; i < bytes / sizeof(*rel); i++) {
		uint32_t type = (uint32_t)ELF64_R_TYPE(rel[i].r_info);
		const char *name;

		if (type != R_JUMP_SLOT && type != R_GLOB_DAT)
			continue;
		name = strtab + symtab[ELF64_R_SYM(rel[i].r_info)].st_name;
		if (!w->program && (name[0] != '_' || name[1] != '_'))
			continue;  /* every library call we redirect starts so; most do not */
		for (size_t k = 0; k < w->n; k++) {
			if (!strcmp(name, w->targets[k].name)) {
				if (write_slot(info->dlpi_addr + rel[i].r_offset, w->targets[k].fn, lo, hi) > 0)
					w->patched++;
				break;
			}
		}
	}
}
#endif

static int visit(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct got_walk *w = arg;
	const ElfW(Dyn) *dyn = NULL;
	uintptr_t lo = 0, hi = 0;
	(void)size;

	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		if (ph->p_type == PT_DYNAMIC) {
			dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
		} else if (ph->p_type == PT_GNU_RELRO) {
			lo = info->dlpi_addr + ph->p_vaddr;
			hi = lo + ph->p_memsz;
		}
	}
	if (!dyn)
		return w->program;
#ifdef R_JUMP_SLOT
	const ElfW(Sym) *symtab = NULL;
	const char *strtab = NULL;
	const ElfW(Rela) *jmprel = NULL, *rela = NULL;
	size_t jmprel_bytes = 0, rela_bytes = 0;
	int needs = 0, rela_plt = 1;

	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
		switch (d->d_tag) {
		case DT_SYMTAB:
			symtab = (const ElfW(Sym) *)dyn_ptr(info, d->d_un.d_ptr);
			break;
		case DT_STRTAB:
			strtab = (const char *)dyn_ptr(info, d->d_un.d_ptr);
			break;
		case DT_JMPREL:
			jmprel = (const ElfW(Rela) *)dyn_ptr(info, d->d_un.d_ptr);
			break;
		case DT_PLTRELSZ:
			jmprel_bytes = d->d_un.d_val;
			break;
		case DT_PLTREL:
			rela_plt = d->d_un.d_val == DT_RELA;
			break;
		case DT_RELA:
			rela = (const ElfW(Rela) *)dyn_ptr(info, d->d_un.d_ptr);
			break;
		case DT_RELASZ:
			rela_bytes = d->d_un.d_val;
			break;
		}
	}
	if (!symtab || !strtab || !rela_plt)
		return w->program;
	/* Only the objects that link the library the targets replace (a cheap test, before any relocation). */
	needs = w->program;
	for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL && !needs; d++)
		if (d->d_tag == DT_NEEDED && strstr(strtab + d->d_un.d_val, w->needed))
			needs = 1;
	if (!needs)
		return 0;
	if (jmprel)
		patch_relocs(info, w, jmprel, jmprel_bytes, symtab, strtab, lo, hi);
	if (rela)
		patch_relocs(info, w, rela, rela_bytes, symtab, strtab, lo, hi);
#else
	(void)lo;
	(void)hi;
	(void)w;
#endif
	return w->program;  /* the program is the first object: stop there */
}

int got_redirect(const struct got_target *targets, size_t n, const char *needed)
{
	/* One walk at a time: two would race between making a page writable and read-only again. */
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static unsigned long long walked_adds = (unsigned long long)-1;
	unsigned long long adds;
	struct got_walk w = { targets, n, needed, 0, 0 };

#ifndef R_JUMP_SLOT
	return -1;
#endif
	pthread_mutex_lock(&mu);
	/* Nothing loaded since the last walk: nothing new to redirect. */
	adds = modules_loaded();
	if (adds != walked_adds) {
		dl_iterate_phdr(visit, &w);
		walked_adds = adds;
	}
	pthread_mutex_unlock(&mu);
	return w.patched;
}

int got_redirect_program(const struct got_target *targets, size_t n)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	struct got_walk w = { targets, n, "", 1, 0 };

#ifndef R_JUMP_SLOT
	return -1;
#endif
	pthread_mutex_lock(&mu);
	dl_iterate_phdr(visit, &w);
	pthread_mutex_unlock(&mu);
	return w.patched;
}
