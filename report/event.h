/*
 * event.h - one recorded event as the report stage sees it.
 *
 * The report stage reads the database views (data_ops, kernels, allocations)
 * into this struct, one at a time, in the order every detector documents and
 * relies on:  ORDER BY begin_ns, seq  over data operations and kernels merged.
 * Detectors never see SQLite; they see a stream of these.
 */
#ifndef MAPPROF_REPORT_EVENT_H
#define MAPPROF_REPORT_EVENT_H

#include <stdint.h>

enum ev_kind {
	EV_ALLOC,
	EV_TO_DEVICE,
	EV_FROM_DEVICE,
	EV_DELETE,
	EV_ASSOCIATE,
	EV_DISASSOCIATE,
	EV_KERNEL,
	EV_KIND_COUNT
};

struct event {
	int64_t seq;          /* global sequence number, unique */
	enum ev_kind kind;
	int thread;
	int src_device;       /* device numbers as the runtime reports them; */
	int dest_device;      /* the host has its own number (run.host_device) */
	uint64_t src_addr;
	uint64_t dest_addr;
	uint64_t bytes;       /* delete: size of the allocation it frees (0 if unknown) */
	int64_t begin_ns;     /* since run start */
	int64_t end_ns;
	int has_hash;         /* transfers whose host side was hashed */
	uint64_t hash;        /* XXH3-64 of the bytes moved */
	uint64_t codeptr;     /* return address in the program, 0 if unknown */
	int64_t target_id;    /* enclosing target construct, 0 if none */
	/*
	 * Kernels: device is dest_device; src_* unused.
	 * Alloc: src_addr = host address, dest_addr = device address.
	 * Delete: src_addr = device address, src_device = device; alloc_seq is
	 * the paired allocation (0 if none) and host_addr its host address.
	 */
	int64_t alloc_seq;
	uint64_t host_addr;
};

/* The name used in the database and JSON for a kind ("alloc", "kernel", ...). */
const char *ev_kind_name(enum ev_kind kind);

#endif
