/*
 * occurrence.c - the names of finding kinds, flavours and roles.
 */
#include "report/detect/occurrence.h"

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

const char *finding_advice(enum finding_kind kind, enum flavour flavour)
{
	switch (kind) {
	case FINDING_DUPLICATE_TRANSFER:
		if (flavour == FLAVOUR_SAME_CONTENT)
			return "Other data with identical content was already there (often zero-initialised "
			       "buffers): allocate and initialise such buffers on the device instead of "
			       "copying them, if it matters.";
		return "The receiver already had this data: map it once around the constructs that use it "
		       "(an enclosing 'target data' region, or 'target enter data'/'exit data') instead of "
		       "on each construct.";
	case FINDING_ROUND_TRIP:
		if (flavour == FLAVOUR_HOST_DEVICE_HOST)
			return "The device copy came back unchanged: map it 'to' instead of 'tofrom', or drop "
			       "the 'from' update.";
		if (flavour == FLAVOUR_DEVICE_HOST_DEVICE)
			return "The host sends back what the device just gave it: keep the data on the device "
			       "across these constructs with an enclosing 'target data' region, and bring the "
			       "device's results back with 'target update from' after a construct whose results "
			       "the host reads (or map it 'tofrom' on the region; 'to' alone would lose them).";
		return "The data came back unchanged between devices: keep one copy where it is used.";
	case FINDING_REPEATED_ALLOC:
		return "The same data is allocated and freed on the device again and again: map it once "
		       "with 'target enter data' before the loop and 'target exit data' after it.";
	case FINDING_UNUSED_ALLOC:
		return "No kernel ran on the device while this allocation lived: remove the mapping, or "
		       "move it to where a kernel uses the data.";
	case FINDING_UNUSED_TRANSFER:
		if (flavour == FLAVOUR_OVERWRITTEN)
			return "This transfer was overwritten before any kernel could read it: drop the "
			       "earlier update, or merge the two.";
		return "No kernel ran on the device after this transfer: remove it (often a 'to' where "
		       "'from' or nothing was meant).";
	default:
		return "";
	}
}
