/*
 * units.c - times and sizes as a person reads them (lib/units.h).
 */
#include <stdio.h>

#include "lib/units.h"

char *format_ns(char *buf, size_t size, int64_t ns)
{
	if (ns < 1000)
		snprintf(buf, size, "%lld ns", (long long)ns);
	else if (ns < 1000000)
		snprintf(buf, size, "%.2f us", ns / 1e3);
	else if (ns < 1000000000)
		snprintf(buf, size, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.2f s", ns / 1e9);
	return buf;
}

char *format_bytes(char *buf, size_t size, uint64_t bytes)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, size, "%llu B", (unsigned long long)bytes);
		return buf;
	}
	while (v >= 1024 && u < 3) {
		v /= 1024;
		u++;
	}
	snprintf(buf, size, v < 10 ? "%.2f %s" : "%.1f %s", v, units[u]);
	return buf;
}
