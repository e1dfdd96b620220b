/*
 * got.h - send a loaded object's calls to named functions elsewhere, by
 * writing the object's GOT slots.  Asks modules.h whether anything was
 * loaded since the last walk; nothing else of the collector.
 */
#ifndef MAPPROF_COLLECTOR_GOT_H
#define MAPPROF_COLLECTOR_GOT_H

#include <stddef.h>

struct got_target {
	const char *name;
	void *fn;
};

/*
 * In every object loaded since the last call that depends on a library whose
 * name contains 'needed', point the GOT slots of the named functions at
 * ours.  The number of slots changed, or -1 on a target without support.
 */
int got_redirect(const struct got_target *targets, size_t n, const char *needed);

/*
 * The same in the program itself (the executable, not its libraries), for
 * functions of any name: the calls a process ends or replaces itself with
 * (procs.c).  The number of slots changed, or -1.
 */
int got_redirect_program(const struct got_target *targets, size_t n);

#endif
