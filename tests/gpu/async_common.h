/*
 * async_common.h - the async-hash check cases, shared by async_pageable.c
 * and async_pinned.c (one program per kind of host memory, so that a
 * runtime that cannot allocate pinned memory, or crashes doing so, loses
 * only the pinned answers).
 *
 * The question (issue #28): is the hash mapprof records for a from-device
 * transfer the hash of what the host buffer holds once the copy is
 * complete?  On a GPU the runtime may fire the data op's end callback right
 * after queuing an asynchronous copy, so a hash taken there can be of the
 * old (stale) host content.  Each case fills a host buffer with known
 * content (stale), lets a kernel write other known content (fresh) on the
 * device, and brings it back one way: map(from:) at a target construct's
 * end, 'target update from' or 'target exit data map(from:)', with or
 * without nowait (+ taskwait), large (where DMA takes long enough to be
 * seen) and small.  After the construct (and taskwait) is over the content
 * is complete by OpenMP's rules; the program checks it word by word and then
 * prints one line per case:
 *
 *   CHECK label=L op=O mem=M nowait=0|1 bytes=N fresh=H16 stale=H16 ok=1|0
 *
 * fresh and stale are the content hash of docs/database.md, from
 * tests/tracer/content_hash.h (written from that definition, sharing no code
 * with collector/).  Every
 * case moves a byte count no other case of the program moves, so that
 * scripts/gpu-check.sh finds its from_device row in the database and the
 * tracer's output by size alone.  "CHECK-SKIP mem=M reason=..." says a
 * kind of memory could not be allocated; ok=0 means the runtime delivered
 * wrong content (a runtime bug, not mapprof's).
 *
 * usage: async_pageable|async_pinned [LARGE_MIB]   (default 64)
 */
#ifndef ASYNC_COMMON_H
#define ASYNC_COMMON_H

#include <omp.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tracer/content_hash.h"

enum check_op { OP_FROM_END, OP_UPDATE, OP_EXIT_DATA };
enum check_mem { MEM_PAGEABLE, MEM_PINNED };

static const char *const op_names[] = { "from_end", "update", "exit_data" };
static const char *const mem_names[] = { "pageable", "pinned" };

/* LLVM's pinned host memory (libomptarget); weak: absent from other runtimes. */
extern void *llvm_omp_target_alloc_host(size_t bytes, int device) __attribute__((weak));
extern void llvm_omp_target_free_host(void *p, int device) __attribute__((weak));

/* The host's content before the kernel, and what the kernel writes: never equal. */
static inline uint32_t stale_word(size_t i)
{
	return (uint32_t)i * 747796405u + 0x1234567u;
}

#pragma omp declare target
static inline uint32_t fresh_word(size_t i, uint32_t salt)
{
	return ((uint32_t)i * 2654435761u) ^ (salt * 0x9e3779b9u) ^ 0x5a5a5a5au;
}
#pragma omp end declare target

static void *host_alloc(enum check_mem mem, size_t bytes)
{
	int dev = omp_get_default_device();

	if (mem == MEM_PAGEABLE)
		return malloc(bytes);
	if (llvm_omp_target_alloc_host) {
		void *p = llvm_omp_target_alloc_host(bytes, dev);
		if (p)
			return p;
	}
	return NULL;
}

static void host_free(enum check_mem mem, void *p)
{
	if (mem == MEM_PAGEABLE)
		free(p);
	else if (p && llvm_omp_target_free_host)
		llvm_omp_target_free_host(p, omp_get_default_device());
}

/* Run one case; print its CHECK line.  0, or -1 when its memory could not be had. */
static int run_case(enum check_op op, enum check_mem mem, int nowait, size_t bytes, uint32_t salt)
{
	size_t n = bytes / sizeof(uint32_t), bad = 0;
	uint32_t *buf = host_alloc(mem, bytes);
	uint64_t stale, fresh;
	char label[64];

	snprintf(label, sizeof(label), "%s-%s-%s-%s", op_names[op], mem_names[mem],
		 nowait ? "nowait" : "sync", bytes >= (1u << 20) ? "large" : "small");
	if (!buf) {
		printf("CHECK-SKIP label=%s mem=%s reason=cannot-allocate-%zu-bytes\n", label,
		       mem_names[mem], bytes);
		return -1;
	}
	for (size_t i = 0; i < n; i++)
		buf[i] = stale_word(i);
	stale = content_hash(buf, bytes);

	switch (op) {
	case OP_FROM_END:
		if (nowait) {
#pragma omp target teams distribute parallel for map(from: buf[0:n]) nowait
			for (size_t i = 0; i < n; i++)
				buf[i] = fresh_word(i, salt);
#pragma omp taskwait
		} else {
#pragma omp target teams distribute parallel for map(from: buf[0:n])
			for (size_t i = 0; i < n; i++)
				buf[i] = fresh_word(i, salt);
		}
		break;
	case OP_UPDATE: {
#pragma omp target enter data map(alloc: buf[0:n])
#pragma omp target teams distribute parallel for map(alloc: buf[0:n])
		for (size_t i = 0; i < n; i++)
			buf[i] = fresh_word(i, salt);
		if (nowait) {
#pragma omp target update from(buf[0:n]) nowait
#pragma omp taskwait
		} else {
#pragma omp target update from(buf[0:n])
		}
#pragma omp target exit data map(release: buf[0:n])
		break;
	}
	case OP_EXIT_DATA: {
#pragma omp target enter data map(alloc: buf[0:n])
#pragma omp target teams distribute parallel for map(alloc: buf[0:n])
		for (size_t i = 0; i < n; i++)
			buf[i] = fresh_word(i, salt);
		if (nowait) {
#pragma omp target exit data map(from: buf[0:n]) nowait
#pragma omp taskwait
		} else {
#pragma omp target exit data map(from: buf[0:n])
		}
		break;
	}
	}

	/* Complete by OpenMP's rules now: the construct, or its task, is over. */
	for (size_t i = 0; i < n; i++)
		bad += buf[i] != fresh_word(i, salt);
	fresh = content_hash(buf, bytes);
	printf("CHECK label=%s op=%s mem=%s nowait=%d bytes=%zu fresh=%016llx stale=%016llx ok=%d\n",
	       label, op_names[op], mem_names[mem], nowait, bytes, (unsigned long long)fresh,
	       (unsigned long long)stale, bad == 0);
	if (bad)
		fprintf(stderr, "%s: %zu of %zu words are not what the kernel wrote\n", label, bad, n);
	fflush(stdout);
	host_free(mem, buf);
	return 0;
}

/* Every case for one kind of memory: each op, sync and nowait, large and small. */
static int run_all(enum check_mem mem, int argc, char **argv)
{
	long large_mib = argc > 1 ? atol(argv[1]) : 64;
	uint32_t k = 0;

	if (large_mib < 1 || large_mib > 4096) {
		fprintf(stderr, "usage: %s [LARGE_MIB]   (1 to 4096, default 64)\n", argv[0]);
		return 2;
	}
	for (int op = OP_FROM_END; op <= OP_EXIT_DATA; op++)
		for (int nowait = 0; nowait <= 1; nowait++)
			for (int large = 1; large >= 0; large--, k++) {
				/* A byte count of its own per case (a multiple of 4). */
				size_t bytes = large ? (size_t)large_mib * 1024 * 1024 + k * 4096
						     : 4096 + k * 64;
				run_case((enum check_op)op, mem, nowait, bytes, k + 1);
			}
	return 0;
}

#endif
