/*
 * occurrence.c - the names of finding kinds, flavours and roles.
 */
#include "report/occurrence.h"

static const char *const kind_names[FINDING_KIND_COUNT] = {
	"duplicate_transfer", "round_trip", "repeated_alloc", "unused_alloc", "unused_transfer",
};

static const char *const flavour_names[FLAVOUR_COUNT] = {
	"", "same_data", "same_content", "host_device_host", "device_host_device",
	"device_device", "overwritten", "after_last_kernel",
};

static const char *const role_names[ROLE_COUNT] = {
	"transfer", "send", "return", "alloc", "delete",
};

const char *finding_kind_name(enum finding_kind kind)
{
	return (unsigned)kind < FINDING_KIND_COUNT ? kind_names[kind] : "unknown";
}

const char *flavour_name(enum flavour flavour)
{
	return (unsigned)flavour < FLAVOUR_COUNT ? flavour_names[flavour] : "unknown";
}

const char *op_role_name(enum op_role role)
{
	return (unsigned)role < ROLE_COUNT ? role_names[role] : "unknown";
}
