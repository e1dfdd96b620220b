/*
 * event.c - names of event kinds.
 */
#include "report/event.h"

const char *ev_kind_name(enum ev_kind kind)
{
	static const char *const names[EV_KIND_COUNT] = {
		"alloc", "to_device", "from_device", "delete", "associate", "disassociate",
		"kernel",
	};
	return (unsigned)kind < EV_KIND_COUNT ? names[kind] : "unknown";
}
