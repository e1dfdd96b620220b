/*
 * units.h - times and sizes as a person reads them ("1.23 ms", "4.00 KiB"),
 * for the terminal summary, SARIF messages and --fail-on lines.
 */
#ifndef MAPPROF_LIB_UNITS_H
#define MAPPROF_LIB_UNITS_H

#include <stddef.h>
#include <stdint.h>

/* "1.23 ms", "512 ns", "4.00 s" into buf (returns buf). */
char *format_ns(char *buf, size_t size, int64_t ns);
/* "512 B", "40.0 KiB", "1.50 GiB" into buf (returns buf). */
char *format_bytes(char *buf, size_t size, uint64_t bytes);

#endif
