/*
 * nowait_sites.h - the call sites whose offload calls were 'nowait': the
 * code pointers of source_raw rows whose entry point is a nowait one
 * (__tgt_target_data_begin_nowait_mapper, ...: the collector saw the
 * program call it).  Every data operation of a construct carries its code
 * pointer (data_op_raw.codeptr), so a transfer is of a nowait construct
 * when its code pointer is one of these.
 *
 * target_raw's kinds are not read for it: LLVM 19 never reports a nowait
 * kind, and finding one would scan the whole table once more (the report
 * reads each event table once: tests/unit/test_report_passes.c).
 *
 * LLVM 19 enters a 'target nowait' construct through __tgt_target_kernel,
 * as a blocking one: its own map clauses' transfers are not among these
 * (they come before or after its own kernel, which needs them, anyway).
 *
 * The set grows with the program's call sites, never with the events.
 */
#ifndef MAPPROF_DB_NOWAIT_SITES_H
#define MAPPROF_DB_NOWAIT_SITES_H

#include <stddef.h>
#include <stdint.h>

struct db;

struct nowait_sites {
	uint64_t *codeptr;   /* sorted, distinct */
	size_t n;
};

/* Read them into *out.  0, or -1 with *err set (malloc'ed); release out either way. */
int nowait_sites_read(struct db *db, struct nowait_sites *out, char **err);

/* 1 when 'codeptr' is one of them. */
int nowait_sites_has(const struct nowait_sites *s, uint64_t codeptr);

/* Accepts a zeroed struct. */
void nowait_sites_release(struct nowait_sites *s);

#endif
