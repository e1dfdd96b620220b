/*
 * unreported.c - what the runtime did not report (unreported.h).
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "report/output/unreported.h"

static void add(struct unreported *u, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void add(struct unreported *u, const char *what, const char *fmt, ...)
{
	va_list ap;

	if (u->n == UNREPORTED_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(u->text[u->n], UNREPORTED_TEXT, fmt, ap);
	va_end(ap);
	u->what[u->n++] = what;
}

int unreported_items(const struct analysis *a, struct unreported *u)
{
	const struct acc_summary *s = &a->acc;

	memset(u, 0, sizeof(*u));
	if (!s->events)
		return 0;
	if (!s->transfers)
		add(u, "transfers", "data transfers%s: of its %" PRId64 " events none was an upload or a "
		    "download, so no data mapping could be checked", s->data_events ? "" :
		    " and device allocations", s->events);
	else if (s->data_bytes < s->data_events)
		add(u, "transfer_bytes", "the bytes of %" PRId64 " of its %" PRId64 " data events (past the "
		    "event info's valid_bytes): those operations count as 0 bytes",
		    s->data_events - s->data_bytes, s->data_events);
	if (!s->src_given)
		add(u, "source_positions", "source positions (src_file, line_no): the lines shown are those "
		    "of the calls into the runtime on the stack, found in the program's line table");
	if (!s->var_given)
		add(u, "variable_names", "variable names (var_name)%s", s->data_events
		    ? ": data is named by its host address" : "");
	if (!s->launches && s->constructs)
		add(u, "launches", "kernel launches (enqueue_launch): a compute construct is timed as a whole");
	if (s->short_info)
		add(u, "event_details", "%" PRId64 " of its %" PRId64 " events came with the short event "
		    "info (valid_bytes 24): no bytes, no pointers", s->short_info, s->events);
	return u->n;
}

int unreported_text(const struct analysis *a, char *buf, size_t size)
{
	struct unreported u;
	size_t len;

	if (!unreported_items(a, &u) || !size)
		return 0;
	snprintf(buf, size, "Not reported by the OpenACC runtime (%s): ",
		 a->acc.runtime_lib ? a->acc.runtime_lib : "unknown library");
	for (int i = 0; i < u.n; i++) {
		len = strlen(buf);
		snprintf(buf + len, size - len, "%s%s", u.text[i], i + 1 < u.n ? "; " : ".");
	}
	return 1;
}
